//! A synthetic IQ stream from one process to another through ZeroMQ, in GNU Radio's layout.
//!
//! The publisher writes complex samples (`[f32; 2]`, GNU Radio's `gr_complex`) into a ring; a
//! [`Sender`] publishes them (PUB, with tag headers). The subscriber, a second process, receives
//! them into its own ring with a [`Receiver`] (SUB) and two readers consume that ring: one
//! measures the mean power, the other checks that consecutive samples are one phase step apart
//! (except across the gaps the receiver reports).
//!
//! ```sh
//! cargo run -p spanring-zmq --example iq_pubsub                 # both, the subscriber as a child process
//! cargo run -p spanring-zmq --example iq_pubsub -- sub tcp://127.0.0.1:5556 1000000
//! cargo run -p spanring-zmq --example iq_pubsub -- pub tcp://127.0.0.1:5556 1000000
//! ```
//!
//! GNU Radio's `zeromq.pub_sink`/`sub_source` (itemsize `gr.sizeof_gr_complex`, vlen 1,
//! `pass_tags=True`) can stand in for either side; `ci/zmq-interop.sh` runs such flowgraphs.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use spanring::handle::WriteHandle;
use spanring::std_ext::owned;
use spanring_zmq::{Endpoint, Gap, Receiver, ReceiverConfig, Sender, SenderConfig};

/// Phase advance per sample.
const STEP: f32 = 0.01;

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    match args.first().map(String::as_str) {
        Some("pub") => publish(&arg(1, "tcp://127.0.0.1:5556"), arg(2, "1000000").parse()?),
        Some("sub") => subscribe(&arg(1, "tcp://127.0.0.1:5556"), arg(2, "1000000").parse()?),
        _ => both(),
    }
}

/// The subscriber as a child process bound on a free port, then the publisher connecting to it.
fn both() -> Result<(), Error> {
    let n: u64 = 2_000_000;
    let mut child = Command::new(std::env::current_exe()?)
        .args(["sub", "tcp://127.0.0.1:0", &n.to_string()])
        .stdout(Stdio::piped())
        .spawn()?;
    // The child's first line: where it listens.
    let mut lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    let first = lines.next().ok_or("subscriber said nothing")??;
    let address = first
        .strip_prefix("listening ")
        .ok_or("unexpected first line")?
        .to_string();
    publish(&address, n)?;
    for line in lines {
        println!("[subscriber] {}", line?);
    }
    let status = child.wait()?;
    if !status.success() {
        return Err(format!("subscriber exited with {status}").into());
    }
    Ok(())
}

/// Writes `n` samples of a unit phasor into a ring; a PUB sender connects to `address` and
/// publishes them.
fn publish(address: &str, n: u64) -> Result<(), Error> {
    let (mut w, r) = owned::mapped::<[f32; 2]>(1 << 16).build()?;
    let tx = Sender::spawn(
        r,
        SenderConfig::publish(Endpoint::connect(address))
            .tag_header(true)
            .max_items(2048),
    )?;
    let started = Instant::now();
    let mut i = 0u64;
    while i < n {
        let k = (n - i).min(4096) as usize;
        w.write_with(k, |a, b| {
            for slot in a.iter_mut().chain(b.iter_mut()) {
                let phase = (i as f64 * f64::from(STEP)) % std::f64::consts::TAU;
                *slot = [phase.cos() as f32, phase.sin() as f32];
                i += 1;
            }
            k
        })?;
    }
    drop(w); // closes the ring: the sender publishes the rest and ends
    let report = tx.join();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "published {} samples in {} messages, {:.1} M samples/s ({:?})",
        report.stats.items,
        report.stats.messages,
        report.stats.items as f64 / secs / 1e6,
        report.end
    );
    Ok(())
}

/// Receives samples into a ring read by two readers, until the stream reaches `n` or stays
/// silent for 5 s.
fn subscribe(address: &str, n: u64) -> Result<(), Error> {
    let (w, power_reader) = owned::mapped::<[f32; 2]>(1 << 16).build()?;
    let phase_reader = power_reader.subscribe()?;
    let gaps = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&gaps);
    let rx = Receiver::spawn_with_gaps(
        w,
        ReceiverConfig::subscribe(Endpoint::bind(address))
            .tag_header(true)
            .first_offset(Some(0)),
        Some(Box::new(move |g: Gap| {
            seen.lock().map(|mut v| v.push(g)).unwrap_or(())
        })),
    )?;
    println!("listening {}", rx.endpoint());

    let power = std::thread::spawn(move || {
        let (mut sum, mut count) = (0.0f64, 0u64);
        for [re, im] in power_reader {
            sum += f64::from(re * re + im * im);
            count += 1;
        }
        (sum / count.max(1) as f64, count)
    });
    let phase = std::thread::spawn(move || {
        let (mut prev, mut jumps, mut count) = (None::<[f32; 2]>, 0u64, 0u64);
        for s in phase_reader {
            if let Some(p) = prev {
                // Angle between consecutive samples: STEP, unless samples were lost between.
                let d = (s[1] * p[0] - s[0] * p[1]).atan2(s[0] * p[0] + s[1] * p[1]);
                if (d - STEP).abs() > 1e-3 {
                    jumps += 1;
                }
            }
            prev = Some(s);
            count += 1;
        }
        (jumps, count)
    });

    // Done when the offsets reach n, or nothing arrives for 5 s (the end may have been dropped).
    let mut last = rx.stats();
    loop {
        match rx.wait_until(Duration::from_secs(5), |s| {
            s.next_offset >= Some(n) || s.items != last.items
        }) {
            Ok(s) if s.next_offset >= Some(n) => break,
            Ok(s) => last = s,
            Err(_) => break,
        }
    }
    let report = rx.stop(); // drops the writer: the ring closes and both readers finish
    let (mean_power, p_count) = power.join().map_err(|_| "power reader panicked")?;
    let (jumps, ph_count) = phase.join().map_err(|_| "phase reader panicked")?;
    let gaps = gaps.lock().map(|g| g.clone()).unwrap_or_default();
    let s = report.stats;
    println!(
        "received {} samples in {} messages; {} gaps, {} samples lost (first gaps: {:?})",
        s.items,
        s.messages,
        s.gaps,
        s.missing_items,
        &gaps[..gaps.len().min(3)]
    );
    println!("reader 1: {p_count} samples, mean power {mean_power:.4} (a unit phasor: 1)");
    println!("reader 2: {ph_count} samples, {jumps} phase discontinuities (lost samples make them; gaps after the first sample: {})",
        gaps.iter().filter(|g| g.expected > 0).count());
    if s.items + s.missing_items != s.next_offset.unwrap_or(0) {
        return Err("received + lost does not add up to the stream position".into());
    }
    Ok(())
}
