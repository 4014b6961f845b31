//! The functional buffer behaviours in GNU Radio's four variants: {single, multi} producer ×
//! {portable, double-mapped} memory. Each behaviour is one generic function; the
//! `every_variant!` macro generates a test per behaviour for each variant. (The threaded stress
//! in four variants is `stress.rs`.) Ends with the double-mapped aliasing check end to end.

use spanring::std_ext::owned::{self, OwnedReader, OwnedWriter};
use spanring::{ClaimMode, ReadError, ReserveError, Storage};

/// Builds a variant's writer and first reader: at least `capacity` slots, cursors at `start`.
type Build<S, P> = fn(usize, usize) -> (OwnedWriter<S, P>, OwnedReader<S, P>);

/// Writes `items` through `w` in one span.
fn write<S: Storage<Item = u64>, P: ClaimMode>(w: &mut OwnedWriter<S, P>, items: &[u64]) {
    w.try_reserve(items.len())
        .expect("reserve")
        .copy_from_slice(items);
}

/// Everything `r` can read right now.
fn drain<S: Storage<Item = u64>, P: ClaimMode>(r: &mut OwnedReader<S, P>) -> Vec<u64> {
    let mut out = Vec::new();
    while let Ok(span) = r.try_read(usize::MAX) {
        out.extend(span.iter().copied());
    }
    out
}

/// Moves both cursors forward by `n` (write, read) so the next span starts at `start + n`.
fn advance<S: Storage<Item = u64>, P: ClaimMode>(
    w: &mut OwnedWriter<S, P>,
    r: &mut OwnedReader<S, P>,
    n: usize,
) {
    w.try_reserve(n).unwrap().fill(0);
    assert_eq!(r.try_read(n).unwrap().len(), n);
}

/// `publish(k)` makes only the first `k` visible; the rest is never read (it is given back or
/// skipped), and the next span's items follow the published ones.
fn partial_publish<S: Storage<Item = u64>, P: ClaimMode>(build: Build<S, P>) {
    let (mut w, mut r) = build(8, 0);
    let mut span = w.try_reserve(4).unwrap();
    span.copy_from_slice(&[1, 2, 99, 99]);
    span.publish(2);
    assert_eq!(drain(&mut r), [1, 2]);
    write(&mut w, &[3, 4]);
    let mut span = w.try_reserve(3).unwrap();
    span.copy_from_slice(&[5, 99, 99]);
    span.publish(1);
    let span = w.try_reserve(1).unwrap();
    span.publish(0); // nothing
    write(&mut w, &[6]);
    assert_eq!(drain(&mut r), [3, 4, 5, 6]);
}

/// A span crossing the end of the memory: one slice when double-mapped, two otherwise; the
/// items come back in order either way.
fn wrap_around_spans<S: Storage<Item = u64>, P: ClaimMode>(build: Build<S, P>) {
    let (mut w, mut r) = build(8, 0);
    let cap = w.ring().capacity();
    advance(&mut w, &mut r, cap - 2);
    let mut span = w.try_reserve(5).unwrap();
    let (first, second) = span.as_mut_slices();
    if S::DOUBLE_MAPPED {
        assert_eq!(
            (first.len(), second.len()),
            (5, 0),
            "double-mapped: one slice"
        );
    } else {
        assert_eq!(
            (first.len(), second.len()),
            (2, 3),
            "portable: split at the end"
        );
    }
    span.copy_from_slice(&[1, 2, 3, 4, 5]);
    drop(span);
    let span = r.try_read(5).unwrap();
    let (first, second) = span.as_slices();
    assert_eq!(second.is_empty(), S::DOUBLE_MAPPED);
    assert_eq!([first, second].concat(), [1, 2, 3, 4, 5]);
}

/// A reader attached mid-stream sees only the items published after it attached.
fn attach_mid_stream<S: Storage<Item = u64>, P: ClaimMode>(build: Build<S, P>) {
    let (mut w, mut r) = build(8, 0);
    write(&mut w, &[1, 2, 3]);
    let mut late = r.subscribe().unwrap();
    assert_eq!(late.try_read(8).unwrap_err(), ReadError::Empty);
    write(&mut w, &[4, 5]);
    assert_eq!(drain(&mut r), [1, 2, 3, 4, 5]);
    assert_eq!(drain(&mut late), [4, 5]);
}

/// Readers drain what is published after the writer is gone, then see `Closed`.
fn drain_then_closed<S: Storage<Item = u64>, P: ClaimMode>(build: Build<S, P>) {
    let (mut w, mut r) = build(8, 0);
    let mut other = r.subscribe().unwrap();
    write(&mut w, &[1, 2, 3]);
    assert_eq!(r.try_read(1).unwrap().to_array::<1>(), Some([1]));
    drop(w);
    assert_eq!(drain(&mut r), [2, 3]);
    assert_eq!(drain(&mut other), [1, 2, 3]);
    assert_eq!(r.try_read(1).unwrap_err(), ReadError::Closed);
    assert_eq!(other.read(1).unwrap_err(), ReadError::Closed);
}

