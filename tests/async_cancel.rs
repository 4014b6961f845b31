//! Cancel safety: futures dropped while pending, at random points, leave nothing claimed and
//! nothing lost. Every item is still delivered exactly once and in order, the ring does not
//! stall, and every waker cell is free afterwards.

mod async_support;

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use async_support::{tag, InOrder};
use spanring::std_ext::HeapStorage;
use spanring::sync::AtomicUsize;
use spanring::{
    multi_words, AsyncWait, InlineStorage, MultiProducer, ReadError, Reader, Ring, Writer,
};

/// xorshift64*: deterministic pseudo-random cancellation points.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// Ready after `k` polls (waking itself in between), or after a short timer: what the
/// operations race against. The countdown cancels pending futures at exact poll counts; the
/// timer (tokio rounds it up to its 1 ms tick) cancels long waits.
async fn cancel_point(rng: &mut Rng) {
    let mut k = rng.below(4);
    if rng.below(4) == 0 {
        tokio::time::sleep(Duration::from_micros(rng.below(50))).await;
        return;
    }
    std::future::poll_fn(move |cx| {
        if k == 0 {
            Poll::Ready(())
        } else {
            k -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

/// Polls `fut` once and reports whether it was ready (the future is dropped either way).
fn poll_once<F: Future>(fut: F, cx: &mut Context<'_>) -> Option<F::Output> {
    match pin!(fut).poll(cx) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// One thread, deterministic: a producer and two readers, where at random steps a future is
/// polled once and dropped (pending or not), interleaved with completed operations.
#[test]
fn poll_once_and_drop_at_random_points() {
    const ITEMS: u64 = 20_000;
    let ring = Ring::builder(InlineStorage::new([0; 8]))
        .wait::<AsyncWait<2>>()
        .build()
        .unwrap();
    let mut writer = ring.writer().unwrap();
    let mut readers = [ring.reader().unwrap(), ring.reader().unwrap()];
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut written, mut next) = (0u64, [0u64; 2]);
    let mut cancelled_pending = 0;
    while next.iter().any(|&n| n < ITEMS) {
        let who = rng.below(3) as usize;
        let n = 1 + rng.below(5) as usize;
        let cancel = rng.below(2) == 0;
        if who == 2 {
            if written >= ITEMS {
                continue;
            }
            let n = n.min((ITEMS - written) as usize);
            let fut = writer.reserve_async(n);
            if cancel {
                // Even a future that would be ready is dropped unpolled or after one poll.
                if rng.below(2) == 0 {
                    drop(fut);
                    continue;
                }
            }
            match poll_once(fut, &mut cx) {
                Some(Ok(mut span)) => {
                    for slot in span.iter_mut() {
                        *slot = tag(0, written);
                        written += 1;
                    }
                }
                Some(Err(e)) => panic!("{e}"),
                None => cancelled_pending += 1,
            }
        } else {
            let r = &mut readers[who];
            match poll_once(r.read_async(n), &mut cx) {
                Some(Ok(items)) => {
                    for &item in items.iter() {
                        assert_eq!(item, tag(0, next[who]), "reader {who}");
                        next[who] += 1;
                    }
                }
                Some(Err(e)) => panic!("{e}"),
                None => cancelled_pending += 1,
            }
        }
        assert!(ring.space_wait().registered() == 0 && ring.data_wait().registered() == 0);
    }
    assert_eq!(next, [ITEMS; 2]);
    assert!(
        cancelled_pending > 100,
        "too few pending futures were dropped: {cancelled_pending}"
    );
    // Nothing is left claimed: the whole ring is free again.
    assert_eq!(writer.free(), 8);
    assert_eq!(ring.space_wait().occupied_cells(), 0);
    assert_eq!(ring.data_wait().occupied_cells(), 0);
}

type MpRing = Ring<HeapStorage<u64>, MultiProducer<Box<[AtomicUsize]>>, AsyncWait<4>, 4>;

/// tokio, multi-threaded: every `reserve_async` and `read_async` races a random
/// [`cancel_point`] in `select!`; when that wins the future is dropped (cancelled) and the operation is
/// retried. Exactly-once delivery per producer, no stall (watchdog), no leaked cell.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn select_against_timers() {
    const PRODUCERS: usize = 3;
    const ITEMS: u64 = 20_000;
    let capacity = 16;
    let bits: Box<[AtomicUsize]> = (0..multi_words(capacity))
        .map(|_| AtomicUsize::new(0))
        .collect();
    let ring: Arc<MpRing> = Arc::new(
        Ring::builder(HeapStorage::with_capacity(capacity).unwrap())
            .wait::<AsyncWait<4>>()
            .multi_producer(bits)
            .build()
            .unwrap(),
    );
    let readers: Vec<_> = (0..2)
        .map(|_| Reader::attach(ring.clone()).unwrap())
        .collect();
    let first = Writer::attach(ring.clone()).unwrap();
    let mut writers: Vec<_> = (1..PRODUCERS).map(|_| first.clone()).collect();
    writers.push(first);

    let consumers: Vec<_> = readers
        .into_iter()
        .enumerate()
        .map(|(i, mut reader)| {
            tokio::spawn(async move {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 + i as u64);
                let mut check = InOrder::new(PRODUCERS);
                let mut cancelled = 0u64;
                loop {
                    let max = 1 + rng.below(6) as usize;
                    let timer = cancel_point(&mut rng);
                    let outcome = tokio::select! {
                        r = reader.read_async(max) => Some(r.map(|items| {
                            for &item in items.iter() {
                                check.see(item);
                            }
                        })),
                        () = timer => None,
                    };
                    match outcome {
                        Some(Ok(())) => {}
                        Some(Err(ReadError::Closed)) => break,
                        Some(Err(e)) => panic!("{e}"),
                        None => cancelled += 1,
                    }
                }
                assert_eq!(check.finish(ITEMS), ITEMS * PRODUCERS as u64);
                cancelled
            })
        })
        .collect();
    let producers: Vec<_> = writers
        .into_iter()
        .enumerate()
        .map(|(id, mut writer)| {
            tokio::spawn(async move {
                let mut rng = Rng(0xdead_beef_0000_0001 + id as u64);
                let mut counter = 0u64;
                let mut cancelled = 0u64;
                while counter < ITEMS {
                    let n = (1 + rng.below(4) as usize).min((ITEMS - counter) as usize);
                    let timer = cancel_point(&mut rng);
                    let done = tokio::select! {
                        r = writer.reserve_async(n) => {
                            let mut span = r.expect("reserve_async");
                            for slot in span.iter_mut() {
                                *slot = tag(id, counter);
                                counter += 1;
                            }
                            true
                        }
                        () = timer => false,
                    };
                    if !done {
                        cancelled += 1;
                    }
                }
                cancelled
            })
        })
        .collect();
    let all = async {
        let mut cancelled = 0;
        for p in producers {
            cancelled += p.await.expect("producer panicked");
        }
        for c in consumers {
            cancelled += c.await.expect("consumer panicked");
        }
        cancelled
    };
    let cancelled = tokio::time::timeout(Duration::from_secs(60), all)
        .await
        .expect("watchdog: stalled after cancellations");
    assert!(
        cancelled > 100,
        "only {cancelled} futures were cancelled: the test tested little"
    );
    assert_eq!(ring.space_wait().registered(), 0, "space cells leaked");
    assert_eq!(ring.data_wait().registered(), 0, "data cells leaked");
    assert_eq!(ring.space_wait().occupied_cells(), 0);
    assert_eq!(ring.data_wait().occupied_cells(), 0);
    println!("cancelled futures: {cancelled}");
}
