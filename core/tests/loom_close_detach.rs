//! Loom models of a close followed by the last reader's detach (what dropping the last owned
//! reader does) racing a writer on a full ring: the writer may get `Full` (its scan came
//! first) or `Closed`, never `Ok`. An `Ok` would be a claim of space that only the detach
//! freed, after the close, so it cannot count as made before the close.
//!
//! Found as a failure of `std-ext/tests/closing.rs` (a writer blocked in `reserve` got `Ok(1)`
//! after the last reader dropped): the claim checked `closed` before its rescan of the readers
//! and not after. Both models fail without the re-check (`Writer::closed_since_scan`).
//!
//! Run: `RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-core --features __loom --release --test loom_close_detach`
#![cfg(spanring_loom)]

use loom::sync::Arc;
use loom::thread;
use spanring_core::sync::AtomicUsize;
use spanring_core::{
    BusySpin, ClaimMode, InlineStorage, MultiProducer, Reader, ReserveError, Ring, SingleProducer,
    Writer,
};

type Sp = OneSlot<SingleProducer>;
type Mp = OneSlot<MultiProducer<[AtomicUsize; 1]>>;

type OneSlot<P> = Ring<InlineStorage<usize, 1>, P, BusySpin, 1>;

/// The one claim the writer makes on the full ring, while another thread closes the ring and
/// then drops its only reader.
fn claim_races_close_then_detach<P>(
    ring: Arc<OneSlot<P>>,
    reader: Reader<Arc<OneSlot<P>>>,
    mut w: Writer<Arc<OneSlot<P>>>,
) where
    P: ClaimMode + 'static,
    OneSlot<P>: Send + Sync,
{
    let closer = {
        let ring = ring.clone();
        thread::spawn(move || {
            ring.close();
            drop(reader); // detaches: its slot stops gating writers
        })
    };
    let outcome = w.try_reserve(1).map(|span| span.len());
    closer.join().unwrap();
    assert!(
        matches!(
            outcome,
            Err(ReserveError::Full { .. } | ReserveError::Closed)
        ),
        "a claim of space freed after the close: {outcome:?}"
    );
}

#[test]
fn sp_claim_races_close_then_detach() {
    loom::model(|| {
        let ring: Arc<Sp> = Arc::new(
            Ring::builder(InlineStorage::new([0; 1]))
                .readers::<1>()
                .build()
                .unwrap(),
        );
        let reader = Reader::attach(ring.clone()).unwrap();
        let mut w = Writer::attach(ring.clone()).unwrap();
        w.try_push(1).unwrap(); // full: the reader has not read it
        claim_races_close_then_detach(ring, reader, w);
    });
}

/// The same with the multi-producer ring's only writer, which claims from its sole-writer
/// cache (its rescan is `refresh_min_sole`).
#[test]
fn sole_mp_writer_claim_races_close_then_detach() {
    loom::model(|| {
        let ring: Arc<Mp> = Arc::new(
            Ring::builder(InlineStorage::new([0; 1]))
                .readers::<1>()
                .multi_producer([AtomicUsize::new(0)])
                .build()
                .unwrap(),
        );
        let reader = Reader::attach(ring.clone()).unwrap();
        let mut w = Writer::attach(ring.clone()).unwrap();
        w.try_push(1).unwrap(); // takes the cache; full now
        claim_races_close_then_detach(ring, reader, w);
    });
}