/// `try_reserve` reports how much is free when full, and refuses more than the capacity.
fn full_and_too_large<S: Storage<Item = u64>, P: ClaimMode>(build: Build<S, P>) {
    let (mut w, mut r) = build(8, 0);
    let cap = w.ring().capacity();
    w.try_reserve(cap - 3).unwrap().fill(1);
    assert_eq!(
        w.try_reserve(4).unwrap_err(),
        ReserveError::Full { free: 3 }
    );
    assert_eq!(
        w.try_reserve(cap + 1).unwrap_err(),
        ReserveError::TooLarge {
            requested: cap + 1,
            capacity: cap
        }
    );
    r.try_read(2).unwrap().consume(2);
    assert_eq!(w.try_reserve(5).unwrap().len(), 5);
    assert_eq!(
        w.try_reserve(1).unwrap_err(),
        ReserveError::Full { free: 0 }
    );
}

/// A reader dropped with unread items no longer holds the writer back.
fn detached_reader_never_stalls<S: Storage<Item = u64>, P: ClaimMode>(build: Build<S, P>) {
    let (mut w, mut r) = build(8, 0);
    let cap = w.ring().capacity();
    let slow = r.subscribe().unwrap();
    w.try_reserve(cap).unwrap().fill(1);
    assert_eq!(drain(&mut r).len(), cap);
    assert!(
        matches!(w.try_reserve(1), Err(ReserveError::Full { .. })),
        "`slow` read nothing"
    );
    drop(slow);
    for _ in 0..3 {
        w.try_reserve(cap).unwrap().fill(2);
        assert_eq!(drain(&mut r).len(), cap);
    }
}

/// Cursors starting just below `usize::MAX`: several laps across the wrap, items in order.
fn cursors_across_usize_wrap<S: Storage<Item = u64>, P: ClaimMode>(build: Build<S, P>) {
    for k in [0, 1, 5] {
        let (mut w, mut r) = build(8, usize::MAX - k);
        let cap = w.ring().capacity();
        let start = r.cursor();
        assert!(start > usize::MAX - cap - k, "start near the wrap");
        let (mut next, mut expected) = (0u64, 0u64);
        for lap in 0..cap + 3 {
            let n = 1 + lap % 3;
            let mut span = w.try_reserve(n).unwrap();
            for slot in span.iter_mut() {
                *slot = next;
                next += 1;
            }
            drop(span);
            for item in r.try_read(n).unwrap().iter() {
                assert_eq!(*item, expected, "lost or reordered item across the wrap");
                expected += 1;
            }
        }
        assert_eq!(expected, next);
        assert!(r.cursor() < start, "the cursor wrapped past usize::MAX");
        assert_eq!(drain(&mut r), Vec::<u64>::new());
    }
}

macro_rules! every_variant {
    ($($module:ident => $build:expr),* $(,)?) => {$(
        mod $module {
            use super::*;
            #[test]
            fn partial_publish() {
                super::partial_publish($build);
            }
            #[test]
            fn wrap_around_spans() {
                super::wrap_around_spans($build);
            }
            #[test]
            fn attach_mid_stream() {
                super::attach_mid_stream($build);
            }
            #[test]
            fn drain_then_closed() {
                super::drain_then_closed($build);
            }
            #[test]
            fn full_and_too_large() {
                super::full_and_too_large($build);
            }
            #[test]
            fn detached_reader_never_stalls() {
                super::detached_reader_never_stalls($build);
            }
            #[test]
            fn cursors_across_usize_wrap() {
                super::cursors_across_usize_wrap($build);
            }
        }
    )*};
}

every_variant! {
    single_portable => |cap, start| owned::portable(cap).start_at(start).build().unwrap(),
    multi_portable => |cap, start| {
        owned::portable(cap).multi_producer().start_at(start).build().unwrap()
    },
    single_mapped => |cap, start| owned::mapped(cap).start_at(start).build().unwrap(),
    multi_mapped => |cap, start| {
        owned::mapped(cap).multi_producer().start_at(start).build().unwrap()
    },
}

/// Double-mapped aliasing end to end: a span written across the wrap point is one `&mut [T]`
/// (DerefMut); its tail lies in the second mapping, yet a reader starting at slot 0 — the
/// first mapping, a different address — reads those very items.
fn mapped_aliasing<P: ClaimMode>(build: Build<spanring::std_ext::DoubleMapped<u64>, P>) {
    let (mut w, mut r) = build(1, 0);
    let cap = w.ring().capacity();
    advance(&mut w, &mut r, cap - 3);
    let mut span = w.try_reserve(6).unwrap();
    let contiguous: &mut [u64] = &mut span; // DerefMut: one slice across the wrap
    contiguous.copy_from_slice(&[10, 11, 12, 13, 14, 15]);
    let tail = contiguous[3..].as_ptr() as usize; // slot `cap`: the second mapping
    drop(span);
    assert_eq!(r.try_read(3).unwrap().to_array::<3>(), Some([10, 11, 12]));
    let head = r.try_read(3).unwrap();
    let slot0 = head.as_ptr() as usize; // slot 0: the first mapping
    assert_eq!(
        tail - slot0,
        cap * size_of::<u64>(),
        "read one mapping below the write"
    );
    assert_eq!(&*head, &[13, 14, 15]);
}

#[test]
fn mapped_aliasing_single_producer() {
    mapped_aliasing(|cap, start| owned::mapped(cap).start_at(start).build().unwrap());
}

#[test]
fn mapped_aliasing_multi_producer() {
    mapped_aliasing(|cap, start| {
        owned::mapped(cap)
            .multi_producer()
            .start_at(start)
            .build()
            .unwrap()
    });
}
