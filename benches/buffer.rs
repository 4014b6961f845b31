//! GNU Radio 4's `bm_Buffer`, on spanring, with peers.
//!
//! `cargo bench --bench buffer -- --quick` (or `SPANRING_BENCH_QUICK=1`): every table in about
//! a minute on 2 cores. Without `--quick`: 8 repetitions per row like bm_Buffer (a few minutes).
//! `--verify`: the verify table covers the whole matrix instead of a few rows. A positional
//! argument keeps only the tables whose name contains it (`buffer`, `peers`, `wait`, `verify`).
//! Cargo's own harness arguments (`--bench`) are ignored.
//!
//! What is measured (bm_Buffer's method, its parameters, our code):
//! - 1,000,000 samples per repetition; P producers write `samples / P` each (rounded up to
//!   whole chunks), C readers each read all of them (broadcast);
//! - ring capacity `max(4096, chunk) × C × 10` slots of `u64` (bm_Buffer's formula; it uses
//!   `int32_t`) — 40,960 slots for one reader;
//! - each repetition builds a fresh ring and attaches all handles before the clock starts; the
//!   clock runs from the first thread leaving the start barrier to the last one finishing
//!   (read by the worker threads, so a delayed main thread cannot skew it);
//! - ops/s = samples × repetitions / total time, plus min / median / max / mean / stddev of
//!   the per-repetition rates;
//! - the `buffer` table only reserves/publishes and reads/consumes without touching the data
//!   (chunk-1024 rows measure the cursor protocol once per 1024 samples); the `verify` table
//!   writes a counter into every slot and checks it on every reader;
//! - the default wait strategy is `YieldWait` (spin 64 times, then yield): with more threads
//!   than cores, busy-spinning waiters steal the time slices of the threads they wait for.
//!   The `wait` table compares strategies on those oversubscribed rows.
//!
//! Results also go to `target/spanring-bench/buffer.json`.

#[path = "support/peers.rs"]
mod peers;
#[path = "support/report.rs"]
mod report;
#[path = "support/ring_runs.rs"]
mod ring_runs;
#[path = "support/stats.rs"]
mod stats;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use spanring::std_ext::{BlockingWait, DoubleMapped, HeapStorage, YieldWait};
use spanring::sync::AtomicUsize;
use spanring::{
    multi_words, Backoff, BusySpin, MultiProducer, Producer, Ring, SingleProducer, Storage,
    WaitStrategy,
};

use report::Row;
use ring_runs::{gr4_capacity, Scenario, Touch};
use stats::{si, Rep, Stats};

/// Run parameters from the command line and environment.
struct Config {
    quick: bool,
    verify_all: bool,
    reps: usize,
    samples: usize,
    deadline: Duration,
    filter: Option<String>,
}

impl Config {
    fn from_args() -> Self {
        let mut quick = std::env::var("SPANRING_BENCH_QUICK").is_ok_and(|v| v != "0");
        let mut verify_all = false;
        let mut filter = None;
        for arg in std::env::args().skip(1) {
            match arg.as_str() {
                "--quick" => quick = true,
                "--verify" => verify_all = true,
                "--bench" | "--nocapture" | "--test" => {} // cargo's / libtest's, harmless
                "--help" | "-h" => {
                    println!("cargo bench --bench buffer -- [--quick] [--verify] [TABLE]");
                    std::process::exit(0);
                }
                a if a.starts_with('-') => eprintln!("buffer bench: ignoring argument {a}"),
                a => filter = Some(a.to_owned()),
            }
        }
        Self {
            quick,
            verify_all,
            reps: if quick { 3 } else { 8 },
            samples: 1_000_000,
            deadline: Duration::from_secs(if quick { 2 } else { 10 }),
            filter,
        }
    }

    fn wants(&self, table: &str) -> bool {
        match self.filter.as_deref() {
            None => true,
            Some(f) => table.contains(f),
        }
    }

