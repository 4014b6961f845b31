//! `reserve_async` / `read_async` on the tiny executors of `async_support`: everything on one
//! thread (any lost wake-up stalls the executor, which then fails the test), `block_on`
//! across threads, the errors the futures resolve to, and the full-registry fallback.

mod async_support;

use std::time::Duration;

use async_support::{block_on, consume, produce, LocalExecutor};
use spanring::sync::AtomicUsize;
use spanring::{
    AsyncWait, InlineStorage, MultiProducer, ReadError, ReserveError, Ring, SingleProducer, Writer,
};

type SpRing<const C: usize> = Ring<InlineStorage<u64, 4>, SingleProducer, AsyncWait<C>, 4>;
type MpRing<const C: usize> =
    Ring<InlineStorage<u64, 8>, MultiProducer<[AtomicUsize; 8]>, AsyncWait<C>, 4>;

fn sp_ring<const C: usize>() -> SpRing<C> {
    Ring::builder(InlineStorage::new([0; 4]))
        .wait::<AsyncWait<C>>()
        .build()
        .unwrap()
}

fn mp_ring<const C: usize>() -> MpRing<C> {
    Ring::builder(InlineStorage::new([0; 8]))
        .wait::<AsyncWait<C>>()
        .multi_producer(Default::default())
        .build()
        .unwrap()
}

/// One producer task, two reader tasks, one thread, a 4-slot ring: every task waits on the
/// others many times, so a lost wake-up stalls the executor (and fails the test).
#[test]
fn single_thread_one_producer_two_readers() {
    const ITEMS: u64 = 2_000;
    let ring = sp_ring::<8>();
    let mut writer = ring.writer().unwrap();
    let mut readers = [ring.reader().unwrap(), ring.reader().unwrap()];
    let mut seen = [0u64; 2];
    let mut exec = LocalExecutor::new();
    let [r0, r1] = &mut readers;
    let [s0, s1] = &mut seen;
    exec.spawn(async { *s0 = consume(r0, 1, ITEMS, 2).await });
    exec.spawn(async { *s1 = consume(r1, 1, ITEMS, 3).await });
    exec.spawn(async move {
        produce(&mut writer, 0, ITEMS, 3).await;
        drop(writer); // closes the ring
    });
    let stats = exec.run(Duration::ZERO);
    assert_eq!(seen, [ITEMS, ITEMS]);
    assert!(
        stats.pending > 100,
        "the tasks should have waited: {stats:?}"
    );
    assert_eq!(ring.space_wait().registered(), 0);
    assert_eq!(ring.data_wait().registered(), 0);
}

/// Three producer tasks and two readers on a multi-producer ring whose registries have only
/// two cells: waiters beyond two fall back to waking themselves, and nothing is lost.
#[test]
fn single_thread_multi_producer_with_too_few_cells() {
    const ITEMS: u64 = 1_000;
    let ring = mp_ring::<2>();
    let mut readers = [ring.reader().unwrap(), ring.reader().unwrap()];
    let w0 = ring.writer().unwrap();
    let writers: Vec<_> = vec![w0.clone(), w0.clone(), w0];
    let mut seen = [0u64; 2];
    let mut exec = LocalExecutor::new();
    let [r0, r1] = &mut readers;
    let [s0, s1] = &mut seen;
    exec.spawn(async { *s0 = consume(r0, 3, ITEMS, 5).await });
    exec.spawn(async { *s1 = consume(r1, 3, ITEMS, 1).await });
    for (id, mut w) in writers.into_iter().enumerate() {
        exec.spawn(async move {
            produce(&mut w, id, ITEMS, 1 + id).await;
        });
    }
    exec.run(Duration::ZERO);
    assert_eq!(seen, [3 * ITEMS, 3 * ITEMS]);
    assert_eq!(ring.space_wait().registered(), 0);
    assert_eq!(ring.data_wait().registered(), 0);
    assert_eq!(ring.data_wait().occupied_cells(), 0);
}

