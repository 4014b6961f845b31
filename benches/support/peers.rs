//! The same scenarios on peer crates, where the peer can express them, plus a single-thread
//! `copy_from_slice` baseline. Every peer waits the way spanring's default rows do (spin 64
//! times, then `yield_now`, via spanring's own `YieldWait`), except `std::sync::mpsc`, which
//! parks in its blocking `send`/`recv`.
//!
//! What each peer can express:
//! - `rtrb` (SPSC): 1P→1C; chunk 1 = `push`/`pop`, chunk 1024 = `write_chunk`/`read_chunk`
//!   + `commit_all` (no data touched, like bm_Buffer).
//! - `ringbuf` (SPSC): 1P→1C chunk 1 = `try_push`/`try_pop`.
//! - `crossbeam-queue` `ArrayQueue` (MPMC): consumers *share* items, so only C = 1 rows are
//!   broadcast-equivalent; chunk 1 only (no span API).
//! - `disruptor` (broadcast): every P×C row; each handler (one thread, managed by the crate)
//!   sees every event; chunk 1024 = `try_batch_publish(1024)`. The crate ships only busy-spin
//!   wait strategies; we give its handlers a yielding one (`YieldStrategy`) like ours.
//! - `std::sync::mpsc::sync_channel` (P→1): chunk 1.
//!
//! A chunk-1 `push`/`pop` moves one `u64`, which spanring's chunk-1 bm_Buffer rows do not:
//! that is one store and one load per item in the peers' favour of realism, not of speed.

use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use spanring::std_ext::YieldWait;
use spanring::WaitStrategy;

use super::ring_runs::Scenario;
use super::stats::Rep;

/// Checks `ready` once, then waits like spanring's default rows.
#[inline]
fn wait(mut ready: impl FnMut() -> bool) {
    if !ready() {
        YieldWait::new().wait_until(&mut ready);
    }
}

/// Starts `workers` closures behind a barrier; returns the time from the first start to the
/// last finish, read by the workers themselves (a delayed main thread cannot skew it).
fn timed<F>(workers: Vec<F>) -> Duration
where
    F: FnOnce() + Send,
{
    let start = Barrier::new(workers.len());
    let start = &start;
    let spans: Vec<(Instant, Instant)> = thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|f| {
                s.spawn(move || {
                    start.wait();
                    let t0 = Instant::now();
                    f();
                    (t0, Instant::now())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let first = spans.iter().map(|s| s.0).min().expect("workers");
    let last = spans.iter().map(|s| s.1).max().expect("workers");
    last - first
}

fn rep(sc: &Scenario, elapsed: Duration) -> Rep {
    Rep {
        samples: sc.total() as u64,
        elapsed,
        timed_out: false,
    }
}

/// rtrb, 1P→1C, capacity `cap`.
pub fn rtrb(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.producers, sc.consumers), (1, 1));
    let (mut tx, mut rx) = rtrb::RingBuffer::<u64>::new(cap);
    let (n, chunk) = (sc.total(), sc.chunk);
    let elapsed = timed(vec![
        Box::new(move || {
            let mut i = 0;
            while i < n {
                if chunk == 1 {
                    wait(|| tx.push(i as u64).is_ok());
                } else {
                    wait(|| match tx.write_chunk(chunk) {
                        Ok(c) => {
                            c.commit_all();
                            true
                        }
                        Err(_) => false,
                    });
                }
                i += chunk;
            }
        }) as Box<dyn FnOnce() + Send>,
        Box::new(move || {
            let mut got = 0;
            while got < n {
                if chunk == 1 {
                    wait(|| match rx.pop() {
                        Ok(x) => {
                            black_box(x);
                            true
                        }
                        Err(_) => false,
                    });
                } else {
                    wait(|| match rx.read_chunk(chunk) {
                        Ok(c) => {
                            c.commit_all();
                            true
                        }
                        Err(_) => false,
                    });
                }
                got += chunk;
            }
        }),
    ]);
    rep(sc, elapsed)
}

/// ringbuf (`HeapRb`), 1P→1C, chunk 1.
pub fn ringbuf(sc: &Scenario, cap: usize) -> Rep {
    use ringbuf::traits::{Consumer, Producer, Split};
    assert_eq!((sc.producers, sc.consumers, sc.chunk), (1, 1, 1));
    let (mut tx, mut rx) = ringbuf::HeapRb::<u64>::new(cap).split();
    let n = sc.total();
    let elapsed = timed(vec![
        Box::new(move || {
            for i in 0..n as u64 {
                wait(|| tx.try_push(i).is_ok());
            }
        }) as Box<dyn FnOnce() + Send>,
        Box::new(move || {
            for _ in 0..n {
                wait(|| rx.try_pop().map(black_box).is_some());
            }
        }),
    ]);
    rep(sc, elapsed)
}

/// crossbeam-queue `ArrayQueue`, P→1C, chunk 1.
pub fn array_queue(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.consumers, sc.chunk), (1, 1));
    let q = crossbeam_queue::ArrayQueue::<u64>::new(cap);
    let q = &q;
    let (per, total) = (sc.per_producer(), sc.total());
    let mut workers: Vec<Box<dyn FnOnce() + Send + '_>> = Vec::new();
    for _ in 0..sc.producers {
        workers.push(Box::new(move || {
            for i in 0..per as u64 {
                wait(|| q.push(i).is_ok());
            }
        }));
    }
    workers.push(Box::new(move || {
        for _ in 0..total {
            wait(|| q.pop().map(black_box).is_some());
        }
    }));
    rep(sc, timed(workers))
}

