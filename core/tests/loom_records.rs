//! Loom models of the multi-producer *records* protocol (`claim.rs` module docs): one record
//! word a span head, readers walking records from their front, the published cursor as a hint
//! advanced by walkers, and the scrub that keeps short lap tags safe.
//!
//! Run: `RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-core --features __loom --release --test loom_records`
//!
//! Slots are loom `UnsafeCell`s: besides the assertions, loom reports any slot access not
//! ordered after the access it must follow (a reader reading a slot before its record was
//! published, a writer overwriting a slot a reader may still read).
#![cfg(spanring_loom)]

use std::sync::atomic::{AtomicBool as StdBool, Ordering as StdOrdering};

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use spanring_core::sync::AtomicUsize;
use spanring_core::{InlineStorage, MultiProducer, ReadError, Reader, Ring, Writer};

#[derive(Debug)]
struct Slot(UnsafeCell<usize>);

impl Default for Slot {
    fn default() -> Self {
        Slot(UnsafeCell::new(0))
    }
}

impl Slot {
    fn write(&mut self, v: usize) {
        self.0.with_mut(|p| {
            // SAFETY: loom checks the access; the ring hands `&mut Slot` to one writer only.
            unsafe { *p = v }
        });
    }
    fn read(&self) -> usize {
        // SAFETY: loom checks the access against concurrent writes.
        self.0.with(|p| unsafe { *p })
    }
}

// SAFETY: the cell is only reached through the ring's spans; loom verifies every access.
unsafe impl Sync for Slot {}

type Mp<const C: usize, const R: usize = 1> =
    Ring<InlineStorage<Slot, C>, MultiProducer<[AtomicUsize; C]>, spanring_core::BusySpin, R>;

fn ring<const C: usize, const R: usize>(start: usize, tag_bits: u32) -> Arc<Mp<C, R>> {
    let words: [AtomicUsize; C] = core::array::from_fn(|_| AtomicUsize::new(0));
    let slots = InlineStorage::new(core::array::from_fn(|_| Slot::default()));
    Arc::new(Ring::new_multi_with_tag_bits(slots, words, start, tag_bits).unwrap())
}

/// Reads until `n` items were seen (spinning on `Empty`).
fn read_n<const C: usize, const R: usize>(r: &mut Reader<Arc<Mp<C, R>>>, n: usize) -> Vec<usize> {
    let mut got = Vec::new();
    while got.len() < n {
        match r.try_read(n - got.len()) {
            Ok(span) => got.extend(span.iter().map(Slot::read)),
            Err(ReadError::Empty) => thread::yield_now(),
            Err(e) => panic!("{e}"),
        }
    }
    got
}

/// Reads until `Closed`.
fn read_all<const C: usize, const R: usize>(r: &mut Reader<Arc<Mp<C, R>>>) -> Vec<usize> {
    let mut got = Vec::new();
    loop {
        match r.try_read(4) {
            Ok(span) => got.extend(span.iter().map(Slot::read)),
            Err(ReadError::Empty) => thread::yield_now(),
            Err(ReadError::Closed) => return got,
            Err(e) => panic!("{e}"),
        }
    }
}

/// Reserves `n` slots, spinning while full.
fn reserve<const C: usize, const R: usize>(
    w: &mut Writer<Arc<Mp<C, R>>>,
    n: usize,
) -> spanring_core::WriteSpan<'_, Arc<Mp<C, R>>> {
    loop {
        // (The borrow checker cannot see that the loop only returns the successful span.)
        let w2: *mut Writer<Arc<Mp<C, R>>> = w;
        // SAFETY: `w2` is `w`; the span returned on `Ok` is the only borrow that escapes, and on
        // `Err` the temporary borrow ended before the next iteration.
        match unsafe { &mut *w2 }.try_reserve(n) {
            Ok(span) => return span,
            Err(spanring_core::ReserveError::Full { .. }) => thread::yield_now(),
            Err(e) => panic!("{e}"),
        }
    }
}

