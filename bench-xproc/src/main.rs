//! Cross-process benchmark of issue 37: spanring's `SharedRing` against iceoryx2 0.10, shaq 5.1
//! and crossbar 1.2, with one writer process and 1 or 2 reader processes (this binary, run
//! again with `child …` by `std::env::current_exe()`), `u64` sequence numbers written and
//! checked by every reader (each exactly once, in order), one at a time and in batches of 64,
//! plus a ping-pong round trip, and spanring's same shapes with threads of one process.
//!
//! ```text
//! cargo +nightly run --release -- [--quick] [--items N] [--rounds N] [--peers a,b] [--results FILE]
//! ```
//!
//! See README.md for what each row means.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod common;
mod crossbar_peer;
mod iox_peer;
mod shaq_peer;
mod spanring_peer;

use std::fmt::Write as _;

use common::{Mode, Res, Row, Rtt};

/// The peers' versions, as pinned in Cargo.toml.
const ICEORYX2: &str = "0.10.0";
const SHAQ: &str = "5.1.1";
const CROSSBAR: &str = "1.2.0";

const PEERS: [&str; 4] = ["spanring", "iceoryx2", "shaq", "crossbar"];

struct Options {
    items: u64,
    rounds: usize,
    peers: Vec<String>,
    results: Option<String>,
    quick: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: spanring-bench-xproc [--quick] [--items N] [--rounds N] [--peers {}] [--results FILE]",
        PEERS.join(",")
    );
    std::process::exit(2)
}

fn options(args: &[String]) -> Options {
    let mut o = Options {
        items: 10_000_000,
        rounds: 100_000,
        peers: PEERS.iter().map(|s| s.to_string()).collect(),
        results: None,
        quick: false,
    };
    let mut it = args.iter();
    let mut explicit_items = None;
    let mut explicit_rounds = None;
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().unwrap_or_else(|| usage());
        match a.as_str() {
            "--quick" => o.quick = true,
            "--items" => explicit_items = Some(value().parse().unwrap_or_else(|_| usage())),
            "--rounds" => explicit_rounds = Some(value().parse().unwrap_or_else(|_| usage())),
            "--peers" => o.peers = value().split(',').map(str::to_string).collect(),
            "--results" => o.results = Some(value()),
            _ => usage(),
        }
    }
    if o.quick {
        o.items = 1_000_000;
        o.rounds = 10_000;
    }
    o.items = explicit_items.unwrap_or(o.items);
    o.rounds = explicit_rounds.unwrap_or(o.rounds);
    if o.items == 0 || o.rounds == 0 || o.peers.iter().any(|p| !PEERS.contains(&p.as_str())) {
        usage();
    }
    o
}

/// A reader (or pong) process: `child PEER ARGS…`. Exits 1 with a message on any failure.
fn child(args: &[String]) -> ! {
    let (peer, rest) = args.split_first().unwrap_or_else(|| usage());
    let result = match peer.as_str() {
        "spanring" => spanring_peer::child(rest),
        "spanring-pong" => spanring_peer::pong_child(rest),
        "iceoryx2" => iox_peer::child(rest),
        "iceoryx2-pong" => iox_peer::pong_child(rest),
        "shaq" => shaq_peer::child(rest),
        "crossbar" => crossbar_peer::child(rest),
        _ => Err(format!("unknown child {peer:?}")),
    };
    match result {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("child {peer}: {e}");
            std::process::exit(1)
        }
    }
}

/// A case's outcome, or why it has none.
enum Outcome<T> {
    Done(T),
    Failed(String),
    Skipped,
}

fn run<T>(what: &str, wanted: bool, f: impl FnOnce() -> Res<T>) -> Outcome<T> {
    if !wanted {
        return Outcome::Skipped;
    }
    eprint!("{what} … ");
    match f() {
        Ok(x) => {
            eprintln!("ok");
            Outcome::Done(x)
        }
        Err(e) => {
            eprintln!("FAILED: {e}");
            Outcome::Failed(format!("{what}: {e}"))
        }
    }
}

