//! What a reader's [`Pacing`] costs in latency, next to what it buys in throughput: the
//! measurements behind the default (`core/src/pacing.rs`).
//!
//! Three loops, each run with our reader unpaced ([`Pacing::OFF`]), with its default pacing
//! ([`Pacing::for_items`]), paced harder (`Pacing::new(16, 8)` and `Pacing::new(16, 32)`), and
//! on rtrb 0.4 for reference, one thread per CPU (`apart`, where pacing acts) and both
//! threads on CPU 0 (`together`):
//! - **round trip**: one item out on one ring, back on another, [`TRIPS`] times; ns per
//!   round trip. Every read here finds its item only after waiting for it.
//! - **stream, sporadic**: the writer lets each of [`GAPS_NS`] pass (busy, on the clock), then pushes
//!   one item, [`SPORADIC`] items; one-way latency of every item (the writer's clock at the push
//!   to the reader's after it got the item), median and 99th percentile.
//! - **stream, full rate**: the writer pushes [`FULL`] items as fast as it can, every
//!   [`STAMP_EVERY`]th carrying its push time; the one-way latency of those, and the stream's
//!   rate.
//!
//! Every item is checked (the count, or the order). Waiting: `YieldWait::new()` everywhere.
//! Each figure is the median over [`RUNS`] runs, the variants interleaved run by run.
//!
//! `cargo bench --bench latency` (`-- --quick` for a short run).

mod standalone;

use standalone::{patiently_get, Place};

use std::sync::Barrier;
use std::time::Instant;

use spanring::std_ext::YieldWait;
use spanring::wait::Pacing;
use spanring::{Ring, SliceStorage};

/// Round trips per run (full mode).
const TRIPS: u64 = 200_000;
/// Items of the sporadic stream per run (full mode).
const SPORADIC: u64 = 100_000;
/// The sporadic writers' gaps between pushes: a sparse stream, and a denser one whose gap is
/// about what a paced look's spin can last on a host with slow spin hints (the case that made
/// pacing skip looks that find only one or two items, `Pacing::applies`).
const GAPS_NS: [u64; 2] = [500, 100];
/// Items of the full-rate stream per run (full mode).
const FULL: u64 = 10_000_000;
/// One item in this many carries its push time in the full-rate stream.
const STAMP_EVERY: u64 = 256;
/// Ring slots.
const SLOTS: usize = 65536;
/// Runs per figure (full mode).
const RUNS: usize = 7;

/// The variants of every loop: our reader under four pacings, and rtrb.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Ours(Pacing),
    Rtrb,
}

impl Variant {
    const ALL: [Variant; 5] = [
        Variant::Ours(Pacing::OFF),
        Variant::Ours(Pacing::for_items::<u64>()),
        Variant::Ours(Pacing::new(16, 8)),
        Variant::Ours(Pacing::new(16, 32)),
        Variant::Rtrb,
    ];

    fn name(self) -> String {
        match self {
            Variant::Ours(p) if p == Pacing::OFF => "spanring, Pacing::OFF".into(),
            Variant::Ours(p) if p == Pacing::for_items::<u64>() => format!(
                "spanring, default Pacing::new({}, {})",
                p.fewer_than, p.spins
            ),
            Variant::Ours(p) => format!("spanring, Pacing::new({}, {})", p.fewer_than, p.spins),
            Variant::Rtrb => "rtrb push/pop".into(),
        }
    }

    fn pacing(self) -> Pacing {
        match self {
            Variant::Ours(p) => p,
            Variant::Rtrb => Pacing::OFF,
        }
    }
}

/// Nanoseconds since `base` (the same `Instant` in both threads: a monotonic clock shared by
/// the CPUs).
#[inline(always)]
fn now_ns(base: Instant) -> u64 {
    base.elapsed().as_nanos() as u64
}