/// Out-of-order publish of two claims: one thread holds two claims (two writer handles) and
/// publishes the later one first; a concurrent reader sees nothing until the earlier one is
/// published, then both values, in claim order. The start is just below the `usize` wrap.
#[test]
fn out_of_order_publish_two_claims() {
    loom::model(|| {
        let ring = ring::<4, 1>(usize::MAX, usize::BITS);
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let mut a = Writer::attach(ring.clone()).unwrap();
        let mut b = a.clone();
        let producer = thread::spawn(move || {
            let mut first = a.try_reserve(1).unwrap();
            let mut second = b.try_reserve(1).unwrap();
            first[0].write(1);
            second[0].write(2);
            drop(second); // published first, but behind an unpublished claim
            drop(first);
        });
        let got = read_n(&mut reader, 2);
        producer.join().unwrap();
        assert_eq!(got, vec![1, 2]);
        assert_eq!(ring.published(), usize::MAX.wrapping_add(2));
    });
}

static GAVE_BACK: StdBool = StdBool::new(false);
static SKIPPED: StdBool = StdBool::new(false);

/// Partial publish, both outcomes: A reserves 2 and publishes 1 while B reserves 1. If A is
/// still the newest claim its tail goes back (B reuses the slot), otherwise the tail becomes a
/// skip record. Either way the reader sees exactly A's first item and B's item, in claim
/// order, never the unpublished tail. Both outcomes must occur across the explored executions.
#[test]
fn partial_publish_gives_back_or_skips() {
    GAVE_BACK.store(false, StdOrdering::Relaxed);
    SKIPPED.store(false, StdOrdering::Relaxed);
    loom::model(|| {
        let ring = ring::<3, 1>(0, usize::BITS);
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let mut a = Writer::attach(ring.clone()).unwrap();
        let mut b = a.clone();
        let spare = a.clone(); // keeps the ring open after both threads' writers are dropped
        let pa = thread::spawn(move || {
            let mut span = a.try_reserve(2).unwrap();
            span[0].write(1);
            span[1].write(666); // never published
            let start = span.start();
            span.publish(1);
            start
        });
        let pb = thread::spawn(move || {
            let mut span = b.try_reserve(1).unwrap();
            span[0].write(2);
            span.start()
        });
        let got = read_n(&mut reader, 2);
        let (sa, sb) = (pa.join().unwrap(), pb.join().unwrap());
        let expected = if sa < sb { vec![1, 2] } else { vec![2, 1] };
        assert_eq!(got, expected);
        if sb == sa + 2 {
            SKIPPED.store(true, StdOrdering::Relaxed); // B claimed behind A's whole span
        } else {
            GAVE_BACK.store(true, StdOrdering::Relaxed); // B first, or after the give-back
        }
        // Nothing else is readable (the tail was skipped or reused, never shown).
        assert_eq!(reader.try_read(4).unwrap_err(), ReadError::Empty);
        drop(spare);
        assert_eq!(reader.try_read(4).unwrap_err(), ReadError::Closed);
    });
    assert!(
        GAVE_BACK.load(StdOrdering::Relaxed),
        "give-back never explored"
    );
    assert!(SKIPPED.load(StdOrdering::Relaxed), "skip never explored");
}

/// Skip record before data record: a span of 3 with a later claim behind it publishes 1, so
/// its writer stores the skip record of the tail and then the data record of the head. A
/// concurrent reader may see the skip record first; it must not take it for the front (it is
/// not at the front) and must show only the two published values.
#[test]
fn skip_record_before_data_record() {
    loom::model(|| {
        let ring = ring::<4, 1>(usize::MAX - 1, usize::BITS);
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let mut a = Writer::attach(ring.clone()).unwrap();
        let mut b = a.clone();
        let producer = thread::spawn(move || {
            let mut span = a.try_reserve(3).unwrap();
            let mut later = b.try_reserve(1).unwrap();
            later[0].write(2);
            drop(later);
            span[0].write(1);
            span[1].write(666);
            span[2].write(666);
            span.publish(1); // behind `later`: skip record, then data record
        });
        let got = read_n(&mut reader, 2);
        producer.join().unwrap();
        assert_eq!(got, vec![1, 2]);
    });
}

