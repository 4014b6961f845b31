//! Owned buffers in every variant ({single, multi} producer × {portable, double-mapped}): handles
//! moved into `std::thread::spawn` threads, subscribing while running, closing both ways, and
//! the timeouts of the blocking calls. Blocked-writer wake-ups on close are in `closing.rs`.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use spanring_core::{AttachError, ClaimMode, ReadError, ReserveError, Storage};
use spanring_std::owned::{self, OwnedMultiProducer};
use spanring_std::{BlockingWait, OwnedReader, OwnedWriter};

const ITEMS: u64 = if cfg!(miri) { 300 } else { 50_000 };
/// A watchdog: a test waiting longer than this for a thread has failed (it would otherwise hang).
const LIMIT: Duration = Duration::from_secs(20);

/// Joins `handle`, failing (not hanging) if it does not finish within [`LIMIT`].
fn join_within<T: Send + 'static>(handle: thread::JoinHandle<T>) -> T {
    let (done_tx, done_rx) = mpsc::channel();
    let watcher = thread::spawn(move || done_tx.send(handle.join()));
    let result = done_rx
        .recv_timeout(LIMIT)
        .expect("watchdog: thread still running after 20 s");
    watcher.join().unwrap().ok();
    result.expect("thread panicked")
}

/// The writer handle of variant `V`.
type W<V> = OwnedWriter<<V as Variant>::S, <V as Variant>::P>;
/// The handles `V::build` returns.
type Handles<V> = (W<V>, OwnedReader<<V as Variant>::S, <V as Variant>::P>);

/// The handles a variant builds, and how it splits its writer into `n` writers.
trait Variant {
    type S: Storage<Item = u64> + Send + Sync + 'static;
    type P: ClaimMode + Send + Sync + 'static;
    fn build(cap: usize) -> Handles<Self>;
    /// `n` writers for a multi-producer variant, 1 for a single-producer one.
    fn writers(w: W<Self>, n: usize) -> Vec<W<Self>>;
}

struct SinglePortable;
struct MultiPortable;
struct SingleMapped;
struct MultiMapped;

impl Variant for SinglePortable {
    type S = spanring_std::HeapStorage<u64>;
    type P = spanring_core::SingleProducer;
    fn build(cap: usize) -> Handles<Self> {
        owned::portable(cap).build().unwrap()
    }
    fn writers(w: W<Self>, _: usize) -> Vec<W<Self>> {
        vec![w]
    }
}

impl Variant for MultiPortable {
    type S = spanring_std::HeapStorage<u64>;
    type P = OwnedMultiProducer;
    fn build(cap: usize) -> Handles<Self> {
        owned::portable(cap).multi_producer().build().unwrap()
    }
    fn writers(w: W<Self>, n: usize) -> Vec<W<Self>> {
        let mut all: Vec<_> = (1..n).map(|_| w.clone()).collect();
        all.push(w);
        all
    }
}

impl Variant for SingleMapped {
    type S = spanring_std::DoubleMapped<u64>;
    type P = spanring_core::SingleProducer;
    fn build(cap: usize) -> Handles<Self> {
        owned::mapped(cap).build().unwrap()
    }
    fn writers(w: W<Self>, _: usize) -> Vec<W<Self>> {
        vec![w]
    }
}

impl Variant for MultiMapped {
    type S = spanring_std::DoubleMapped<u64>;
    type P = OwnedMultiProducer;
    fn build(cap: usize) -> Handles<Self> {
        owned::mapped(cap).multi_producer().build().unwrap()
    }
    fn writers(w: W<Self>, n: usize) -> Vec<W<Self>> {
        let mut all: Vec<_> = (1..n).map(|_| w.clone()).collect();
        all.push(w);
        all
    }
}

/// Writers (one per producer, `ITEMS` each, tagged `id << 40 | counter`) and three readers,
/// all in `thread::spawn` threads; every reader checks it got every item once, in per-writer
/// order, then `Closed` after the writers are gone.
fn spawned_threads<V: Variant>() {
    let (w, r) = V::build(64);
    let readers = vec![r.subscribe().unwrap(), r.subscribe().unwrap(), r];
    let writers = V::writers(w, 3);
    let producers = writers.len();
    let reader_threads: Vec<_> = readers
        .into_iter()
        .map(|mut r| {
            thread::spawn(move || {
                let mut next = vec![0u64; producers];
                loop {
                    let span = match r.read(7) {
                        Ok(span) => span,
                        Err(ReadError::Closed) => return next,
                        Err(e) => panic!("read: {e}"),
                    };
                    for &item in span.iter() {
                        let (id, n) = ((item >> 40) as usize, item & ((1 << 40) - 1));
                        assert_eq!(n, next[id], "writer {id}: lost or reordered item");
                        next[id] += 1;
                    }
                }
            })
        })
        .collect();
    let writer_threads: Vec<_> = writers
        .into_iter()
        .enumerate()
        .map(|(id, mut w)| {
            thread::spawn(move || {
                let mut n = 0u64;
                while n < ITEMS {
                    let k = 5.min(ITEMS - n) as usize;
                    let mut span = w.reserve(k).unwrap();
                    for slot in span.iter_mut() {
                        *slot = (id as u64) << 40 | n;
                        n += 1;
                    }
                }
                // `w` drops here; the last one closes the ring.
            })
        })
        .collect();
    for t in writer_threads {
        join_within(t);
    }
    for t in reader_threads {
        assert_eq!(join_within(t), vec![ITEMS; producers]);
    }
}

