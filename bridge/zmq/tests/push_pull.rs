//! PUSH → PULL over tcp://127.0.0.1 and ipc://: every item arrives exactly once and in order,
//! with and without the tag header, through rings small enough to wrap many times.

mod common;

use common::{ipc_address, PATIENCE};
use spanring::handle::WriteHandle;
use spanring::std_ext::owned;
use spanring_zmq::{End, Endpoint, Receiver, ReceiverConfig, Sender, SenderConfig};

/// Sends `n` counter values through ring → PUSH → PULL → ring and checks them one by one.
///
/// `close_at_once`: the producer closes its ring right after the last item, so the sender ends
/// while messages are still queued and libzmq's linger must deliver them. Over ipc:// libzmq
/// 4.3.4 drops messages still queued for a peer that is behind when the socket closes (linger
/// notwithstanding; README, "Limits"), so the ipc cases close the ring once everything arrived.
fn counter_stream(bind: &str, n: u64, tag_header: bool, max_items: usize, close_at_once: bool) {
    let (mut w, r) = owned::portable::<u64>(1000).build().unwrap();
    let tx = Sender::spawn(
        r,
        SenderConfig::push(Endpoint::bind(bind))
            .tag_header(tag_header)
            .max_items(max_items),
    )
    .unwrap();
    let (w2, mut r2) = owned::portable::<u64>(777).build().unwrap();
    let rx = Receiver::spawn(
        w2,
        ReceiverConfig::pull(Endpoint::connect(tx.endpoint()))
            .tag_header(tag_header)
            .first_offset(Some(0)),
    )
    .unwrap();
    let producer = std::thread::spawn(move || {
        let mut next = 0u64;
        while next < n {
            let k = (n - next).min(300) as usize;
            w.write_with(k, |a, b| {
                for slot in a.iter_mut().chain(b.iter_mut()) {
                    *slot = next;
                    next += 1;
                }
                k
            })
            .unwrap();
        }
        // dropping w closes the ring: the sender sends the rest and ends
        if close_at_once {
            drop(w);
            None
        } else {
            Some(w)
        }
    });
    for expected in 0..n {
        let got = r2.pop_timeout(PATIENCE).unwrap_or_else(|e| {
            panic!(
                "item {expected} missing ({e}); sender {:?}; receiver {:?}",
                tx.stats(),
                rx.stats()
            )
        });
        assert_eq!(got, expected, "out of order or duplicated");
    }
    drop(producer.join().unwrap());
    let sent = tx.join();
    assert!(matches!(sent.end, End::RingClosed), "{:?}", sent.end);
    assert_eq!((sent.stats.items, sent.unsent_items), (n, 0));
    // Nothing more arrives: the receiver saw exactly n items, no gap, no error.
    let stats = rx.stop().stats;
    assert_eq!(stats.items, n);
    assert_eq!(
        (
            stats.gaps,
            stats.framing_errors,
            stats.header_errors,
            stats.frame_errors
        ),
        (0, 0, 0, 0)
    );
    if tag_header {
        assert_eq!(stats.next_offset, Some(n));
    }
    assert!(r2.try_pop().is_err());
}

#[test]
fn tcp_every_item_once_in_order() {
    counter_stream("tcp://127.0.0.1:0", 200_000, false, 512, true);
}

#[test]
fn tcp_with_tag_header_every_item_once_in_order() {
    counter_stream("tcp://127.0.0.1:0", 200_000, true, 333, true);
}

#[test]
fn ipc_every_item_once_in_order() {
    counter_stream(&ipc_address("push-pull"), 200_000, false, 4096, false);
}

#[test]
fn ipc_with_tag_header_every_item_once_in_order() {
    counter_stream(&ipc_address("push-pull-tags"), 100_000, true, 1, false);
}

/// A PUSH sender with no peer keeps its messages (lossless) and, stopped, reports them unsent.
#[test]
fn stop_without_peer_reports_unsent_items() {
    let (mut w, r) = owned::portable::<i16>(64).build().unwrap();
    let tx = Sender::spawn(
        r,
        SenderConfig::push(Endpoint::bind("tcp://127.0.0.1:0")).max_items(10),
    )
    .unwrap();
    for i in 0..25 {
        w.push(i).unwrap();
    }
    // The first message (10 items) is in hand, retried while no peer is connected.
    tx.wait_until(PATIENCE, |s| s.blocked_waits > 0)
        .expect("no retry");
    let report = tx.stop();
    assert!(matches!(report.end, End::Stopped));
    assert_eq!(report.stats.items, 0);
    assert_eq!(report.unsent_items, 25);
}

/// A receiver whose ring's readers are all gone ends by itself.
#[test]
fn receiver_ends_when_its_ring_closes() {
    let (mut w, r) = owned::portable::<u32>(64).build().unwrap();
    let tx = Sender::spawn(r, SenderConfig::push(Endpoint::bind("tcp://127.0.0.1:0"))).unwrap();
    let (w2, r2) = owned::portable::<u32>(64).build().unwrap();
    let rx = Receiver::spawn(w2, ReceiverConfig::pull(Endpoint::connect(tx.endpoint()))).unwrap();
    drop(r2); // every reader gone: the ring closes
    w.push(1).unwrap();
    // The receiver ends by itself: join it on another thread and wait, bounded, for its report.
    let (done_tx, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(rx.join());
    });
    let report = done.recv_timeout(PATIENCE).expect("receiver did not end");
    assert!(matches!(report.end, End::RingClosed), "{:?}", report.end);
    assert_eq!(report.unwritten_items, 1);
    drop(w);
    tx.join();
}