/// Lap reuse with moving span boundaries at capacity 3, with a 1-bit lap tag (as a 32-bit
/// target with a huge ring has): slot 1 is a span head in lap 0 (a 2-slot span), interior in
/// lap 1, and a head again in lap 2, whose tag equals lap 0's. Without the scrub of interior
/// words, a reader at position 7 (slot 1, lap 2) accepts lap 0's record before the writer
/// publishes position 7 (reading an unpublished slot: wrong values or a loom access error).
#[test]
fn lap_reuse_capacity_3() {
    loom::model(|| {
        let ring = ring::<3, 1>(0, 1);
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let mut w = Writer::attach(ring.clone()).unwrap();
        // Laps 0 and 1, single-threaded: spans [0] [1 2] | [3 4] [5] | [6].
        let mut v = 0;
        for n in [1, 2, 2, 1, 1] {
            let mut span = w.try_reserve(n).unwrap();
            for s in span.iter_mut() {
                v += 1;
                s.write(v);
            }
            drop(span);
            assert_eq!(read_n(&mut reader, n).len(), n);
        }
        // Position 7 (slot 1, lap 2) races the reader.
        let producer = thread::spawn(move || {
            let mut span = w.try_reserve(2).unwrap();
            span[0].write(8);
            span[1].write(9);
        });
        let got = read_n(&mut reader, 2);
        producer.join().unwrap();
        assert_eq!(got, vec![8, 9]);
    });
}

/// Attach and detach racing the writers' refresh (which walks the hint) and the hint walk of
/// attach: a ring of 2 with a writer writing 3 items (it must walk the hint to get past the
/// first lap) while a reader attaches, reads what it can and detaches, twice. Each reader
/// sees a consecutive run of values, no slot is overwritten while read (loom), and the
/// writer is never stalled by a detached reader.
#[test]
fn attach_detach_race_refresh_and_hint_walk() {
    loom::model(|| {
        let ring = ring::<2, 1>(usize::MAX, usize::BITS);
        let reader_ring = ring.clone();
        let readers = thread::spawn(move || {
            let mut runs = Vec::new();
            for _ in 0..2 {
                let mut r = Reader::attach(reader_ring.clone()).unwrap();
                let mut seen = Vec::new();
                if let Ok(span) = r.try_read(2) {
                    seen.extend(span.iter().map(Slot::read));
                }
                runs.push(seen); // detached here
            }
            runs
        });
        let mut w = Writer::attach(ring.clone()).unwrap();
        let items = 3;
        for v in 1..=items {
            reserve(&mut w, 1)[0].write(v);
        }
        for seen in readers.join().unwrap() {
            for pair in seen.windows(2) {
                assert_eq!(pair[1], pair[0] + 1, "a gap or an overwrite: {seen:?}");
            }
        }
        assert_eq!(ring.published(), usize::MAX.wrapping_add(items));
    });
}

/// Two writers and no reader: with nobody reading, writers are gated by the hint alone, which
/// they walk forward themselves (`refresh_min`). Both write 2 items into a ring of 2; neither
/// may overwrite a slot the other has not published yet (loom flags the access), and after
/// both return the hint covers all 4.
#[test]
fn two_writers_no_reader() {
    loom::model(|| {
        let ring = ring::<2, 1>(0, usize::BITS);
        // Attached up front: the first writer to finish must not close the ring.
        let handles = vec![Writer::attach(ring.clone()).unwrap(); 2];
        let writers: Vec<_> = handles
            .into_iter()
            .enumerate()
            .map(|(id, mut w)| {
                thread::spawn(move || {
                    for k in 0..2 {
                        reserve(&mut w, 1)[0].write(10 * id + k);
                    }
                })
            })
            .collect();
        for h in writers {
            h.join().unwrap();
        }
        assert_eq!(ring.published(), 4);
    });
}

/// Close racing the last publish: a writer publishes one item while another thread closes
/// (a spare writer handle keeps the ring open otherwise). The reader reads until `Closed`: it
/// gets the item exactly when the writer's reservation succeeded, never loses it, and always
/// gets `Closed` in the end (loom reports a livelock otherwise).
#[test]
fn close_races_the_last_publish() {
    loom::model(|| {
        let ring = ring::<2, 1>(0, usize::BITS);
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let spare = Writer::attach(ring.clone()).unwrap();
        let mut w = spare.clone();
        let producer = thread::spawn(move || match w.try_reserve(2) {
            Ok(mut span) => {
                span[0].write(7);
                span.publish(1); // newest claim: gives the tail back
                true
            }
            Err(spanring_core::ReserveError::Closed) => false,
            Err(e) => panic!("{e}"),
        });
        let closer_ring = ring.clone();
        // The spare goes right after the close: if the close found it the only writer left,
        // it deferred its seal to it, and the drop seals.
        let closer = thread::spawn(move || {
            closer_ring.close();
            drop(spare);
        });
        let got = read_all(&mut reader);
        let reserved = producer.join().unwrap();
        closer.join().unwrap();
        assert_eq!(got, if reserved { vec![7] } else { vec![] });
    });
}
