//! `ReadSpan::as_mut_slices` on a ring with one reader slot: the reader may change or take
//! out the published items it has not consumed yet, including across the end of plain
//! memory and with items written by other threads.

use std::sync::Arc;
use std::thread;

use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, BusySpin, MultiProducer, Ring, SingleProducer, SliceStorage};

type Single<'m, T> = Ring<SliceStorage<'m, T>, SingleProducer, BusySpin, 1>;

#[test]
fn mut_span_crossing_the_end_comes_as_two_slices_and_changes_stay() {
    let mut memory: [Option<Arc<u32>>; 4] = Default::default();
    let ring: Single<'_, Option<Arc<u32>>> = Ring::builder(SliceStorage::new(&mut memory))
        .readers::<1>()
        .build()
        .unwrap();
    let mut w = ring.writer().unwrap();
    let mut r = ring.reader().unwrap();
    let probe = Arc::new(0u32);

    // Move the cursors to 3, so the next 3-item span covers slots 3, 0, 1.
    w.try_reserve(3).unwrap().fill(None);
    r.try_read(3).unwrap().consume(3);

    let mut span = w.try_reserve(3).unwrap();
    for (i, slot) in span.iter_mut().enumerate() {
        *slot = Some(Arc::new(i as u32));
    }
    span[1] = Some(Arc::clone(&probe));
    drop(span);

    let mut span = r.try_read(3).unwrap();
    let (first, second) = span.as_mut_slices();
    assert_eq!((first.len(), second.len()), (1, 2));
    assert_eq!(first[0].as_deref(), Some(&0));
    // Taking the item out of its slot hands it to the reader: dropping it releases the probe
    // now, not when a writer reuses the slot.
    assert_eq!(Arc::strong_count(&probe), 2);
    drop(second[0].take());
    assert_eq!(Arc::strong_count(&probe), 1);
    second[1] = Some(Arc::new(20));
    span.consume(2);

    // The unconsumed item is shown again, as changed.
    let again = r.try_read(3).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].as_deref(), Some(&20));
}

#[test]
fn the_only_reader_takes_items_written_by_other_threads() {
    const WRITERS: usize = 2;
    const PER_WRITER: usize = 500;
    const CAPACITY: usize = 8;
    let mut memory: [Option<String>; CAPACITY] = Default::default();
    let mut bits: Vec<AtomicUsize> = (0..multi_words(CAPACITY))
        .map(|_| AtomicUsize::new(0))
        .collect();
    let ring: Ring<_, MultiProducer<&mut [AtomicUsize]>, BusySpin, 1> =
        Ring::builder(SliceStorage::new(&mut memory))
            .readers::<1>()
            .multi_producer(&mut bits[..])
            .build()
            .unwrap();
    let mut reader = ring.reader().unwrap();

    let mut taken: Vec<String> = Vec::new();
    let writers = vec![ring.writer().unwrap(); WRITERS]; // the first writer and clones
    thread::scope(|s| {
        for (w, mut writer) in writers.into_iter().enumerate() {
            s.spawn(move || {
                for i in 0..PER_WRITER {
                    writer.reserve(1).unwrap()[0] = Some(format!("{w}:{i}"));
                }
            });
        }
        while taken.len() < WRITERS * PER_WRITER {
            let mut span = reader.read(CAPACITY).unwrap();
            for item in span.iter_mut() {
                taken.push(item.take().expect("each published item is taken once"));
            }
        }
    });

    // Every item arrived once, in order per writer.
    for w in 0..WRITERS {
        let mine: Vec<usize> = taken
            .iter()
            .filter_map(|s| s.strip_prefix(&format!("{w}:")))
            .map(|i| i.parse().unwrap())
            .collect();
        assert_eq!(mine, (0..PER_WRITER).collect::<Vec<_>>());
    }
    // The reader took every value out: no slot holds one any more.
    drop(reader); // ends the ring's borrow of `memory`
    assert!(memory.iter().all(Option::is_none));
}
