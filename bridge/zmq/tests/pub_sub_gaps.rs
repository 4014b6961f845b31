//! PUB → SUB with a slow subscriber: the publisher never waits, the subscriber loses messages,
//! and every loss is reported as a gap of exactly the items that did not arrive.

mod common;

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use common::{ipc_address, PATIENCE};
use spanring::handle::WriteHandle;
use spanring::std_ext::owned;
use spanring_zmq::{Endpoint, Gap, Receiver, ReceiverConfig, Sender, SenderConfig};

/// Publishes the next `k` counter values.
fn write(w: &mut impl WriteHandle<Item = u64>, next: &mut u64, k: usize) {
    w.write_with(k, |a, b| {
        for slot in a.iter_mut().chain(b.iter_mut()) {
            *slot = *next;
            *next += 1;
        }
        k
    })
    .unwrap();
}

fn slow_subscriber(bind: &str, n: u64) {
    let (mut w, r) = owned::portable::<u64>(1 << 16).build().unwrap();
    let tx = Sender::spawn(
        r,
        SenderConfig::publish(Endpoint::bind(bind))
            .tag_header(true)
            .max_items(16),
    )
    .unwrap();
    let gaps = Arc::new(Mutex::new(Vec::<Gap>::new()));
    let seen = Arc::clone(&gaps);
    let (w2, mut r2) = owned::portable::<u64>(1024).build().unwrap();
    let rx = Receiver::spawn_with_gaps(
        w2,
        // Some(0): what a late subscription loses is a gap too.
        ReceiverConfig::subscribe(Endpoint::connect(tx.endpoint()))
            .tag_header(true)
            .first_offset(Some(0)),
        Some(Box::new(move |g| seen.lock().unwrap().push(g))),
    )
    .unwrap();

    let mut next = 0u64;
    // Until the subscription has reached the publisher, PUB drops everything: one item at a
    // time until one arrives.
    let mut joined = false;
    for _ in 0..2000 {
        write(&mut w, &mut next, 1);
        if rx
            .wait_until(Duration::from_millis(5), |s| s.items > 0)
            .is_ok()
        {
            joined = true;
            break;
        }
    }
    assert!(joined, "subscriber never received anything");

    // Phase 1: nobody reads the subscriber's ring (1024 slots), so the receiver stalls, TCP
    // backs up, and PUB's per-subscriber queue overflows: messages are dropped.
    while next < n {
        write(&mut w, &mut next, 4096);
    }
    tx.wait_until(PATIENCE, |s| s.items == next)
        .expect("sender did not send everything");
    let end_of_burst = next;

    // Phase 2: drain the subscriber's ring until a value after the burst appears; the
    // publisher sends one item at a time until then (the queue is draining, so these get
    // through).
    let (saw_tail_tx, saw_tail) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        loop {
            let v = r2
                .pop_timeout(PATIENCE)
                .expect("subscriber ring: nothing arrived");
            got.push(v);
            if v >= end_of_burst {
                saw_tail_tx.send(()).unwrap();
                return got;
            }
        }
    });
    let mut tail_seen = false;
    for _ in 0..3000 {
        write(&mut w, &mut next, 1);
        if saw_tail.recv_timeout(Duration::from_millis(20)).is_ok() {
            tail_seen = true;
            break;
        }
    }
    assert!(tail_seen, "no item after the burst reached the subscriber");
    let got = reader.join().unwrap();

    // Every jump in the values is a gap the receiver reported, with its exact size, in order.
    let mut expected_gaps = Vec::new();
    let mut expect = 0u64;
    for &v in &got {
        assert!(
            v >= expect,
            "value {v} went backwards (expected at least {expect})"
        );
        if v > expect {
            expected_gaps.push(Gap {
                expected: expect,
                found: v,
            });
        }
        expect = v + 1;
    }
    let last = *got.last().unwrap();
    let reported: Vec<Gap> = gaps
        .lock()
        .unwrap()
        .iter()
        .copied()
        .filter(|g| g.found <= last)
        .collect();
    assert_eq!(reported, expected_gaps);
    let missing: u64 = reported.iter().map(Gap::missing).sum();
    assert_eq!(
        got.len() as u64 + missing,
        last + 1,
        "received + lost = all up to the last"
    );
    assert!(
        !expected_gaps.is_empty(),
        "the slow subscriber lost nothing: the test proved nothing"
    );
    let stats = rx.stop().stats;
    assert_eq!(
        (stats.framing_errors, stats.header_errors, stats.rewinds),
        (0, 0, 0)
    );
    drop(w);
    tx.join();
    eprintln!(
        "{bind}: {} items sent, {} received before the tail, {} gaps, {missing} items lost",
        end_of_burst,
        got.len(),
        reported.len()
    );
}

#[test]
fn tcp_slow_subscriber_every_gap_reported_exactly() {
    slow_subscriber("tcp://127.0.0.1:0", 3_000_000);
}

#[test]
fn ipc_slow_subscriber_every_gap_reported_exactly() {
    slow_subscriber(&ipc_address("pub-sub"), 3_000_000);
}
