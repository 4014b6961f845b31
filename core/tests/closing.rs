//! What `close` and zero-length calls do, on both claim kinds: a span claimed before the close
//! is delivered, readers see `Closed` only after it, claims after the close fail, and a read or
//! reserve of zero items never waits. Threaded close races are in `threaded_close` below (small
//! under Miri) and, model-checked, in `loom_close.rs`.

use spanring_core::sync::AtomicUsize;
use spanring_core::{
    multi_words, AttachError, MultiProducer, ReadError, ReserveError, Ring, SingleProducer,
    SliceStorage,
};

fn bits(cap: usize) -> Vec<AtomicUsize> {
    (0..multi_words(cap)).map(|_| AtomicUsize::new(0)).collect()
}

#[test]
fn sp_span_claimed_before_close_is_delivered() {
    let mut memory = [0u32; 8];
    let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    let mut span = writer.try_reserve(3).unwrap();
    ring.close();
    // The span is in flight: the reader must not conclude `Closed` yet.
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Empty);
    span.copy_from_slice(&[1, 2, 3]);
    drop(span);
    assert_eq!(reader.try_read(8).unwrap().to_array::<3>(), Some([1, 2, 3]));
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Closed);
    assert_eq!(writer.try_reserve(1).unwrap_err(), ReserveError::Closed);
}

#[test]
fn sp_close_with_idle_writer_ends_at_its_next_call_or_drop() {
    let mut memory = [0u32; 8];
    let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    writer.try_reserve(1).unwrap()[0] = 9;
    ring.close();
    assert_eq!(reader.try_read(8).unwrap().to_array::<1>(), Some([9]));
    // The writer has not seen the close yet: it might be about to publish.
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Empty);
    assert_eq!(writer.try_reserve(1).unwrap_err(), ReserveError::Closed);
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Closed);

    // Without a writer, a close takes effect at once.
    let mut memory = [0u32; 8];
    let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut reader = ring.reader().unwrap();
    ring.close();
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Closed);
}

#[test]
fn mp_span_claimed_before_close_is_delivered_later_claims_fail() {
    let mut memory = [0u32; 8];
    let mut b = bits(8);
    let ring: Ring<_, MultiProducer<_>> =
        Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b_writer = a.clone();
    let mut first = a.try_reserve(2).unwrap();
    ring.close();
    assert_eq!(b_writer.try_reserve(1).unwrap_err(), ReserveError::Closed);
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Empty);
    first.copy_from_slice(&[4, 5]);
    first.publish(1); // partial: the tail is given back
    assert_eq!(reader.try_read(8).unwrap().to_array::<1>(), Some([4]));
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Closed);
}

#[test]
fn mp_partial_publish_behind_a_later_claim_across_close() {
    let mut memory = [0u32; 8];
    let mut b = bits(8);
    let ring: Ring<_, MultiProducer<_>> =
        Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b_writer = a.clone();
    let mut first = a.try_reserve(3).unwrap();
    let mut second = b_writer.try_reserve(1).unwrap();
    ring.close();
    second[0] = 8;
    drop(second);
    first[0] = 7;
    first.publish(1); // a later claim exists: the tail becomes skipped slots
    let got: Vec<u32> = reader.try_read(8).unwrap().iter().copied().collect();
    assert_eq!(got, [7]);
    assert_eq!(reader.try_read(8).unwrap().to_array::<1>(), Some([8]));
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Closed);
}

#[test]
fn zero_length_reads_never_wait() {
    let mut memory = [0u32; 4];
    let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    // Empty ring: an empty span at once from every form (BusySpin would spin for ever).
    assert_eq!(reader.try_read(0).unwrap().len(), 0);
    assert_eq!(reader.read(0).unwrap().len(), 0);
    assert_eq!(reader.read_exact(0).unwrap().len(), 0);
    writer.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
    // Items published: still an empty span, and nothing is consumed.
    assert_eq!(reader.read(0).unwrap().len(), 0);
    assert_eq!(reader.read_exact(0).unwrap().len(), 0);
    assert_eq!(reader.try_read(0).unwrap().len(), 0);
    assert_eq!(writer.reserve(0).unwrap().len(), 0);
    assert_eq!(writer.try_reserve(0).unwrap().len(), 0);
    drop(writer); // closes
                  // Closed but not drained: still Ok(empty).
    assert_eq!(reader.read(0).unwrap().len(), 0);
    assert_eq!(reader.read(8).unwrap().to_array::<2>(), Some([1, 2]));
    // Drained: `Closed`, for every form.
    assert_eq!(reader.read(0).unwrap_err(), ReadError::Closed);
    assert_eq!(reader.try_read(0).unwrap_err(), ReadError::Closed);
    assert_eq!(reader.read_exact(0).unwrap_err(), ReadError::Closed);
}

