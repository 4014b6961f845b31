//! The single-producer writer keeps its next cursor privately (it never loads back the
//! published cursor readers poll): every way a span ends must leave that cursor exactly at
//! the published one, or the next claim overlaps or leaves a gap.

use spanring_core::{Ring, SliceStorage};

#[test]
fn next_claim_starts_where_the_last_publish_ended() {
    let mut memory = [0u32; 8];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .start_at(usize::MAX - 5) // the cursors wrap during the test
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut expect = Vec::new();
    let mut next = 1u32;
    // Full publish, partial publish, publish of nothing, a dropped (fully published) span
    // and a one-item push, over several laps.
    for round in 0..20 {
        let published = ring.published();
        let mut span = w.try_reserve(3).unwrap();
        assert_eq!(
            span.start(),
            published,
            "round {round}: claim not at the published cursor"
        );
        span.copy_from_slice(&[next, next + 1, next + 2]);
        let keep = round % 4; // 0..=3 of the 3 slots (3 = all)
        span.publish(keep);
        expect.extend(next..next + keep.min(3) as u32);
        next += 3;
        w.try_push(next).unwrap();
        expect.push(next);
        next += 1;
        let mut got = Vec::new();
        while let Ok(span) = r.try_read_all() {
            got.extend(span.iter().copied());
        }
        assert_eq!(got, expect, "round {round}");
        expect.clear();
    }
}

#[test]
fn a_forgotten_span_publishes_nothing_and_its_slots_are_claimed_again() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let span = w.try_reserve(2).unwrap();
    let start = span.start();
    core::mem::forget(span);
    let mut span = w.try_reserve(2).unwrap();
    assert_eq!(span.start(), start);
    span.copy_from_slice(&[7, 8]);
    drop(span);
    assert_eq!(r.try_read_all().unwrap().to_array::<2>(), Some([7, 8]));
}

#[test]
fn the_writer_never_passes_a_reader_that_has_not_read() {
    let mut memory = [0u32; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    for lap in 0..3u32 {
        for i in 0..4 {
            w.try_push(lap * 10 + i).unwrap();
        }
        // Full: the fast path's free count must have gone down with every publish.
        assert!(
            w.try_push(99).is_err(),
            "lap {lap}: a fifth item fit in 4 slots"
        );
        assert!(
            w.try_reserve(1).is_err(),
            "lap {lap}: a reservation past the reader"
        );
        let got: Vec<u32> = r.try_read_all().unwrap().iter().copied().collect();
        assert_eq!(got, [lap * 10, lap * 10 + 1, lap * 10 + 2, lap * 10 + 3]);
    }
}

/// The one-item fast paths step a cursor by `+ 1` and leave the lap's last slot to the slow
/// path (a push's claim, a pop's span); on a ring whose capacity is not a power of two the
/// cursor must skip the lap's unused indices there. Every cursor the writer publishes is
/// checked against the reader's own count of steps, and every item popped against the count
/// sent, across laps and across `usize` wrap. (Mutations that take the last slot on either
/// fast path fail here.)
#[test]
fn one_item_calls_cross_the_lap_end_of_an_odd_capacity() {
    for capacity in [1usize, 3, 5, 6, 7] {
        let mut memory = vec![0u64; capacity];
        let ring = Ring::builder(SliceStorage::new(&mut memory))
            .start_at(usize::MAX - 2 * capacity) // the cursors wrap during the test
            .build()
            .unwrap();
        let mut r = ring.reader().unwrap();
        let mut w = ring.writer().unwrap();
        let mut sent = 0u64;
        let mut got = 0u64;
        for round in 0..(4 * capacity as u64 + 3) {
            // Fill to full with pushes (fast and slow claims), then drain some: the writer
            // meets the lap's end at every offset.
            while w.try_push(sent).is_ok() {
                sent += 1;
                assert_eq!(ring.published(), w_published(&ring, &r, sent - got));
            }
            assert_eq!(sent - got, capacity as u64, "round {round}: not full");
            let take = 1 + round % capacity as u64;
            for _ in 0..take {
                assert_eq!(r.try_pop(), Ok(got), "capacity {capacity} round {round}");
                got += 1;
            }
        }
        while let Ok(x) = r.try_pop() {
            assert_eq!(x, got);
            got += 1;
        }
        assert_eq!(got, sent);
        assert_eq!(r.cursor(), ring.published());
    }
}

/// The cursor `ahead` publications past the reader's cursor, stepped one at a time.
fn w_published<S, P, W, const N: usize>(
    ring: &Ring<S, P, W, N>,
    r: &spanring_core::Reader<&Ring<S, P, W, N>>,
    ahead: u64,
) -> usize
where
    S: spanring_core::Storage,
    P: spanring_core::ClaimMode,
    W: spanring_core::WaitStrategy,
{
    let mut c = r.cursor();
    for _ in 0..ahead {
        c = ring.layout().advance(c, 1);
    }
    c
}
