//! GNU Radio 4's `bm_Buffer`, on spanring, with peers.
//!
//! `cargo bench --bench buffer -- --quick` (or `SPANRING_BENCH_QUICK=1`): every table in
//! 10–20 s on 2 cores (once built). Without `--quick`: 8 repetitions per row like bm_Buffer
//! (35–45 s).
//! `--verify`: the verify table covers the whole matrix instead of a few rows. A positional
//! argument keeps only the tables whose name contains it (`buffer`, `peers`, `wait`, `verify`,
//! `targets`). Cargo's own harness arguments (`--bench`) are ignored.
//!
//! The targets table is measured on its own, after the others: each ratio against a peer is the
//! median of interleaved pairs (one repetition of ours, one of the peer, back to back, order
//! alternating; 5 pairs quick, 11 full), so a VM that changes speed between minutes cannot
//! make a ratio out of two different machines (`support/paired.rs`).
//!
//! Thread placement (`support/pin.rs`): on this VM the speed of a row depends mostly on whether
//! the scheduler puts a writer and its reader on one core (time-sliced, no cache line moves)
//! or on two; unpinned, it picks per repetition. The tables run unpinned, as bm_Buffer does;
//! the targets run twice, pinned `together` (the instructions per item) and `apart` (the
//! cross-core hand-off). `SPANRING_BENCH_PIN=free|together|apart` runs everything that way.
//!
//! What is measured (bm_Buffer's method, its parameters, our code):
//! - 10,000,000 samples per repetition at chunk 1024 (bm_Buffer's minimum), 1,000,000 at
//!   chunk 1 (for the run time: those repetitions last 2–100 ms); P producers write
//!   `samples / P` each (rounded up to whole chunks), C readers each read all of them
//!   (broadcast). At 1,000,000 a chunk-1024 repetition lasted 0.1–0.6 ms and mostly measured
//!   thread start-up: the slowest MP row (portable 4P→4C) read 1.74 G/s there and 3.75 G/s at
//!   10,000,000 (4.77 G/s at 100,000,000);
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

#[path = "support/check.rs"]
mod check;
#[path = "support/paired.rs"]
mod paired;
#[path = "support/peers.rs"]
mod peers;
#[path = "support/pin.rs"]
mod pin;
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
use spanring::wait::Pacing;
use spanring::{multi_words, Backoff, BusySpin, Ring, WaitStrategy};

use paired::Paired;
use report::Row;
use ring_runs::{gr4_capacity, Scenario, Touch};
use stats::{si, Rep, Stats};

