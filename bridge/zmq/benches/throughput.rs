//! Throughput over tcp://127.0.0.1 of `[f32; 2]` complex samples (GNU Radio's `gr_complex`):
//!
//! - bridge PUSH→PULL: producer thread → ring → `Sender` → `Receiver` → ring → consumer thread
//!   (lossless);
//! - bridge PUB→SUB: the same with PUB/SUB (samples delivered per second; losses counted);
//! - raw libzmq PUSH→PULL: the same message sizes sent from a plain buffer (`zmq_send`) by one
//!   thread and received (`zmq_msg_recv`) by another, no ring (the engine's own ceiling: our
//!   overhead is the ratio);
//! - GNU Radio 3.10 `pub_sink → sub_source` (one flowgraph, `null_source` → … → `head` →
//!   `null_sink`), when `/usr/bin/python3` imports GNU Radio.
//!
//! Equal work on both sides of the bridge/raw comparison: every sample is written by the
//! producer (its stream index, as the bit patterns of the two `f32`s) and checked by the
//! consumer, in messages of the same size. GNU Radio's flowgraph neither writes nor checks its samples.
//!
//! The cases alternate: each round runs every case once (bridge PUSH, bridge PUB and raw for
//! each message size, then GNU Radio), so that the machine's load drifts over all of them
//! alike; a row gives the median and the range over the rounds, and bridge/raw is taken per
//! round (the two runs next to each other) before its median and range.
//!
//! `cargo bench -p spanring-zmq --bench throughput`. Environment:
//! `SPANRING_ZMQ_BENCH_SAMPLES` (samples per run, default 40 M), `SPANRING_ZMQ_BENCH_ROUNDS`
//! (default 5), `SPANRING_ZMQ_BENCH_SIZES` (message sizes in samples, default
//! `1024,4096,8192,16384`: 8,192 is GNU Radio's own, whose `pub_sink` sends 8,191-sample messages
//! from its 64 KiB buffers), `SPANRING_ZMQ_BENCH_CASES` (default `push,pub,raw,gnuradio`),
//! `SPANRING_ZMQ_RESULTS=1` (also write the tables to `bridge/zmq/RESULTS.md`).

use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

use spanring::handle::ReadHandle;
use spanring::handle::WriteHandle;
use spanring::std_ext::owned;
use spanring_zmq::{
    Endpoint, Receiver, ReceiverConfig, RecvPattern, SendPattern, Sender, SenderConfig,
};

type Iq = [f32; 2];

/// The `i`-th sample of the stream: the index's low and high 32 bits as the two `f32`s' bit
/// patterns (compared bit for bit, never computed with).
#[inline]
fn sample(i: u64) -> Iq {
    [f32::from_bits(i as u32), f32::from_bits((i >> 32) as u32)]
}

/// The stream index a sample carries.
#[inline]
fn index(s: &Iq) -> u64 {
    u64::from(s[0].to_bits()) | (u64::from(s[1].to_bits()) << 32)
}

/// Writes the stream from index `base` on into `slots`.
#[inline]
fn fill(slots: &mut [Iq], base: u64) {
    for (k, s) in slots.iter_mut().enumerate() {
        *s = sample(base + k as u64);
    }
}

/// Checks samples against the stream: each must be the next index, or (PUB only) a later one
/// after lost messages; anything else fails the benchmark.
struct Checker {
    next: u64,
    seen: u64,
}

impl Checker {
    /// Checks `n` samples, the `k`-th of which carries index `at(k)`.
    #[inline]
    fn check_with(&mut self, n: usize, at: impl Fn(usize) -> u64, lossy: bool) {
        // The usual case, all in sequence: one pass without branches.
        let base = self.next;
        let mismatch = (0..n).fold(0u64, |acc, k| acc | (at(k) ^ (base + k as u64)));
        if mismatch == 0 {
            self.next += n as u64;
            self.seen += n as u64;
            return;
        }
        for k in 0..n {
            let found = at(k);
            if found != self.next {
                assert!(
                    lossy && found > self.next,
                    "sample {} carries index {found}",
                    self.next
                );
                self.next = found;
            }
            self.next += 1;
            self.seen += 1;
        }
    }

    fn check(&mut self, samples: &[Iq], lossy: bool) {
        self.check_with(samples.len(), |k| index(&samples[k]), lossy);
    }

