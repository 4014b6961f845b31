//! `static` rings from the `const` constructors, in the configurations the single
//! `new_inline` could not build before: an async ring with one reader slot, and a
//! multi-producer ring above 1024 slots (its 4096 record words built in `const` context too).
//! Both are used across laps, from threads (the async one polled by hand: no executor).

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use spanring_core::sync::AtomicUsize;
use spanring_core::{AsyncWait, AttachError, Backoff, InlineStorage, MultiProducer, Ring};
use spanring_core::{ReadError, SingleProducer};

type AsyncSamples = Ring<InlineStorage<u32, 8>, SingleProducer, AsyncWait, 1>;
static ASYNC_SAMPLES: AsyncSamples =
    Ring::new_inline_with([0; 8], AsyncWait::new(), AsyncWait::new());

/// A waker that does nothing: the test polls again itself after each step.
struct Nothing;
impl Wake for Nothing {
    fn wake(self: Arc<Self>) {}
}

/// Polls `f` until it is ready (it makes progress because the other side was advanced by the
/// caller between polls); panics after `limit` polls.
fn poll_ready<F: Future>(f: F, limit: usize) -> F::Output {
    let waker = Waker::from(Arc::new(Nothing));
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    for _ in 0..limit {
        if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
            return out;
        }
    }
    panic!("not ready after {limit} polls");
}

/// One reader slot, async push and pop across several laps of 8 slots, and the end of the
/// stream when the writer goes.
#[test]
fn a_static_async_ring_with_one_reader_slot_streams_across_laps() {
    let mut r = ASYNC_SAMPLES.reader().unwrap();
    assert_eq!(
        ASYNC_SAMPLES.reader().unwrap_err(),
        AttachError::TooManyReaders { max: 1 }
    );
    let mut w = ASYNC_SAMPLES.writer().unwrap();
    for x in 0..40u32 {
        poll_ready(w.push_async(x), 1).unwrap(); // room: ready at once
        assert_eq!(poll_ready(r.pop_async(), 1), Ok(x));
    }
    // A full ring: the push waits, and completes once the reader made room.
    for x in 40..48u32 {
        poll_ready(w.push_async(x), 1).unwrap();
    }
    {
        let waker = Waker::from(Arc::new(Nothing));
        let mut cx = Context::from_waker(&waker);
        let mut push = pin!(w.push_async(48));
        assert!(push.as_mut().poll(&mut cx).is_pending());
        assert_eq!(r.try_pop(), Ok(40));
        assert_eq!(push.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
    }
    drop(w);
    let rest: Vec<u32> = std::iter::from_fn(|| poll_ready(r.pop_async(), 1).ok()).collect();
    assert_eq!(rest, (41..49).collect::<Vec<_>>());
    assert_eq!(poll_ready(r.pop_async(), 1), Err(ReadError::Closed));
}

type Events = Ring<InlineStorage<u64, 4096>, MultiProducer<[AtomicUsize; 4096]>, Backoff, 2>;
static EVENTS: Events = Ring::new_inline_multi([0; 4096], Backoff::new(), Backoff::new());

/// 4096 slots and 4096 record words, all `const`: two writer threads push 5 laps' worth
/// each (under Miri 20: the threads there cost most), two readers each see every item, each writer's in
/// order.
#[test]
fn a_static_multi_producer_ring_of_4096_slots_takes_two_writers_across_laps() {
    const PER_WRITER: u64 = if cfg!(miri) { 20 } else { 5 * 4096 };
    let readers = [EVENTS.reader().unwrap(), EVENTS.reader().unwrap()];
    let first = EVENTS.writer().unwrap();
    let writers = [first.clone(), first];
    std::thread::scope(|s| {
        for (t, mut w) in (0u64..).zip(writers) {
            s.spawn(move || {
                for i in 0..PER_WRITER {
                    w.push(t << 32 | i).unwrap();
                }
            }); // the last writer to finish closes the ring
        }
        for r in readers {
            s.spawn(move || {
                let mut next = [0u64; 2];
                for x in r {
                    let (t, i) = ((x >> 32) as usize, x & 0xffff_ffff);
                    assert_eq!(i, next[t], "writer {t}'s items out of order");
                    next[t] += 1;
                }
                assert_eq!(next, [PER_WRITER; 2]);
            });
        }
    });
}
