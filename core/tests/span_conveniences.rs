//! Reading and writing conveniences: `try_read_all`/`read_all`, `for x in &span` over both
//! halves of a span that crosses the end, `clone_to_slice`/`clone_from_slice` for `Clone`
//! items, `to_array` without `Default`, `fill_from_iter`.

use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, MultiProducer, ReadError, Reader, Ring, SliceStorage, Writer};

/// A single-producer ring over `memory` whose first slot is at cursor `start` (so spans can
/// cross the end early).
fn ring_at<T>(memory: &mut [T], start: usize) -> Ring<SliceStorage<'_, T>> {
    Ring::builder(SliceStorage::new(memory))
        .start_at(start)
        .build()
        .unwrap()
}

/// A single-producer ring of `u32` slots.
type SpRing<'m> = Ring<SliceStorage<'m, u32>>;

/// Runs `body` with the reader and the writer of a fresh single-producer ring of 4 `u32`
/// slots whose first slot is at cursor `start`.
fn with_ring_at(
    start: usize,
    body: impl for<'m> FnOnce(Reader<&'m SpRing<'m>>, Writer<&'m SpRing<'m>>),
) {
    let mut memory = [0u32; 4];
    let ring = ring_at(&mut memory, start);
    let r = ring.reader().unwrap();
    let w = ring.writer().unwrap();
    body(r, w);
}

/// A multi-producer ring of 8 `u32` slots.
type MpRing<'m> = Ring<SliceStorage<'m, u32>, MultiProducer<&'m mut [AtomicUsize]>>;

/// Runs `body` with a reader and two writers of a fresh multi-producer ring of 8 slots.
fn with_mp_ring(
    body: impl for<'m> FnOnce(Reader<&'m MpRing<'m>>, Writer<&'m MpRing<'m>>, Writer<&'m MpRing<'m>>),
) {
    let mut memory = [0u32; 8];
    let mut words: Vec<AtomicUsize> = (0..multi_words(8)).map(|_| AtomicUsize::new(0)).collect();
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let r = ring.reader().unwrap();
    let w1 = ring.writer().unwrap();
    let w2 = w1.clone();
    body(r, w1, w2);
}

/// A `Clone` item with no `Default` and no `Copy`.
#[derive(Clone, Debug, PartialEq)]
struct Name(String);

fn name(s: &str) -> Name {
    Name(s.to_string())
}

#[test]
fn read_all_returns_everything_published() {
    with_ring_at(2, |mut r, mut w| {
        assert_eq!(r.try_read_all().unwrap_err(), ReadError::Empty);
        w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
        w.try_push(4).unwrap();
        assert_eq!(
            r.try_read_all().unwrap().to_array::<4>(),
            Some([1, 2, 3, 4])
        );
        w.try_push(5).unwrap();
        drop(w);
        assert_eq!(r.read_all().unwrap().to_array::<1>(), Some([5]));
        assert_eq!(r.read_all().unwrap_err(), ReadError::Closed);
        assert_eq!(r.try_read_all().unwrap_err(), ReadError::Closed);
    });
}

#[test]
fn mp_read_all_returns_every_record() {
    with_mp_ring(|mut r, mut w1, mut w2| {
        w1.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
        w2.try_reserve(3).unwrap().copy_from_slice(&[3, 4, 5]);
        w1.try_push(6).unwrap();
        let span = r.try_read_all().unwrap();
        assert_eq!(span.to_array::<6>(), Some([1, 2, 3, 4, 5, 6]));
    });
}

#[test]
fn for_loops_cover_both_halves() {
    with_ring_at(3, |mut r, mut w| {
        let mut span = w.try_reserve(3).unwrap();
        assert_eq!(
            span.as_mut_slices().1.len(),
            2,
            "the span must cross the end"
        );
        for (i, slot) in (&mut span).into_iter().enumerate() {
            *slot = 10 + i as u32;
        }
        let mut seen = Vec::new();
        for slot in &span {
            seen.push(*slot);
        }
        assert_eq!(seen, [10, 11, 12]);
        drop(span);
        let span = r.try_read(3).unwrap();
        assert_eq!(span.as_slices().1.len(), 2);
        let mut seen = Vec::new();
        for item in &span {
            seen.push(*item);
        }
        assert_eq!(seen, [10, 11, 12]);
    });
}

#[test]
fn clone_from_and_to_slices_across_the_end() {
    let mut memory = [name(""), name(""), name("")];
    let ring = ring_at(&mut memory, 2);
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_reserve(3)
        .unwrap()
        .clone_from_slice(&[name("a"), name("b"), name("c")]);
    let span = r.try_read(3).unwrap();
    let mut short = [name("-"), name("-")];
    assert_eq!(span.clone_to_slice(&mut short), 2);
    assert_eq!(short, [name("a"), name("b")]);
    let mut long = [name("-"), name("-"), name("-"), name("-")];
    assert_eq!(span.clone_to_slice(&mut long), 3);
    assert_eq!(long, [name("a"), name("b"), name("c"), name("-")]);
    assert_eq!(span.to_array::<2>(), None);
    assert_eq!(
        span.to_array::<3>(),
        Some([name("a"), name("b"), name("c")])
    );
}

#[test]
#[should_panic(expected = "source length must equal the span length")]
fn clone_from_slice_checks_the_length() {
    let mut memory = [name(""), name("")];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut w = ring.writer().unwrap();
    w.try_reserve(2).unwrap().clone_from_slice(&[name("a")]);
}

#[test]
fn fill_from_iter_publishes_exactly_what_it_wrote_across_the_end() {
    with_ring_at(2, |mut r, mut w| {
        // Wraps: two slots before the end, one after; the fourth slot gets nothing.
        let mut source = [1, 2, 3].into_iter();
        assert_eq!(w.try_reserve(4).unwrap().fill_from_iter(&mut source), 3);
        assert_eq!(source.next(), None);
        assert_eq!(r.try_read_all().unwrap().to_array::<3>(), Some([1, 2, 3]));
        // More items than slots: the span takes what fits and leaves the rest in the iterator.
        let mut source = 10..20;
        assert_eq!(w.try_reserve(2).unwrap().fill_from_iter(&mut source), 2);
        assert_eq!(source.next(), Some(12), "no item pulled without a slot");
        assert_eq!(r.try_read_all().unwrap().to_array::<2>(), Some([10, 11]));
        // Nothing at all: nothing published, the slots come back.
        assert_eq!(w.try_reserve(4).unwrap().fill_from_iter(None), 0);
        assert_eq!(r.try_read_all().unwrap_err(), ReadError::Empty);
        assert!(w.try_reserve(4).is_ok());
    });
}

#[test]
fn mp_fill_from_iter_gives_the_unwritten_tail_back() {
    with_mp_ring(|mut r, mut w1, mut w2| {
        let first = w1.try_reserve(3).unwrap();
        w2.try_push(9).unwrap();
        // The older span writes one of three: the rest becomes a hole readers pass.
        assert_eq!(first.fill_from_iter([7]), 1);
        let span = r.try_read_all().unwrap();
        assert_eq!(span.iter().copied().collect::<Vec<_>>(), [7]);
        drop(span);
        assert_eq!(r.try_read_all().unwrap().to_array::<1>(), Some([9]));
    });
}
