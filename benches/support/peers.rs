//! The same scenarios on peer crates (each pinned at its newest release in Cargo.toml), where
//! the peer can express them, plus a single-thread `copy_from_slice` baseline. Every peer waits
//! the way spanring's rows do (spin 64 times, then `yield_now`, via spanring's own `YieldWait`
//! around the peer's `try_` call), except `std::sync::mpsc`'s blocking `send`.
//!
//! **Every chunk-1 row writes and checks its items** (`check.rs`: producer `p` writes
//! `p << 48 | counter`, every reader checks each producer's counters arrive complete and in
//! order), and is compared with spanring's `verify` rows, which do the same.
//!
//! `local_handle`: **every worker moves its handle into a local first** (`let mut tx = tx;`),
//! spanring's one-item writer (`ring_runs.rs`) as the peers' handles. A handle that arrives as
//! a closure capture or a by-value argument lives behind a pointer the compiler cannot prove
//! private to the thread, so a loop of one-item calls stores and reloads the handle's cached
//! cursors every item, across the ring's own `Release` store; a local that no call ever gets
//! the address of stays in registers. Every loop here, ours and the peers', takes its handle
//! into such a local, so no side pays per-item stores and loads that the other does not.
//!
//! What each peer can express:
//! - `rtrb` 0.4 (SPSC): 1P→1C; chunk 1 = `push`/`pop`; `rtrb (batch reads)` = `push` +
//!   `read_chunk(slots())`; chunk 1024 = `write_chunk`/`read_chunk` + `commit_all` (data
//!   untouched, like bm_Buffer, compared with the `buffer` table).
//! - `ringbuf` 0.6 (SPSC): 1P→1C chunk 1 = `try_push`/`try_pop`.
//! - `crossbeam-queue` 0.3 `ArrayQueue` and `crossbeam-channel` 0.5 `bounded` (MPMC):
//!   consumers *share* items, so only C = 1 rows are broadcast-equivalent; chunk 1 only.
//! - `disruptor` 4 (broadcast, multi-producer): every P×C row; each handler (one thread,
//!   managed by the crate) sees every event and takes every available event per wake-up
//!   (batching); chunk 1024 = `try_batch_publish(1024)`, untouched. `disruptor` uses the
//!   single-producer builder for P = 1, `disruptor MP` always the multi-producer one. The crate
//!   ships only busy-spin wait strategies; we give its handlers ours (`YieldStrategy`).
//! - `std::sync::mpsc::sync_channel` (P→1): chunk 1.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use spanring::std_ext::YieldWait;
use spanring::WaitStrategy;

use super::check::{item, Checker};
use super::ring_runs::Scenario;
use super::stats::Rep;

/// Checks `ready` once, then waits like spanring's default rows.
#[inline]
fn wait(mut ready: impl FnMut() -> bool) {
    if !ready() {
        YieldWait::new().wait_until(&mut ready);
    }
}

/// As [`wait`] for a read: retries `attempt` until it gives an item and returns it, so the
/// reader checks the item outside the retry closure. Checked inside it (as these rows once
/// did), the checker is captured by the closure that the wait takes by pointer,
/// so its state goes through memory every item: a cost our own rows, whose readers check
/// outside any closure, never paid. Found by `benches/harness.rs`: rtrb's one-item row, one
/// core, 318 → 360 M/s once its check moved out.
#[inline]
fn wait_get<T>(mut attempt: impl FnMut() -> Option<T>) -> T {
    if let Some(x) = attempt() {
        return x;
    }
    let mut got = None;
    wait(|| {
        got = attempt();
        got.is_some()
    });
    got.expect("the wait returns once `attempt` gave an item")
}

/// As [`wait`], under the disruptor rows' policy: [`YieldStrategy::AT_ONCE`] yields at every
/// failed check (`YieldWait::with_spins(0)`), so a producer waits as the handlers do.
#[inline]
fn wait_as(policy: YieldStrategy, mut ready: impl FnMut() -> bool) {
    if !ready() {
        let spins = if policy.at_once {
            0
        } else {
            YieldWait::new().spins
        };
        YieldWait::with_spins(spins).wait_until(&mut ready);
    }
}

