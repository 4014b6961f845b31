//! A multi-producer ring whose one writer claims from its own cache, like a single-producer
//! writer (see the core's writers module): only the first writer attaches, more come from `clone`; a writer left alone after
//! its clones dropped keeps claiming in order; a close with one writer completes when that
//! writer next acts (publish, reserve, clone or drop), as on a single-producer ring.
//! The races themselves are model-checked in `loom_close.rs`.

use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, AttachError, ReadError, ReserveError, Ring, SliceStorage};

fn words(cap: usize) -> Vec<AtomicUsize> {
    (0..multi_words(cap)).map(|_| AtomicUsize::new(0)).collect()
}

#[test]
fn only_the_first_writer_attaches_the_rest_are_clones() {
    let mut memory = [0u32; 8];
    let mut words = words(8);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let first = ring.writer().unwrap();
    assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken);
    let second = first.clone();
    drop(first);
    // A clone is alive: still taken.
    assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken);
    drop(second);
    // No writer left: the last drop closed the ring, for good, so a new writer is refused.
    assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    assert!(ring.reader().is_ok(), "readers still attach, to drain");
}

#[test]
fn alone_again_after_clones_drop_claims_in_order() {
    let mut memory = [0u32; 8];
    let mut words = words(8);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    a.try_push(1).unwrap(); // alone: plain store
    let mut b = a.clone();
    b.try_push(2).unwrap(); // two writers: CAS
    a.try_push(3).unwrap();
    drop(b);
    a.try_push(4).unwrap(); // alone again: continues after b's claim
    a.try_push(5).unwrap();
    assert_eq!(
        reader.try_read(8).unwrap().to_array::<5>(),
        Some([1, 2, 3, 4, 5])
    );
}

/// What the one writer does after the close.
enum Act {
    Reserve,
    Clone,
    Drop,
}

/// Builds a ring with one writer holding nothing, closes it, checks the reader drains and then
/// sees `Empty` (as far as the close knows, the writer may be mid-claim), lets the writer `act`,
/// and checks the reader then sees `Closed`.
fn close_waits_for_the_one_writer(act: Act) {
    let mut memory = [0u32; 8];
    let mut words = words(8);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    writer.try_push(7).unwrap();
    ring.close();
    assert!(ring.is_closed());
    assert_eq!(reader.try_pop(), Ok(7));
    assert_eq!(reader.try_pop(), Err(ReadError::Empty));
    let mut kept = Vec::new();
    match act {
        Act::Reserve => {
            assert_eq!(writer.try_reserve(1).unwrap_err(), ReserveError::Closed);
            kept.push(writer); // still alive: the reserve alone completed the close
        }
        Act::Clone => {
            kept.push(writer.clone());
            kept.push(writer);
        }
        Act::Drop => drop(writer),
    }
    assert_eq!(reader.try_pop(), Err(ReadError::Closed));
    drop(kept);
}

#[test]
fn close_with_one_writer_completes_at_its_reserve() {
    close_waits_for_the_one_writer(Act::Reserve);
}

#[test]
fn close_with_one_writer_completes_at_its_clone() {
    close_waits_for_the_one_writer(Act::Clone);
}

#[test]
fn close_with_one_writer_completes_at_its_drop() {
    close_waits_for_the_one_writer(Act::Drop);
}

#[test]
fn close_with_one_writer_delivers_its_span_then_completes() {
    let mut memory = [0u32; 8];
    let mut words = words(8);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    let mut span = writer.try_reserve(2).unwrap();
    ring.close();
    assert_eq!(reader.try_pop(), Err(ReadError::Empty)); // in flight
    span.copy_from_slice(&[4, 5]);
    drop(span); // the publish completes the close
    assert_eq!(reader.try_read(4).unwrap().to_array::<2>(), Some([4, 5]));
    assert_eq!(reader.try_pop(), Err(ReadError::Closed));
    assert_eq!(writer.try_reserve(1).unwrap_err(), ReserveError::Closed);
}

#[test]
fn close_with_two_writers_completes_at_once() {
    let mut memory = [0u32; 8];
    let mut words = words(8);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let b = a.clone();
    a.try_push(3).unwrap();
    ring.close();
    assert_eq!(reader.try_pop(), Ok(3));
    assert_eq!(reader.try_pop(), Err(ReadError::Closed)); // no writer needs to act
    drop((a, b));
}

