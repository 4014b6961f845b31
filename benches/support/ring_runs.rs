//! One bm_Buffer repetition on a spanring ring: P producer threads reserve/publish `chunk`
//! slots at a time, C reader threads each read every item, `chunk` at most at a time.
//!
//! Two modes:
//! - `Touch::None` (bm_Buffer's loop): reserve + publish, read + consume, the data is never
//!   touched, so chunk-1024 rows measure the cursor protocol once per 1024 samples;
//! - `Touch::Verify`: each producer writes `producer << 48 | counter` into every slot, each
//!   reader checks that every producer's counters arrive complete and in order.
//!
//! A parked watchdog thread closes the ring if a repetition exceeds its deadline (busy-spinning
//! on an oversubscribed machine can take that long); the repetition is then marked timed out
//! and its rate counts only what arrived.

use std::sync::atomic::{AtomicBool, Ordering as StdOrdering};
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use spanring::wait::Pacing;
use spanring::{
    ClaimMode, MultiProducer, ReadError, Reader, Ring, SingleProducer, Storage, WaitStrategy,
    Writer,
};

use super::check::{item, Checker};
use super::stats::Rep;

/// Whether the loop writes and checks the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// bm_Buffer: reserve/publish and read/consume only.
    None,
    /// Write a counter per slot, check it on every reader.
    Verify,
    /// `copy_from_slice` a chunk into each span, `copy_to_slice` it out on every reader: the
    /// ring doing the job of a plain copy, for the copy-baseline comparison.
    Copy,
}

/// The shape of one row.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    /// Producer threads.
    pub producers: usize,
    /// Reader threads (each reads every item).
    pub consumers: usize,
    /// Slots per reservation / most slots per read.
    pub chunk: usize,
    /// Minimum samples per repetition (rounded up so every producer writes whole chunks).
    pub samples: usize,
    /// Data access mode.
    pub touch: Touch,
    /// Readers take everything published at each read (as the disruptor's batch handlers do)
    /// instead of at most `chunk` items.
    pub batch_reads: bool,
    /// At chunk 1 with items checked, readers call `pop` in a loop instead of iterating the
    /// reader (`for x in reader`, the form the item rows use).
    pub pop_loop: bool,
    /// The readers' [`Pacing`], if not their default ([`Pacing::for_items`]): orientation rows
    /// only.
    pub pacing: Option<Pacing>,
    /// A repetition longer than this is cut short.
    pub deadline: Duration,
}

impl Scenario {
    /// Items each producer writes: `samples / P`, rounded up to whole chunks.
    pub fn per_producer(&self) -> usize {
        self.samples
            .div_ceil(self.producers * self.chunk)
            .saturating_mul(self.chunk)
    }

    /// Items every reader receives in a full repetition.
    pub fn total(&self) -> usize {
        self.per_producer() * self.producers
    }
}

/// The bm_Buffer ring size: `max(4096, chunk) × consumers × 10` slots.
pub fn gr4_capacity(chunk: usize, consumers: usize) -> usize {
    chunk.max(4096) * consumers * 10
}

/// How a repetition gets more than one writer: a multi-producer ring hands out only its first
/// writer through `Writer::attach`, the others are clones of it; a single-producer ring has
/// no other.
pub trait MoreWriters: ClaimMode + Sized {
    /// Another writer of `first`'s ring, if this claim mode has one.
    fn another<'r, S: Storage, W: WaitStrategy>(
        first: &Writer<&'r Ring<S, Self, W, 4>>,
    ) -> Option<Writer<&'r Ring<S, Self, W, 4>>>;
}

impl MoreWriters for SingleProducer {
    fn another<'r, S: Storage, W: WaitStrategy>(
        _: &Writer<&'r Ring<S, Self, W, 4>>,
    ) -> Option<Writer<&'r Ring<S, Self, W, 4>>> {
        None
    }
}

impl<B: spanring::parts::RecordWords> MoreWriters for MultiProducer<B> {
    fn another<'r, S: Storage, W: WaitStrategy>(
        first: &Writer<&'r Ring<S, Self, W, 4>>,
    ) -> Option<Writer<&'r Ring<S, Self, W, 4>>> {
        Some(first.clone())
    }
}