/// Runs `writer` on worker 0 and `reader` on worker 1 after a common start; returns the
/// reader's result.
fn two<T: Send>(
    place: Place,
    writer: impl FnOnce() + Send,
    reader: impl FnOnce() -> T + Send,
) -> T {
    let start = Barrier::new(2);
    std::thread::scope(|s| {
        let start = &start;
        s.spawn(move || {
            place.pin(0);
            start.wait();
            writer();
        });
        let r = s.spawn(move || {
            place.pin(1);
            start.wait();
            reader()
        });
        r.join().expect("reader thread")
    })
}

/// A ring of `SLOTS` `u64`s over `memory`, waiting with `YieldWait`.
fn ring(memory: &mut [u64]) -> Ring<SliceStorage<'_, u64>, spanring::SingleProducer, YieldWait> {
    Ring::builder(SliceStorage::new(memory))
        .wait::<YieldWait>()
        .build()
        .expect("ring")
}

/// ns per round trip.
fn round_trip(place: Place, v: Variant, trips: u64) -> f64 {
    if v == Variant::Rtrb {
        let (mut out_w, mut out_r) = rtrb::RingBuffer::<u64>::new(SLOTS);
        let (mut back_w, mut back_r) = rtrb::RingBuffer::<u64>::new(SLOTS);
        let t0 = Instant::now();
        two(
            place,
            move || {
                for _ in 0..trips {
                    let x = patiently_get(|| out_r.pop().ok());
                    patiently_get(|| back_w.push(x).ok());
                }
            },
            move || {
                for i in 0..trips {
                    patiently_get(|| out_w.push(i).ok());
                    let x = patiently_get(|| back_r.pop().ok());
                    assert_eq!(x, i, "round trip lost or reordered an item");
                }
            },
        );
        return t0.elapsed().as_nanos() as f64 / trips as f64;
    }
    let (mut a, mut b) = (vec![0u64; SLOTS], vec![0u64; SLOTS]);
    let (out, back) = (ring(&mut a), ring(&mut b));
    let (mut out_w, mut out_r) = (out.writer().unwrap(), out.reader().unwrap());
    let (mut back_w, mut back_r) = (back.writer().unwrap(), back.reader().unwrap());
    out_r.set_pacing(v.pacing());
    back_r.set_pacing(v.pacing());
    let t0 = Instant::now();
    two(
        place,
        move || {
            for _ in 0..trips {
                let x = out_r.pop().expect("open");
                back_w.push(x).expect("open");
            }
        },
        move || {
            for i in 0..trips {
                out_w.push(i).expect("open");
                let x = back_r.pop().expect("open");
                assert_eq!(x, i, "round trip lost or reordered an item");
            }
        },
    );
    t0.elapsed().as_nanos() as f64 / trips as f64
}

/// One stream's result: latencies of the stamped items (ns) and the rate (items/s).
struct Stream {
    latencies: Vec<u64>,
    rate: f64,
}

