//! Small threaded runs of both claim kinds, sized so that Miri (which checks every access for
//! data races and undefined behaviour) finishes them in seconds. The big matrix lives in the
//! facade's `tests/stress.rs`.

use core::ops::Deref;

use spanring_core::sync::AtomicUsize;
use spanring_core::{
    multi_words, ClaimMode, MultiProducer, ReadError, Reader, Ring, SliceStorage, Storage, Writer,
};

mod support;

use support::{Yield, ITEMS};

/// Reads until the ring closes; every producer's items arrive once each, in order.
fn read_all<R, S, P>(reader: &mut Reader<R>, producers: usize)
where
    R: Deref<Target = Ring<S, P, Yield, 4>>,
    S: Storage<Item = u32>,
    P: ClaimMode,
{
    let mut next = vec![0u32; producers];
    loop {
        match reader.read(7) {
            Ok(span) => {
                for &item in span.iter() {
                    let (p, n) = ((item >> 24) as usize, item & 0xFF_FFFF);
                    assert_eq!(n, next[p], "producer {p}: lost, repeated or reordered item");
                    next[p] += 1;
                }
            }
            Err(ReadError::Closed) => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(next.iter().all(|&n| n == ITEMS), "{next:?}");
}

fn write_all<R, S, P>(writer: &mut Writer<R>, id: u32, chunk: usize)
where
    R: Deref<Target = Ring<S, P, Yield, 4>>,
    S: Storage<Item = u32>,
    P: ClaimMode,
{
    let mut n = 0;
    while n < ITEMS {
        let k = chunk.min((ITEMS - n) as usize);
        let mut span = writer.reserve(k).unwrap();
        for slot in span.iter_mut() {
            *slot = id << 24 | n;
            n += 1;
        }
    }
}

#[test]
fn single_producer_two_readers() {
    let mut memory = vec![0u32; 16];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<Yield>()
        .start_at(usize::MAX - 20)
        .build()
        .unwrap();
    let readers: Vec<_> = (0..2).map(|_| ring.reader().unwrap()).collect();
    let mut writer = ring.writer().unwrap();
    std::thread::scope(|s| {
        for mut r in readers {
            s.spawn(move || read_all(&mut r, 1));
        }
        s.spawn(move || write_all(&mut writer, 0, 5));
    });
}

#[test]
fn multi_producer_two_writers_two_readers() {
    let mut memory = vec![0u32; 12];
    let mut bits: Vec<AtomicUsize> = (0..multi_words(12)).map(|_| AtomicUsize::new(0)).collect();
    let ring: Ring<_, MultiProducer<_>, Yield, 4> = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<Yield>()
        .multi_producer(&mut bits[..])
        .start_at(usize::MAX - 20)
        .build()
        .unwrap();
    let readers: Vec<_> = (0..2).map(|_| ring.reader().unwrap()).collect();
    let writers = vec![ring.writer().unwrap(); 2]; // the first writer and a clone
    std::thread::scope(|s| {
        for mut r in readers {
            s.spawn(move || read_all(&mut r, 2));
        }
        for (id, mut w) in writers.into_iter().enumerate() {
            s.spawn(move || write_all(&mut w, id as u32, 3));
        }
    });
}

/// A writer waiting on a full single-producer ring watches the reader that holds it full
/// (`Writer::claim_waiting_in`): it must go on when that reader consumes, when it detaches
/// (another reader, further ahead, then sets the room), and when the last reader goes (no
/// reader: all room). Each case ends with the items in order where a reader is left.
#[test]
fn a_writer_waiting_on_a_full_ring_goes_on_when_the_holding_reader_moves_or_leaves() {
    for case in 0..3 {
        let mut memory = [0u32; 4];
        let ring = Ring::builder(SliceStorage::new(&mut memory))
            .wait::<Yield>()
            .build()
            .unwrap();
        let mut slow = ring.reader().unwrap();
        let mut w = ring.writer().unwrap();
        for x in 0..2 {
            w.try_push(x).unwrap();
        }
        // Ahead of `slow` by two items, not holding the ring full.
        let mut ahead = ring.reader().unwrap();
        for x in 2..4 {
            w.try_push(x).unwrap();
        }
        assert_eq!((ahead.try_pop(), ahead.try_pop()), (Ok(2), Ok(3)));
        std::thread::scope(|s| {
            let pusher = s.spawn(move || {
                // Full for `slow`: waits until it moves or leaves.
                w.push(4).unwrap();
                w.push(5).unwrap();
            });
            match case {
                0 => {
                    // Consumes: room for the two pushes.
                    assert_eq!((slow.pop(), slow.pop()), (Ok(0), Ok(1)));
                    pusher.join().unwrap();
                    let rest: Vec<u32> = (0..4).map(|_| slow.pop().unwrap()).collect();
                    assert_eq!(rest, [2, 3, 4, 5]);
                }
                1 => {
                    drop(slow); // `ahead` now sets the room: 4 free
                    pusher.join().unwrap();
                    assert_eq!((ahead.pop(), ahead.pop()), (Ok(4), Ok(5)));
                }
                _ => {
                    drop(slow);
                    drop(ahead); // no reader: all room
                    pusher.join().unwrap();
                }
            }
        });
    }
}