/// Runs one repetition on the ring `make()` builds (built before the clock starts).
pub fn run_rep<S, P, W>(make: &dyn Fn() -> Ring<S, P, W, 4>, sc: &Scenario) -> Rep
where
    S: Storage<Item = u64>,
    P: MoreWriters,
    W: WaitStrategy,
    Ring<S, P, W, 4>: Sync,
{
    let ring = make();
    // The clock is read by the workers themselves (first start to last finish): a main thread
    // that the scheduler delays after the start barrier must not shorten the measured time.
    let start = Barrier::new(sc.producers + sc.consumers);
    let done = AtomicBool::new(false);
    let timed_out = AtomicBool::new(false);
    // Attach everyone before any thread runs: readers must see item 0, and every writer must
    // exist before one drops (the last drop closes the ring). More writers are clones of the
    // first (the ring hands out only that one).
    let mut writers = vec![Writer::attach(&ring).expect("writer")];
    for _ in 1..sc.producers {
        let another = P::another(&writers[0]).expect("a single-producer ring has one writer");
        writers.push(another);
    }
    let readers: Vec<_> = (0..sc.consumers)
        .map(|_| Reader::attach(&ring).expect("reader"))
        .collect();
    let (start, done, timed_out, ring_ref) = (&start, &done, &timed_out, &ring);
    let (elapsed, received) = thread::scope(|s| {
        let writer_threads: Vec<_> = writers
            .into_iter()
            .enumerate()
            .map(|(p, w)| {
                s.spawn(move || {
                    super::pin::pin(p);
                    start.wait();
                    let t0 = Instant::now();
                    produce(w, p, sc);
                    (t0, Instant::now())
                })
            })
            .collect();
        let reader_threads: Vec<_> = readers
            .into_iter()
            .enumerate()
            .map(|(c, r)| {
                s.spawn(move || {
                    super::pin::pin(sc.producers + c);
                    start.wait();
                    let t0 = Instant::now();
                    let got = consume(r, sc);
                    (t0, Instant::now(), got)
                })
            })
            .collect();
        let watchdog = s.spawn(move || {
            let deadline = Instant::now() + sc.deadline;
            while !done.load(StdOrdering::Acquire) {
                let now = Instant::now();
                if now >= deadline {
                    timed_out.store(true, StdOrdering::Relaxed);
                    ring_ref.close();
                    return;
                }
                thread::park_timeout(deadline - now);
            }
        });
        let mut spans: Vec<(Instant, Instant)> = writer_threads
            .into_iter()
            .map(|t| t.join().expect("writer thread"))
            .collect();
        let mut received = Vec::new();
        for t in reader_threads {
            let (t0, t1, got) = t.join().expect("reader thread");
            spans.push((t0, t1));
            received.push(got);
        }
        done.store(true, StdOrdering::Release);
        watchdog.thread().unpark();
        let first = spans.iter().map(|s| s.0).min().expect("threads");
        let last = spans.iter().map(|s| s.1).max().expect("threads");
        (last - first, received)
    });
    let timed_out = timed_out.load(StdOrdering::Relaxed);
    let least = received.iter().copied().min().unwrap_or(0);
    if !timed_out {
        assert!(
            received.iter().all(|&n| n == sc.total()),
            "readers got {received:?}, expected {} each",
            sc.total()
        );
    }
    Rep {
        samples: least as u64,
        elapsed,
        timed_out,
    }
}

fn produce<S, P, W>(mut w: Writer<&Ring<S, P, W, 4>>, producer: usize, sc: &Scenario)
where
    S: Storage<Item = u64>,
    P: ClaimMode,
    W: WaitStrategy,
{
    let src: Vec<u64> = (0..sc.chunk as u64).collect();
    let mut seq = 0u64;
    let mut left = sc.per_producer();
    if sc.chunk == 1 && sc.touch == Touch::Verify {
        // One item at a time through the one-item call users write (`push`), as the peers'
        // rows use theirs.
        // The handle moved into a local of its own first, which no span ever borrows (the
        // chunk > 1 loop below does): see `local_handle` in peers.rs.
        let mut w = w;
        for seq in 0..left as u64 {
            if w.push(item(producer, seq)).is_err() {
                return; // closed by the watchdog
            }
        }
        return;
    }
    while left > 0 {
        let Ok(mut span) = w.reserve(sc.chunk) else {
            return; // closed by the watchdog
        };
        if sc.touch == Touch::Verify {
            for slot in &mut span {
                *slot = item(producer, seq);
                seq += 1;
            }
        } else if sc.touch == Touch::Copy {
            span.copy_from_slice(&src);
        }
        drop(span); // publishes all `chunk` slots
        left -= sc.chunk;
    }
}

/// Reads until the full total arrived (or the ring closed early); returns the count.
fn consume<S, P, W>(mut r: Reader<&Ring<S, P, W, 4>>, sc: &Scenario) -> usize
where
    S: Storage<Item = u64>,
    P: ClaimMode,
    W: WaitStrategy,
{
    if let Some(pacing) = sc.pacing {
        r.set_pacing(pacing);
    }
    let total = sc.total();
    let mut got = 0;
    let mut check = Checker::default();
    let mut dst = vec![0u64; if sc.batch_reads { 0 } else { sc.chunk }];
    if sc.chunk == 1 && sc.touch == Touch::Verify && !sc.batch_reads {
        // One item at a time, as the peers' rows do.
        if sc.pop_loop {
            while got < total {
                match r.pop() {
                    Ok(x) => check.check(x),
                    Err(ReadError::Closed) => break,
                    Err(e) => panic!("pop failed: {e}"),
                }
                got += 1;
            }
        } else {
            // The reader as an iterator: one `pop` per item until the ring closes (the writers
            // close it when done), the fastest one-item loop (core/src/reader_iter.rs).
            for x in r {
                check.check(x);
                got += 1;
            }
            check.assert_good("verify");
            return got;
        }
    }
    while got < total {
        match r.read(if sc.batch_reads { usize::MAX } else { sc.chunk }) {
            Ok(span) => {
                if sc.touch == Touch::Verify {
                    let (a, b) = span.as_slices();
                    check.check_slice(a);
                    check.check_slice(b);
                }
                if sc.touch == Touch::Copy {
                    std::hint::black_box(span.copy_to_slice(&mut dst));
                }
                got += span.len();
            }
            Err(ReadError::Closed) => break,
            Err(e) => panic!("read failed: {e}"),
        }
    }
    check.assert_good("verify");
    got
}
