//! Async stress on tokio's multi-threaded runtime: P producer tasks (`reserve_async`) × C
//! broadcast reader tasks (`read_async`), items tagged (producer, counter) and checked
//! exactly-once and in order per producer by every reader. A watchdog (`tokio::time::timeout`)
//! fails the test instead of letting a lost wake-up hang it.

mod async_support;

use std::sync::Arc;
use std::time::Duration;

use async_support::{consume, produce};
use spanring::std_ext::HeapStorage;
use spanring::sync::AtomicUsize;
use spanring::{multi_words, AsyncWait, MultiProducer, Reader, Ring, SingleProducer, Writer};

type MpRing = Ring<HeapStorage<u64>, MultiProducer<Box<[AtomicUsize]>>, AsyncWait<4>, 8>;
type SpRing = Ring<HeapStorage<u64>, SingleProducer, AsyncWait<4>, 8>;

/// No completion within this is a lost wake-up or a deadlock: 60 s natively, 300 s in the slow
/// CI runs (emulation, sanitizers: they set `SPANRING_STRESS_SCALE`), where a loaded 2-core
/// machine made a healthy aarch64 run under qemu exceed 60 s.
fn watchdog() -> Duration {
    let slow = std::env::var_os("SPANRING_STRESS_SCALE").is_some();
    Duration::from_secs(if slow { 300 } else { 60 })
}

fn items(default: u64) -> u64 {
    std::env::var("SPANRING_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn run_multi(producers: usize, readers: usize, capacity: usize, chunk: usize, items: u64) {
    let bits: Box<[AtomicUsize]> = (0..multi_words(capacity))
        .map(|_| AtomicUsize::new(0))
        .collect();
    let ring: Arc<MpRing> = Arc::new(
        Ring::builder(HeapStorage::with_capacity(capacity).unwrap())
            .wait::<AsyncWait<4>>()
            .readers::<8>()
            .multi_producer(bits)
            .build()
            .unwrap(),
    );
    let readers: Vec<_> = (0..readers)
        .map(|_| Reader::attach(ring.clone()).unwrap())
        .collect();
    let first = Writer::attach(ring.clone()).unwrap();
    let mut writers: Vec<_> = (1..producers).map(|_| first.clone()).collect();
    writers.push(first);
    run(readers, writers, producers, chunk, items).await;
    assert_eq!(ring.space_wait().registered(), 0, "space cells leaked");
    assert_eq!(ring.data_wait().registered(), 0, "data cells leaked");
}

async fn run<R, P>(
    readers: Vec<Reader<R>>,
    writers: Vec<Writer<R>>,
    producers: usize,
    chunk: usize,
    items: u64,
) where
    R: std::ops::Deref<Target = Ring<HeapStorage<u64>, P, AsyncWait<4>, 8>> + Send + 'static,
    P: spanring::ClaimMode,
{
    let consumers: Vec<_> = readers
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            // Readers ask for different maxima, so their spans and waits differ.
            let max = chunk + i;
            tokio::spawn(async move { consume(&mut r, producers, items, max).await })
        })
        .collect();
    let producer_tasks: Vec<_> = writers
        .into_iter()
        .enumerate()
        .map(|(id, mut w)| tokio::spawn(async move { produce(&mut w, id, items, chunk).await }))
        .collect();
    let all = async {
        for p in producer_tasks {
            p.await.expect("producer panicked");
        }
        for c in consumers {
            assert_eq!(
                c.await.expect("consumer panicked"),
                items * producers as u64
            );
        }
    };
    tokio::time::timeout(watchdog(), all)
        .await
        .expect("watchdog: no completion (lost wake-up or deadlock)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn multi_producer_matrix() {
    for &(p, c, capacity, chunk) in &[
        (2, 1, 16, 1),
        (3, 2, 16, 3),
        (4, 3, 64, 1),
        (4, 2, 64, 16),
        (6, 4, 37, 5), // odd capacity; more waiters than cells (4) on both sides
    ] {
        run_multi(p, c, capacity, chunk, items(100_000)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn single_producer_matrix() {
    for &(c, capacity, chunk) in &[(1, 8, 1), (2, 16, 4), (4, 64, 64), (6, 33, 7)] {
        let ring: Arc<SpRing> = Arc::new(
            Ring::builder(HeapStorage::with_capacity(capacity).unwrap())
                .wait::<AsyncWait<4>>()
                .readers::<8>()
                .build()
                .unwrap(),
        );
        let readers: Vec<_> = (0..c)
            .map(|_| Reader::attach(ring.clone()).unwrap())
            .collect();
        let writer = Writer::attach(ring.clone()).unwrap();
        run(readers, vec![writer], 1, chunk, items(200_000)).await;
        assert_eq!(ring.space_wait().registered(), 0);
        assert_eq!(ring.data_wait().registered(), 0);
    }
}
