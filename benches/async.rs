//! Async 1 producer → 1 consumer on a tokio multi-threaded runtime (2 workers): spanring's
//! `reserve_async` / `read_async` on an `AsyncWait` ring against `tokio::sync::mpsc`, in the
//! same run.
//!
//! Rows (events are `u64` items; the consumer sums them and the sum is checked):
//! - chunk 1: the ring reserves and reads one slot per await (`read_async(1)`), vs a bounded
//!   `mpsc::channel::<u64>` with the ring's capacity, one `send`/`recv` per item;
//! - chunk 1024: the ring reserves 1024 slots per await and fills them in place, the reader
//!   takes up to 1024 per `read_async`; vs `mpsc::channel::<Vec<u64>>` of capacity
//!   (ring capacity / 1024) sending one freshly allocated `Vec` of 1024 items per message
//!   (what an application without a ring would do; it includes the allocation and free per
//!   batch), and vs the same channel with the consumer sending emptied `Vec`s back on a second
//!   channel for reuse (no allocation in the steady state).
//!
//! Timing covers spawning both tasks until both finished. Each configuration is repeated
//! (alternating rows) and the median reported. `cargo bench --bench async` (add `-- --quick`
//! for a short run).

use std::sync::Arc;
use std::time::{Duration, Instant};

use spanring::std_ext::HeapStorage;
use spanring::{AsyncWait, ReadError, Reader, Ring, SingleProducer, Writer};
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

type AsyncRing = Ring<HeapStorage<u64>, SingleProducer, AsyncWait, 4>;

const CAPACITY: usize = 8192;

fn expected_sum(events: u64) -> u64 {
    events * (events - 1) / 2
}

fn ring_run(rt: &Runtime, events: u64, chunk: usize) -> Duration {
    let ring: Arc<AsyncRing> = Arc::new(
        Ring::builder(HeapStorage::with_capacity(CAPACITY).unwrap())
            .wait::<AsyncWait>()
            .build()
            .unwrap(),
    );
    let mut reader = Reader::attach(ring.clone()).unwrap();
    let mut writer = Writer::attach(ring).unwrap();
    let start = Instant::now();
    rt.block_on(async move {
        let consumer = tokio::spawn(async move {
            let mut sum = 0u64;
            loop {
                match reader.read_async(chunk).await {
                    Ok(items) => {
                        let (a, b) = items.as_slices();
                        sum = a.iter().fold(sum, |s, &v| s.wrapping_add(v));
                        sum = b.iter().fold(sum, |s, &v| s.wrapping_add(v));
                    }
                    Err(ReadError::Closed) => return sum,
                    Err(e) => panic!("{e}"),
                }
            }
        });
        let producer = tokio::spawn(async move {
            let mut next = 0u64;
            while next < events {
                let n = chunk.min((events - next) as usize);
                let mut span = writer.reserve_async(n).await.unwrap();
                let (a, b) = span.as_mut_slices();
                // The values come from a range, as the peer's `extend(next..next + n)`: a
                // counter kept in the task's state would be stored back on every slot (the
                // compiler cannot tell the slots from the state), which halved this row's
                // rate.
                let split = next + a.len() as u64;
                for (slot, v) in a.iter_mut().zip(next..) {
                    *slot = v;
                }
                for (slot, v) in b.iter_mut().zip(split..) {
                    *slot = v;
                }
                next += n as u64;
            }
        });
        producer.await.unwrap();
        assert_eq!(consumer.await.unwrap(), expected_sum(events));
    });
    start.elapsed()
}

fn mpsc_items_run(rt: &Runtime, events: u64) -> Duration {
    let start = Instant::now();
    rt.block_on(async move {
        let (tx, mut rx) = mpsc::channel::<u64>(CAPACITY);
        let consumer = tokio::spawn(async move {
            let mut sum = 0u64;
            while let Some(v) = rx.recv().await {
                sum = sum.wrapping_add(v);
            }
            sum
        });
        let producer = tokio::spawn(async move {
            for v in 0..events {
                tx.send(v).await.unwrap();
            }
        });
        producer.await.unwrap();
        assert_eq!(consumer.await.unwrap(), expected_sum(events));
    });
    start.elapsed()
}

fn mpsc_batches_run(rt: &Runtime, events: u64, chunk: usize, recycle: bool) -> Duration {
    let start = Instant::now();
    rt.block_on(async move {
        let (tx, mut rx) = mpsc::channel::<Vec<u64>>(CAPACITY / chunk);
        let (back_tx, mut back_rx) = mpsc::channel::<Vec<u64>>(CAPACITY / chunk + 1);
        let consumer = tokio::spawn(async move {
            let mut sum = 0u64;
            while let Some(mut batch) = rx.recv().await {
                sum = batch.iter().fold(sum, |s, &v| s.wrapping_add(v));
                if recycle {
                    batch.clear();
                    let _ = back_tx.try_send(batch); // dropped if the producer is gone
                }
            }
            sum
        });
        let producer = tokio::spawn(async move {
            let mut next = 0u64;
            while next < events {
                let n = chunk.min((events - next) as usize);
                let mut batch = match recycle {
                    true => back_rx
                        .try_recv()
                        .unwrap_or_else(|_| Vec::with_capacity(chunk)),
                    false => Vec::with_capacity(chunk),
                };
                batch.extend(next..next + n as u64);
                next += n as u64;
                tx.send(batch).await.unwrap();
            }
        });
        producer.await.unwrap();
        assert_eq!(consumer.await.unwrap(), expected_sum(events));
    });
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 3 } else { 7 };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    println!("async 1P→1C, tokio multi-thread runtime (2 workers), median of {reps} runs");
    println!(
        "{:<10} {:<44} {:>14} {:>12}",
        "chunk", "implementation", "Mevents/s", "vs spanring"
    );

    // chunk 1
    let events = if quick { 200_000 } else { 2_000_000 };
    let (mut ring_t, mut mpsc_t) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        ring_t.push(ring_run(&rt, events, 1));
        mpsc_t.push(mpsc_items_run(&rt, events));
    }
    let rows = [
        ("spanring reserve_async/read_async(1)", median(ring_t)),
        ("tokio mpsc::channel::<u64>", median(mpsc_t)),
    ];
    print_rows("1", events, &rows);

    // chunk 1024
    let events = if quick { 20_000_000 } else { 200_000_000 };
    let (mut ring_t, mut alloc_t, mut reuse_t) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        ring_t.push(ring_run(&rt, events, 1024));
        alloc_t.push(mpsc_batches_run(&rt, events, 1024, false));
        reuse_t.push(mpsc_batches_run(&rt, events, 1024, true));
    }
    let rows = [
        (
            "spanring reserve_async(1024)/read_async(1024)",
            median(ring_t),
        ),
        ("tokio mpsc::channel::<Vec<u64>> (new Vec)", median(alloc_t)),
        (
            "tokio mpsc::channel::<Vec<u64>> (recycled)",
            median(reuse_t),
        ),
    ];
    print_rows("1024", events, &rows);
}

fn print_rows(chunk: &str, events: u64, rows: &[(&str, Duration)]) {
    let base = events as f64 / rows[0].1.as_secs_f64();
    for (name, t) in rows {
        let rate = events as f64 / t.as_secs_f64();
        println!(
            "{:<10} {:<44} {:>14.2} {:>11.2}x",
            chunk,
            name,
            rate / 1e6,
            rate / base
        );
    }
}
