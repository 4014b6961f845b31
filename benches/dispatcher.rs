//! End-to-end dispatcher benchmark: P posting threads → 1 worker running trivial callbacks.
//!
//! Rows, all running the same callback work (add two captured words into a worker-only
//! `&'static AtomicU64`; three captured words in all):
//! - `spanring Dispatcher`: closures built in place in ring slots (`Poster::post`);
//! - `spanring Dispatcher (ctx)`: the same, adding into the worker's `&mut u64` context
//!   instead of the static (the way the dispatcher is meant to be used);
//! - `spanring Dispatcher single (ctx)` (P = 1 only): `Dispatcher::spawn_single`, one unique
//!   poster on a single-producer ring (no claim CAS, no out-of-order publication bookkeeping);
//! - `std mpsc`: `std::sync::mpsc::channel` carrying `Box<dyn FnOnce() + Send>`;
//! - `crossbeam unbounded` / `crossbeam bounded`: crossbeam-channel carrying the same boxes
//!   (bounded with the ring's capacity).
//!
//! Timing runs from a barrier that releases the producers (already spawned, worker already
//! running) until the worker has run everything and been joined. A counting global allocator
//! reports allocations per event over the same window. Each configuration is repeated and the
//! median reported; repetitions of the rows alternate so they share the machine's load.
//!
//! `cargo bench --bench dispatcher` (add `-- --quick` for a short run).

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use spanring::std_ext::Dispatcher;

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{CountingAlloc, ALLOCATIONS};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Ring / bounded channel capacity, in events.
const CAPACITY: usize = 1024;

/// Where the callbacks add; touched only by the worker thread.
static SINK: AtomicU64 = AtomicU64::new(0);

/// The callback's work: add `a + b` into `sink` (worker-only, so uncontended).
#[inline(always)]
fn work(sink: &AtomicU64, a: u64, b: u64) {
    // Relaxed: a sum checked after joining the worker.
    sink.fetch_add(a.wrapping_add(b), Ordering::Relaxed);
}

/// One measured run: elapsed time and allocations over the window.
struct Sample {
    elapsed: Duration,
    allocs: usize,
}

/// Runs `producers` threads (each calling `produce(index)`) released together by a barrier,
/// then `finish()` (join the worker); measures from the release to the end of `finish`.
fn measure<S: Send>(
    senders: Vec<S>,
    produce: impl Fn(usize, S) + Sync,
    finish: impl FnOnce(),
) -> Sample {
    let start = Barrier::new(senders.len() + 1);
    thread::scope(|s| {
        let handles: Vec<_> = senders
            .into_iter()
            .enumerate()
            .map(|(t, sender)| {
                let (start, produce) = (&start, &produce);
                s.spawn(move || {
                    start.wait();
                    produce(t, sender);
                })
            })
            .collect();
        // Relaxed: our own snapshot; the barrier orders it before any producer's work.
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        start.wait();
        let t0 = Instant::now();
        for h in handles {
            h.join().unwrap();
        }
        finish();
        let elapsed = t0.elapsed();
        // Relaxed: every thread that allocated in the window has been joined.
        let allocs = ALLOCATIONS.load(Ordering::Relaxed) - before;
        Sample { elapsed, allocs }
    })
}

/// `spanring::std_ext::Dispatcher`, callbacks adding into the static sink.
fn spanring_static(producers: usize, per: u64) -> Sample {
    let (dispatcher, poster) = Dispatcher::spawn(CAPACITY, ()).unwrap();
    let posters = vec![poster; producers];
    let mut dispatcher = Some(dispatcher);
    measure(
        posters,
        |t, mut poster| {
            let sink: &'static AtomicU64 = &SINK;
            for i in 0..per {
                let (a, b) = (black_box(i), t as u64);
                poster.post(move |_| work(sink, a, b)).unwrap();
            }
        },
        || dispatcher.take().unwrap().join().unwrap(),
    )
}

