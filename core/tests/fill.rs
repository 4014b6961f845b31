//! `Writer::try_reserve_with` and its waiting forms `reserve_with`, `reserve_with_timeout`,
//! `reserve_with_async`: the closure's `Ok(k)` publishes `k` (clamped), its `Err` publishes
//! nothing and the slots are reused; a failed reservation (including a timeout) never calls
//! the closure; a waiting form fills once a reader frees space. Both claim kinds.

use std::future::Future;
use std::ops::Deref;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use spanring_core::parts::RingCore;
use spanring_core::sync::{AtomicUsize, Ordering};
use spanring_core::{
    multi_words, AsyncWait, ClaimMode, FillError, InlineStorage, ReadError, ReserveError, Ring,
    SliceStorage, WaitStrategy, WaitTimeout, WriteSpan,
};

fn bits(cap: usize) -> Vec<AtomicUsize> {
    (0..multi_words(cap)).map(|_| AtomicUsize::new(0)).collect()
}

#[test]
fn sp_error_publishes_nothing_and_slots_are_reused() {
    let mut memory = [0u32; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let out = w.try_reserve_with(4, |span| {
        span.copy_from_slice(&[1, 2, 3, 4]);
        Err("late failure")
    });
    assert_eq!(out, Err(FillError::Fill("late failure")));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
    assert_eq!(w.free(), 4); // the slots came back
    let out = w.try_reserve_with(4, |span| {
        span.copy_from_slice(&[5, 6, 7, 8]);
        Ok::<_, ()>(2)
    });
    assert_eq!(out, Ok(2));
    assert_eq!(r.try_read(8).unwrap().to_array::<2>(), Some([5, 6]));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
}

#[test]
fn mp_error_publishes_nothing() {
    let mut memory = [0u32; 4];
    let mut b = bits(4);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let out = w.try_reserve_with(3, |span| {
        span.fill(9);
        Err(17u8)
    });
    assert_eq!(out, Err(FillError::Fill(17)));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
    assert_eq!(w.try_reserve_with(2, |_| Ok::<_, ()>(2)), Ok(2));
    assert_eq!(r.try_read(8).unwrap().len(), 2);
}

#[test]
fn ok_count_is_clamped_to_the_span() {
    let mut memory = [0u32; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    assert_eq!(w.try_reserve_with(2, |_| Ok::<_, ()>(100)), Ok(2));
    assert_eq!(r.try_read(8).unwrap().len(), 2);
}

#[test]
fn failed_reservation_does_not_call_the_closure() {
    let mut memory = [0u32; 2];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let _r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut called = false;
    let out = w.try_reserve_with(3, |_| {
        called = true;
        Ok::<_, ()>(0)
    });
    assert_eq!(
        out,
        Err(FillError::Reserve(ReserveError::TooLarge {
            requested: 3,
            capacity: 2
        }))
    );
    ring.close();
    let out = w.try_reserve_with(1, |_| {
        called = true;
        Ok::<_, ()>(1)
    });
    assert!(out.as_ref().unwrap_err().is_terminal());
    assert!(!called);
}

/// Yields between checks and counts the waits that found the ring full, so a test can tell
/// that a writer is really waiting before it frees space.
#[derive(Default)]
struct CountingYield {
    waits: AtomicUsize,
}

impl CountingYield {
    /// Spins (yielding) until some writer is inside the strategy.
    fn until_someone_waits(&self) {
        // Relaxed: only says the writer got here; the items it then reads and writes are
        // ordered by the ring's own cursors.
        while self.waits.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
    }
}

impl WaitStrategy for CountingYield {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        // Relaxed: as in `until_someone_waits`.
        self.waits.fetch_add(1, Ordering::Relaxed);
        while !ready() {
            std::thread::yield_now();
        }
    }
    fn notify_all(&self) {}
}

impl WaitTimeout for CountingYield {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        // Relaxed: as in `until_someone_waits`.
        self.waits.fetch_add(1, Ordering::Relaxed);
        let deadline = Instant::now() + timeout;
        while !ready() {
            if Instant::now() >= deadline {
                return ready(); // one last check, as the trait asks
            }
            std::thread::yield_now();
        }
        true
    }
}

