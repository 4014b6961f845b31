//! Throughput over tcp://127.0.0.1 of `[f32; 2]` complex samples (GNU Radio's `gr_complex`):
//!
//! - bridge PUSH→PULL: producer thread → ring → `Sender` → `Receiver` → ring → consumer thread
//!   (lossless, every sample counted at the consumer);
//! - bridge PUB→SUB: the same with PUB/SUB (samples delivered per second; losses reported);
//! - raw libzmq PUSH→PULL: the same message sizes sent from a plain buffer by one thread and
//!   received by another, no ring (the engine's own ceiling: our overhead is the ratio);
//! - GNU Radio 3.10 `pub_sink → sub_source` (one flowgraph, `null_source` → … → `head` →
//!   `null_sink`), when `/usr/bin/python3` imports GNU Radio.
//!
//! Each row is the median of 5 runs; `cargo bench -p spanring-zmq --bench throughput`.
//! `SPANRING_ZMQ_BENCH_SAMPLES` sets the samples per run (default 40 M).

use std::process::Command;
use std::time::{Duration, Instant};

use spanring::handle::ReadHandle;
use spanring::handle::WriteHandle;
use spanring::std_ext::owned;
use spanring_zmq::{
    Endpoint, Receiver, ReceiverConfig, RecvPattern, SendPattern, Sender, SenderConfig,
};

type Iq = [f32; 2];
const RUNS: usize = 5;

fn samples() -> u64 {
    std::env::var("SPANRING_ZMQ_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40_000_000)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One bridge run: returns (samples/s delivered at the consumer, fraction lost).
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
    if pub_sub {
        // Until the subscription is in, PUB drops everything: send single samples until one arrives.
        while rx
            .wait_until(Duration::from_millis(5), |s| s.items > 0)
            .is_err()
        {
            w.push([0.0, 0.0]).unwrap();
        }
        while r2.try_pop().is_ok() {}
    }
    let consumer = std::thread::spawn(move || {
        let mut got = 0u64;
        let mut first = None;
        let mut last = Instant::now();
        let mut sum = 0.0f32;
        while let Ok(k) = r2.read_with(usize::MAX, |a, b| {
            sum += a.first().map_or(0.0, |x| x[0]) + b.first().map_or(0.0, |x| x[0]);
            a.len() + b.len()
        }) {
            last = Instant::now();
            first.get_or_insert(last);
            got += k as u64;
        }
        std::hint::black_box(sum);
        // From the first read to the last one (not to the close, which comes later).
        (got, first.unwrap_or(last), last)
    });
    let mut written = 0u64;
    while written < n {
        let k = (n - written).min(batch as u64) as usize;
        w.write_with(k, |a, b| {
            for (i, s) in a.iter_mut().chain(b.iter_mut()).enumerate() {
                *s = [i as f32, 1.0];
            }
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
    let (got, t0, t1) = consumer.join().unwrap();
    let lost = 1.0 - got as f64 / sent.stats.items.max(1) as f64;
    (got as f64 / (t1 - t0).as_secs_f64(), lost)
}

/// Raw libzmq: one thread sends `n / batch` messages of `batch` samples from a plain buffer,
/// another receives them; samples/s from the first message to the last.
fn raw(batch: usize, n: u64) -> f64 {
    let ctx = zmq::Context::new();
    let push = ctx.socket(zmq::PUSH).unwrap();
    push.bind("tcp://127.0.0.1:0").unwrap();
    let addr = push.get_last_endpoint().unwrap().unwrap();
    let pull = ctx.socket(zmq::PULL).unwrap();
    pull.connect(&addr).unwrap();
    let messages = n / batch as u64;
    let receiver = std::thread::spawn(move || {
        let mut msg = zmq::Message::new();
        pull.recv(&mut msg, 0).unwrap();
        let t0 = Instant::now();
        let mut bytes = msg.len() as u64;
        for _ in 1..messages {
            pull.recv(&mut msg, 0).unwrap();
            bytes += msg.len() as u64;
        }
        (bytes / 8, t0.elapsed(), messages)
    });
    let buf: Vec<Iq> = (0..batch).map(|i| [i as f32, 1.0]).collect();
    let bytes = spanring_zmq::item_bytes(&buf);
    for _ in 0..messages {
        push.send(bytes, 0).unwrap();
    }
    let (samples, took, _) = receiver.join().unwrap();
    // The first message's samples are not timed.
    (samples - batch as u64) as f64 / took.as_secs_f64()
}

/// GNU Radio's pub_sink → sub_source, or why not.
fn gnuradio(n: u64, run: u32) -> Result<f64, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ci/zmq_interop_gr.py");
    // A fresh port per run (the previous run's may still be held by the kernel), and a limit.
    let port = 20000 + (std::process::id() + 997 * run) % 20000;
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
                "GNU Radio not available ({})",
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
    Ok(rate * 1e6)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` lists targets; nothing to list
    }
    let n = samples();
    println!(
        "spanring-zmq throughput, tcp://127.0.0.1, [f32; 2] samples, {n} per run, median of {RUNS}"
    );
    println!("libzmq {:?}", zmq::version());
    println!("| message (samples) | bridge PUSH→PULL M/s | bridge PUB→SUB M/s (lost) | raw libzmq PUSH→PULL M/s | bridge / raw |");
    println!("| --- | --- | --- | --- | --- |");
    let mut best_bridge = 0.0f64;
    for batch in [1024usize, 4096, 16384] {
        let push: Vec<f64> = (0..RUNS).map(|_| bridge(false, batch, n).0).collect();
        let pubs: Vec<(f64, f64)> = (0..RUNS).map(|_| bridge(true, batch, n)).collect();
        let raws: Vec<f64> = (0..RUNS).map(|_| raw(batch, n)).collect();
        let (p, r) = (median(push), median(raws));
        let lost = median(pubs.iter().map(|x| x.1).collect());
        let s = median(pubs.iter().map(|x| x.0).collect());
        best_bridge = best_bridge.max(p).max(s);
        println!(
            "| {batch} | {:.1} | {:.1} ({:.2} %) | {:.1} | {:.2}× |",
            p / 1e6,
            s / 1e6,
            lost * 100.0,
            r / 1e6,
            p / r
        );
    }
    match gnuradio(n, 0) {
        Ok(g) => {
            let g_runs: Vec<f64> = std::iter::once(g)
                .chain((1..3).filter_map(|k| gnuradio(n, k).ok()))
                .collect();
            let g = median(g_runs);
            println!("GNU Radio 3.10 pub_sink → sub_source (gr_complex): {:.1} M samples/s (median of 3)", g / 1e6);
            println!(
                "best bridge row / GNU Radio pub→sub: {:.2}×",
                best_bridge / g
            );
        }
        Err(why) => println!("GNU Radio row skipped: {why}"),
    }
}
