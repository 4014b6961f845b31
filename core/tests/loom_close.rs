//! Loom models of `Ring::close` racing claims, publishes and reads: a close never loses a span
//! whose reservation succeeded, and readers report `Closed` only after every such span.
//!
//! Run: `RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-core --features __loom --release --test loom_close`
//!
//! Each model: writer thread(s) try to reserve, fill and publish; a closer thread closes;
//! a reader thread reads until `Closed`. The assertion: the reader's items are exactly the
//! values of the reservations that returned `Ok` (and published them) — nothing lost, nothing
//! extra. A reader that reported `Closed` too early fails it; one that never gets `Closed`
//! makes loom report a deadlock/livelock.
#![cfg(spanring_loom)]

use loom::sync::Arc;
use loom::thread;
use spanring_core::sync::{spin_loop, AtomicUsize};
use spanring_core::{
    InlineStorage, MultiProducer, ReadError, Reader, Ring, SingleProducer, Writer,
};

type Sp<const C: usize> = Ring<InlineStorage<usize, C>, SingleProducer, spanring_core::BusySpin, 1>;
type Mp<const C: usize> =
    Ring<InlineStorage<usize, C>, MultiProducer<[AtomicUsize; C]>, spanring_core::BusySpin, 1>;

fn mp<const C: usize>() -> Arc<Mp<C>> {
    let bits: [AtomicUsize; C] = core::array::from_fn(|_| AtomicUsize::new(0));
    Arc::new(
        Ring::builder(InlineStorage::new([0; C]))
            .readers::<1>()
            .multi_producer(bits)
            .build()
            .unwrap(),
    )
}

/// A thread that closes `ring`, then drops the spare writer that kept the producers' drops
/// from closing it first (if the close found only the spare left, its drop seals).
fn close_then_drop(ring: &Arc<Mp<4>>, spare: Writer<Arc<Mp<4>>>) -> thread::JoinHandle<()> {
    let ring = ring.clone();
    thread::spawn(move || {
        ring.close();
        drop(spare);
    })
}

/// `try_read` until `Closed` (a helper trait so the model functions stay generic-free).
trait ReadAll {
    fn drain_all(&mut self) -> Vec<usize>;
}

macro_rules! impl_drain_all {
    ($ring:ty) => {
        impl ReadAll for Reader<Arc<$ring>> {
            fn drain_all(&mut self) -> Vec<usize> {
                let mut got = Vec::new();
                loop {
                    match self.try_read(4) {
                        Ok(span) => got.extend(span.iter().copied()),
                        Err(ReadError::Empty) => spin_loop(),
                        Err(ReadError::Closed) => return got,
                        Err(e) => panic!("unexpected {e}"),
                    }
                }
            }
        }
    };
}
impl_drain_all!(Sp<2>);
impl_drain_all!(Mp<4>);
impl_drain_all!(Mp<3>);

/// Multi-producer: two writers reserve one slot each (one publishes only part of a two-slot
/// span, so give-back and skip both race the close) while a third thread closes. A spare
/// writer handle stays alive until the closer drops it right after closing, so the
/// producers' drops never close the ring before the explicit close (if the close found only
/// the spare left, it deferred its seal to it, and the drop seals).
#[test]
fn mp_close_races_claims_and_partial_publish() {
    loom::model(|| {
        let ring = mp::<4>();
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let spare = Writer::attach(ring.clone()).unwrap();
        let writers: Vec<_> = (0..2).map(|_| spare.clone()).collect();
        let producers: Vec<_> = writers
            .into_iter()
            .enumerate()
            .map(|(id, mut w)| {
                thread::spawn(move || {
                    let value = id + 10;
                    match w.try_reserve(if id == 0 { 2 } else { 1 }) {
                        Ok(mut span) => {
                            span[0] = value;
                            span.publish(1); // writer 0 releases its second slot
                            Some(value)
                        }
                        Err(spanring_core::ReserveError::Closed) => None,
                        Err(e) => panic!("unexpected {e}"),
                    }
                })
            })
            .collect();
        let closer = close_then_drop(&ring, spare);
        let got = reader.drain_all();
        let mut sent: Vec<usize> = producers
            .into_iter()
            .filter_map(|h| h.join().unwrap())
            .collect();
        closer.join().unwrap();
        let mut got_sorted = got.clone();
        got_sorted.sort_unstable();
        sent.sort_unstable();
        assert_eq!(got_sorted, sent, "reader saw {got:?}");
    });
}