/// `Dispatcher` with the sum in the worker's context (`&mut u64`).
fn spanring_ctx(producers: usize, per: u64) -> Sample {
    let (dispatcher, poster) = Dispatcher::spawn(CAPACITY, 0u64).unwrap();
    let posters = vec![poster; producers];
    let mut dispatcher = Some(dispatcher);
    measure(
        posters,
        |t, mut poster| {
            let tag: &'static AtomicU64 = &SINK; // captured, unused: same closure size
            for i in 0..per {
                let (a, b) = (black_box(i), t as u64);
                poster
                    .post(move |sum: &mut u64| {
                        let _ = tag;
                        *sum = sum.wrapping_add(a.wrapping_add(b));
                    })
                    .unwrap();
            }
        },
        || {
            let sum = dispatcher.take().unwrap().join().unwrap();
            // Relaxed: published to the benchmark thread by the join.
            SINK.fetch_add(sum, Ordering::Relaxed);
        },
    )
}

/// `Dispatcher::spawn_single` (one unique poster; runs only at P = 1), sum in the context.
fn spanring_single(producers: usize, per: u64) -> Sample {
    assert_eq!(producers, 1, "a single-producer dispatcher has one poster");
    let (dispatcher, poster) = Dispatcher::spawn_single(CAPACITY, 0u64).unwrap();
    let mut dispatcher = Some(dispatcher);
    measure(
        vec![poster],
        |t, mut poster| {
            let tag: &'static AtomicU64 = &SINK; // captured, unused: same closure size
            for i in 0..per {
                let (a, b) = (black_box(i), t as u64);
                poster
                    .post(move |sum: &mut u64| {
                        let _ = tag;
                        *sum = sum.wrapping_add(a.wrapping_add(b));
                    })
                    .unwrap();
            }
        },
        || {
            let sum = dispatcher.take().unwrap().join().unwrap();
            // Relaxed: published to the benchmark thread by the join.
            SINK.fetch_add(sum, Ordering::Relaxed);
        },
    )
}

/// A boxed callback, as channel-based dispatchers carry them.
type Job = Box<dyn FnOnce() + Send>;

/// A channel of [`Job`]s: `send` a boxed closure (allocation included), the worker runs them.
fn channel_run<S: Send + Clone>(
    producers: usize,
    per: u64,
    sender: S,
    send: impl Fn(&S, Job) + Sync,
    worker: thread::JoinHandle<()>,
) -> Sample {
    let senders = vec![sender; producers];
    let mut worker = Some(worker);
    measure(
        senders,
        |t, sender| {
            let sink: &'static AtomicU64 = &SINK;
            for i in 0..per {
                let (a, b) = (black_box(i), t as u64);
                send(&sender, Box::new(move || work(sink, a, b)));
            }
        },
        || worker.take().unwrap().join().unwrap(),
    )
}

fn std_mpsc(producers: usize, per: u64) -> Sample {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    let worker = thread::spawn(move || rx.into_iter().for_each(|job| job()));
    channel_run(producers, per, tx, |tx, job| tx.send(job).unwrap(), worker)
}

fn crossbeam_unbounded(producers: usize, per: u64) -> Sample {
    let (tx, rx) = crossbeam_channel::unbounded::<Job>();
    let worker = thread::spawn(move || rx.into_iter().for_each(|job| job()));
    channel_run(producers, per, tx, |tx, job| tx.send(job).unwrap(), worker)
}

fn crossbeam_bounded(producers: usize, per: u64) -> Sample {
    let (tx, rx) = crossbeam_channel::bounded::<Job>(CAPACITY);
    let worker = thread::spawn(move || rx.into_iter().for_each(|job| job()));
    channel_run(producers, per, tx, |tx, job| tx.send(job).unwrap(), worker)
}

/// A row of the table: a name and how to run it.
struct Variant {
    name: &'static str,
    run: fn(usize, u64) -> Sample,
}

