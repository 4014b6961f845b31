//! No lost wake-ups through the ring itself: producers and consumers on a tiny ring (4 slots)
//! with `BlockingWait`, so both sides keep blocking and waking each other. Every blocking
//! `reserve`/`read` that found the ring full/empty goes through the wait strategy; a wrapper
//! counts those waits, and each variant runs until it has waited `WAITS` times (≥ 10^5 over the
//! four variants). A lost wake-up leaves a thread parked for ever: the watchdog in the main
//! thread fails the test when no item moves for 20 s, instead of hanging.
//!
//! Variants: {single, multi} producer × {portable, double-mapped}. Double-mapped memory is
//! whole pages, so its items are 4 KiB each to keep the ring at 4 slots (more on systems with
//! larger pages, at most 16 with 64 KiB pages).

use std::thread;
use std::time::{Duration, Instant};

use spanring::std_ext::owned::{self, Buffer, OwnedClaimMode, OwnedStorage, OwnedWriter};
use spanring::std_ext::BlockingWait;
use spanring::{ReadError, WaitStrategy};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Waits per variant (four variants: ≥ 10^5 in total).
const WAITS: usize = if cfg!(miri) { 100 } else { 30_000 };
/// Items per producer at most (the run normally stops on `WAITS` long before).
const MAX_ITEMS: u64 = 5_000_000;
const STALL_LIMIT: Duration = Duration::from_secs(20);

/// Blocking waits per variant (both sides), by variant id.
static WAITED: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];

/// [`BlockingWait`] counting the waits that go through it in `WAITED[ID]`.
#[derive(Default)]
struct Counted<const ID: usize>(BlockingWait);

impl<const ID: usize> WaitStrategy for Counted<ID> {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        // Relaxed: a statistic and a stop signal; no data is published through it.
        WAITED[ID].fetch_add(1, Ordering::Relaxed);
        self.0.wait_until(ready);
    }
    fn notify_all(&self) {
        self.0.notify_all();
    }
}

/// An item that carries a tag (`producer << 40 | counter`).
trait Tagged: Copy + Send + Sync + 'static {
    fn set(&mut self, tag: u64);
    fn tag(&self) -> u64;
}

impl Tagged for u64 {
    fn set(&mut self, tag: u64) {
        *self = tag;
    }
    fn tag(&self) -> u64 {
        *self
    }
}

/// One page of 64-bit words: a 4-slot double-mapped ring.
impl Tagged for [u64; 512] {
    fn set(&mut self, tag: u64) {
        self[0] = tag;
        self[511] = !tag;
    }
    fn tag(&self) -> u64 {
        assert_eq!(self[511], !self[0], "torn item");
        self[0]
    }
}

/// Runs producers (the writers `split` makes of the first one) and two consumers until
/// `WAITS` blocking waits happened, checking every item.
fn ping_pong<const ID: usize, S, P>(
    buffer: Buffer<S, P, Counted<ID>>,
    split: impl FnOnce(OwnedWriter<S, P, Counted<ID>>) -> Vec<OwnedWriter<S, P, Counted<ID>>>,
) where
    S: OwnedStorage + Send + Sync + 'static,
    S::Item: Tagged,
    P: OwnedClaimMode + Send + Sync + 'static,
{
    let (writer, reader) = buffer.build().expect("build");
    assert!((4..=16).contains(&writer.ring().capacity()));
    let writers = split(writer);
    let producers = writers.len();
    let progress = std::sync::Arc::new(AtomicU64::new(0));
    let consumers: Vec<_> = [reader.subscribe().unwrap(), reader]
        .into_iter()
        .map(|mut reader| {
            let progress = progress.clone();
            thread::spawn(move || {
                let mut next = vec![0u64; producers];
                loop {
                    let span = match reader.read(2) {
                        Ok(span) => span,
                        Err(ReadError::Closed) => return next,
                        Err(e) => panic!("read: {e}"),
                    };
                    for item in span.iter() {
                        let tag = item.tag();
                        let (p, n) = ((tag >> 40) as usize, tag & ((1 << 40) - 1));
                        assert_eq!(n, next[p], "producer {p}: lost or reordered item");
                        next[p] += 1;
                    }
                    // Relaxed: progress for the watchdog only.
                    progress.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let producer_threads: Vec<_> = writers
        .into_iter()
        .enumerate()
        .map(|(p, mut w)| {
            thread::spawn(move || {
                let mut n = 0u64;
                // Relaxed: a stop signal; the items are ordered by the ring.
                while WAITED[ID].load(Ordering::Relaxed) < WAITS && n < MAX_ITEMS {
                    let mut span = w.reserve(1).expect("reserve");
                    span.iter_mut()
                        .for_each(|slot| slot.set((p as u64) << 40 | n));
                    n += 1;
                }
                n
            })
        })
        .collect();

    // Watchdog: a stall of STALL_LIMIT fails the test instead of hanging it.
    let mut last = (u64::MAX, Instant::now());
    while !(producer_threads.iter().all(|t| t.is_finished())
        && consumers.iter().all(|t| t.is_finished()))
    {
        thread::sleep(Duration::from_millis(10));
        // Relaxed: see the consumers.
        let now = progress.load(Ordering::Relaxed);
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > STALL_LIMIT {
            panic!(
                "no item moved for {STALL_LIMIT:?} after {} waits: lost wake-up",
                WAITED[ID].load(Ordering::Relaxed)
            );
        }
    }
    let written: Vec<u64> = producer_threads
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    for c in consumers {
        assert_eq!(c.join().unwrap(), written, "a consumer missed items");
    }
    let waited = WAITED[ID].load(Ordering::Relaxed);
    assert!(
        waited >= WAITS,
        "only {waited} blocking waits; the test did not block enough"
    );
}

#[test]
fn single_producer_portable() {
    ping_pong(owned::portable::<u64>(4).wait::<Counted<0>>(), |w| vec![w]);
}

#[test]
fn multi_producer_portable() {
    let buffer = owned::portable::<u64>(4).multi_producer();
    ping_pong(buffer.wait::<Counted<1>>(), |w| vec![w.clone(), w]);
}

#[test]
fn single_producer_mapped() {
    ping_pong(owned::mapped::<[u64; 512]>(4).wait::<Counted<2>>(), |w| {
        vec![w]
    });
}

#[test]
fn multi_producer_mapped() {
    let buffer = owned::mapped::<[u64; 512]>(4).multi_producer();
    ping_pong(buffer.wait::<Counted<3>>(), |w| vec![w.clone(), w]);
}