    /// The same over a message's bytes (libzmq does not promise `f32` alignment): on a
    /// little-endian machine a sample's 8 bytes read as a `u64` are its index.
    fn check_bytes(&mut self, bytes: &[u8]) {
        const { assert!(cfg!(target_endian = "little")) };
        assert_eq!(bytes.len() % 8, 0);
        let at = |k: usize| {
            let w: [u8; 8] = bytes[8 * k..8 * k + 8].try_into().unwrap();
            u64::from_le_bytes(w)
        };
        self.check_with(bytes.len() / 8, at, false);
    }
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn range(v: &[f64]) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo, hi)
}

/// `median (min–max)` of rates, in M/s.
fn rates(v: &[f64]) -> String {
    if v.is_empty() {
        return "–".into();
    }
    let (lo, hi) = range(v);
    format!("{:.1} ({:.1}–{:.1})", median(v) / 1e6, lo / 1e6, hi / 1e6)
}

/// `median× (min–max)` of ratios.
fn ratios(v: &[f64]) -> String {
    if v.is_empty() {
        return "–".into();
    }
    let (lo, hi) = range(v);
    format!("{:.2}× ({:.2}–{:.2})", median(v), lo, hi)
}

/// One bridge run: (samples/s delivered at the consumer, fraction lost).
///
/// Both rings wait with the owned buffers' default, `HybridWait` (spin, yield up to 50 µs,
/// then park): parking sooner (`BlockingWait`) was slower here, by a `FUTEX_WAKE` per publish
/// and a wake-up latency per message, although the yielding consumer shows as CPU time.
fn bridge(pub_sub: bool, batch: usize, n: u64) -> (f64, f64) {
    let (send_pattern, recv_pattern) = if pub_sub {
        (SendPattern::Pub, RecvPattern::Sub)
    } else {
        (SendPattern::Push, RecvPattern::Pull)
    };
    let (mut w, r) = owned::mapped::<Iq>(1 << 18).build().unwrap();
    let tx = Sender::spawn(
        r,
        SenderConfig::new(send_pattern, Endpoint::bind("tcp://127.0.0.1:0")).max_items(batch),
    )
    .unwrap();
    let (w2, mut r2) = owned::mapped::<Iq>(1 << 18).build().unwrap();
    let rx = Receiver::spawn(
        w2,
        ReceiverConfig::new(recv_pattern, Endpoint::connect(tx.endpoint())),
    )
    .unwrap();
    // The stream starts at `start`: before it, PUB/SUB sends warm-up samples until the
    // subscription is in (PUB drops everything until then).
    let mut start = 0u64;
    if pub_sub {
        while rx
            .wait_until(Duration::from_millis(5), |s| s.items > 0)
            .is_err()
        {
            w.push(sample(start)).unwrap();
            start += 1;
        }
    }
    let first_checked = start;
    let consumer = std::thread::spawn(move || {
        let mut checker = Checker {
            next: first_checked,
            seen: 0,
        };
        let mut timed = None;
        let mut last = Instant::now();
        // Skip warm-up samples (behind the stream's start), then check every sample.
        while r2
            .read_with(usize::MAX, |a, b| {
                for part in [a, b] {
                    let skip = part.iter().take_while(|s| index(s) < first_checked).count();
                    checker.check(&part[skip..], pub_sub);
                }
                a.len() + b.len()
            })
            .is_ok()
        {
            last = Instant::now();
            // From the end of the first read: its samples are not counted.
            timed.get_or_insert((last, checker.seen));
        }
        let (t0, seen0) = timed.unwrap_or((last, 0));
        (checker.seen, checker.seen - seen0, last - t0)
    });
    let mut written = 0u64;
    while written < n {
        let k = (n - written).min(batch as u64) as usize;
        let base = first_checked + written;
        w.write_with(k, |a, b| {
            fill(a, base);
            fill(b, base + a.len() as u64);
            k
        })
        .unwrap();
        written += k as u64;
    }
    drop(w);
    let sent = tx.join();
    // PUSH: wait until everything arrived; PUB: until the receiver has been idle a while.
    if pub_sub {
        let mut last = rx.stats().items;
        while let Ok(s) = rx.wait_until(Duration::from_millis(300), |s| s.items != last) {
            last = s.items;
        }
    } else {
        rx.wait_until(Duration::from_secs(120), |s| s.items >= sent.stats.items)
            .unwrap();
    }
    let _ = rx.stop(); // drops the writer: the consumer drains and ends
    let (seen, timed, took) = consumer.join().unwrap();
    if !pub_sub {
        assert_eq!(seen, n, "PUSH→PULL lost samples");
    }
    let lost = 1.0 - seen as f64 / n as f64;
    (timed as f64 / took.as_secs_f64().max(1e-9), lost)
}