/// Multi-producer one-item pushes racing a close: a writer pushes two items while another
/// thread closes. A spare writer (dropped by the closer right after the close) keeps the
/// writer count at two, so each push is the inlined shared-writer claim (one CAS, then the
/// one-slot record) with its closed check after the CAS, not the sole writer's cache. Every
/// push that returned `Ok` arrives exactly once and in order, a push that failed `Closed`
/// gives its item back and leaves no hole, and the reader's `Closed` comes after every
/// published item. (Three threads: the four-thread form of this model took 873 s.)
#[test]
fn mp_close_races_one_item_pushes() {
    loom::model(|| {
        let ring = mp::<4>();
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let spare = Writer::attach(ring.clone()).unwrap();
        let mut w = spare.clone();
        let producer = thread::spawn(move || {
            let mut sent = Vec::new();
            for value in [10, 11] {
                match w.try_push(value) {
                    Ok(()) => sent.push(value),
                    Err(spanring_core::PushError::Closed(back)) => {
                        assert_eq!(back, value, "a refused push gives its item back");
                        break;
                    }
                    Err(e) => panic!("unexpected {e}"),
                }
            }
            sent
        });
        let closer = close_then_drop(&ring, spare);
        let got = reader.drain_all();
        let sent = producer.join().unwrap();
        closer.join().unwrap();
        assert_eq!(got, sent);
    });
}

/// Single-producer: the writer reserves and publishes while another thread closes; the writer
/// handle stays alive afterwards and its next reserve must fail. The reader gets `Closed` only
/// after the writer's span (sealed by the publish that sees the close, or by that reserve).
#[test]
fn sp_close_races_the_writers_span() {
    loom::model(|| {
        let ring: Arc<Sp<2>> = Arc::new(
            Ring::builder(InlineStorage::new([0; 2]))
                .readers::<1>()
                .build()
                .unwrap(),
        );
        let reader = Reader::attach(ring.clone()).unwrap();
        let mut w = Writer::attach(ring.clone()).unwrap();
        let producer = thread::spawn(move || {
            let sent = match w.try_reserve(1) {
                Ok(mut span) => {
                    span[0] = 7;
                    Some(7)
                }
                Err(spanring_core::ReserveError::Closed) => None,
                Err(e) => panic!("unexpected {e}"),
            };
            (w, sent)
        });
        let closer = {
            let ring = ring.clone();
            thread::spawn(move || ring.close())
        };
        let consumer = thread::spawn(move || {
            let mut reader = reader;
            reader.drain_all()
        });
        let (mut w, sent) = producer.join().unwrap();
        closer.join().unwrap();
        // The writer notices the close at its next reserve (if its publish did not already).
        assert!(w.try_reserve(1).is_err());
        let got = consumer.join().unwrap();
        assert_eq!(got, sent.into_iter().collect::<Vec<_>>());
        drop(w);
    });
}

/// Multi-producer ring with one writer, which therefore claims with a plain store (no RMW a
/// close could order itself against): it reserves and publishes twice while another thread
/// closes. The close must defer its seal to the writer, so the reader reports `Closed` only
/// after every span whose reserve succeeded. Fails if `close` seals at once with one writer:
/// the reader can then read the claim cursor before the writer's store and stop early.
#[test]
fn sole_writer_claim_races_close() {
    loom::model(|| {
        let ring = mp::<4>();
        let reader = Reader::attach(ring.clone()).unwrap();
        let mut w = Writer::attach(ring.clone()).unwrap();
        let shared = ring.clone();
        let producer = thread::spawn(move || {
            let mut sent = Vec::new();
            for value in [10, 11] {
                match w.try_reserve(1) {
                    Ok(mut span) => {
                        span[0] = value;
                        sent.push(value);
                    }
                    Err(spanring_core::ReserveError::Closed) => {
                        // A claim refused for the close: the ring must say it is closed.
                        // (A multi-producer close decides in the writers word before it
                        // stores `closed`; `is_closed` once read only the flag.)
                        assert!(shared.is_closed(), "a claim failed Closed on an open ring");
                        break;
                    }
                    Err(e) => panic!("unexpected {e}"),
                }
            }
            sent // dropping the writer seals a close that waited for it
        });
        let closer = {
            let ring = ring.clone();
            thread::spawn(move || ring.close())
        };
        let consumer = thread::spawn(move || {
            let mut reader = reader;
            reader.drain_all()
        });
        let sent = producer.join().unwrap();
        closer.join().unwrap();
        let got = consumer.join().unwrap();
        assert_eq!(got, sent);
    });
}