/// Starts `workers` closures behind a barrier; returns the time from the first start to the
/// last finish, read by the workers themselves (a delayed main thread cannot skew it).
fn timed<F>(workers: Vec<F>) -> Duration
where
    F: FnOnce() + Send,
{
    let start = Barrier::new(workers.len());
    let start = &start;
    let spans: Vec<(Instant, Instant)> = thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                s.spawn(move || {
                    super::pin::pin(i);
                    start.wait();
                    let t0 = Instant::now();
                    f();
                    (t0, Instant::now())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let first = spans.iter().map(|s| s.0).min().expect("workers");
    let last = spans.iter().map(|s| s.1).max().expect("workers");
    last - first
}

fn rep(sc: &Scenario, elapsed: Duration) -> Rep {
    Rep {
        samples: sc.total() as u64,
        elapsed,
        timed_out: false,
    }
}

/// rtrb, 1P→1C. Chunk 1: `push`/`pop`, every item written and checked. Chunk > 1:
/// `write_chunk`/`read_chunk` + `commit_all`, data untouched (like the `buffer` table).
pub fn rtrb(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.producers, sc.consumers), (1, 1));
    let (tx, rx) = rtrb::RingBuffer::<u64>::new(cap);
    let (n, chunk) = (sc.total(), sc.chunk);
    let elapsed = timed(vec![
        Box::new(move || {
            let mut tx = tx; // a local of the loop's function (see `local_handle`)
            let mut i = 0;
            while i < n {
                if chunk == 1 {
                    let x = item(0, i as u64);
                    wait(|| tx.push(x).is_ok());
                } else {
                    wait(|| match tx.write_chunk(chunk) {
                        Ok(c) => {
                            c.commit_all();
                            true
                        }
                        Err(_) => false,
                    });
                }
                i += chunk;
            }
        }) as Box<dyn FnOnce() + Send>,
        Box::new(move || {
            let mut rx = rx; // a local of the loop's function (see `local_handle`)
            let mut got = 0;
            let mut check = Checker::default();
            while got < n {
                if chunk == 1 {
                    check.check(wait_get(|| rx.pop().ok()));
                } else {
                    wait(|| match rx.read_chunk(chunk) {
                        Ok(c) => {
                            c.commit_all();
                            true
                        }
                        Err(_) => false,
                    });
                }
                got += chunk;
            }
            if chunk == 1 {
                check.assert_complete("rtrb", n);
            }
        }),
    ]);
    rep(sc, elapsed)
}

/// rtrb, 1P→1C, the writer pushes one item at a time, the reader takes every available item
/// per `read_chunk(slots())` (batch reads); every item checked.
pub fn rtrb_batch(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.producers, sc.consumers, sc.chunk), (1, 1, 1));
    let (tx, rx) = rtrb::RingBuffer::<u64>::new(cap);
    let n = sc.total();
    let elapsed = timed(vec![
        Box::new(move || {
            let mut tx = tx; // a local of the loop's function (see `local_handle`)
            for i in 0..n as u64 {
                let x = item(0, i);
                wait(|| tx.push(x).is_ok());
            }
        }) as Box<dyn FnOnce() + Send>,
        Box::new(move || {
            let mut rx = rx; // a local of the loop's function (see `local_handle`)
            let mut check = Checker::default();
            while (check.got as usize) < n {
                let k = wait_get(|| Some(rx.slots()).filter(|&k| k > 0));
                let c = rx.read_chunk(k).expect("slots() items are readable");
                // Each half as a slice, as spanring's batch rows check theirs: rtrb's fastest
                // walk over a chunk (a `chain` tests which half it is in on every item).
                let (a, b) = c.as_slices();
                check.check_slice(a);
                check.check_slice(b);
                c.commit_all();
            }
            check.assert_complete("rtrb batch", n);
        }),
    ]);
    rep(sc, elapsed)
}