/// Raw libzmq: one thread writes `n / batch` messages of `batch` counter samples into a plain
/// buffer and sends each with `zmq_send`; another receives them (`zmq_msg_recv`) and checks
/// every sample; samples/s from the first message received to the last (the first message's
/// samples not counted).
fn raw(batch: usize, n: u64) -> f64 {
    let ctx = zmq::Context::new();
    let push = ctx.socket(zmq::PUSH).unwrap();
    push.bind("tcp://127.0.0.1:0").unwrap();
    let addr = push.get_last_endpoint().unwrap().unwrap();
    let pull = ctx.socket(zmq::PULL).unwrap();
    pull.connect(&addr).unwrap();
    let messages = n / batch as u64;
    let receiver = std::thread::spawn(move || {
        let mut checker = Checker { next: 0, seen: 0 };
        let mut msg = zmq::Message::new();
        let mut t0 = None;
        for _ in 0..messages {
            pull.recv(&mut msg, 0).unwrap();
            checker.check_bytes(&msg);
            t0.get_or_insert_with(Instant::now);
        }
        (checker.seen, t0.map_or(Duration::ZERO, |t| t.elapsed()))
    });
    let mut buf: Vec<Iq> = vec![[0.0; 2]; batch];
    for m in 0..messages {
        let base = m * batch as u64;
        fill(&mut buf, base);
        push.send(spanring_zmq::item_bytes(&buf), 0).unwrap();
    }
    let (samples, took) = receiver.join().unwrap();
    assert_eq!(samples, messages * batch as u64);
    (samples - batch as u64) as f64 / took.as_secs_f64().max(1e-9)
}

