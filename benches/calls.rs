//! Nanoseconds per call for every form of the one-item path: try, blocking and timeout (and the
//! one-item `push`/`pop` family), on a core ring and on an owned buffer, single-producer and
//! multi-producer. One thread writes 64 items one call at a time, then reads them one call at
//! a time, and repeats: no other thread, so the numbers are the calls' own cost (no cache-line
//! transfers, no waiting: the blocking forms always find room or data on their fast path,
//! which is the point — a blocking call that does not need to wait must cost what a try call
//! costs). Every item is written and checked.
//!
//! `cargo bench --bench calls` (`-- --quick` for a short run). Prints ns per item (one write
//! call + one read call) and each form's ratio to the try form of the same ring (issue 13's
//! target: every blocking form ≥ 0.8× the try loop).

use std::hint::black_box;
use std::time::{Duration, Instant};

use spanring::std_ext::{owned, BlockingWait, YieldWait};
use spanring::sync::AtomicUsize;
use spanring::{multi_words, MultiProducer, Reader, Ring, SliceStorage, WaitTimeout, Writer};

/// Items written, then read, per cycle.
const BURST: u64 = 64;
const LONG: Duration = Duration::from_secs(60);
/// The form every other one is compared with.
const TRY_FORM: &str = "try_reserve(1) / try_read(1)";

/// The median over `reps` repetitions of ns per item of `cycle` (which moves `BURST` items).
fn median_ns(reps: usize, cycles: u64, mut cycle: impl FnMut(u64)) -> f64 {
    for i in 0..cycles / 10 {
        cycle(i); // warm-up
    }
    let mut ns: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = Instant::now();
            for i in 0..cycles {
                cycle(i);
            }
            t0.elapsed().as_nanos() as f64 / (cycles * BURST) as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    ns[ns.len() / 2]
}

/// One row: a ring and a form.
struct Row {
    ring: &'static str,
    form: &'static str,
    ns: f64,
}

/// Checks that `got` is the item `i` of the burst `cycle`.
#[inline(always)]
fn check(cycle: u64, i: u64, got: u64) {
    assert_eq!(got, cycle * BURST + i, "item lost or reordered");
}

/// Every form on one writer/reader pair (any ring: core or owned; `$w`/`$r` are places).
macro_rules! forms {
    ($rows:ident, $ring:expr, $reps:expr, $cycles:expr, $w:expr, $r:expr) => {{
        let (reps, cycles, ring) = ($reps, $cycles, $ring);
        let mut add = |form, ns| $rows.push(Row { ring, form, ns });
        add(
            TRY_FORM,
            median_ns(reps, cycles, |c| {
                for i in 0..BURST {
                    $w.try_reserve(1).expect("room")[0] = c * BURST + i;
                }
                for i in 0..BURST {
                    check(c, i, $r.try_read(1).expect("data")[0]);
                }
            }),
        );
        add(
            "reserve(1) / read(1)",
            median_ns(reps, cycles, |c| {
                for i in 0..BURST {
                    $w.reserve(1).expect("room")[0] = c * BURST + i;
                }
                for i in 0..BURST {
                    check(c, i, $r.read(1).expect("data")[0]);
                }
            }),
        );
        add(
            "reserve_timeout / read_timeout",
            median_ns(reps, cycles, |c| {
                for i in 0..BURST {
                    $w.reserve_timeout(1, LONG).expect("room")[0] = c * BURST + i;
                }
                for i in 0..BURST {
                    check(c, i, $r.read_timeout(1, LONG).expect("data")[0]);
                }
            }),
        );
        add(
            "try_push / try_pop",
            median_ns(reps, cycles, |c| {
                for i in 0..BURST {
                    $w.try_push(c * BURST + i).expect("room");
                }
                for i in 0..BURST {
                    check(c, i, $r.try_pop().expect("data"));
                }
            }),
        );
        add(
            "push / pop",
            median_ns(reps, cycles, |c| {
                for i in 0..BURST {
                    $w.push(c * BURST + i).expect("room");
                }
                for i in 0..BURST {
                    check(c, i, $r.pop().expect("data"));
                }
            }),
        );
        add(
            "push_timeout / pop_timeout",
            median_ns(reps, cycles, |c| {
                for i in 0..BURST {
                    $w.push_timeout(c * BURST + i, LONG).expect("room");
                }
                for i in 0..BURST {
                    check(c, i, $r.pop_timeout(LONG).expect("data"));
                }
            }),
        );
        add(
            "try_reserve(64) / try_read(64) (per item)",
            median_ns(reps, cycles, |c| {
                let mut span = $w.try_reserve(BURST as usize).expect("room");
                for i in 0..BURST {
                    span[i as usize] = c * BURST + i;
                }
                drop(span);
                let span = $r.try_read(BURST as usize).expect("data");
                for i in 0..BURST {
                    check(c, i, span[i as usize]);
                }
            }),
        );
    }};
}

/// Every form on a single-producer core ring over `memory` whose threads wait with `W`.
fn core_sp<W: WaitTimeout + Default>(
    memory: &mut [u64],
    label: &'static str,
    reps: usize,
    cycles: u64,
    rows: &mut Vec<Row>,
) {
    let ring = Ring::builder(SliceStorage::new(memory))
        .wait::<W>()
        .build()
        .expect("ring");
    let mut r = Reader::attach(&ring).expect("reader");
    let mut w = Writer::attach(&ring).expect("writer");
    forms!(rows, label, reps, cycles, w, r);
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("SPANRING_BENCH_QUICK").is_ok_and(|v| v != "0");
    let (reps, cycles) = if quick { (5, 20_000) } else { (11, 100_000) };
    let mut rows = Vec::new();

    let mut memory = vec![0u64; 1024];
    core_sp::<YieldWait>(&mut memory, "core SP", reps, cycles, &mut rows);
    // What a parking wait strategy adds to every call: its `notify_all` on each publish and
    // consume (the owned buffers below use it too).
    core_sp::<BlockingWait>(&mut memory, "core SP BlockingWait", reps, cycles, &mut rows);
    {
        let mut words: Vec<AtomicUsize> = (0..multi_words(1024))
            .map(|_| AtomicUsize::new(0))
            .collect();
        let ring: Ring<_, MultiProducer<&mut [AtomicUsize]>, YieldWait> =
            Ring::builder(SliceStorage::new(&mut memory))
                .wait::<YieldWait>()
                .multi_producer(&mut words[..])
                .build()
                .expect("ring");
        let mut r = Reader::attach(&ring).expect("reader");
        let mut w = Writer::attach(&ring).expect("writer");
        forms!(rows, "core MP", reps, cycles, w, r);
    }
    {
        let (mut w, mut r) = owned::portable::<u64>(1024).build().expect("buffer");
        forms!(rows, "owned SP", reps, cycles, w, r);
    }

    println!("\n## calls: ns per item (one write call + one read call), single thread, median of {reps}\n");
    println!("| ring | form | ns/item | vs try form |\n|---|---|---:|---:|");
    for row in &rows {
        let base = rows
            .iter()
            .find(|b| b.ring == row.ring && b.form == TRY_FORM)
            .map_or(f64::NAN, |b| b.ns);
        println!(
            "| {} | {} | {:.2} | {:.2}× |",
            row.ring,
            row.form,
            row.ns,
            base / row.ns
        );
    }
    black_box(&memory);
}
