//! The bridge's side of `ci/zmq-interop.sh`: a counter stream of `i32` (GNU Radio's
//! `gr.sizeof_int`, vlen 1) to or from GNU Radio's gr-zeromq blocks.
//!
//! ```sh
//! # Send 0, 1, 2, … (wrapping at MODULO) from a ring through a PUB or PUSH bridge bound at
//! # ENDPOINT, RATE items/s (0: as fast as it goes), until stdin closes; prints
//! # "listening <endpoint>" first.
//! interop_counter send pub|push ENDPOINT tags|notags RATE MODULO
//! # Receive N items through a SUB or PULL bridge connected to ENDPOINT and check them: PULL must
//! # give 0..N in order; SUB must give consecutive values (mod MODULO), and with tags every jump
//! # must be a gap the receiver reported, of the same size; without tags no jump is allowed.
//! interop_counter recv sub|pull ENDPOINT tags|notags N MODULO
//! ```

use std::io::Read;
use std::sync::mpsc;
use std::time::Duration;

use spanring::handle::WriteHandle;
use spanring::std_ext::owned;
use spanring_zmq::{
    Endpoint, Gap, Receiver, ReceiverConfig, RecvPattern, SendPattern, Sender, SenderConfig,
};

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: interop_counter send pub|push ENDPOINT tags|notags RATE MODULO \
                 | recv sub|pull ENDPOINT tags|notags N MODULO";
    if args.len() < 6 {
        return Err(usage.into());
    }
    let tags = args[3] == "tags";
    let (number, modulo): (u64, u32) = (args[4].parse()?, args[5].parse()?);
    match (args[0].as_str(), args[1].as_str()) {
        ("send", p) => {
            let pattern = if p == "pub" {
                SendPattern::Pub
            } else {
                SendPattern::Push
            };
            send(pattern, &args[2], tags, number, modulo)
        }
        ("recv", p) => {
            let pattern = if p == "sub" {
                RecvPattern::Sub
            } else {
                RecvPattern::Pull
            };
            recv(pattern, &args[2], tags, number, modulo)
        }
        _ => Err(usage.into()),
    }
}

fn send(
    pattern: SendPattern,
    endpoint: &str,
    tags: bool,
    rate: u64,
    modulo: u32,
) -> Result<(), Error> {
    let (mut w, r) = owned::portable::<i32>(1 << 16).build()?;
    let tx = Sender::spawn(
        r,
        SenderConfig::new(pattern, Endpoint::bind(endpoint))
            .tag_header(tags)
            // Room for GNU Radio's start-up: a PUB drops nothing while the flowgraph starts.
            .high_water_mark(100_000),
    )?;
    println!("listening {}", tx.endpoint());
    // Until stdin closes (the script ends us that way).
    let (stop_tx, stop) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        let _ = stop_tx.send(());
    });
    let started = std::time::Instant::now();
    let (mut next, mut written) = (0u32, 0u64);
    while stop.try_recv().is_err() {
        // Wait for ring space (and, paced, for the clock) a slice at a time, so a closed stdin
        // is noticed.
        let due = if rate == 0 {
            u64::MAX
        } else {
            (started.elapsed().as_secs_f64() * rate as f64) as u64
        };
        let k = w.free().min(4096).min(due.saturating_sub(written) as usize);
        if k == 0 {
            let _ = stop.recv_timeout(Duration::from_micros(200));
            continue;
        }
        w.try_write_with(k, |a, b| {
            for slot in a.iter_mut().chain(b.iter_mut()) {
                *slot = next as i32;
                next = (next + 1) % modulo;
            }
            k
        })?;
        written += k as u64;
    }
    drop(w);
    let report = tx.stop();
    eprintln!(
        "sender: {} items in {} messages",
        report.stats.items, report.stats.messages
    );
    Ok(())
}

fn recv(
    pattern: RecvPattern,
    endpoint: &str,
    tags: bool,
    n: u64,
    modulo: u32,
) -> Result<(), Error> {
    let (w, mut r) = owned::portable::<i32>(1 << 16).build()?;
    let (gap_tx, gaps) = mpsc::channel::<Gap>();
    let rx = Receiver::spawn_with_gaps(
        w,
        ReceiverConfig::new(pattern, Endpoint::connect(endpoint)).tag_header(tags),
        Some(Box::new(move |g| {
            let _ = gap_tx.send(g);
        })),
    )?;
    let mut prev: Option<i32> = None;
    let (mut jumps, mut matched_gaps) = (0u64, 0u64);
    for k in 0..n {
        let v = r
            .pop_timeout(Duration::from_secs(60))
            .map_err(|e| format!("item {k}: {e}"))?;
        if pattern == RecvPattern::Pull && i64::from(v) != k as i64 {
            return Err(format!("PULL: item {k} is {v}").into());
        }
        if let Some(p) = prev {
            let m = i64::from(modulo);
            let step = (i64::from(v) - i64::from(p) - 1).rem_euclid(m) as u64;
            if step != 0 {
                jumps += 1;
                if tags {
                    // The gap was reported before the message after it was written.
                    let g = gaps
                        .try_recv()
                        .map_err(|_| format!("jump {p} -> {v} without a reported gap"))?;
                    if g.missing() % u64::from(modulo) != step {
                        return Err(format!("jump {p} -> {v} but gap {g:?}").into());
                    }
                    matched_gaps += 1;
                }
            }
        }
        prev = Some(v);
    }
    let report = rx.stop();
    let s = report.stats;
    println!(
        "receiver: {} items checked; {} messages, {} items written; jumps {jumps}; gaps reported {} (matched {matched_gaps}, {} items); errors: framing {} header {} frames {}",
        n, s.messages, s.items, s.gaps, s.missing_items, s.framing_errors, s.header_errors, s.frame_errors
    );
    if s.framing_errors + s.header_errors + s.frame_errors != 0 {
        return Err("malformed messages".into());
    }
    if !tags && jumps != 0 {
        return Err("jumps in the counter".into());
    }
    Ok(())
}