/// ringbuf (`HeapRb`), 1P→1C, chunk 1: `try_push`/`try_pop`, every item checked.
pub fn ringbuf(sc: &Scenario, cap: usize) -> Rep {
    use ringbuf::traits::{Consumer, Producer, Split};
    assert_eq!((sc.producers, sc.consumers, sc.chunk), (1, 1, 1));
    let (tx, rx) = ringbuf::HeapRb::<u64>::new(cap).split();
    let n = sc.total();
    let elapsed = timed(vec![
        Box::new(move || {
            let mut tx = tx; // a local of the loop's function (see `local_handle`)
            for i in 0..n as u64 {
                let x = item(0, i);
                wait(|| tx.try_push(x).is_ok());
            }
        }) as Box<dyn FnOnce() + Send>,
        Box::new(move || {
            let mut rx = rx; // a local of the loop's function (see `local_handle`)
            let mut check = Checker::default();
            for _ in 0..n {
                check.check(wait_get(|| rx.try_pop()));
            }
            check.assert_complete("ringbuf", n);
        }),
    ]);
    rep(sc, elapsed)
}

/// P producer workers running `push(p, seq)` for their items and one consumer running
/// `pop()` until everything arrived, checked (the shape of every P→1 queue below).
fn p_to_1<Push, Pop>(sc: &Scenario, what: &str, push: Push, mut pop: Pop) -> Rep
where
    Push: Fn(usize, u64) + Sync,
    Pop: FnMut() -> Option<u64> + Send,
{
    let (per, total) = (sc.per_producer(), sc.total());
    let push = &push;
    let mut workers: Vec<Box<dyn FnOnce() + Send + '_>> = Vec::new();
    for p in 0..sc.producers {
        workers.push(Box::new(move || {
            for i in 0..per as u64 {
                push(p, i);
            }
        }));
    }
    workers.push(Box::new(move || {
        let mut check = Checker::default();
        for _ in 0..total {
            check.check(wait_get(&mut pop));
        }
        check.assert_complete(what, total);
    }));
    rep(sc, timed(workers))
}

/// crossbeam-queue `ArrayQueue`, P→1C, chunk 1 (`push`/`pop`), every item checked.
pub fn array_queue(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.consumers, sc.chunk), (1, 1));
    let q = crossbeam_queue::ArrayQueue::<u64>::new(cap);
    let q = &q;
    p_to_1(
        sc,
        "ArrayQueue",
        |p, i| {
            let x = item(p, i);
            wait(|| q.push(x).is_ok());
        },
        || q.pop(),
    )
}

/// crossbeam-channel `bounded(cap)`, P→1C, chunk 1 (`try_send`/`try_recv`), every item
/// checked.
pub fn crossbeam_channel(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.consumers, sc.chunk), (1, 1));
    let (tx, rx) = crossbeam_channel::bounded::<u64>(cap);
    let tx = &tx;
    p_to_1(
        sc,
        "crossbeam-channel",
        |p, i| {
            let x = item(p, i);
            wait(|| tx.try_send(x).is_ok());
        },
        move || rx.try_recv().ok(),
    )
}

/// `std::sync::mpsc::sync_channel(cap)`, P→1C, chunk 1 (blocking `send`, `try_recv` with
/// the common wait), every item checked.
pub fn mpsc(sc: &Scenario, cap: usize) -> Rep {
    assert_eq!((sc.consumers, sc.chunk), (1, 1));
    let (tx, rx) = std::sync::mpsc::sync_channel::<u64>(cap);
    let tx = &tx;
    p_to_1(
        sc,
        "mpsc",
        move |p, i| tx.send(item(p, i)).expect("receiver alive"),
        move || rx.try_recv().ok(),
    )
}