#[test]
fn zero_length_reserve_on_closed_ring_is_closed() {
    let mut memory = [0u32; 4];
    let mut b = bits(4);
    let ring: Ring<_, MultiProducer<_>> =
        Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let mut writer = ring.writer().unwrap();
    assert_eq!(writer.reserve(0).unwrap().len(), 0);
    ring.close();
    assert_eq!(writer.reserve(0).unwrap_err(), ReserveError::Closed);
    assert_eq!(writer.try_reserve(0).unwrap_err(), ReserveError::Closed);
}

/// Threads: 3 multi-producer writers reserve spans of 1–3 slots (publishing all, a prefix,
/// or nothing) while the main thread closes after a while; a reader reads until `Closed`.
/// Every item of every span whose reservation returned `Ok` arrives, nothing else.
#[test]
fn threaded_close_loses_nothing() {
    const ROUNDS: usize = if cfg!(miri) { 3 } else { 200 };
    const CAP: usize = 16;
    for round in 0..ROUNDS {
        let mut memory = [0u64; CAP];
        let mut b = bits(CAP);
        let ring: Ring<_, MultiProducer<_>> =
            Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
        let mut reader = ring.reader().unwrap();
        let spare = ring.writer().unwrap(); // only the explicit close ends the stream
        let writers: Vec<_> = (0..3).map(|_| spare.clone()).collect();
        let (sent, got) = std::thread::scope(|s| {
            let handles: Vec<_> = writers
                .into_iter()
                .enumerate()
                .map(|(id, mut w)| {
                    s.spawn(move || {
                        let mut sent = 0u64;
                        for i in 0u64.. {
                            let n = 1 + (i as usize + id) % 3;
                            match w.try_reserve(n) {
                                Ok(mut span) => {
                                    let k = (i as usize) % (n + 1); // 0..=n published
                                    for slot in span.iter_mut() {
                                        *slot = 1;
                                    }
                                    span.publish(k);
                                    sent += k as u64;
                                }
                                Err(ReserveError::Full { .. }) => std::thread::yield_now(),
                                Err(ReserveError::Closed) => return sent,
                                Err(e) => panic!("{e}"),
                            }
                        }
                        unreachable!()
                    })
                })
                .collect();
            let consumer = s.spawn(move || {
                let mut got = 0u64;
                loop {
                    match reader.try_read(CAP) {
                        Ok(span) => got += span.iter().sum::<u64>(),
                        Err(ReadError::Empty) => std::thread::yield_now(),
                        Err(ReadError::Closed) => return got,
                        Err(e) => panic!("{e}"),
                    }
                }
            });
            for _ in 0..(round % 7) * 50 {
                std::thread::yield_now(); // varies when the close lands; not for ordering
            }
            ring.close();
            let sent: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
            (sent, consumer.join().unwrap())
        });
        drop(spare);
        assert_eq!(got, sent, "round {round}: published items lost or invented");
    }
}

/// A closed ring refuses new writers at attach (closing is final: every claim would fail),
/// on both claim kinds, whether `close` or the last writer's drop closed it; readers still
/// attach and drain what was published.
#[test]
fn a_closed_ring_refuses_writers_and_still_takes_readers() {
    let mut memory = [0u32; 4];
    let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    ring.close();
    assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    assert_eq!(ring.reader().unwrap().try_pop(), Err(ReadError::Closed));

    let mut memory = [0u32; 4];
    let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    drop(ring.writer().unwrap()); // the one writer, gone: closed, and `Closed` says so
    assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);

    let mut memory = [0u32; 4];
    let mut words = bits(4);
    let ring: Ring<_, MultiProducer<_>> =
        Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut w = ring.writer().unwrap();
    w.try_push(7).unwrap();
    drop(w); // the last writer: closes the ring
    assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    // A refused attach leaves nothing behind: refused again, the ring still closed.
    assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    assert!(ring.is_closed());

    let mut memory = [0u32; 4];
    let mut words = bits(4);
    let ring: Ring<_, MultiProducer<_>> =
        Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut early = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_push(7).unwrap();
    drop(w);
    assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    assert_eq!(early.try_pop(), Ok(7));
    assert_eq!(early.try_pop(), Err(ReadError::Closed));
}