/// Run parameters from the command line and environment.
struct Config {
    quick: bool,
    verify_all: bool,
    reps: usize,
    /// Samples per repetition of a chunk-1 row.
    samples: usize,
    /// Samples per repetition of a row with longer chunks (bm_Buffer's own minimum, 10,000,000).
    chunk_samples: usize,
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
            chunk_samples: 10_000_000,
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
            samples: if chunk > 1 {
                self.chunk_samples
            } else {
                self.samples
            },
            touch,
            batch_reads: false,
            pop_loop: false,
            pacing: None,
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

/// One repetition of a spanring row with wait strategy `W` (a fresh ring each time) of
/// bm_Buffer's capacity.
fn spanring_rep<W>(memory: Memory, multi: bool, sc: &Scenario) -> Rep
where
    W: WaitStrategy + Default + Send + Sync,
{
    spanring_rep_sized::<W>(memory, multi, sc, gr4_capacity(sc.chunk, sc.consumers))
}

/// [`spanring_rep`] with at least `cap` slots.
fn spanring_rep_sized<W>(memory: Memory, multi: bool, sc: &Scenario, cap: usize) -> Rep
where
    W: WaitStrategy + Default + Send + Sync,
{
    // Prefaulted: each repetition builds a new ring, and a lazily mapped one would spend its
    // first lap in page faults (about a microsecond a page) that the peers' rings, written
    // once at allocation, do not pay inside the timed loop.
    let dm = || DoubleMapped::<u64>::new_prefaulted(cap).expect("double-mapped memory");
    let heap = || HeapStorage::<u64>::with_capacity(cap).expect("heap memory");
    match (memory, multi) {
        (Memory::DoubleMapped, false) => ring_runs::run_rep(
            &|| Ring::builder(dm()).wait::<W>().build().expect("ring"),
            sc,
        ),
        (Memory::DoubleMapped, true) => ring_runs::run_rep(
            &|| {
                Ring::builder(dm())
                    .wait::<W>()
                    .multi_producer(bits(cap))
                    .build()
                    .expect("ring")
            },
            sc,
        ),
        (Memory::Portable, false) => ring_runs::run_rep(
            &|| Ring::builder(heap()).wait::<W>().build().expect("ring"),
            sc,
        ),
        (Memory::Portable, true) => ring_runs::run_rep(
            &|| {
                Ring::builder(heap())
                    .wait::<W>()
                    .multi_producer(bits(cap))
                    .build()
                    .expect("ring")
            },
            sc,
        ),
    }
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
    let stats = repeat(cfg.reps, || spanring_rep::<W>(memory, multi, sc));
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

/// `YieldWait::with_spins(0)` as a type (the rings build their strategies with `Default`): a
/// yield at every failed check, for the orientation rows that give both sides that policy.
#[derive(Default)]
struct YieldAtOnce;

impl WaitStrategy for YieldAtOnce {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        YieldWait::with_spins(0).wait_until(ready);
    }
    fn notify_all(&self) {}
}

/// The spanring row a peer is compared with.
#[derive(Clone, Copy)]
struct Ref {
    /// `verify` (items written and checked: every chunk-1 peer) or `buffer` (data untouched).
    table: &'static str,
    multi: bool,
    producers: usize,
    consumers: usize,
    chunk: usize,
    /// Readers take everything published per read.
    batch: bool,
    /// Readers call `pop` in a loop instead of iterating the reader (`Scenario::pop_loop`).
    pop_loop: bool,
    /// The readers' pacing, if not their default (`Scenario::pacing`).
    pacing: Option<Pacing>,
    /// Our ring waits with `YieldWait::with_spins(0)` ([`YieldAtOnce`]), not `YieldWait::new()`.
    yield_at_once: bool,
}

impl Ref {
    /// Chunk 1, items checked, readers reading one item at a time (`batch` = all available).
    fn item(multi: bool, producers: usize, consumers: usize, batch: bool) -> Self {
        Self {
            table: "verify",
            multi,
            producers,
            consumers,
            chunk: 1,
            batch,
            pop_loop: false,
            pacing: None,
            yield_at_once: false,
        }
    }

    /// The same row with readers calling `pop` in a loop.
    fn with_pop_loop(self) -> Self {
        Self {
            pop_loop: true,
            ..self
        }
    }

    /// The same row with our ring yielding at every failed check ([`YieldAtOnce`]).
    fn yielding_at_once(self) -> Self {
        Self {
            yield_at_once: true,
            ..self
        }
    }

    /// The same row with readers paced by `pacing` instead of their default.
    fn with_pacing(self, pacing: Pacing) -> Self {
        Self {
            pacing: Some(pacing),
            ..self
        }
    }

    /// Chunk 1024, data untouched, single producer 1P→1C.
    fn chunk_1024() -> Self {
        Self {
            table: "buffer",
            multi: false,
            producers: 1,
            consumers: 1,
            chunk: 1024,
            batch: false,
            pop_loop: false,
            pacing: None,
            yield_at_once: false,
        }
    }