/// `items` items; the writer stamps every `every`th with its push time and, if `gap_ns > 0`,
/// first waits that long (busy) before each push.
fn stream(place: Place, v: Variant, items: u64, every: u64, gap_ns: u64) -> Stream {
    let base = Instant::now();
    // Item `i` is its push time if stamped, else `i`; the reader checks the others in order.
    let stamp = move |i: u64| {
        if i % every == 0 {
            if gap_ns > 0 {
                let t = now_ns(base);
                while now_ns(base) < t + gap_ns {
                    std::hint::spin_loop();
                }
            }
            now_ns(base)
        } else {
            i
        }
    };
    let receive = move |i: u64, x: u64, latencies: &mut Vec<u64>| {
        if i % every == 0 {
            latencies.push(now_ns(base).saturating_sub(x));
        } else {
            assert_eq!(x, i, "stream lost or reordered an item");
        }
    };
    let t0 = Instant::now();
    let latencies = if v == Variant::Rtrb {
        let (mut w, mut r) = rtrb::RingBuffer::<u64>::new(SLOTS);
        two(
            place,
            move || {
                for i in 0..items {
                    let x = stamp(i);
                    patiently_get(|| w.push(x).ok());
                }
            },
            move || {
                let mut latencies = Vec::with_capacity((items / every) as usize + 1);
                for i in 0..items {
                    let x = patiently_get(|| r.pop().ok());
                    receive(i, x, &mut latencies);
                }
                latencies
            },
        )
    } else {
        let mut memory = vec![0u64; SLOTS];
        let ring = ring(&mut memory);
        let mut w = ring.writer().unwrap();
        let mut r = ring.reader().unwrap();
        r.set_pacing(v.pacing());
        two(
            place,
            move || {
                for i in 0..items {
                    w.push(stamp(i)).expect("open");
                }
            },
            move || {
                let mut latencies = Vec::with_capacity((items / every) as usize + 1);
                let mut i = 0;
                for x in r {
                    receive(i, x, &mut latencies);
                    i += 1;
                }
                assert_eq!(i, items, "the stream ended early");
                latencies
            },
        )
    };
    let rate = items as f64 / t0.elapsed().as_secs_f64();
    Stream { latencies, rate }
}

/// The `q`-quantile of `v` (sorted in place).
fn quantile(v: &mut [u64], q: f64) -> u64 {
    v.sort_unstable();
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let scale = if quick { 10 } else { 1 };
    let runs = if quick { 3 } else { RUNS };
    let (trips, sporadic, full) = (TRIPS / scale, SPORADIC / scale, FULL / scale);
    let started = Instant::now();
    println!(
        "spanring latency: {runs} runs per figure (medians), {SLOTS}-slot rings, YieldWait, {} mode",
        if quick { "quick" } else { "full" }
    );
    for place in [Place::Apart, Place::Together] {
        println!(
            "\n## {} ({})",
            place.name(),
            match place {
                Place::Apart => "one thread per CPU",
                Place::Together => "both threads on CPU 0",
                Place::Free => "the scheduler decides",
            }
        );
        println!();
        println!("| variant | round trip ns | every 500 ns: p50 ns | p99 ns | every 100 ns: p50 ns | p99 ns | full-rate p50 ns | full-rate p99 ns | full rate M/s |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        let mut rows: Vec<[Vec<f64>; 8]> =
            Variant::ALL.iter().map(|_| Default::default()).collect();
        for _ in 0..runs {
            for (k, &v) in Variant::ALL.iter().enumerate() {
                rows[k][0].push(round_trip(place, v, trips));
                // Together, a sporadic writer spinning on the clock holds the one CPU: the
                // reader runs only when the scheduler preempts it. Apart only.
                if place == Place::Apart {
                    for (g, gap) in GAPS_NS.into_iter().enumerate() {
                        let mut s = stream(place, v, sporadic, 1, gap);
                        rows[k][1 + 2 * g].push(quantile(&mut s.latencies, 0.5) as f64);
                        rows[k][2 + 2 * g].push(quantile(&mut s.latencies, 0.99) as f64);
                    }
                }
                let mut s = stream(place, v, full, STAMP_EVERY, 0);
                rows[k][5].push(quantile(&mut s.latencies, 0.5) as f64);
                rows[k][6].push(quantile(&mut s.latencies, 0.99) as f64);
                rows[k][7].push(s.rate / 1e6);
            }
        }
        for (k, v) in Variant::ALL.iter().enumerate() {
            let mut cell = |i: usize, digits: usize| {
                let col = std::mem::take(&mut rows[k][i]);
                if col.is_empty() {
                    "-".to_string()
                } else {
                    format!("{:.*}", digits, median(col))
                }
            };
            let cells: Vec<String> = (0..8).map(|i| cell(i, 0)).collect();
            println!("| {} | {} |", v.name(), cells.join(" | "));
        }
    }
    println!("\ntotal time {:.1} s", started.elapsed().as_secs_f64());
}