/// Our rows' waiting (`YieldWait::new()`: 64 checks with a spin hint, then a yield between
/// checks) for the disruptor crate's handlers, which call `wait_for` once per failed check of
/// the sequence they wait for (the crate itself ships only busy-spin strategies). A wait is
/// the run of calls for one sequence: the first 64 spin, the rest yield. The count lives in
/// the handler thread's own state, touched only while it waits, so the per-event loop pays
/// nothing for it.
///
/// Yielding at every failed check while our readers spin 64 times first would be a different
/// policy, which favours whoever yields where threads outnumber cores (the broadcast rows
/// pinned apart). [`YieldStrategy::AT_ONCE`] keeps that policy for
/// the orientation rows that run both sides with it (ours with `YieldWait::with_spins(0)`).
#[derive(Clone, Copy)]
pub struct YieldStrategy {
    /// Yield at every failed check, with no spins first.
    at_once: bool,
}

impl YieldStrategy {
    /// 64 spins, then yields: `YieldWait::new()`, the policy of every other row.
    pub const SPIN_THEN_YIELD: Self = Self { at_once: false };
    /// A yield at every failed check: `YieldWait::with_spins(0)`.
    pub const AT_ONCE: Self = Self { at_once: true };
}

thread_local! {
    /// The sequence this handler thread waits for, and how many checks of it failed so far.
    static DISRUPTOR_WAIT: std::cell::Cell<(disruptor::Sequence, u32)> =
        const { std::cell::Cell::new((disruptor::Sequence::MIN, 0)) };
}

impl disruptor::wait_strategies::WaitStrategy for YieldStrategy {
    fn wait_for(&self, sequence: disruptor::Sequence) {
        if self.at_once {
            thread::yield_now();
            return;
        }
        let (waiting_for, failed) = DISRUPTOR_WAIT.with(|w| w.get());
        let failed = if waiting_for == sequence { failed } else { 0 };
        DISRUPTOR_WAIT.with(|w| w.set((sequence, failed.saturating_add(1))));
        if failed < YieldWait::new().spins {
            std::hint::spin_loop();
        } else {
            thread::yield_now();
        }
    }
}

/// Publishes from each producer handle in its own thread (producer `p` writes its items into
/// the events); the last handle's drop waits until every handler processed every event, so the
/// clock stops after the consumers finish.
fn drive_disruptor<Prod>(producers: Vec<Prod>, sc: &Scenario, waiting: YieldStrategy) -> Duration
where
    Prod: disruptor::Producer<u64> + Send,
{
    let (per, chunk) = (sc.per_producer() as u64, sc.chunk);
    let workers: Vec<_> = producers
        .into_iter()
        .enumerate()
        .map(|(p, prod)| {
            move || {
                let mut prod = prod; // a local of the loop's function (see `local_handle`)
                let mut i = 0;
                while i < per {
                    if chunk == 1 {
                        let x = item(p, i);
                        wait_as(waiting, || prod.try_publish(|e| *e = x).is_ok());
                    } else {
                        wait_as(waiting, || prod.try_batch_publish(chunk, |_| {}).is_ok());
                    }
                    i += chunk as u64;
                }
                drop(prod); // the last one shuts the disruptor down after the handlers drained
            }
        })
        .collect();
    timed(workers)
}

/// The `disruptor` crate, P→C broadcast (C handlers, each checks every event at chunk 1), ring
/// of `cap.next_power_of_two()`; the single-producer builder for P = 1.
pub fn disruptor(sc: &Scenario, cap: usize) -> Rep {
    disruptor_with(sc, cap, sc.producers > 1, YieldStrategy::SPIN_THEN_YIELD)
}

/// As [`disruptor`], the handlers yielding at every failed check ([`YieldStrategy::AT_ONCE`]).
pub fn disruptor_yield_at_once(sc: &Scenario, cap: usize) -> Rep {
    disruptor_with(sc, cap, sc.producers > 1, YieldStrategy::AT_ONCE)
}

/// As [`disruptor`], always with the multi-producer builder (also for one producer).
pub fn disruptor_mp(sc: &Scenario, cap: usize) -> Rep {
    disruptor_with(sc, cap, true, YieldStrategy::SPIN_THEN_YIELD)
}