    fn scenario(&self, producers: usize, consumers: usize, chunk: usize, touch: Touch) -> Scenario {
        Scenario {
            producers,
            consumers,
            chunk,
            samples: self.samples,
            touch,
            batch_reads: false,
            deadline: self.deadline,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    DoubleMapped,
    Portable,
}

impl Memory {
    fn name(self) -> &'static str {
        match self {
            Memory::DoubleMapped => "double-mapped",
            Memory::Portable => "portable",
        }
    }
}

/// Repeats `once` up to `reps` times (stopping after a timed-out repetition).
fn repeat(reps: usize, mut once: impl FnMut() -> Rep) -> Stats {
    let mut all = Vec::with_capacity(reps);
    for _ in 0..reps {
        let r = once();
        all.push(r);
        if r.timed_out {
            break;
        }
    }
    Stats::from_reps(&all)
}

fn bits(capacity: usize) -> Vec<AtomicUsize> {
    (0..multi_words(capacity))
        .map(|_| AtomicUsize::new(0))
        .collect()
}

fn measure<S, P, W>(reps: usize, make: &dyn Fn() -> Ring<S, P, W, 4>, sc: &Scenario) -> Stats
where
    S: Storage<Item = u64>,
    P: Producer,
    W: WaitStrategy,
    Ring<S, P, W, 4>: Sync,
{
    repeat(reps, || ring_runs::run_rep(make, sc))
}

/// One spanring row with wait strategy `W`.
fn spanring_row<W>(
    cfg: &Config,
    table: &'static str,
    memory: Memory,
    multi: bool,
    wait: &'static str,
    sc: &Scenario,
) -> Row
where
    W: WaitStrategy + Default + Send + Sync,
{
    let cap = gr4_capacity(sc.chunk, sc.consumers);
    let dm = || DoubleMapped::<u64>::new(cap).expect("double-mapped memory");
    let heap = || HeapStorage::<u64>::with_capacity(cap).expect("heap memory");
    let reps = cfg.reps;
    let stats = match (memory, multi) {
        (Memory::DoubleMapped, false) => measure(
            reps,
            &|| Ring::<_, SingleProducer, W, 4>::starting_at(dm(), 0).expect("ring"),
            sc,
        ),
        (Memory::DoubleMapped, true) => measure(
            reps,
            &|| {
                Ring::<_, MultiProducer<Vec<AtomicUsize>>, W, 4>::new_multi_starting_at(
                    dm(),
                    bits(cap),
                    0,
                )
                .expect("ring")
            },
            sc,
        ),
        (Memory::Portable, false) => measure(
            reps,
            &|| Ring::<_, SingleProducer, W, 4>::starting_at(heap(), 0).expect("ring"),
            sc,
        ),
        (Memory::Portable, true) => measure(
            reps,
            &|| {
                Ring::<_, MultiProducer<Vec<AtomicUsize>>, W, 4>::new_multi_starting_at(
                    heap(),
                    bits(cap),
                    0,
                )
                .expect("ring")
            },
            sc,
        ),
    };
    let capacity = match memory {
        Memory::DoubleMapped => DoubleMapped::<u64>::rounded_capacity(cap).unwrap_or(cap),
        Memory::Portable => cap,
    };
    Row {
        table,
        implementation: "spanring".into(),
        memory: memory.name(),
        claim: if multi { "multi" } else { "single" },
        wait,
        producers: sc.producers,
        consumers: sc.consumers,
        chunk: sc.chunk,
        samples: sc.total(),
        capacity,
        stats,
        ratio: None,
    }
}

const SHAPES: [usize; 3] = [1, 2, 4];

/// bm_Buffer's matrix (plus multi-producer claim with one producer), in `touch` mode.
fn matrix(cfg: &Config, table: &'static str, touch: Touch, rows: &mut Vec<Row>) {
    for memory in [Memory::DoubleMapped, Memory::Portable] {
        for chunk in [1, 1024] {
            for p in SHAPES {
                for c in SHAPES {
                    let sc = cfg.scenario(p, c, chunk, touch);
                    rows.push(spanring_row::<YieldWait>(
                        cfg,
                        table,
                        memory,
                        p > 1,
                        "yield",
                        &sc,
                    ));
                    if p == 1 {
                        rows.push(spanring_row::<YieldWait>(
                            cfg, table, memory, true, "yield", &sc,
                        ));
                    }
                }
            }
        }
    }
}

/// The spanring row a peer is compared with: same shape, double-mapped, YieldWait, the
/// natural claim protocol.
fn reference<'a>(
    rows: &'a [Row],
    table: &str,
    p: usize,
    c: usize,
    chunk: usize,
) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.table == table
            && r.implementation == "spanring"
            && r.memory == "double-mapped"
            && r.claim == if p > 1 { "multi" } else { "single" }
            && r.wait == "yield"
            && (r.producers, r.consumers, r.chunk) == (p, c, chunk)
    })
}

