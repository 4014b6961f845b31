//! The owned handles forward the one-item and convenience API: `OwnedReader` forwards
//! `try_pop`/`pop`/`pop_timeout`, `try_read_all`/`read_all`, `available` (`&self`) and the
//! async reads; `OwnedWriter` (core's `Writer` over an `Arc`) has `try_push`/`push`/
//! `push_timeout`/`try_reserve_with` and its waiting forms. The async reads are polled by hand with a counting waker,
//! so the test is deterministic (no threads, no sleeps).

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::Duration;

use spanring_core::{AsyncWait, FillError, PushError, ReadError};
use spanring_std::owned;

const SHORT: Duration = Duration::from_millis(1);

#[test]
fn one_item_calls_through_owned_handles() {
    let (mut w, mut r) = owned::portable::<u64>(2).build().unwrap();
    let late = r.subscribe().unwrap();
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
    assert_eq!(r.pop_timeout(SHORT), Err(ReadError::TimedOut));
    w.try_push(1).unwrap();
    w.push(2).unwrap();
    assert_eq!(w.try_push(3), Err(PushError::Full(3)));
    drop(late); // the subscribed reader no longer holds slots back
    assert_eq!(w.push_timeout(3, SHORT), Err(PushError::TimedOut(3)));
    assert_eq!(r.available(), 2);
    assert_eq!(r.try_pop(), Ok(1));
    assert_eq!(r.pop_timeout(SHORT), Ok(2));
    w.push_timeout(3, SHORT).unwrap();
    assert_eq!(r.pop(), Ok(3));
    drop(r); // the last reader handle closes the ring
    let e = w.try_push(4).unwrap_err();
    assert_eq!(e, PushError::Closed(4));
    assert!(e.is_terminal());
}

