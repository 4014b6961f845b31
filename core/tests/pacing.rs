//! A paced reader (`Reader::set_pacing`) returns exactly what an unpaced one returns: pacing
//! only waits before a second look, and never loses or reorders what the first look found.

use spanring_core::sync::AtomicUsize;
use spanring_core::wait::Pacing;
use spanring_core::{ReadError, Ring, SliceStorage};

mod support;

use support::{Yield, ITEMS};

const PACINGS: [Pacing; 5] = [
    Pacing::OFF,
    Pacing::for_items::<u32>(),
    Pacing::new(2, 1),
    Pacing::new(16, 32),
    Pacing::new(u32::MAX, 4),
];

/// One thread, capacity 5, several laps: each blocking form returns the same items in the
/// same order under every pacing, and the end of the stream still ends it.
#[test]
fn every_blocking_form_returns_the_same_items_paced() {
    for pace in PACINGS {
        let mut memory = [0u32; 5];
        let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
        let mut r = ring.reader().unwrap();
        r.set_pacing(pace);
        let mut w = ring.writer().unwrap();
        let mut next = 0;
        let mut expect = 0;
        for round in 0..6 {
            for _ in 0..3 {
                w.try_push(next).unwrap();
                next += 1;
            }
            match round % 3 {
                0 => {
                    for _ in 0..3 {
                        assert_eq!(r.pop(), Ok(expect), "{pace:?}");
                        expect += 1;
                    }
                }
                1 => {
                    let span = r.read(8).unwrap();
                    let got: Vec<u32> = span.iter().copied().collect();
                    assert_eq!(got, (expect..expect + 3).collect::<Vec<_>>(), "{pace:?}");
                    expect += 3;
                }
                _ => {
                    let got: Vec<u32> = r.read_exact(3).unwrap().iter().copied().collect();
                    assert_eq!(got, (expect..expect + 3).collect::<Vec<_>>(), "{pace:?}");
                    expect += 3;
                }
            }
        }
        w.try_push(next).unwrap();
        drop(w);
        assert_eq!(r.pop(), Ok(next), "{pace:?}");
        assert_eq!(r.pop(), Err(ReadError::Closed), "{pace:?}");
        assert_eq!(r.pacing(), pace);
    }
}

/// A writer thread and a paced reader thread (`for x in reader`, the loop pacing is for), on
/// both claim kinds: every item once, in order.
#[test]
fn a_paced_reader_keeps_up_with_a_writer_thread() {
    for pace in PACINGS {
        let mut memory = [0u32; 64];
        let ring = Ring::builder(SliceStorage::new(&mut memory))
            .wait::<Yield>()
            .build()
            .unwrap();
        let mut r = ring.reader().unwrap();
        r.set_pacing(pace);
        let mut w = ring.writer().unwrap();
        std::thread::scope(|s| {
            s.spawn(move || {
                for x in 0..ITEMS {
                    w.push(x).unwrap();
                }
            });
            let got: Vec<u32> = r.into_iter().collect();
            assert_eq!(got, (0..ITEMS).collect::<Vec<_>>(), "{pace:?}");
        });

        let mut memory = [0u32; 64];
        let mut words: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
        let ring = Ring::builder(SliceStorage::new(&mut memory))
            .wait::<Yield>()
            .multi_producer(&mut words[..])
            .build()
            .unwrap();
        let mut r = ring.reader().unwrap();
        r.set_pacing(pace);
        let mut a = ring.writer().unwrap();
        let mut b = a.clone();
        std::thread::scope(|s| {
            s.spawn(move || {
                for x in 0..ITEMS {
                    a.push(x).unwrap();
                }
            });
            s.spawn(move || {
                for x in 0..ITEMS {
                    b.push(ITEMS + x).unwrap();
                }
            });
            // Each writer's items in its own order.
            let (mut na, mut nb) = (0, ITEMS);
            for x in r {
                if x < ITEMS {
                    assert_eq!(x, na, "{pace:?}");
                    na += 1;
                } else {
                    assert_eq!(x, nb, "{pace:?}");
                    nb += 1;
                }
            }
            assert_eq!((na, nb), (ITEMS, 2 * ITEMS), "{pace:?}");
        });
    }
}

/// A reader starts with the pacing for its item size, on every kind of ring: fewer than two
/// cache lines' worth of items, and never for items of more than 64 bytes.
#[test]
fn a_reader_starts_with_the_pacing_for_its_item_size() {
    let mut bytes = [0u8; 8];
    let ring = Ring::new(SliceStorage::new(&mut bytes)).unwrap();
    assert_eq!(
        ring.reader().unwrap().pacing(),
        Pacing::new(128, Pacing::DEFAULT_SPINS)
    );

    let mut words: Vec<AtomicUsize> = (0..8).map(|_| AtomicUsize::new(0)).collect();
    let mut longs = [0u64; 8];
    let ring = Ring::builder(SliceStorage::new(&mut longs))
        .multi_producer(&mut words[..])
        .build()
        .unwrap();
    assert_eq!(ring.reader().unwrap().pacing(), Pacing::new(16, 4));

    let mut big = [[0u8; 65]; 2];
    let ring = Ring::new(SliceStorage::new(&mut big)).unwrap();
    let pacing = ring.reader().unwrap().pacing();
    assert!((1..=2).all(|known| !pacing.applies(known)), "{pacing:?}");
}