/// Readers drain what is left after the last writer is gone, then see `Closed` for good.
fn writers_gone_readers_drain<V: Variant>() {
    let (w, mut r) = V::build(16);
    let mut writers = V::writers(w, 2);
    let producers = writers.len();
    let mut late = r.subscribe().unwrap();
    for (i, w) in writers.iter_mut().enumerate() {
        w.try_reserve(2).unwrap().fill(i as u64);
    }
    let last = writers.pop().unwrap();
    drop(writers);
    assert!(!r.ring().is_closed(), "a writer is still alive");
    drop(last);
    assert!(r.ring().is_closed());
    for reader in [&mut r, &mut late] {
        let mut got = Vec::new();
        loop {
            match reader.try_read(16) {
                Ok(span) => got.extend(span.iter().copied()),
                Err(e) => {
                    assert_eq!(e, ReadError::Closed);
                    break;
                }
            }
        }
        assert_eq!(got.len(), 2 * producers);
        assert_eq!(reader.read(1).unwrap_err(), ReadError::Closed);
    }
}

/// All reader handles gone: writers get `Closed` (and subscribing handles kept it open).
fn readers_gone_writers_closed<V: Variant>() {
    let (w, r) = V::build(16);
    let mut writers = V::writers(w, 2);
    let second = r.subscribe().unwrap();
    assert_eq!(r.handle_count(), 2);
    drop(r);
    assert_eq!(second.handle_count(), 1);
    assert!(
        writers[0].try_reserve(1).is_ok(),
        "one reader handle is left"
    );
    drop(second);
    for w in &mut writers {
        assert_eq!(w.try_reserve(1).unwrap_err(), ReserveError::Closed);
        assert_eq!(w.reserve(1).unwrap_err(), ReserveError::Closed);
    }
}

/// A reader subscribed while running sees only what is published after it attached; the
/// registry bound is a typed error, and a freed slot can be reused.
fn subscribe_while_running<V: Variant>() {
    let (w, mut r) = V::build(16);
    let mut w = V::writers(w, 1).pop().unwrap();
    w.try_reserve(3).unwrap().fill(1);
    let mut late = r.subscribe().unwrap();
    w.try_reserve(2).unwrap().fill(2);
    assert_eq!(
        r.try_read(16).unwrap().iter().copied().collect::<Vec<_>>(),
        [1, 1, 1, 2, 2]
    );
    assert_eq!(
        late.try_read(16)
            .unwrap()
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        [2, 2]
    );
    let third = late.subscribe().unwrap();
    let fourth = third.subscribe().unwrap();
    assert_eq!(
        fourth.subscribe().unwrap_err(),
        AttachError::TooManyReaders { max: 4 }
    );
    assert_eq!(r.handle_count(), 4, "a failed subscribe does not count");
    drop(third);
    let again = fourth.subscribe().unwrap();
    assert_eq!(again.handle_count(), 4);
}

/// `reserve_timeout` on a full ring and `read_timeout` on an empty one give up with `TimedOut`.
fn timeouts<V: Variant>() {
    let (w, mut r) = V::build(8);
    let mut w = V::writers(w, 1).pop().unwrap();
    let cap = w.ring().capacity();
    let short = Duration::from_millis(20);
    assert_eq!(r.read_timeout(1, short).unwrap_err(), ReadError::TimedOut);
    w.try_reserve(cap).unwrap().fill(9);
    assert_eq!(
        w.reserve_timeout(1, short).unwrap_err(),
        ReserveError::TimedOut
    );
    assert_eq!(r.read_timeout(cap, short).unwrap().len(), cap);
    assert_eq!(w.reserve_timeout(cap, short).unwrap().len(), cap);
}

/// The handles are `'static + Send`: a compile-time check that they fit `thread::spawn`.
fn assert_spawnable<T: Send + 'static>() {}

macro_rules! every_variant {
    ($($variant:ident => $module:ident),* $(,)?) => {$(
        mod $module {
            use super::*;
            #[test]
            fn spawned_threads() {
                super::spawned_threads::<$variant>();
            }
            #[test]
            fn writers_gone_readers_drain() {
                super::writers_gone_readers_drain::<$variant>();
            }
            #[test]
            fn readers_gone_writers_closed() {
                super::readers_gone_writers_closed::<$variant>();
            }
            #[test]
            fn subscribe_while_running() {
                super::subscribe_while_running::<$variant>();
            }
            #[test]
            fn timeouts() {
                super::timeouts::<$variant>();
            }
            #[test]
            fn handles_are_spawnable() {
                type S = <$variant as Variant>::S;
                type P = <$variant as Variant>::P;
                assert_spawnable::<OwnedWriter<S, P, BlockingWait, 4>>();
                assert_spawnable::<OwnedReader<S, P, BlockingWait, 4>>();
            }
        }
    )*};
}

every_variant! {
    SinglePortable => single_portable,
    MultiPortable => multi_portable,
    SingleMapped => single_mapped,
    MultiMapped => multi_mapped,
}

#[test]
fn zero_capacity_is_a_typed_error() {
    use spanring_core::CapacityError;
    use spanring_std::owned::BuildError;
    assert_eq!(
        owned::portable::<u64>(0).build().unwrap_err(),
        BuildError::Capacity(CapacityError::Zero)
    );
    assert!(matches!(
        owned::mapped::<u64>(0)
            .multi_producer()
            .build()
            .unwrap_err(),
        BuildError::Map(_)
    ));
    assert!(matches!(
        owned::portable::<u64>(4)
            .readers::<0>()
            .build()
            .unwrap_err(),
        BuildError::Attach(AttachError::TooManyReaders { max: 0 })
    ));
}
