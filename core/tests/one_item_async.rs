//! `Writer::push_async` and `Reader::pop_async`, polled by hand with a counting waker (no
//! executor, no threads, no sleeps): in order, wake-ups on publish/consume, cancel safety of
//! `pop_async`, the item back on `Closed`, and a multi-producer ring.

use spanring_core::sync::{AtomicUsize, Ordering};
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use spanring_core::{
    multi_words, AsyncWait, InlineStorage, PushError, ReadError, Ring, SliceStorage,
};

/// Counts wake-ups.
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        // Relaxed: a count read on this same thread.
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn waker() -> (Arc<Count>, Waker) {
    let count = Arc::new(Count(AtomicUsize::new(0)));
    (count.clone(), Waker::from(count))
}

fn wakes(count: &Count) -> usize {
    // Relaxed: same thread.
    count.0.load(Ordering::Relaxed)
}

#[test]
fn push_and_pop_async_in_order_with_wake_ups() {
    let ring = Ring::builder(InlineStorage::new([0u32; 2]))
        .wait::<AsyncWait>()
        .start_at(usize::MAX)
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let (count, waker) = waker();
    let mut cx = Context::from_waker(&waker);
    {
        let mut pop = pin!(r.pop_async());
        assert!(pop.as_mut().poll(&mut cx).is_pending());
        let mut push = pin!(w.push_async(1));
        assert_eq!(push.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
        assert_eq!(wakes(&count), 1, "publishing wakes the reader");
        assert_eq!(pop.as_mut().poll(&mut cx), Poll::Ready(Ok(1)));
    }
    for i in 2..4 {
        assert_eq!(pin!(w.push_async(i)).poll(&mut cx), Poll::Ready(Ok(())));
    }
    {
        let mut push = pin!(w.push_async(4));
        assert!(push.as_mut().poll(&mut cx).is_pending(), "ring full");
        let before = wakes(&count);
        assert_eq!(r.try_pop(), Ok(2));
        assert!(wakes(&count) > before, "consuming wakes the writer");
        assert_eq!(push.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
    }
    assert_eq!(pin!(r.pop_async()).poll(&mut cx), Poll::Ready(Ok(3)));
    assert_eq!(pin!(r.pop_async()).poll(&mut cx), Poll::Ready(Ok(4)));
}

#[test]
fn dropped_pop_async_consumes_nothing() {
    let ring = Ring::builder(InlineStorage::new([0u32; 4]))
        .wait::<AsyncWait>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let (_count, waker) = waker();
    let mut cx = Context::from_waker(&waker);
    {
        let mut pop = pin!(r.pop_async());
        assert!(pop.as_mut().poll(&mut cx).is_pending());
    } // cancelled while pending
    w.try_push(7).unwrap();
    drop(r.pop_async()); // never polled
    assert_eq!(r.try_pop(), Ok(7));
    assert_eq!(
        ring.data_wait().registered(),
        0,
        "the cancelled future gave its cell back"
    );
}

#[test]
fn closed_ends_pop_async_and_gives_the_pushed_item_back() {
    let ring = Ring::builder(InlineStorage::new([0u32; 4]))
        .wait::<AsyncWait>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let (_count, waker) = waker();
    let mut cx = Context::from_waker(&waker);
    w.try_push(1).unwrap();
    ring.close();
    assert_eq!(
        pin!(w.push_async(2)).poll(&mut cx),
        Poll::Ready(Err(PushError::Closed(2)))
    );
    assert_eq!(pin!(r.pop_async()).poll(&mut cx), Poll::Ready(Ok(1)));
    assert_eq!(
        pin!(r.pop_async()).poll(&mut cx),
        Poll::Ready(Err(ReadError::Closed))
    );
}

#[test]
fn mp_push_and_pop_async() {
    let mut memory = [0u32; 4];
    let mut bits: Vec<AtomicUsize> = (0..multi_words(4)).map(|_| AtomicUsize::new(0)).collect();
    let ring: Ring<_, _, AsyncWait> = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<AsyncWait>()
        .multi_producer(&mut bits[..])
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b = a.clone();
    let (_count, waker) = waker();
    let mut cx = Context::from_waker(&waker);
    assert_eq!(pin!(a.push_async(1)).poll(&mut cx), Poll::Ready(Ok(())));
    assert_eq!(pin!(b.push_async(2)).poll(&mut cx), Poll::Ready(Ok(())));
    assert_eq!(pin!(r.pop_async()).poll(&mut cx), Poll::Ready(Ok(1)));
    assert_eq!(pin!(r.pop_async()).poll(&mut cx), Poll::Ready(Ok(2)));
}