fn main() {
    // iceoryx2 warns on every node that it found no config file (it uses its defaults, which is
    // what this benchmark means); errors still show.
    iceoryx2::prelude::set_log_level(iceoryx2::prelude::LogLevel::Error);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("child") {
        child(&args[1..]);
    }
    let o = options(&args);
    let want = |p: &str| o.peers.iter().any(|x| x == p);
    let leftovers = iox_peer::Leftovers::before();

    let mut rows: Vec<Row> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut keep = |out: Outcome<Row>, rows: &mut Vec<Row>| match out {
        Outcome::Done(r) => rows.push(r),
        Outcome::Failed(e) => failures.push(e),
        Outcome::Skipped => {}
    };
    let n = o.items;
    for readers in [1usize, 2] {
        for mode in [Mode::One, Mode::Batch] {
            let shape = format!("1 → {readers}, {}", mode.arg());
            keep(
                run(
                    &format!("spanring processes {shape}"),
                    want("spanring"),
                    || spanring_peer::processes(readers, mode, n),
                ),
                &mut rows,
            );
            keep(
                run(
                    &format!("spanring threads {shape}"),
                    want("spanring"),
                    || spanring_peer::threads(readers, mode, n),
                ),
                &mut rows,
            );
            keep(
                run(&format!("iceoryx2 {shape}"), want("iceoryx2"), || {
                    iox_peer::processes(readers, mode, n)
                }),
                &mut rows,
            );
            keep(
                run(&format!("shaq {shape}"), want("shaq"), || {
                    shaq_peer::processes(readers, mode, n)
                }),
                &mut rows,
            );
            if mode == Mode::One {
                keep(
                    run(&format!("crossbar {shape}"), want("crossbar"), || {
                        crossbar_peer::processes(readers, n)
                    }),
                    &mut rows,
                );
            }
        }
    }
    let warmup = (o.rounds / 10).max(100);
    let mut rtts = Vec::new();
    for out in [
        run("spanring ping-pong", want("spanring"), || {
            spanring_peer::ping_pong(o.rounds, warmup)
        }),
        run("iceoryx2 ping-pong", want("iceoryx2"), || {
            iox_peer::ping_pong(o.rounds, warmup)
        }),
    ] {
        match out {
            Outcome::Done(r) => rtts.push(r),
            Outcome::Failed(e) => failures.push(e),
            Outcome::Skipped => {}
        }
    }
    let removed = leftovers.clean();
    eprintln!("removed {removed} iceoryx2 leftovers (/dev/shm/iox2_*, /tmp/iceoryx2)");

    let report = report(&o, &rows, &rtts, &failures);
    println!("{report}");
    if let Some(path) = &o.results {
        let cmd: Vec<String> = std::env::args().collect();
        let text = format!(
            "# Cross-process benchmark results\n\n\
             Written by `spanring-bench-xproc {}` (what `bash bench-xproc/run.sh` runs), one \
             run. Every number below comes from that one run.\n\n{report}",
            cmd[1..].join(" ")
        );
        match std::fs::write(path, text) {
            Ok(()) => eprintln!("wrote {path}"),
            Err(e) => eprintln!("could not write {path}: {e}"),
        }
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}

/// "12.3 M" and the like.
fn si(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2} G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

fn find<'a>(
    rows: &'a [Row],
    peer: &str,
    transport: &str,
    readers: usize,
    mode: Mode,
) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.peer == peer && r.transport == transport && r.readers == readers && r.mode == mode
    })
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    format!(
        "{cores} cores ({cpu}), Linux {kernel}, {}",
        env!("BENCH_RUSTC")
    )
}

