//! The threaded stress harness shared by the integration tests: P producers write items tagged
//! (producer id, per-producer counter) through spans of `chunk` slots (at chunk 1, odd producers
//! `push` and odd readers `pop`, one item at a time); C broadcast readers each
//! check that they receive every item exactly once, in per-producer order, and never a slot
//! that was not published (slots start as `UNWRITTEN`, which no producer ever writes, and a
//! stale slot would repeat or skip a counter). The tags and the check are `tests/support/
//! tagged.rs`, shared with the async harness.

#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use spanring::handle::ReadHandle;
use spanring::handle::WriteHandle;
use spanring::ReadError;

#[path = "../support/tagged.rs"]
mod tagged;
pub use tagged::{tag, InOrder, UNWRITTEN};

/// Items per producer for a run: small by default, `SPANRING_SOAK=<items>` scales up (the soak
/// is run by hand: `SPANRING_SOAK=100000000 cargo test --release --test stress`).
pub fn items_per_producer(default: u64, producers: usize) -> u64 {
    // CI's slow runs (ThreadSanitizer, qemu) divide the default by SPANRING_STRESS_SCALE.
    let scale: u64 = std::env::var("SPANRING_STRESS_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    match std::env::var("SPANRING_SOAK") {
        Ok(total) => {
            let total: u64 = total.parse().unwrap_or(100_000_000);
            (total / producers as u64).max(default)
        }
        Err(_) => {
            if cfg!(miri) {
                default.min(200)
            } else {
                (default / scale).max(100)
            }
        }
    }
}

/// Writes `items` tagged items from producer `id` in spans of `chunk` (the last span shorter).
/// With `partial`, each span reserves `chunk` slots and publishes only a varying prefix
/// (`1..=chunk` of them); the unpublished tail holds `UNWRITTEN`, which readers must never
/// see. On a multi-producer ring the tails become holes or are given back.
pub fn produce(
    mut writer: impl WriteHandle<Item = u64>,
    id: usize,
    items: u64,
    chunk: usize,
    partial: bool,
) {
    if chunk == 1 && !partial && id % 2 == 1 {
        // Odd producers of chunk-1 rows use the one-item call (`push`: on a multi-producer
        // ring with several writers, the inlined shared-writer claim and publish), the others
        // spans, so both paths interleave on one ring.
        for counter in 0..items {
            writer.push(tag(id, counter)).expect("push");
        }
        return;
    }
    let mut counter = 0u64;
    let mut step = id as u64;
    while counter < items {
        let left = (items - counter) as usize;
        let (reserve, keep) = if partial {
            step = step
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (chunk, (1 + (step >> 33) as usize % chunk).min(left))
        } else {
            (chunk.min(left), chunk.min(left))
        };
        let published = writer
            .write_with(reserve, |a, b| {
                for (i, slot) in a.iter_mut().chain(b).enumerate() {
                    *slot = if i < keep {
                        tag(id, counter + i as u64)
                    } else {
                        UNWRITTEN
                    };
                }
                keep
            })
            .expect("reserve");
        assert_eq!(published, keep);
        counter += keep as u64;
    }
}

/// Reads until the ring closes; checks every producer's sequence. Returns items seen.
/// Reader `id` of a chunk-1 row reads one item at a time with `pop` when `id` is odd.
pub fn consume(
    mut reader: impl ReadHandle<Item = u64>,
    id: usize,
    producers: usize,
    items: u64,
    chunk: usize,
    progress: &AtomicU64,
) -> u64 {
    let mut check = InOrder::new(producers);
    if chunk == 1 && id % 2 == 1 {
        loop {
            match reader.pop() {
                Ok(item) => check.see(item),
                Err(ReadError::Closed) => break,
                Err(e) => panic!("pop: {e}"),
            }
            progress.fetch_add(1, Ordering::Relaxed);
        }
        return check.finish(items);
    }
    loop {
        let shown = reader.read_with(chunk, |a, b| {
            assert!(a.len() + b.len() <= chunk, "read returned more than asked");
            for &item in a.iter().chain(b) {
                check.see(item);
            }
            a.len() + b.len()
        });
        match shown {
            Ok(_) => {}
            Err(ReadError::Closed) => break,
            Err(e) => panic!("read: {e}"),
        }
        progress.fetch_add(1, Ordering::Relaxed);
    }
    check.finish(items)
}

/// Runs P producers and C consumers over `ring`; every reader attaches before any item is
/// written. `writers` are the P writer handles. With `partial`, producers publish varying
/// prefixes of their spans.
pub fn run_with<G: ?Sized>(
    _ring: &G,
    writers: Vec<impl WriteHandle<Item = u64> + Send>,
    readers: Vec<impl ReadHandle<Item = u64> + Send>,
    items: u64,
    chunk: usize,
    partial: bool,
) {
    let producers = writers.len();
    let consumers = readers.len();
    let progress = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| watchdog(&progress, &done, Duration::from_secs(30)));
        let handles: Vec<_> = readers
            .into_iter()
            .enumerate()
            .map(|(id, r)| {
                let progress = &progress;
                s.spawn(move || consume(r, id, producers, items, chunk, progress))
            })
            .collect();
        for (id, w) in writers.into_iter().enumerate() {
            s.spawn(move || produce(w, id, items, chunk, partial));
        }
        let mut seen = Vec::new();
        for h in handles {
            seen.push(h.join());
        }
        done.store(true, Ordering::Relaxed);
        for result in seen {
            assert_eq!(result.expect("consumer panicked"), items * producers as u64);
        }
        assert!(consumers > 0);
    });
}

/// Fails the test (aborts the process with a message) instead of hanging when readers make no
/// progress for `limit`: a lost publication or a lost wake-up shows up as a failure, not as a
/// CI timeout. Sleeping here only paces the checks; nothing synchronises through it.
pub fn watchdog(progress: &AtomicU64, done: &AtomicBool, limit: Duration) {
    let mut last = progress.load(Ordering::Relaxed);
    let mut since = Instant::now();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
        let now = progress.load(Ordering::Relaxed);
        if now != last {
            last = now;
            since = Instant::now();
        } else if since.elapsed() > limit {
            eprintln!("watchdog: no progress for {limit:?} (stalled at {now} spans): lost publication or wake-up");
            std::process::abort();
        }
    }
}