#[test]
fn pop_waits_for_a_pushing_thread_in_order() {
    const ITEMS: u64 = if cfg!(miri) { 50 } else { 10_000 };
    let (mut w, mut r) = owned::portable::<u64>(8).multi_producer().build().unwrap();
    let producer = thread::spawn(move || {
        for i in 0..ITEMS {
            w.push(i).unwrap();
        }
    });
    let mut expected = 0;
    loop {
        match r.pop() {
            Ok(v) => {
                assert_eq!(v, expected);
                expected += 1;
            }
            Err(e) if e.is_terminal() => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(expected, ITEMS);
    producer.join().unwrap();
}

#[test]
fn read_all_and_fill_through_owned_handles() {
    let (mut w, mut r) = owned::portable::<u32>(4).build().unwrap();
    let out = w.try_reserve_with(3, |span| {
        span.copy_from_slice(&[1, 2, 3]);
        Err("rejected")
    });
    assert_eq!(out, Err(FillError::Fill("rejected")));
    assert_eq!(r.try_read_all().unwrap_err(), ReadError::Empty);
    assert_eq!(
        w.try_reserve_with(3, |span| {
            span.copy_from_slice(&[4, 5, 6]);
            Ok::<_, ()>(3)
        }),
        Ok(3)
    );
    assert_eq!(r.try_read_all().unwrap().to_array::<3>(), Some([4, 5, 6]));
    // The waiting forms, on a ring with room (nothing to wait for).
    assert_eq!(w.reserve_with(2, |_| Err('x')), Err(FillError::Fill('x')));
    assert_eq!(w.reserve_with_timeout(4, SHORT, |_| Ok::<_, ()>(0)), Ok(0));
    assert_eq!(r.try_read_all().unwrap_err(), ReadError::Empty);
    w.try_push(7).unwrap();
    drop(w);
    assert_eq!(r.read_all().unwrap().to_array::<1>(), Some([7]));
    assert_eq!(r.read_all().unwrap_err(), ReadError::Closed);
}

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

#[test]
fn owned_reader_reads_asynchronously() {
    let (mut w, mut r) = owned::portable::<u32>(4)
        .wait::<AsyncWait>()
        .build()
        .unwrap();
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    {
        let mut read = pin!(r.read_async(4));
        assert!(read.as_mut().poll(&mut cx).is_pending());
        w.try_push(1).unwrap();
        w.try_push(2).unwrap();
        // Relaxed: same thread.
        assert!(
            count.0.load(Ordering::Relaxed) >= 1,
            "publishing wakes the reader"
        );
        match read.as_mut().poll(&mut cx) {
            Poll::Ready(Ok(span)) => assert_eq!(span.to_array::<2>(), Some([1, 2])),
            other => panic!("expected two items, got {other:?}"),
        }
    }
    {
        let mut exact = pin!(r.read_exact_async(2));
        w.try_push(3).unwrap();
        assert!(exact.as_mut().poll(&mut cx).is_pending(), "only one of two");
        w.try_push(4).unwrap();
        match exact.as_mut().poll(&mut cx) {
            Poll::Ready(Ok(span)) => assert_eq!(span.to_array::<2>(), Some([3, 4])),
            other => panic!("expected two items, got {other:?}"),
        }
    }
    drop(w);
    let mut end = pin!(r.read_async(4));
    assert!(matches!(
        end.as_mut().poll(&mut cx),
        Poll::Ready(Err(ReadError::Closed))
    ));
}

#[test]
fn owned_writer_reserves_asynchronously_against_owned_reader() {
    let (mut w, mut r) = owned::portable::<u32>(1)
        .wait::<AsyncWait>()
        .build()
        .unwrap();
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    w.try_push(1).unwrap();
    let mut reserve = pin!(w.reserve_async(1));
    assert!(reserve.as_mut().poll(&mut cx).is_pending(), "ring full");
    assert_eq!(r.try_pop(), Ok(1));
    // Relaxed: same thread.
    assert!(
        count.0.load(Ordering::Relaxed) >= 1,
        "consuming wakes the writer"
    );
    match reserve.as_mut().poll(&mut cx) {
        Poll::Ready(Ok(mut span)) => span[0] = 2,
        other => panic!("expected a span, got {other:?}"),
    }
    assert_eq!(r.try_pop(), Ok(2));
}

#[test]
fn owned_reader_pops_asynchronously_and_owned_writer_pushes() {
    let (mut w, mut r) = owned::portable::<u32>(1)
        .wait::<AsyncWait>()
        .build()
        .unwrap();
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    {
        let mut pop = pin!(r.pop_async());
        assert!(pop.as_mut().poll(&mut cx).is_pending());
        w.try_push(10).unwrap();
        // Relaxed: same thread.
        assert!(
            count.0.load(Ordering::Relaxed) >= 1,
            "publishing wakes the reader"
        );
        assert_eq!(pop.as_mut().poll(&mut cx), Poll::Ready(Ok(10)));
    }
    w.try_push(11).unwrap();
    {
        let mut push = pin!(w.push_async(12));
        assert!(push.as_mut().poll(&mut cx).is_pending(), "ring full");
        assert_eq!(r.try_pop(), Ok(11));
        assert_eq!(push.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
    }
    assert_eq!(r.try_pop(), Ok(12));
    drop(w);
    let mut end = pin!(r.pop_async());
    assert_eq!(
        end.as_mut().poll(&mut cx),
        Poll::Ready(Err(ReadError::Closed))
    );
}

#[test]
fn push_async_gives_the_item_back_when_closed() {
    let (mut w, r) = owned::portable::<u32>(2)
        .wait::<AsyncWait>()
        .build()
        .unwrap();
    drop(r); // the last reader handle closes the ring
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count);
    let mut cx = Context::from_waker(&waker);
    let mut push = pin!(w.push_async(5));
    assert_eq!(
        push.as_mut().poll(&mut cx),
        Poll::Ready(Err(PushError::Closed(5)))
    );
}
