//! Loom models of the single-producer writer that waits on a full ring by watching the reader
//! that holds it full (`WatchedReader` in `protocol/single.rs`), racing what must end the watch: the
//! ring's close, the watched reader's consume, and its detach.
//!
//! Run: `RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-core --features __loom --release --test loom_watch`
//!
//! Each model fills a two-slot ring behind a reader that has read nothing, so the writer's
//! `reserve(1)` waits (`BusySpin`: every check runs the watch). A writer that keeps waiting after
//! the event that should end its wait makes loom report the spin as a livelock; the assertions
//! check what it returned and that no item is lost or delivered twice.
#![cfg(spanring_loom)]

use loom::sync::Arc;
use loom::thread;
use spanring_core::{
    BusySpin, InlineStorage, ReadError, Reader, ReserveError, Ring, SingleProducer, Writer,
};

type Sp = Ring<InlineStorage<usize, 2>, SingleProducer, BusySpin, 2>;

/// A two-slot ring, full (items 1 and 2), an idle reader at its start, and the writer.
fn full() -> (Arc<Sp>, Reader<Arc<Sp>>, Writer<Arc<Sp>>) {
    let ring = Arc::new(
        Ring::builder(InlineStorage::new([0; 2]))
            .readers::<2>()
            .build()
            .unwrap(),
    );
    let reader = Reader::attach(ring.clone()).unwrap();
    let mut writer = Writer::attach(ring.clone()).unwrap();
    writer.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
    (ring, reader, writer)
}

/// What the reader gets until `Closed`.
fn drain(reader: &mut Reader<Arc<Sp>>) -> Vec<usize> {
    let mut got = Vec::new();
    loop {
        match reader.try_read(4) {
            Ok(span) => got.extend(span.iter().copied()),
            Err(ReadError::Closed) => return got,
            Err(e) => panic!("after the writer ended: {e}"),
        }
    }
}

/// The close ends the wait of a writer behind a reader that never reads: `Closed`.
#[test]
fn watched_wait_races_close() {
    loom::model(|| {
        let (ring, mut reader, mut writer) = full();
        let w = thread::spawn(move || {
            let outcome = writer.reserve(1).map(|mut s| s[0] = 3).err();
            drop(writer);
            outcome
        });
        ring.close();
        assert_eq!(w.join().unwrap(), Some(ReserveError::Closed));
        assert_eq!(drain(&mut reader), [1, 2]);
    });
}

/// The watched reader consumes one item while the ring closes: the writer gets the freed slot
/// or `Closed`, and the reader gets exactly what was published.
#[test]
fn watched_wait_races_consume_and_close() {
    loom::model(|| {
        let (ring, mut reader, mut writer) = full();
        let w = thread::spawn(move || {
            let outcome = writer.reserve(1).map(|mut s| s[0] = 3);
            drop(writer);
            outcome
        });
        let first = reader.try_read(1).unwrap()[0];
        ring.close();
        let outcome = w.join().unwrap();
        let mut got = vec![first];
        got.extend(drain(&mut reader));
        match outcome {
            Ok(()) => assert_eq!(got, [1, 2, 3]),
            Err(e) => {
                assert_eq!(e, ReserveError::Closed);
                assert_eq!(got, [1, 2]);
            }
        }
    });
}

/// The watched reader detaches while a second reader attaches: the writer is not held by a
/// reader that is gone, and the newcomer (at the published cursor) leaves it room.
#[test]
fn watched_wait_races_detach_and_attach() {
    loom::model(|| {
        let (ring, reader, mut writer) = full();
        let w = thread::spawn(move || writer.reserve(1).map(|mut s| s[0] = 3));
        let r2 = ring.clone();
        let other = thread::spawn(move || {
            let mut late = Reader::attach(r2).unwrap();
            late.try_read(4).map(|s| s.len()).unwrap_or(0)
        });
        drop(reader);
        assert_eq!(w.join().unwrap(), Ok(()));
        // The late reader saw nothing before it attached, and at most the writer's one item.
        assert!(other.join().unwrap() <= 1);
    });
}
