//! The threaded stress matrix, in GNU Radio's four variants: {single, multi} producer ×
//! {portable, double-mapped} memory, × P ∈ {1, 2, 4} producers (single-producer: 1) ×
//! C ∈ {1, 2, 4} broadcast readers × chunk ∈ {1, 7, 1024}, each from cursor 0 and from
//! `usize::MAX - k` (so every run crosses the `usize` wrap), and over a capacity that is not a
//! power of two. Default run: seconds. `SPANRING_SOAK=100000000` scales every row up.

mod common;

use spanring::std_ext::{DoubleMapped, HeapStorage, YieldWait};
use spanring::sync::AtomicUsize;
use spanring::{multi_words, MultiProducer, Reader, Ring, SingleProducer, Storage, Writer};

const PRODUCERS: [usize; 3] = [1, 2, 4];
const CONSUMERS: [usize; 3] = [1, 2, 4];
const CHUNKS: [usize; 3] = [1, 7, 1024];
/// Starts: 0, and just below the wrap so that every run crosses it.
const STARTS: [usize; 2] = [0, usize::MAX - 1500];

fn items(chunk: usize, producers: usize) -> u64 {
    let default = if chunk == 1 { 20_000 } else { 100_000 };
    common::items_per_producer(default, producers)
}

type SpRing<S> = Ring<S, SingleProducer, YieldWait, 4>;
type MpRing<'b, S> = Ring<S, MultiProducer<&'b mut [AtomicUsize]>, YieldWait, 4>;

fn single<S: Storage<Item = u64> + Sync>(make: impl Fn() -> S) {
    for start in STARTS {
        for consumers in CONSUMERS {
            for chunk in CHUNKS {
                let ring: SpRing<S> = Ring::builder(make())
                    .wait::<YieldWait>()
                    .start_at(start)
                    .build()
                    .unwrap();
                let readers: Vec<Reader<_>> =
                    (0..consumers).map(|_| ring.reader().unwrap()).collect();
                let writers: Vec<Writer<_>> = vec![ring.writer().unwrap()];
                common::run_with(&ring, writers, readers, items(chunk, 1), chunk, false);
            }
        }
    }
}

fn multi<S: Storage<Item = u64> + Sync>(make: impl Fn() -> S) {
    for start in STARTS {
        for producers in PRODUCERS {
            for consumers in CONSUMERS {
                for chunk in CHUNKS {
                    let storage = make();
                    let mut bits: Vec<AtomicUsize> = (0..multi_words(storage.capacity()))
                        .map(|_| AtomicUsize::new(0))
                        .collect();
                    let ring: MpRing<S> = Ring::builder(storage)
                        .wait::<YieldWait>()
                        .multi_producer(&mut bits[..])
                        .start_at(start)
                        .build()
                        .unwrap();
                    let readers: Vec<Reader<_>> =
                        (0..consumers).map(|_| ring.reader().unwrap()).collect();
                    // The first writer and clones of it.
                    let writers: Vec<Writer<_>> = vec![ring.writer().unwrap(); producers];
                    common::run_with(
                        &ring,
                        writers,
                        readers,
                        items(chunk, producers),
                        chunk,
                        false,
                    );
                }
            }
        }
    }
}

fn portable(capacity: usize) -> Vec<u64> {
    vec![common::UNWRITTEN; capacity]
}

fn mapped() -> DoubleMapped<u64> {
    let mut m = DoubleMapped::<u64>::new(4096).expect("double mapping");
    m.as_mut_slice().fill(common::UNWRITTEN);
    m
}

#[test]
fn single_producer_portable() {
    single(|| heap(4096));
}

#[test]
fn multi_producer_portable() {
    multi(|| heap(4096));
}

#[test]
fn single_producer_portable_odd_capacity() {
    single(|| heap(3000));
}

#[test]
fn multi_producer_portable_odd_capacity() {
    multi(|| heap(3000));
}

#[test]
#[cfg_attr(miri, ignore)] // mmap is not supported under Miri
fn single_producer_double_mapped() {
    single(mapped);
}

#[test]
#[cfg_attr(miri, ignore)]
fn multi_producer_double_mapped() {
    multi(mapped);
}

/// Owned portable slots (std-ext's heap storage), every slot `UNWRITTEN`.
fn heap(capacity: usize) -> HeapStorage<u64> {
    HeapStorage::new(portable(capacity)).expect("non-empty")
}

/// Producers publish only part of each span while others claim after them: on a
/// multi-producer ring the unpublished tails become holes (or are given back) and readers must
/// skip them, never see them, and never hang (the GNU Radio 4 partial-publish hang).
#[test]
fn multi_producer_partial_publish() {
    for producers in [1, 2, 4] {
        for chunk in [1, 7, 64] {
            let storage = heap(256);
            let mut bits: Vec<AtomicUsize> = (0..multi_words(storage.capacity()))
                .map(|_| AtomicUsize::new(0))
                .collect();
            let ring: MpRing<_> = Ring::builder(storage)
                .wait::<YieldWait>()
                .multi_producer(&mut bits[..])
                .start_at(usize::MAX - 100)
                .build()
                .unwrap();
            let readers: Vec<Reader<_>> = (0..2).map(|_| ring.reader().unwrap()).collect();
            let writers: Vec<Writer<_>> = vec![ring.writer().unwrap(); producers];
            common::run_with(
                &ring,
                writers,
                readers,
                items(chunk, producers) / 4,
                chunk,
                true,
            );
        }
    }
}

/// The same partial publication on a single-producer ring (the tail is simply reused).
#[test]
fn single_producer_partial_publish() {
    for chunk in [1, 7, 64] {
        let ring: SpRing<_> = Ring::builder(heap(256))
            .wait::<YieldWait>()
            .start_at(usize::MAX - 100)
            .build()
            .unwrap();
        let readers: Vec<Reader<_>> = (0..2).map(|_| ring.reader().unwrap()).collect();
        let writers: Vec<Writer<_>> = vec![ring.writer().unwrap()];
        common::run_with(&ring, writers, readers, items(chunk, 1) / 4, chunk, true);
    }
}