fn peer_rows(cfg: &Config, buffer: &[Row], out: &mut Vec<Row>) {
    type PeerFn = fn(&Scenario, usize) -> Rep;
    let mut runs: Vec<(&str, PeerFn, usize, usize, usize)> = vec![
        ("rtrb", peers::rtrb, 1, 1, 1),
        ("ringbuf", peers::ringbuf, 1, 1, 1),
    ];
    for p in SHAPES {
        runs.push(("ArrayQueue", peers::array_queue, p, 1, 1));
        runs.push(("mpsc", peers::mpsc, p, 1, 1));
    }
    for p in SHAPES {
        for c in SHAPES {
            runs.push(("disruptor", peers::disruptor, p, c, 1));
        }
    }
    runs.push(("rtrb", peers::rtrb, 1, 1, 1024));
    runs.push(("disruptor", peers::disruptor, 1, 1, 1024));
    runs.push(("copy_from_slice", peers::copy_baseline, 1, 1, 1024));
    for (name, run, p, c, chunk) in runs {
        let sc = cfg.scenario(p, c, chunk, Touch::None);
        let cap = gr4_capacity(chunk, c);
        let stats = repeat(cfg.reps, || run(&sc, cap));
        let ratio = reference(buffer, "buffer", p, c, chunk).map(|r| r.stats.ops / stats.ops);
        out.push(Row {
            table: "peers",
            implementation: name.into(),
            memory: "-",
            claim: "-",
            wait: if name == "mpsc" {
                "block"
            } else if name == "copy_from_slice" {
                "-"
            } else {
                "yield"
            },
            producers: p,
            consumers: c,
            chunk,
            samples: sc.total(),
            capacity: cap,
            stats,
            ratio,
        });
    }
}

/// Oversubscribed shapes (P + C > 2 cores) under each wait strategy, chunk 1, double-mapped.
fn wait_rows(cfg: &Config, buffer: &[Row], out: &mut Vec<Row>) {
    for (p, c) in [(2, 1), (1, 2), (2, 2), (1, 4), (4, 4)] {
        let sc = cfg.scenario(p, c, 1, Touch::None);
        let (mem, multi) = (Memory::DoubleMapped, p > 1);
        out.push(spanring_row::<BusySpin>(
            cfg, "wait", mem, multi, "busy", &sc,
        ));
        out.push(spanring_row::<Backoff>(
            cfg, "wait", mem, multi, "backoff", &sc,
        ));
        match reference(buffer, "buffer", p, c, 1) {
            Some(r) => out.push(Row {
                table: "wait",
                ..r.clone()
            }),
            None => out.push(spanring_row::<YieldWait>(
                cfg, "wait", mem, multi, "yield", &sc,
            )),
        }
        out.push(spanring_row::<BlockingWait>(
            cfg, "wait", mem, multi, "blocking", &sc,
        ));
    }
}