/// The sole writer's partial publish gives the unpublished slots back to its cache (no skip
/// record, no hole): the next span starts right after the published items, and after a clone
/// the clone continues from there too (the cache stored the claim cursor at the publish).
#[test]
fn partial_publish_under_the_cache_leaves_no_hole() {
    let mut memory = [0u32; 8];
    let mut words = words(8);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut span = a.try_reserve(3).unwrap();
    span.copy_from_slice(&[1, 2, 3]);
    span.publish(1); // slots 1 and 2 go back
    a.try_push(2).unwrap();
    let mut b = a.clone();
    b.try_push(3).unwrap();
    drop(b);
    a.try_push(4).unwrap(); // alone again: the cache is taken afresh
    assert_eq!(reader.available(), 4, "no skipped slots in between");
    assert_eq!(
        reader.try_read(8).unwrap().to_array::<4>(),
        Some([1, 2, 3, 4])
    );
    assert_eq!(reader.cursor(), 4);
    drop(a);
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Closed);
}

/// A writer that takes the cache again after clones claimed meanwhile must not trust the free
/// count it kept from before: the others' claims used that space. Fails if taking the cache
/// does not reset the count: the writer would claim over the reader's unread items.
#[test]
fn a_writer_alone_again_does_not_trust_its_old_free_count() {
    let mut memory = [0u32; 4];
    let mut words = words(4);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    a.try_push(1).unwrap(); // alone: from the cache, 3 slots left in its count
    let mut b = a.clone();
    for x in [2, 3, 4] {
        b.try_push(x).unwrap(); // the CAS path: the ring is full now
    }
    drop(b);
    assert!(
        a.try_push(5).is_err(),
        "alone again, the writer claimed past the reader"
    );
    let got: Vec<u32> = reader.try_read_all().unwrap().iter().copied().collect();
    assert_eq!(got, [1, 2, 3, 4]);
}

/// The sole writer's one-item fast path publishes `start + 1` with no lap arithmetic, so its
/// free count must stop short of each lap's last slot (as a single-producer writer's does):
/// on a capacity that is not a power of two, `start + 1` at the last slot is an index in the
/// lap's unused gap. Pushes (fast and slow), spans that give their tail back, cursors that
/// wrap `usize`, and a 2-bit tag so that scrub laps come round; every item popped is checked
/// against the count sent. (Fails, or corrupts memory, if the count includes the last slot.)
#[test]
fn sole_writer_pushes_cross_the_lap_end_of_an_odd_capacity() {
    for capacity in [1usize, 2, 3, 5, 6, 7] {
        let mut memory = vec![0u64; capacity];
        let mut words = words(capacity);
        let start = usize::MAX - 2 * capacity; // the cursors wrap during the test
        let ring: Ring<_, _> =
            Ring::new_multi_with_tag_bits(SliceStorage::new(&mut memory), &mut words[..], start, 2)
                .unwrap();
        let mut r = ring.reader().unwrap();
        let mut w = ring.writer().unwrap();
        let (mut sent, mut got) = (0u64, 0u64);
        for round in 0..(8 * capacity as u64 + 3) {
            if capacity >= 2 && round % 3 == 0 {
                // A span of two that publishes one: the tail goes back to the cache.
                if let Ok(mut span) = w.try_reserve(2) {
                    span[0] = sent;
                    span.publish(1);
                    sent += 1;
                }
            }
            while w.try_push(sent).is_ok() {
                sent += 1;
            }
            assert_eq!(
                sent - got,
                capacity as u64,
                "capacity {capacity} round {round}"
            );
            for _ in 0..1 + round % capacity as u64 {
                assert_eq!(r.try_pop(), Ok(got), "capacity {capacity} round {round}");
                got += 1;
            }
        }
        while let Ok(x) = r.try_pop() {
            assert_eq!(x, got);
            got += 1;
        }
        assert_eq!(got, sent);
        drop(w);
        assert_eq!(r.try_pop(), Err(ReadError::Closed));
    }
}