/// Median events/s and allocations/event of one variant at one P.
struct Result {
    events_per_sec: f64,
    allocs_per_event: f64,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    // `--only=<text>`: run only the rows whose name contains <text> (the crossbeam unbounded
    // row always runs: it is the reference).
    let only = std::env::args().find_map(|a| a.strip_prefix("--only=").map(str::to_owned));
    // `--producers=<n>`: run only P = n.
    let only_p: Option<usize> = std::env::args().find_map(|a| {
        a.strip_prefix("--producers=")
            .map(|n| n.parse().expect("--producers=<n>"))
    });
    let (total, reps) = if quick {
        (100_000u64, 3)
    } else {
        (1_000_000u64, 5)
    };
    let variants = [
        Variant {
            name: "spanring Dispatcher",
            run: spanring_static,
        },
        Variant {
            name: "spanring Dispatcher (ctx)",
            run: spanring_ctx,
        },
        Variant {
            name: "spanring Dispatcher single (ctx)",
            run: spanring_single,
        },
        Variant {
            name: "std mpsc + Box",
            run: std_mpsc,
        },
        Variant {
            name: "crossbeam unbounded + Box",
            run: crossbeam_unbounded,
        },
        Variant {
            name: "crossbeam bounded + Box",
            run: crossbeam_bounded,
        },
    ];
    let keep = |v: &Variant| {
        v.name.starts_with("crossbeam unbounded")
            || only.as_deref().map_or(true, |o| v.name.contains(o))
    };
    let variants: Vec<Variant> = variants.into_iter().filter(keep).collect();
    println!(
        "dispatcher: {total} events per run, P producers -> 1 worker, capacity {CAPACITY}, \
         median of {reps} runs{}",
        if quick { " (quick)" } else { "" }
    );
    for producers in [1usize, 2, 4] {
        if only_p.is_some_and(|p| p != producers) {
            continue;
        }
        let per = total / producers as u64;
        let events = per * producers as u64;
        // The single-producer row only exists at P = 1.
        let variants: Vec<&Variant> = variants
            .iter()
            .filter(|v| producers == 1 || !v.name.contains("single"))
            .collect();
        let reference_row = variants
            .iter()
            .position(|v| v.name.starts_with("crossbeam unbounded"))
            .expect("the reference row always runs");
        // Warm-up: one short run of each (threads, allocator pages, code).
        for v in &variants {
            (v.run)(producers, per / 10);
        }
        let mut samples: Vec<Vec<Sample>> = variants.iter().map(|_| Vec::new()).collect();
        for _ in 0..reps {
            for (v, out) in variants.iter().zip(&mut samples) {
                // Relaxed: reset and check on this thread around runs that join all theirs.
                SINK.store(0, Ordering::Relaxed);
                out.push((v.run)(producers, per));
                let expected: u64 = (0..producers as u64)
                    .map(|t| (0..per).map(|i| i + t).sum::<u64>())
                    .sum();
                // Relaxed: as above.
                assert_eq!(
                    SINK.load(Ordering::Relaxed),
                    expected,
                    "{} lost work",
                    v.name
                );
            }
        }
        let results: Vec<Result> = samples
            .into_iter()
            .map(|mut s| {
                s.sort_by_key(|x| x.elapsed);
                let median = &s[s.len() / 2];
                Result {
                    events_per_sec: events as f64 / median.elapsed.as_secs_f64(),
                    allocs_per_event: median.allocs as f64 / events as f64,
                }
            })
            .collect();
        let reference = results[reference_row].events_per_sec;
        println!();
        println!(
            "P={producers}  {:<34} {:>10} {:>12} {:>12}",
            "variant", "Mevents/s", "vs cb-unbnd", "allocs/event"
        );
        for (v, r) in variants.iter().zip(&results) {
            println!(
                "     {:<34} {:>10.2} {:>11.2}x {:>12.4}",
                v.name,
                r.events_per_sec / 1e6,
                r.events_per_sec / reference,
                r.allocs_per_event
            );
        }
    }
}