/// A reader thread awaits through `block_on` (a parking waker) while a writer thread uses the
/// blocking API, which spins on an `AsyncWait` ring.
#[test]
fn block_on_across_threads() {
    const ITEMS: u64 = 20_000;
    let ring = sp_ring::<2>();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    std::thread::scope(|s| {
        let consumer = s.spawn(move || block_on(consume(&mut reader, 1, ITEMS, 3)));
        s.spawn(move || {
            for counter in 0..ITEMS {
                writer
                    .reserve(1)
                    .unwrap()
                    .fill(async_support::tag(0, counter));
            }
        });
        assert_eq!(consumer.join().unwrap(), ITEMS);
    });
    // And the other direction: an awaiting writer, a blocking reader.
    let ring = sp_ring::<2>();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    std::thread::scope(|s| {
        s.spawn(move || block_on(produce(&mut writer, 0, ITEMS, 3)));
        let mut next = 0;
        loop {
            let r = reader.read(4).map(|items| {
                for &item in items.iter() {
                    assert_eq!(item, async_support::tag(0, next));
                    next += 1;
                }
            });
            match r {
                Ok(()) => {}
                Err(ReadError::Closed) => break,
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(next, ITEMS);
    });
}

#[test]
fn futures_resolve_to_errors() {
    let ring = sp_ring::<2>();
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    assert!(matches!(
        block_on(writer.reserve_async(5)),
        Err(ReserveError::TooLarge {
            requested: 5,
            capacity: 4
        })
    ));
    assert!(matches!(
        block_on(reader.read_exact_async(5)),
        Err(ReadError::TooLarge {
            requested: 5,
            capacity: 4
        })
    ));
    block_on(writer.reserve_async(3))
        .unwrap()
        .copy_from_slice(&[1, 2, 3]);
    // Exactly 3 present: read_exact_async(2) gets 2, read_async gets the last.
    assert_eq!(
        block_on(reader.read_exact_async(2))
            .unwrap()
            .to_array::<2>(),
        Some([1, 2])
    );
    ring.close();
    assert!(matches!(
        block_on(writer.reserve_async(1)),
        Err(ReserveError::Closed)
    ));
    // Closed: read_exact_async returns what is left, then Closed.
    assert_eq!(
        block_on(reader.read_exact_async(4))
            .unwrap()
            .to_array::<1>(),
        Some([3])
    );
    assert!(matches!(
        block_on(reader.read_async(4)),
        Err(ReadError::Closed)
    ));
}

/// A reader that awaits on an empty ring is woken by `close` (not left waiting).
#[test]
fn close_wakes_pending_readers_and_writers() {
    let ring = sp_ring::<4>();
    let mut reader = ring.reader().unwrap();
    let mut full_reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    let mut exec = LocalExecutor::new();
    let mut got = None;
    let mut reserved = None;
    let got_ref = &mut got;
    let reserved_ref = &mut reserved;
    let writer_ref: &mut Writer<_> = &mut writer;
    let ring_ref = &ring;
    exec.spawn(async move {
        *got_ref = Some(reader.read_async(8).await.map(|s| s.len()));
    });
    exec.spawn(async move {
        writer_ref.reserve_async(4).await.unwrap().fill(9);
        // The ring is full now (full_reader never reads): this reservation waits.
        *reserved_ref = Some(writer_ref.reserve_async(1).await.map(|s| s.len()));
    });
    exec.spawn(async move {
        async_support::yield_now().await;
        async_support::yield_now().await;
        ring_ref.close();
    });
    exec.run(Duration::ZERO);
    // The reader saw the 4 items published before close.
    assert_eq!(got, Some(Ok(4)));
    assert_eq!(reserved, Some(Err(ReserveError::Closed)));
    assert_eq!(full_reader.try_read(8).unwrap().len(), 4);
    assert_eq!(ring.space_wait().registered(), 0);
    assert_eq!(ring.data_wait().registered(), 0);
}