fn report(o: &Options, rows: &[Row], rtts: &[Rtt], failures: &[String]) -> String {
    let mut s = String::new();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(s, "Machine: {}.", machine());
    let _ = writeln!(
        s,
        "Peers: spanring (this tree, `SharedRing<u64, 4>`), iceoryx2 {ICEORYX2}, shaq {SHAQ}, crossbar {CROSSBAR}.\n"
    );
    let _ = writeln!(
        s,
        "## Throughput\n\n{} `u64` items (0, 1, 2, …) per case; every reader checks every item \
         (exactly once, in order). Rings hold 65 536 items (iceoryx2 one at a time: a buffer of \
         4 096 samples per subscriber). *items/s* = items ÷ (last reader's last item − writer's \
         first write), on one `CLOCK_MONOTONIC`; *slowest reader* = that reader's own rate from \
         its first item to its last.\n",
        o.items
    );
    let _ = writeln!(
        s,
        "| peer | where | writer → readers | API | items/s | slowest reader |\n|---|---|---|---|---:|---:|"
    );
    for r in rows {
        let shape = if r.transport == "threads" {
            format!("1 → {} threads", r.readers)
        } else {
            format!("1 → {} processes", r.readers)
        };
        let warn = if r.readers + 1 > cores { " ²" } else { "" };
        let _ = writeln!(
            s,
            "| {} | {} | {}{warn} | {} | {} | {} |",
            r.peer,
            if r.transport == "threads" {
                "in-process ¹"
            } else {
                "cross-process"
            },
            shape,
            r.api,
            si(r.rate),
            si(r.slowest_reader),
        );
    }
    let _ = writeln!(
        s,
        "\n¹ spanring's same shape with threads of one process (the writer on one thread, \
         readers on others), for the cross-process / in-process ratio.  \n\
         ² {} threads of execution on {cores} cores: the machine is oversubscribed, so these rows \
         measure scheduling as much as the ring.\n",
        3
    );

    let _ = writeln!(
        s,
        "## Round trip (ping-pong)\n\n{} round trips after {} warm-up ones: this process \
         writes `i` on one ring (service), the other process reads it and writes it back on a \
         second ring, this process reads it. Both sides poll.\n",
        o.rounds,
        (o.rounds / 10).max(100)
    );
    let _ = writeln!(s, "| peer | median | p99 |\n|---|---:|---:|");
    for r in rtts {
        let _ = writeln!(s, "| {} | {} ns | {} ns |", r.peer, r.median_ns, r.p99_ns);
    }

    let _ = writeln!(
        s,
        "\n## Ratios (issue 37's targets)\n\n| ratio | shape | value | target | met |\n|---|---|---:|---|---|"
    );
    let mut ratio =
        |name: &str, shape: &str, value: Option<f64>, target: &str, ok: fn(f64) -> bool| {
            let (v, met) = match value {
                Some(v) => (format!("{v:.2}×"), if ok(v) { "yes" } else { "**no**" }),
                None => ("—".to_string(), "not measured"),
            };
            let _ = writeln!(s, "| {name} | {shape} | {v} | {target} | {met} |");
        };
    let div = |a: Option<&Row>, b: Option<&Row>| Some(a?.rate / b?.rate);
    for readers in [1, 2] {
        let shape = format!("1 → {readers}");
        let sp = |m| find(rows, "spanring", "processes", readers, m);
        let ic = |m| find(rows, "iceoryx2", "processes", readers, m);
        let sh = |m| find(rows, "shaq", "processes", readers, m);
        let th = |m| find(rows, "spanring", "threads", readers, m);
        ratio(
            "spanring push / iceoryx2 send_copy (one at a time)",
            &shape,
            div(sp(Mode::One), ic(Mode::One)),
            "≥ 10×",
            |v| v >= 10.0,
        );
        ratio(
            "spanring spans of 64 / iceoryx2 slices of 64",
            &shape,
            div(sp(Mode::Batch), ic(Mode::Batch)),
            "≥ 1.5×",
            |v| v >= 1.5,
        );
        ratio(
            "spanring / shaq, one at a time",
            &shape,
            div(sp(Mode::One), sh(Mode::One)),
            "≥ 2×",
            |v| v >= 2.0,
        );
        ratio(
            "spanring / shaq, batches of 64",
            &shape,
            div(sp(Mode::Batch), sh(Mode::Batch)),
            "≥ 2×",
            |v| v >= 2.0,
        );
        ratio(
            "spanring cross-process / in-process, one at a time",
            &shape,
            div(sp(Mode::One), th(Mode::One)),
            "≥ 0.8×",
            |v| v >= 0.8,
        );
        ratio(
            "spanring cross-process / in-process, spans of 64",
            &shape,
            div(sp(Mode::Batch), th(Mode::Batch)),
            "≥ 0.8×",
            |v| v >= 0.8,
        );
    }
    let rtt = |p: &str| rtts.iter().find(|r| r.peer == p);
    ratio(
        "round-trip median, spanring / iceoryx2",
        "ping-pong",
        rtt("spanring")
            .zip(rtt("iceoryx2"))
            .map(|(a, b)| a.median_ns as f64 / b.median_ns as f64),
        "≤ 1×",
        |v| v <= 1.0,
    );
    let _ = writeln!(
        s,
        "\nThe issue's targets were set on 1 → 1 (one writer process, one reader process); the \
         1 → 2 lines are shown against the same targets, on an oversubscribed machine."
    );
    if !failures.is_empty() {
        let _ = writeln!(s, "\n## Failed cases\n");
        for f in failures {
            let _ = writeln!(s, "- {f}");
        }
    }
    s
}