/// GNU Radio's pub_sink → sub_source (samples/s), or why not.
fn gnuradio(n: u64) -> Result<f64, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ci/zmq_interop_gr.py");
    // A port free a moment ago (GNU Radio's pub_sink binds it).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    let out = Command::new("timeout")
        .args([
            "150",
            "/usr/bin/python3",
            script,
            "bench",
            &format!("tcp://127.0.0.1:{port}"),
            &n.to_string(),
        ])
        .output()
        .map_err(|e| format!("/usr/bin/python3: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("M samples/s"))
        .ok_or_else(|| {
            format!(
                "{} ({})",
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )
        })?;
    let rate: f64 = line
        .split(" = ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|r| r.parse().ok())
        .ok_or("unparsable")?;
    if rate > 0.0 {
        Ok(rate * 1e6)
    } else {
        Err(line.to_owned())
    }
}

/// Whether `/usr/bin/python3` imports GNU Radio's ZeroMQ blocks.
fn have_gnuradio() -> bool {
    Command::new("/usr/bin/python3")
        .args(["-c", "from gnuradio import zeromq"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A command's first output line, or `unknown`.
fn output_of(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

#[derive(Default)]
struct Row {
    push: Vec<f64>,
    pubs: Vec<f64>,
    lost: Vec<f64>,
    raw: Vec<f64>,
    /// bridge PUSH / raw, per round.
    ratio: Vec<f64>,
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` lists targets; nothing to list
    }
    let n: u64 = env_or("SPANRING_ZMQ_BENCH_SAMPLES", 40_000_000);
    let rounds: usize = env_or("SPANRING_ZMQ_BENCH_ROUNDS", 5);
    let sizes: Vec<usize> = std::env::var("SPANRING_ZMQ_BENCH_SIZES")
        .unwrap_or_else(|_| "1024,4096,8192,16384".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let cases = std::env::var("SPANRING_ZMQ_BENCH_CASES")
        .unwrap_or_else(|_| "push,pub,raw,gnuradio".into());
    let case = |c: &str| cases.split(',').any(|x| x.trim() == c);
    let load_before = loadavg();
    eprintln!("{rounds} rounds of {n} samples per case, message sizes {sizes:?}");
    let mut rows: Vec<Row> = sizes.iter().map(|_| Row::default()).collect();
    let mut gr = Vec::new();
    let mut gr_failed = Vec::new();
    let gr_on = case("gnuradio") && have_gnuradio();
    for round in 0..rounds {
        for (row, &batch) in rows.iter_mut().zip(&sizes) {
            let p = case("push").then(|| bridge(false, batch, n).0);
            if case("pub") {
                let (s, l) = bridge(true, batch, n);
                row.pubs.push(s);
                row.lost.push(l);
            }
            let r = case("raw").then(|| raw(batch, n));
            if let Some(p) = p {
                row.push.push(p);
            }
            if let Some(r) = r {
                row.raw.push(r);
            }
            if let (Some(p), Some(r)) = (p, r) {
                row.ratio.push(p / r);
            }
            eprintln!(
                "round {round} size {batch}: push {:?} pub {:?} raw {:?} M/s",
                p.map(|x| (x / 1e5).round() / 10.0),
                row.pubs.last().map(|x| (x / 1e5).round() / 10.0),
                r.map(|x| (x / 1e5).round() / 10.0)
            );
        }
        if gr_on {
            match gnuradio(n) {
                Ok(g) => {
                    eprintln!("round {round} GNU Radio pub→sub {:.1} M/s", g / 1e6);
                    gr.push(g);
                }
                Err(why) => {
                    eprintln!("round {round} GNU Radio failed: {why}");
                    gr_failed.push(why);
                }
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "tcp://127.0.0.1, `[f32; 2]` samples, {n} per run, {rounds} alternated rounds; \
         median (min–max) over the rounds; libzmq {:?}",
        zmq::version()
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "| message (samples) | bridge PUSH→PULL M/s | bridge PUB→SUB M/s delivered | PUB→SUB lost | raw libzmq PUSH→PULL M/s | bridge PUSH / raw, per round |"
    );
    let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- |");
    for (row, batch) in rows.iter().zip(&sizes) {
        let lost = if row.lost.is_empty() {
            "–".into()
        } else {
            let (lo, hi) = range(&row.lost);
            format!(
                "{:.0} % ({:.0}–{:.0})",
                median(&row.lost) * 100.0,
                lo * 100.0,
                hi * 100.0
            )
        };
        let _ = writeln!(
            out,
            "| {batch} | {} | {} | {lost} | {} | {} |",
            rates(&row.push),
            rates(&row.pubs),
            rates(&row.raw),
            ratios(&row.ratio)
        );
    }
    let _ = writeln!(out);
    if case("gnuradio") && !gr_on {
        let _ = writeln!(
            out,
            "GNU Radio skipped: /usr/bin/python3 does not import gnuradio.zeromq (ci/zmq-interop.sh installs it)"
        );
    }
    if !gr_failed.is_empty() {
        let _ = writeln!(
            out,
            "GNU Radio failed in {} of {rounds} rounds: {}",
            gr_failed.len(),
            gr_failed.join("; ")
        );
        let _ = writeln!(out);
    }
    if !gr.is_empty() {
        let g = median(&gr);
        let _ = writeln!(
            out,
            "GNU Radio {} `pub_sink → sub_source` (gr_complex; its messages carry 8,191 samples, \
             a 64 KiB buffer less one item): {} M samples/s",
            output_of(
                "/usr/bin/python3",
                &["-c", "from gnuradio import gr; print(gr.version())"]
            ),
            rates(&gr)
        );
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "| message (samples) | bridge PUB→SUB / GNU Radio pub→sub | bridge PUSH→PULL / GNU Radio pub→sub |"
        );
        let _ = writeln!(out, "| --- | --- | --- |");
        for (row, batch) in rows.iter().zip(&sizes) {
            let of = |v: &[f64]| -> String {
                if v.is_empty() {
                    "–".into()
                } else {
                    let (lo, hi) = range(v);
                    format!("{:.2}× ({:.2}–{:.2})", median(v) / g, lo / g, hi / g)
                }
            };
            let _ = writeln!(out, "| {batch} | {} | {} |", of(&row.pubs), of(&row.push));
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "(against the median GNU Radio rate; the ranges are the bridge's over the rounds)"
        );
    }
    let load_after = loadavg();
    println!("{out}");
    println!("load average before {load_before}, after {load_after}");
    if std::env::var("SPANRING_ZMQ_RESULTS").is_ok_and(|v| v == "1") {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/RESULTS.md");
        let commit = output_of("git", &["rev-parse", "--short", "HEAD"]);
        let dirty = Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=no"])
            .output()
            .is_ok_and(|o| !o.stdout.is_empty());
        let text = format!(
            "# spanring-zmq throughput results\n\n\
             Written by `SPANRING_ZMQ_RESULTS=1 cargo bench -p spanring-zmq --bench throughput` \
             from one run; do not edit by hand.\n\n\
             Run on {} at commit {commit}{}, {} cores, load average before {load_before}, \
             after {load_after}.\n\n{out}",
            output_of("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
            if dirty {
                " (with uncommitted changes)"
            } else {
                ""
            },
            std::thread::available_parallelism().map_or(0, |p| p.get()),
        );
        std::fs::write(path, text).expect("write RESULTS.md");
        println!("wrote {path}");
    }
}
