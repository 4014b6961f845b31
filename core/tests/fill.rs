//! `Writer::try_reserve_with`: the closure's `Ok(k)` publishes `k` (clamped), its `Err`
//! publishes nothing and the slots are reused; a failed reservation never calls the closure.
//! Both claim kinds.

use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, FillError, ReadError, ReserveError, Ring, SliceStorage};

fn bits(cap: usize) -> Vec<AtomicUsize> {
    (0..multi_words(cap)).map(|_| AtomicUsize::new(0)).collect()
}

#[test]
fn sp_error_publishes_nothing_and_slots_are_reused() {
    let mut memory = [0u32; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let out = w.try_reserve_with(4, |span| {
        span.copy_from_slice(&[1, 2, 3, 4]);
        Err("late failure")
    });
    assert_eq!(out, Err(FillError::Fill("late failure")));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
    assert_eq!(w.free(), 4); // the slots came back
    let out = w.try_reserve_with(4, |span| {
        span.copy_from_slice(&[5, 6, 7, 8]);
        Ok::<_, ()>(2)
    });
    assert_eq!(out, Ok(2));
    assert_eq!(r.try_read(8).unwrap().to_array::<2>(), Some([5, 6]));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
}

#[test]
fn mp_error_publishes_nothing() {
    let mut memory = [0u32; 4];
    let b = bits(4);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &b[..]).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let out = w.try_reserve_with(3, |span| {
        span.fill(9);
        Err(17u8)
    });
    assert_eq!(out, Err(FillError::Fill(17)));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
    assert_eq!(w.try_reserve_with(2, |_| Ok::<_, ()>(2)), Ok(2));
    assert_eq!(r.try_read(8).unwrap().len(), 2);
}

#[test]
fn ok_count_is_clamped_to_the_span() {
    let mut memory = [0u32; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    assert_eq!(w.try_reserve_with(2, |_| Ok::<_, ()>(100)), Ok(2));
    assert_eq!(r.try_read(8).unwrap().len(), 2);
}

#[test]
fn failed_reservation_does_not_call_the_closure() {
    let mut memory = [0u32; 2];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let _r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut called = false;
    let out = w.try_reserve_with(3, |_| {
        called = true;
        Ok::<_, ()>(0)
    });
    assert_eq!(
        out,
        Err(FillError::Reserve(ReserveError::TooLarge {
            requested: 3,
            capacity: 2
        }))
    );
    ring.close();
    let out = w.try_reserve_with(1, |_| {
        called = true;
        Ok::<_, ()>(1)
    });
    assert!(out.as_ref().unwrap_err().is_terminal());
    assert!(!called);
}