    fn find(self, rows: &[Row]) -> Option<&Row> {
        rows.iter().find(|r| {
            r.table == self.table
                && r.implementation == if self.batch { BATCH_IMPL } else { "spanring" }
                && r.memory == "double-mapped"
                && r.claim == if self.multi { "multi" } else { "single" }
                && r.wait == "yield"
                && (r.producers, r.consumers, r.chunk)
                    == (self.producers, self.consumers, self.chunk)
        })
    }
}

/// The implementation name of spanring rows whose readers read everything published at once.
const BATCH_IMPL: &str = "spanring (batch reads)";

/// Every peer row, each compared with the spanring row of the same shape in this run.
fn peer_rows(cfg: &Config, spanring: &[Row], out: &mut Vec<Row>) {
    type PeerFn = fn(&Scenario, usize) -> Rep;
    let mut runs: Vec<(&str, PeerFn, Ref)> = vec![
        ("rtrb", peers::rtrb, Ref::item(false, 1, 1, false)),
        (
            "rtrb (batch reads)",
            peers::rtrb_batch,
            Ref::item(false, 1, 1, true),
        ),
        ("ringbuf", peers::ringbuf, Ref::item(false, 1, 1, false)),
    ];
    for p in SHAPES {
        runs.push((
            "ArrayQueue",
            peers::array_queue,
            Ref::item(true, p, 1, false),
        ));
        runs.push((
            "crossbeam-channel",
            peers::crossbeam_channel,
            Ref::item(true, p, 1, false),
        ));
        runs.push(("mpsc", peers::mpsc, Ref::item(true, p, 1, false)));
    }
    for p in [1, 2] {
        runs.push((
            "disruptor MP",
            peers::disruptor_mp,
            Ref::item(true, p, 1, false),
        ));
    }
    for p in SHAPES {
        for c in SHAPES {
            runs.push(("disruptor", peers::disruptor, Ref::item(p > 1, p, c, false)));
            runs.push(("disruptor", peers::disruptor, Ref::item(p > 1, p, c, true)));
        }
    }
    runs.push(("rtrb", peers::rtrb, Ref::chunk_1024()));
    runs.push(("disruptor", peers::disruptor, Ref::chunk_1024()));
    runs.push(("copy_from_slice", peers::copy_baseline, Ref::chunk_1024()));
    // One measurement per (peer, shape), however many spanring rows it is compared with.
    let mut measured: Vec<(&str, usize, usize, usize, Stats)> = Vec::new();
    for (name, run, r) in runs {
        let (p, c, chunk) = (r.producers, r.consumers, r.chunk);
        let sc = cfg.scenario(p, c, chunk, Touch::None);
        let cap = gr4_capacity(chunk, c);
        let stats = match measured
            .iter()
            .find(|m| (m.0, m.1, m.2, m.3) == (name, p, c, chunk))
        {
            Some(m) => m.4.clone(),
            None => {
                let st = repeat(cfg.reps, || run(&sc, cap));
                measured.push((name, p, c, chunk, st.clone()));
                st
            }
        };
        let reference = r.find(spanring);
        let ratio = reference.map(|x| x.stats.ops / stats.ops);
        out.push(Row {
            table: "peers",
            implementation: if r.batch && name == "disruptor" {
                "disruptor (vs batch)".into()
            } else {
                name.into()
            },
            memory: "-",
            claim: if reference.is_some() {
                if r.multi {
                    "multi"
                } else {
                    "single"
                }
            } else {
                "-"
            },
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
        let natural = Ref {
            table: "buffer",
            ..Ref::item(p > 1, p, c, false)
        };
        match natural.find(buffer) {
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

/// The verify rows every comparison needs (the whole matrix as well with `--verify`): items
/// written and checked; chunk 1 with readers reading one item at a time and, for the
/// broadcast comparisons, everything published at once; chunk 1024.
fn verify_rows(cfg: &Config, out: &mut Vec<Row>) {
    if cfg.verify_all {
        matrix(cfg, "verify", Touch::Verify, out);
    }
    let mut row = |multi: bool, p: usize, c: usize, chunk: usize, batch: bool, memory: Memory| {
        let mut sc = cfg.scenario(p, c, chunk, Touch::Verify);
        sc.batch_reads = batch;
        let mut r = spanring_row::<YieldWait>(cfg, "verify", memory, multi, "yield", &sc);
        if batch {
            r.implementation = BATCH_IMPL.into();
        }
        if !out.iter().any(|o| {
            (
                o.implementation.as_str(),
                o.memory,
                o.claim,
                o.producers,
                o.consumers,
                o.chunk,
            ) == (r.implementation.as_str(), r.memory, r.claim, p, c, chunk)
        }) {
            out.push(r);
        }
    };
    let dm = Memory::DoubleMapped;
    // Chunk 1, item reads: SP 1P→{1,2,4}C, MP used by one producer, MP P→C.
    for c in SHAPES {
        row(false, 1, c, 1, false, dm);
    }
    for p in SHAPES {
        for c in SHAPES {
            row(true, p, c, 1, false, dm);
        }
    }
    // Chunk 1, batch reads (what disruptor handlers and rtrb's read_chunk do).
    for p in SHAPES {
        for c in SHAPES {
            row(p > 1, p, c, 1, true, dm);
        }
    }
    for (multi, p, c) in [
        (false, 1, 1),
        (true, 1, 1),
        (true, 2, 1),
        (false, 1, 4),
        (true, 4, 4),
    ] {
        row(multi, p, c, 1024, false, dm);
    }
    row(false, 1, 1, 1, false, Memory::Portable);
    row(false, 1, 1, 1024, false, Memory::Portable);
}

/// One line of the target table.
struct Target {
    issue: u32,
    what: String,
    /// What was compared, in numbers.
    detail: String,
    value: f64,
    threshold: f64,
}

/// The issues' ratio targets, measured now under the current thread placement. Every ratio
/// against a peer (and MP against SP) is the median of interleaved pairs ([`Paired`]): one
/// repetition of ours, one of the peer, back to back, so both sides saw the machine in the
/// same state.
fn paired_targets(cfg: &Config) -> Vec<Target> {
    type PeerFn = fn(&Scenario, usize) -> Rep;
    let rounds = if cfg.quick { 5 } else { 11 };
    let mut t = Vec::new();
    // Our verify row of shape `r` against `peer` in the same shape, with as many slots as the
    // peer's ring really has: disruptor rounds the capacity up to a power of two (1.6× more
    // slots for 1P→4C, which measured about 1.2× faster on our ring too), the others use it
    // as given.
    // `SPANRING_BENCH_TARGET=text` measures only the targets whose name contains `text` (for
    // working on one of them; benches/RESULTS.md comes from a run without it).
    let only = std::env::var("SPANRING_BENCH_TARGET").ok();
    let wanted = |what: &str| !matches!(only.as_deref(), Some(o) if !what.contains(o));
    let mut vs = |issue: u32, what: &str, r: Ref, (peer, pow2): (PeerFn, bool), threshold: f64| {
        if !wanted(what) {
            return;
        }
        let mut ours = cfg.scenario(r.producers, r.consumers, r.chunk, Touch::Verify);
        ours.batch_reads = r.batch;
        ours.pop_loop = r.pop_loop;
        ours.pacing = r.pacing;
        let theirs = cfg.scenario(r.producers, r.consumers, r.chunk, Touch::None);
        let cap = gr4_capacity(r.chunk, r.consumers);
        let peer_slots = if pow2 { cap.next_power_of_two() } else { cap };
        let p = Paired::measure(
            rounds,
            || match r.yield_at_once {
                false => spanring_rep_sized::<YieldWait>(
                    Memory::DoubleMapped,
                    r.multi,
                    &ours,
                    peer_slots,
                ),
                true => spanring_rep_sized::<YieldAtOnce>(
                    Memory::DoubleMapped,
                    r.multi,
                    &ours,
                    peer_slots,
                ),
            },
            || peer(&theirs, cap),
        );
        t.push(Target {
            issue,
            what: what.into(),
            detail: p.detail(),
            value: p.ratio(),
            threshold,
        });
    };
    let mp = |p| Ref::item(true, p, 1, false);
    let sp = Ref::item(false, 1, 1, false);
    vs(
        11,
        "MP 1P→1C chunk 1 vs ArrayQueue",
        mp(1),
        (peers::array_queue as PeerFn, false),
        1.5,
    );
    vs(
        11,
        "MP 2P→1C chunk 1 vs ArrayQueue",
        mp(2),
        (peers::array_queue as PeerFn, false),
        1.5,
    );
    vs(
        11,
        "MP 1P→1C chunk 1 vs disruptor MP",
        mp(1),
        (peers::disruptor_mp as PeerFn, true),
        2.0,
    );
    vs(
        11,
        "MP 2P→1C chunk 1 vs disruptor MP",
        mp(2),
        (peers::disruptor_mp as PeerFn, true),
        2.0,
    );
    vs(
        13,
        "SP item at a time vs ringbuf try_push/try_pop",
        sp,
        (peers::ringbuf as PeerFn, false),
        1.0,
    );
    vs(
        13,
        "SP item at a time vs rtrb push/pop",
        sp,
        (peers::rtrb as PeerFn, false),
        1.2,
    );
    // Orientation, not a target: the same row with `while let Ok(x) = r.pop()` instead of
    // `for x in r` (reader_iter.rs says why the iterator is faster).
    vs(
        0,
        "SP item at a time, pop loop, vs rtrb push/pop",
        sp.with_pop_loop(),
        (peers::rtrb as PeerFn, false),
        1.2,
    );
    vs(
        13,
        "SP batch reads vs rtrb read_chunk",
        Ref::item(false, 1, 1, true),
        (peers::rtrb_batch as PeerFn, false),
        1.2,
    );
    // Orientation, not targets: the readers unpaced (`Pacing::OFF`, every look's items
    // returned at once), and paced harder (`Pacing::new(16, 32)`,
    // more throughput for more latency); core/src/pacing.rs and `cargo bench --bench latency`
    // say what each costs. The target rows keep the readers' default, `Pacing::for_items`.
    vs(
        0,
        "SP item at a time, unpaced reader, vs rtrb push/pop",
        sp.with_pacing(Pacing::OFF),
        (peers::rtrb as PeerFn, false),
        1.2,
    );
    vs(
        0,
        "SP batch reads, unpaced reader, vs rtrb read_chunk",
        Ref::item(false, 1, 1, true).with_pacing(Pacing::OFF),
        (peers::rtrb_batch as PeerFn, false),
        1.2,
    );
    vs(
        0,
        "SP item at a time, reader paced 16/32, vs rtrb push/pop",
        sp.with_pacing(Pacing::new(16, 32)),
        (peers::rtrb as PeerFn, false),
        1.2,
    );
    for c in [2, 4] {
        vs(
            0,
            &format!("broadcast 1P→{c}C item reads, unpaced readers, vs disruptor"),
            Ref::item(false, 1, c, false).with_pacing(Pacing::OFF),
            (peers::disruptor as PeerFn, true),
            1.2,
        );
    }
    for c in [2, 4] {
        vs(
            13,
            &format!("broadcast 1P→{c}C item reads vs disruptor"),
            Ref::item(false, 1, c, false),
            (peers::disruptor as PeerFn, true),
            1.2,
        );
        vs(
            13,
            &format!("broadcast 1P→{c}C batch reads vs disruptor"),
            Ref::item(false, 1, c, true),
            (peers::disruptor as PeerFn, true),
            1.2,
        );
    }
    // Orientation, not targets: the broadcast rows with both sides yielding at every failed
    // check (ours `YieldWait::with_spins(0)`, disruptor's handlers with
    // `YieldStrategy::AT_ONCE`), the other uniform waiting policy (`peers::YieldStrategy`).
    for c in [2, 4] {
        for (reads, batch) in [("item", false), ("batch", true)] {
            vs(
                0,
                &format!("broadcast 1P→{c}C {reads} reads vs disruptor, both yield at once"),
                Ref::item(false, 1, c, batch).yielding_at_once(),
                (peers::disruptor_yield_at_once as PeerFn, true),
                1.2,
            );
        }
    }
    let what = "MP used by one producer vs SP (1P→1C chunk 1)";
    if !wanted(what) {
        return t;
    }
    let sc = cfg.scenario(1, 1, 1, Touch::Verify);
    let p = Paired::measure(
        rounds,
        || spanring_rep::<YieldWait>(Memory::DoubleMapped, true, &sc),
        || spanring_rep::<YieldWait>(Memory::DoubleMapped, false, &sc),
    );
    t.push(Target {
        issue: 11,
        what: what.into(),
        detail: p.detail(),
        value: p.ratio(),
        threshold: 0.3,
    });
    t
}

/// The issues' targets, measured in this run only: the ratio targets under each thread
/// placement (`support/pin.rs`; only the one `SPANRING_BENCH_PIN` names, if set), then the
/// chunk-1024 and GR4 rows from the tables.
fn targets(cfg: &Config, rows: &[Row]) -> Vec<Target> {
    let placements = match pin::requested() {
        Some(p) => vec![p],
        None => pin::TARGET_PLACEMENTS.to_vec(),
    };
    let table_placement = pin::placement();
    let mut t = Vec::new();
    for p in placements {
        pin::set(p);
        for mut target in paired_targets(cfg) {
            target.what = format!("[{}] {}", p.name(), target.what);
            t.push(target);
        }
    }
    pin::set(table_placement);
    let mp_1024: Vec<&Row> = rows
        .iter()
        .filter(|r| r.table == "buffer" && r.claim == "multi" && r.chunk == 1024)
        .collect();
    if let Some(slowest) = mp_1024
        .iter()
        .min_by(|a, b| a.stats.ops.total_cmp(&b.stats.ops))
    {
        t.push(Target {
            issue: 11,
            what: format!(
                "every MP chunk-1024 row ≥ 3 G items/s ({} rows)",
                mp_1024.len()
            ),
            detail: format!(
                "slowest {} {} {}",
                slowest.memory,
                slowest.shape(),
                si(slowest.stats.ops)
            ),
            value: slowest.stats.ops / 3e9,
            threshold: 1.0,
        });
    }
    // GNU Radio 4's own bm_Buffer, built and run once on this machine kind (ops/s): a
    // remembered figure, so shown for orientation, not as a live ratio.
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
                issue: 0,
                what: format!("GR4 bm_Buffer {memory} {p}P→{c}C chunk {chunk} (earlier session)"),
                detail: format!("{} vs {}", si(r.stats.ops), si(gr)),
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
        "spanring bm_Buffer: {} samples/repetition (chunk 1), {} (chunk 1024), {} repetitions, {} cores, mode {}, tables' threads {:?}",
        cfg.samples,
        cfg.chunk_samples,
        cfg.reps,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        if cfg.quick { "quick" } else { "full" },
        pin::placement(),
    );
    let mut rows = Vec::new();
    if cfg.wants("buffer") || cfg.wants("peers") || cfg.wants("wait") {
        matrix(&cfg, "buffer", Touch::None, &mut rows);
        report::print_table(
            "buffer (bm_Buffer: reserve/publish, read/consume, data untouched; wait = yield)",
            &rows,
        );
    }
    if cfg.wants("verify") || cfg.wants("peers") {
        let mut verify = Vec::new();
        verify_rows(&cfg, &mut verify);
        report::print_table(
            "verify (every slot written with a counter and checked by every reader; chunk-1 rows are what peers are compared with)",
            &verify,
        );
        rows.extend(verify);
    }
    if cfg.wants("peers") {
        let mut peer = Vec::new();
        peer_rows(&cfg, &rows, &mut peer);
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
        peer.push(copy);
        report::print_table(
            "peers (chunk 1: items written and checked; ratio = spanring verify row of the same shape and claim ÷ peer; chunk 1024: data untouched, ratio against the buffer table)",
            &peer,
        );
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
    let targets = if cfg.wants("peers") || cfg.wants("targets") {
        targets(&cfg, &rows)
    } else {
        Vec::new()
    };
    if !targets.is_empty() {
        println!("\n## targets (this run; ratios are medians of interleaved pairs)\n");
        println!(
            "| issue | target | measured | ratio | needed | met |\n|---|---|---|---:|---:|---|"
        );
        for t in &targets {
            let met = if t.value >= t.threshold { "yes" } else { "no" };
            let issue = if t.issue == 0 {
                "-".into()
            } else {
                format!("#{}", t.issue)
            };
            println!(
                "| {issue} | {} | {} | {:.2}× | ≥ {:.1}× | {met} |",
                t.what, t.detail, t.value, t.threshold
            );
        }
    }
    let dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let file = match pin::placement() {
        pin::Placement::Free => "buffer.json",
        pin::Placement::Apart => "buffer-apart.json",
        pin::Placement::Together => "buffer-together.json",
    };
    let path = dir.join("spanring-bench").join(file);
    let mode = if cfg.quick { "quick" } else { "full" };
    match report::write_json(&path, mode, &rows) {
        Ok(()) => println!("\nwrote {}", path.display()),
        Err(e) => eprintln!("could not write {}: {e}", path.display()),
    }
    println!("total time {:.1} s", began.elapsed().as_secs_f64());
}