/// A few verify rows by default, the whole matrix with `--verify`.
fn verify_rows(cfg: &Config, out: &mut Vec<Row>) {
    if cfg.verify_all {
        matrix(cfg, "verify", Touch::Verify, out);
        return;
    }
    for chunk in [1, 1024] {
        for (p, c) in [(1, 1), (2, 1), (1, 4), (4, 4)] {
            let sc = cfg.scenario(p, c, chunk, Touch::Verify);
            out.push(spanring_row::<YieldWait>(
                cfg,
                "verify",
                Memory::DoubleMapped,
                p > 1,
                "yield",
                &sc,
            ));
        }
        let sc = cfg.scenario(1, 1, chunk, Touch::Verify);
        out.push(spanring_row::<YieldWait>(
            cfg,
            "verify",
            Memory::Portable,
            false,
            "yield",
            &sc,
        ));
    }
}

/// One line of the target table: what, measured value, threshold, met.
struct Target {
    what: String,
    value: f64,
    threshold: f64,
}

/// The targets, evaluated on this run's rows.
fn targets(rows: &[Row]) -> Vec<Target> {
    let mut t = Vec::new();
    let peer = |name: &str, p, c, chunk| {
        rows.iter().find(|r| {
            r.table == "peers"
                && r.implementation == name
                && (r.producers, r.consumers, r.chunk) == (p, c, chunk)
        })
    };
    let mut ratio = |what: String, row: Option<&Row>, threshold: f64| {
        if let Some(x) = row.and_then(|r| r.ratio) {
            t.push(Target {
                what,
                value: x,
                threshold,
            });
        }
    };
    ratio("SPSC chunk 1 vs rtrb".into(), peer("rtrb", 1, 1, 1), 1.0);
    for p in [2, 4] {
        ratio(
            format!("MPMC {p}P→1C chunk 1 vs ArrayQueue"),
            peer("ArrayQueue", p, 1, 1),
            1.5,
        );
    }
    ratio(
        "broadcast 1P→4C vs disruptor (spanring reads chunk 1, disruptor batches)".into(),
        peer("disruptor", 1, 4, 1),
        1.0,
    );
    let batch_row = rows
        .iter()
        .find(|r| r.table == "batch" && (r.producers, r.consumers, r.chunk) == (1, 4, 1));
    ratio(
        "broadcast 1P→4C vs disruptor, both reading batches (like for like)".into(),
        batch_row,
        1.0,
    );
    ratio(
        "chunk 1024 1P→1C, data untouched, vs copy_from_slice (≥ 0.5 = within 2×)".into(),
        peer("copy_from_slice", 1, 1, 1024),
        0.5,
    );
    ratio(
        "chunk 1024 1P→1C, copy in + out, vs copy_from_slice (≥ 0.5 = within 2×)".into(),
        peer("spanring (copy)", 1, 1, 1024),
        0.5,
    );
    // GNU Radio 4's bm_Buffer on this machine kind (ops/s).
    let gr4: [(&str, &str, usize, usize, usize, f64); 6] = [
        ("double-mapped", "single", 1, 1, 1, 18.1e6),
        ("double-mapped", "single", 1, 4, 1, 7.2e6),
        ("double-mapped", "multi", 2, 1, 1, 10.0e6),
        ("double-mapped", "multi", 4, 4, 1, 7.9e6),
        ("double-mapped", "single", 1, 1, 1024, 6.7e9),
        ("portable", "single", 1, 1, 1, 59.1e6),
    ];
    for (memory, claim, p, c, chunk, gr) in gr4 {
        if let Some(r) = rows.iter().find(|r| {
            r.table == "buffer"
                && r.memory == memory
                && r.claim == claim
                && (r.producers, r.consumers, r.chunk) == (p, c, chunk)
        }) {
            t.push(Target {
                what: format!("GR4 {memory} {p}P→{c}C chunk {chunk} ({})", si(gr)),
                value: r.stats.ops / gr,
                threshold: 1.5,
            });
        }
    }
    t
}