/// `std::sync::mpsc::sync_channel(cap)`, P→1C, chunk 1 (blocking send/recv).
pub fn mpsc(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.consumers, sc.chunk), (1, 1));
    let (tx, rx) = std::sync::mpsc::sync_channel::<u64>(cap);
    let (per, total) = (sc.per_producer(), sc.total());
    let mut workers: Vec<Box<dyn FnOnce() + Send>> = Vec::new();
    for _ in 0..sc.producers {
        let tx = tx.clone();
        workers.push(Box::new(move || {
            for i in 0..per as u64 {
                tx.send(i).expect("receiver alive");
            }
        }));
    }
    drop(tx);
    workers.push(Box::new(move || {
        for _ in 0..total {
            black_box(rx.recv().expect("senders alive"));
        }
    }));
    rep(sc, timed(workers))
}

/// Spin once with a hint, then yield: the disruptor crate's consumers call this per failed
/// check (the crate itself ships only busy-spin strategies).
#[derive(Clone, Copy)]
pub struct YieldStrategy;

impl disruptor::wait_strategies::WaitStrategy for YieldStrategy {
    fn wait_for(&self, _sequence: disruptor::Sequence) {
        thread::yield_now();
    }
}

/// Publishes from each producer handle in its own thread; the last handle's drop waits until
/// every handler processed every event, so the clock stops after the consumers finish.
fn drive_disruptor<Prod>(producers: Vec<Prod>, sc: &Scenario) -> Duration
where
    Prod: disruptor::Producer<u64> + Send,
{
    let (per, chunk) = (sc.per_producer(), sc.chunk);
    let workers: Vec<_> = producers
        .into_iter()
        .map(|mut p| {
            move || {
                let mut i = 0;
                while i < per {
                    if chunk == 1 {
                        wait(|| p.try_publish(|_| {}).is_ok());
                    } else {
                        wait(|| p.try_batch_publish(chunk, |_| {}).is_ok());
                    }
                    i += chunk;
                }
                drop(p); // the last one shuts the disruptor down after the handlers drained
            }
        })
        .collect();
    timed(workers)
}

/// The `disruptor` crate, P→C broadcast (C handlers), ring of `cap.next_power_of_two()`.
pub fn disruptor(sc: &Scenario, cap: usize) -> Rep {
    use disruptor::{build_multi_producer, build_single_producer};
    let size = cap.next_power_of_two();
    let seen: Vec<Arc<AtomicI64>> = (0..sc.consumers)
        .map(|_| Arc::new(AtomicI64::new(0)))
        .collect();
    let handler = |i: usize| {
        let seen = seen[i].clone();
        move |_: &u64, seq: disruptor::Sequence, end_of_batch: bool| {
            if end_of_batch {
                // Relaxed: read after the disruptor joined this handler's thread.
                seen.store(seq + 1, Ordering::Relaxed);
            }
        }
    };
    macro_rules! with_handlers {
        ($builder:expr, $drive:expr) => {
            match sc.consumers {
                1 => $drive($builder.handle_events_with(handler(0)).build()),
                2 => $drive(
                    $builder
                        .handle_events_with(handler(0))
                        .handle_events_with(handler(1))
                        .build(),
                ),
                4 => $drive(
                    $builder
                        .handle_events_with(handler(0))
                        .handle_events_with(handler(1))
                        .handle_events_with(handler(2))
                        .handle_events_with(handler(3))
                        .build(),
                ),
                c => panic!("disruptor rows support 1, 2 or 4 consumers, not {c}"),
            }
        };
    }
    let elapsed = if sc.producers == 1 {
        let b = build_single_producer(size, || 0u64, YieldStrategy);
        with_handlers!(b, |p| drive_disruptor(vec![p], sc))
    } else {
        let b = build_multi_producer(size, || 0u64, YieldStrategy);
        let p = sc.producers;
        with_handlers!(b, |first: disruptor::MultiProducer<u64, _>| {
            let mut all: Vec<_> = (1..p).map(|_| first.clone()).collect();
            all.push(first);
            drive_disruptor(all, sc)
        })
    };
    for s in &seen {
        // Relaxed: the handler threads were joined.
        assert_eq!(
            s.load(Ordering::Relaxed),
            sc.total() as i64,
            "disruptor lost events"
        );
    }
    rep(sc, elapsed)
}

/// One thread copies the same samples in `chunk`-sized `copy_from_slice` calls into a buffer
/// of the ring's capacity (cycling through it like a ring): the bytes a 1P→1C ring moves.
pub fn copy_baseline(sc: &Scenario, cap: usize) -> Rep {
    let src: Vec<u64> = (0..sc.chunk as u64).collect();
    let mut dst = vec![0u64; cap];
    let n = sc.total();
    let t0 = Instant::now();
    let mut pos = 0;
    let mut done = 0;
    while done < n {
        if pos + sc.chunk > cap {
            pos = 0;
        }
        dst[pos..pos + sc.chunk].copy_from_slice(black_box(&src));
        pos += sc.chunk;
        done += sc.chunk;
    }
    black_box(&dst);
    rep(sc, t0.elapsed())
}