/// The sole writer's one-item pushes race a close and a reader: the first from the cache's
/// fast path (one record store, then the claim cursor `start + 1`, no reload of the writers
/// word), the second at the lap's last slot (the fast count stops short of it: the slow path
/// and a span-style publish), the third in the next lap. Every push that returned `Ok`
/// arrives exactly once, and the reader's `Closed` comes only after all of them (the close
/// defers its seal to this writer: its next push or its drop seals).
#[test]
fn sole_writer_pushes_race_close_across_the_lap_end() {
    loom::model(|| {
        // Capacity 3 (not a power of two): `start + 1` at the lap's last slot would be an index
        // in the lap's gap, so the fast path must not take that slot.
        let bits: [AtomicUsize; 3] = core::array::from_fn(|_| AtomicUsize::new(0));
        let ring: Arc<Mp<3>> = Arc::new(
            Ring::builder(InlineStorage::new([0; 3]))
                .readers::<1>()
                .multi_producer(bits)
                .start_at(1)
                .build()
                .unwrap(),
        );
        let reader = Reader::attach(ring.clone()).unwrap();
        let mut w = Writer::attach(ring.clone()).unwrap();
        let producer = thread::spawn(move || {
            let mut sent = Vec::new();
            for value in [10, 11, 12] {
                match w.try_push(value) {
                    Ok(()) => sent.push(value),
                    Err(spanring_core::PushError::Closed(_)) => break,
                    Err(e) => panic!("unexpected {e}"),
                }
            }
            sent // dropping the writer seals a close that waited for it
        });
        let closer = {
            let ring = ring.clone();
            thread::spawn(move || ring.close())
        };
        let mut reader = reader;
        let got = reader.drain_all();
        let sent = producer.join().unwrap();
        closer.join().unwrap();
        assert_eq!(got, sent);
    });
}

/// A clone claims, publishes and is dropped in another thread while the first writer claims
/// twice: a claim of the first writer that comes after the clone's drop finds itself alone,
/// takes the sole-writer cache and claims from it, which must start after the clone's claim
/// (the drop's `AcqRel` decrement and the `Acquire` CAS that takes the cache). Every value
/// arrives exactly once; an overlapping claim would lose one.
#[test]
fn clone_claim_drop_then_sole_claim() {
    loom::model(|| {
        let ring = mp::<4>();
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let mut a = Writer::attach(ring.clone()).unwrap();
        let mut b = a.clone();
        let other = thread::spawn(move || {
            b.try_reserve(1).unwrap()[0] = 20;
            drop(b);
        });
        a.try_reserve(1).unwrap()[0] = 10;
        a.try_reserve(1).unwrap()[0] = 11;
        other.join().unwrap();
        drop(a); // the last writer closes the ring
        let mut got = reader.drain_all();
        got.sort_unstable();
        assert_eq!(got, [10, 11, 20]);
    });
}

/// The first writer claims from its sole-writer cache (publishing only one of two reserved
/// slots, which the cache simply claims again), then clones: the clone claims with the CAS in
/// another thread while the first writer claims again, now also through the CAS, while a reader
/// reads concurrently. The clone must start from the cached writer's cursor (stored at its
/// publish) and the first writer must leave its cache (the clone's CAS clears the flag): if
/// either failed, two claims would overlap and a value would be lost, or the slot given back
/// would become a hole the reader waits at. Every value arrives exactly once, in per-writer
/// order.
#[test]
fn clone_from_a_cached_writer() {
    loom::model(|| {
        let ring = mp::<4>();
        let reader = Reader::attach(ring.clone()).unwrap();
        let mut a = Writer::attach(ring.clone()).unwrap();
        let mut span = a.try_reserve(2).unwrap();
        span[0] = 10;
        span.publish(1); // the second slot goes back to the cache
        let consumer = thread::spawn(move || {
            let mut reader = reader;
            reader.drain_all()
        });
        let mut b = a.clone();
        let other = thread::spawn(move || {
            b.try_reserve(1).unwrap()[0] = 20;
            drop(b);
        });
        a.try_reserve(1).unwrap()[0] = 11;
        other.join().unwrap();
        drop(a); // the last writer closes the ring
        let got = consumer.join().unwrap();
        let mut sorted = got.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [10, 11, 20]);
        assert_eq!(got[0], 10, "the cached writer's first item comes first");
        let a_order: Vec<_> = got.iter().filter(|&&v| v < 20).collect();
        assert_eq!(a_order, [&10, &11]);
    });
}