fn main() {
    let cfg = Config::from_args();
    let began = Instant::now();
    println!(
        "spanring bm_Buffer: {} samples/repetition, {} repetitions, {} cores, mode {}",
        cfg.samples,
        cfg.reps,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        if cfg.quick { "quick" } else { "full" }
    );
    let mut rows = Vec::new();
    if cfg.wants("buffer") || cfg.wants("peers") || cfg.wants("wait") {
        matrix(&cfg, "buffer", Touch::None, &mut rows);
        report::print_table(
            "buffer (bm_Buffer: reserve/publish, read/consume, data untouched; wait = yield)",
            &rows,
        );
    }
    if cfg.wants("peers") {
        let mut peer = Vec::new();
        peer_rows(&cfg, &rows, &mut peer);
        report::print_table(
            "peers (ratio = spanring double-mapped ops/s in the same shape ÷ peer ops/s)",
            &peer,
        );
        // The ring moving real bytes (copy in, copy out) against the one-thread copy.
        let sc = cfg.scenario(1, 1, 1024, Touch::Copy);
        let mut copy =
            spanring_row::<YieldWait>(&cfg, "peers", Memory::DoubleMapped, false, "yield", &sc);
        copy.implementation = "spanring (copy)".into();
        let baseline = peer
            .iter()
            .find(|r| r.implementation == "copy_from_slice")
            .map(|r| r.stats.ops);
        copy.ratio = baseline.map(|b| copy.stats.ops / b);
        report::print_table(
            "spanring moving data (copy_from_slice in, copy_to_slice out; ratio ÷ one-thread copy)",
            std::slice::from_ref(&copy),
        );
        peer.push(copy);
        // Like for like with the disruptor, whose handlers take every available event per
        // wake-up: spanring readers reading everything published at once (chunk-1 writes).
        let mut batch = Vec::new();
        for p in SHAPES {
            for c in SHAPES {
                let mut sc = cfg.scenario(p, c, 1, Touch::None);
                sc.batch_reads = true;
                let mut row = spanring_row::<YieldWait>(
                    &cfg,
                    "batch",
                    Memory::DoubleMapped,
                    p > 1,
                    "yield",
                    &sc,
                );
                row.implementation = "spanring (batch reads)".into();
                row.ratio = peer
                    .iter()
                    .find(|r| {
                        r.implementation == "disruptor"
                            && (r.producers, r.consumers, r.chunk) == (p, c, 1)
                    })
                    .map(|d| row.stats.ops / d.stats.ops);
                batch.push(row);
            }
        }
        report::print_table(
            "batch reads vs disruptor (readers take all published items per read, writers chunk 1; ratio ÷ disruptor)",
            &batch,
        );
        peer.extend(batch);
        rows.extend(peer);
    }
    if cfg.wants("wait") {
        let mut wait = Vec::new();
        wait_rows(&cfg, &rows, &mut wait);
        report::print_table(
            "wait strategies on oversubscribed shapes (chunk 1, double-mapped; * = watchdog cut the run)",
            &wait,
        );
        rows.extend(wait);
    }
    if cfg.wants("verify") {
        let mut verify = Vec::new();
        verify_rows(&cfg, &mut verify);
        report::print_table(
            "verify (every slot written with a counter and checked by every reader)",
            &verify,
        );
        rows.extend(verify);
    }
    let targets = targets(&rows);
    if !targets.is_empty() {
        println!("\n## targets (this run)\n");
        println!("| target | ratio | needed | met |\n|---|---:|---:|---|");
        for t in &targets {
            let met = if t.value >= t.threshold { "yes" } else { "no" };
            println!(
                "| {} | {:.2}× | ≥ {:.1}× | {met} |",
                t.what, t.value, t.threshold
            );
        }
    }
    let dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let path = dir.join("spanring-bench").join("buffer.json");
    let mode = if cfg.quick { "quick" } else { "full" };
    match report::write_json(&path, mode, &rows) {
        Ok(()) => println!("\nwrote {}", path.display()),
        Err(e) => eprintln!("could not write {}: {e}", path.display()),
    }
    println!("total time {:.1} s", began.elapsed().as_secs_f64());
}