fn disruptor_with(sc: &Scenario, cap: usize, multi: bool, waiting: YieldStrategy) -> Rep {
    use disruptor::{build_multi_producer, build_single_producer};
    let size = cap.next_power_of_two();
    let verify = sc.chunk == 1;
    // Per handler: events seen, bad events (written by the handler thread at the end of each
    // batch, read after the disruptor joined it).
    let results: Vec<Arc<[AtomicU64; 2]>> = (0..sc.consumers)
        .map(|_| Arc::new([AtomicU64::new(0), AtomicU64::new(0)]))
        .collect();
    let handler = |i: usize| {
        let out = results[i].clone();
        let mut check = Checker::default();
        move |e: &u64, seq: disruptor::Sequence, end_of_batch: bool| {
            if verify {
                check.check(*e);
            }
            if end_of_batch {
                // Relaxed: read after the disruptor joined this handler's thread.
                out[0].store(seq as u64 + 1, Ordering::Relaxed);
                out[1].store(check.bad, Ordering::Relaxed);
            }
        }
    };
    // Handler `c` runs where our reader `c` would (after the producers), when pinned.
    macro_rules! pinned {
        ($b:expr, $c:expr) => {
            match super::pin::cpu_for(sc.producers + $c) {
                Some(id) => disruptor::ProcessorSettings::pin_at_core($b, id),
                None => $b,
            }
        };
    }
    macro_rules! with_handlers {
        ($builder:expr, $drive:expr) => {
            match sc.consumers {
                1 => $drive(pinned!($builder, 0).handle_events_with(handler(0)).build()),
                2 => $drive({
                    let b = pinned!($builder, 0).handle_events_with(handler(0));
                    pinned!(b, 1).handle_events_with(handler(1)).build()
                }),
                4 => $drive({
                    let b = pinned!($builder, 0).handle_events_with(handler(0));
                    let b = pinned!(b, 1).handle_events_with(handler(1));
                    let b = pinned!(b, 2).handle_events_with(handler(2));
                    pinned!(b, 3).handle_events_with(handler(3)).build()
                }),
                c => panic!("disruptor rows support 1, 2 or 4 consumers, not {c}"),
            }
        };
    }
    let elapsed = if !multi {
        let b = build_single_producer(size, || 0u64, waiting);
        with_handlers!(b, |p| drive_disruptor(vec![p], sc, waiting))
    } else {
        let b = build_multi_producer(size, || 0u64, waiting);
        let p = sc.producers;
        with_handlers!(b, |first: disruptor::MultiProducer<u64, _>| {
            let mut all: Vec<_> = (1..p).map(|_| first.clone()).collect();
            all.push(first);
            drive_disruptor(all, sc, waiting)
        })
    };
    for r in &results {
        // Relaxed: the handler threads were joined.
        assert_eq!(
            r[0].load(Ordering::Relaxed),
            sc.total() as u64,
            "disruptor lost events"
        );
        assert_eq!(
            r[1].load(Ordering::Relaxed),
            0,
            "disruptor: events out of order"
        );
    }
    rep(sc, elapsed)
}

/// One thread copies the same samples in `chunk`-sized `copy_from_slice` calls into a buffer
/// of the ring's capacity (cycling through it like a ring): the bytes a 1P→1C ring moves.
pub fn copy_baseline(sc: &Scenario, cap: usize) -> Rep {
    let src: Vec<u64> = (0..sc.chunk as u64).collect();
    let mut dst = vec![0u64; cap];
    let n = sc.total();
    let t0 = Instant::now();
    let mut pos = 0;
    let mut done = 0;
    while done < n {
        if pos + sc.chunk > cap {
            pos = 0;
        }
        dst[pos..pos + sc.chunk].copy_from_slice(black_box(&src));
        pos += sc.chunk;
        done += sc.chunk;
    }
    black_box(&dst);
    rep(sc, t0.elapsed())
}
