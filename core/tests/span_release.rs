//! [`SpanRelease`]: what a span dropped without `publish` / `consume` releases: everything
//! (the default), nothing (on a multi-producer ring without stalling anyone), or nothing and a
//! panic in debug builds.

use spanring_core::sync::AtomicUsize;
use spanring_core::{MultiProducer, ReadError, Ring, SliceStorage, SpanRelease};

#[test]
fn the_default_publishes_and_consumes_everything() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
    drop(r.try_read(4).unwrap());
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
}

#[test]
fn nothing_publishes_no_stale_slot_single_producer() {
    let mut memory = [9u8; 4]; // "stale" items from an earlier lap
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    drop(w.try_reserve(4).unwrap().on_drop(SpanRelease::Nothing));
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
    // The slots are claimed again by the next reservation.
    let mut span = w.try_reserve(4).unwrap().on_drop(SpanRelease::Nothing);
    span[0] = 1;
    span.publish(1);
    assert_eq!(r.try_pop(), Ok(1));
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
}

/// Two writers: the first drops a span unpublished after the second claimed behind it. The
/// first's slots become a hole the reader passes; nobody waits for them (GNU Radio 4's
/// multi-producer buffer hangs here).
#[test]
fn nothing_never_stalls_a_multi_producer_ring() {
    let mut memory = [0u32; 8];
    let words: [AtomicUsize; 8] = Default::default();
    let ring: Ring<_, MultiProducer<_>> = Ring::builder(SliceStorage::new(&mut memory))
        .multi_producer(words)
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b = a.clone();
    let first = a.try_reserve(2).unwrap().on_drop(SpanRelease::Nothing);
    b.try_reserve(1).unwrap()[0] = 7;
    drop(first); // behind b's claim: a hole
    assert_eq!(r.try_pop(), Ok(7));
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
    // The ring goes on, full capacity available again once read.
    for i in 0..8 {
        a.try_push(i).unwrap();
    }
    assert_eq!(r.try_iter().collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
}

#[test]
fn nothing_on_a_read_span_is_a_peek() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    let peek = r.try_read(4).unwrap().on_drop(SpanRelease::Nothing);
    assert_eq!(peek.to_array::<3>(), Some([1, 2, 3]));
    drop(peek);
    let span = r.try_read(4).unwrap().on_drop(SpanRelease::Explicit);
    span.consume(2);
    assert_eq!(r.try_pop(), Ok(3));
}

#[test]
fn explicit_with_a_publish_is_quiet() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut span = w.try_reserve(2).unwrap().on_drop(SpanRelease::Explicit);
    span[0] = 4;
    span.publish(1);
    assert_eq!(r.try_pop(), Ok(4));
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "dropped without `publish`")]
fn explicit_without_a_publish_panics_in_debug_builds() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut w = ring.writer().unwrap();
    drop(w.try_reserve(2).unwrap().on_drop(SpanRelease::Explicit));
}

/// The panic comes after the span released nothing: the ring is consistent afterwards.
#[test]
#[cfg(all(debug_assertions, feature = "std"))]
fn explicit_panics_after_releasing_nothing() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        drop(w.try_reserve(2).unwrap().on_drop(SpanRelease::Explicit));
    }));
    assert!(caught.is_err());
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
    w.try_push(1).unwrap();
    assert_eq!(r.try_pop(), Ok(1));
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "dropped without `consume`")]
fn explicit_without_a_consume_panics_in_debug_builds() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    ring.writer().unwrap().try_push(1).unwrap();
    drop(r.try_read(1).unwrap().on_drop(SpanRelease::Explicit));
}