/// A full four-slot ring holding 1, 2, 3, 4: a second thread's `reserve_with(3)` waits until
/// this thread reads three items, then fills and publishes 5, 6, 7.
fn waiting_fill_after_reader_frees_space<P: ClaimMode + Sync>(
    ring: &Ring<SliceStorage<'_, u32>, P, CountingYield>,
) {
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_reserve(4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
    std::thread::scope(|s| {
        let writer = s.spawn(|| {
            w.reserve_with(3, |span| {
                span.copy_from_slice(&[5, 6, 7]);
                Ok::<_, ()>(3)
            })
        });
        ring.space_wait().until_someone_waits();
        assert_eq!(r.try_read(3).unwrap().to_array::<3>(), Some([1, 2, 3]));
        assert_eq!(writer.join().unwrap(), Ok(3));
    });
    assert_eq!(r.try_read(8).unwrap().to_array::<4>(), Some([4, 5, 6, 7]));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
}

#[test]
fn sp_waiting_fill_publishes_once_a_reader_frees_space() {
    let mut memory = [0u32; 4];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CountingYield>()
        .build()
        .unwrap();
    waiting_fill_after_reader_frees_space(&ring);
}

#[test]
fn mp_waiting_fill_publishes_once_a_reader_frees_space() {
    let mut memory = [0u32; 4];
    let mut b = bits(4);
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CountingYield>()
        .multi_producer(&mut b[..])
        .build()
        .unwrap();
    waiting_fill_after_reader_frees_space(&ring);
}

#[test]
fn waiting_fill_errors_publish_nothing() {
    let mut memory = [0u32; 4];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CountingYield>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let out = w.reserve_with(4, |span| {
        span.fill(1);
        Err("late failure")
    });
    assert_eq!(out, Err(FillError::Fill("late failure")));
    let out = w.reserve_with_timeout(4, Duration::from_secs(5), |span| {
        span.fill(2);
        Err("late failure")
    });
    assert_eq!(out, Err(FillError::Fill("late failure")));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
    assert_eq!(w.free(), 4); // the slots came back
    assert_eq!(ring.space_wait().waits.load(Ordering::Relaxed), 0); // and nothing waited
}

#[test]
fn timeout_fill_on_a_full_ring_times_out_without_calling_fill() {
    let mut memory = [0u32; 2];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CountingYield>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
    let mut called = false;
    let out = w.reserve_with_timeout(1, Duration::from_millis(5), |_| {
        called = true;
        Ok::<_, ()>(1)
    });
    assert_eq!(out, Err(FillError::Reserve(ReserveError::TimedOut)));
    assert!(!called);
    assert_eq!(ring.space_wait().waits.load(Ordering::Relaxed), 1);
    assert_eq!(r.try_pop(), Ok(1));
    let out = w.reserve_with_timeout(1, Duration::from_secs(5), |span| {
        span[0] = 3;
        Ok::<_, ()>(1)
    });
    assert_eq!(out, Ok(1)); // a slot was free: no waiting
    assert_eq!(r.try_read(8).unwrap().to_array::<2>(), Some([2, 3]));
}

#[test]
fn waiting_fills_report_reserve_errors_without_calling_fill() {
    let mut memory = [0u32; 2];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CountingYield>()
        .build()
        .unwrap();
    let _r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let too_large = Err(FillError::Reserve(ReserveError::TooLarge {
        requested: 3,
        capacity: 2,
    }));
    assert_eq!(w.reserve_with(3, never), too_large);
    assert_eq!(
        w.reserve_with_timeout(3, Duration::from_secs(5), never),
        too_large
    );
    ring.close();
    let closed = Err(FillError::Reserve(ReserveError::Closed));
    assert_eq!(w.reserve_with(1, never), closed);
    assert_eq!(
        w.reserve_with_timeout(1, Duration::from_secs(5), never),
        closed
    );
}

/// A fill closure for calls that must not reach it.
fn never<R>(_: &mut WriteSpan<'_, R>) -> Result<usize, ()>
where
    R: Deref,
    R::Target: RingCore,
{
    panic!("fill called")
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
fn async_fill_waits_for_space_then_publishes_or_not() {
    let ring = Ring::builder(InlineStorage::new([0u32; 2]))
        .wait::<AsyncWait>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    w.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
    let mut called = false;
    {
        let mut fut = pin!(w.reserve_with_async(1, |span| {
            called = true;
            span[0] = 3;
            Ok::<_, ()>(1)
        }));
        assert!(fut.as_mut().poll(&mut cx).is_pending(), "ring full");
        assert_eq!(r.try_pop(), Ok(1));
        // Relaxed: same thread.
        assert_eq!(
            count.0.load(Ordering::Relaxed),
            1,
            "consuming wakes the writer"
        );
        assert_eq!(fut.as_mut().poll(&mut cx), Poll::Ready(Ok(1)));
    }
    assert!(called);
    assert_eq!(r.try_pop(), Ok(2));
    let out = pin!(w.reserve_with_async(1, |span| {
        span[0] = 4;
        Err('x')
    }))
    .poll(&mut cx);
    assert_eq!(out, Poll::Ready(Err(FillError::Fill('x'))));
    assert_eq!(r.try_read(8).unwrap().to_array::<1>(), Some([3]));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
    {
        // Dropped while pending: nothing claimed, the closure never runs.
        w.try_reserve(2).unwrap().fill(5);
        let mut fut = pin!(w.reserve_with_async(1, never));
        assert!(fut.as_mut().poll(&mut cx).is_pending());
    }
    assert_eq!(r.try_read(8).unwrap().to_array::<2>(), Some([5, 5]));
    assert_eq!(w.free(), 2);
}
