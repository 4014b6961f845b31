//! Dispatcher behaviour: order per producer, exactly-once drops of captures, draining on
//! shutdown, typed errors for a full or closed dispatcher, a panicking callback.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use spanring_std::{Dispatcher, PostError, SpawnError, TryPostError};

/// Waits (yielding) until `done()`; panics after 20 s so a hang fails the test instead of
/// stalling CI. A watchdog, not a synchronisation delay.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::yield_now();
    }
}

/// Worker state checking that each producer's callbacks arrive in posting order.
struct OrderCheck {
    next: [u64; 4],
    runs: u64,
    violations: u64,
}

#[test]
fn callbacks_run_in_order_per_producer() {
    const PRODUCERS: usize = 3;
    const PER_PRODUCER: u64 = 5_000;
    // A small ring, so producers wrap it many times and wait for space.
    let ctx = OrderCheck {
        next: [0; 4],
        runs: 0,
        violations: 0,
    };
    let (dispatcher, poster) = Dispatcher::spawn(16, ctx).unwrap();
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let mut poster = poster.clone();
            thread::spawn(move || {
                for i in 0..PER_PRODUCER {
                    poster
                        .post(move |c: &mut OrderCheck| {
                            if c.next[p] != i {
                                c.violations += 1;
                            }
                            c.next[p] = i + 1;
                            c.runs += 1;
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    drop(poster);
    for p in producers {
        p.join().unwrap();
    }
    let ctx = dispatcher.join().unwrap();
    assert_eq!(ctx.violations, 0);
    assert_eq!(ctx.runs, PRODUCERS as u64 * PER_PRODUCER);
    assert_eq!(&ctx.next[..PRODUCERS], &[PER_PRODUCER; PRODUCERS]);
}

/// Counts its drops in a per-test static.
struct DropTally(&'static AtomicUsize);

impl Drop for DropTally {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn each_capture_is_dropped_exactly_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    const CAPACITY: usize = 8;
    const EVENTS: usize = 1_000;
    let (dispatcher, mut poster) = Dispatcher::spawn(CAPACITY, ()).unwrap();
    for _ in 0..EVENTS {
        let tally = DropTally(&DROPS);
        poster
            .post(move |_| {
                let _keep = &tally; // captured by the closure, dropped with it
                RUNS.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
    }
    // Each capture is dropped by the worker right after its callback ran, without waiting for
    // a later post to reuse the slot (that would leave the last `CAPACITY` undropped here).
    wait_for("every capture to be dropped", || {
        DROPS.load(Ordering::Relaxed) == EVENTS
    });
    assert_eq!(RUNS.load(Ordering::Relaxed), EVENTS);
    drop(poster);
    dispatcher.join().unwrap();
    // Nothing dropped twice (freeing the ring finds only empty slots), nothing leaked.
    assert_eq!(DROPS.load(Ordering::Relaxed), EVENTS);
    assert_eq!(RUNS.load(Ordering::Relaxed), EVENTS);
}

#[test]
fn dropping_the_posters_drains_everything_before_join_returns() {
    let (dispatcher, poster) = Dispatcher::spawn(4, 0u64).unwrap();
    let producers: Vec<_> = (0..2u64)
        .map(|p| {
            let mut poster = poster.clone();
            thread::spawn(move || {
                for i in 0..500u64 {
                    poster
                        .post(move |sum: &mut u64| *sum += p * 1000 + i)
                        .unwrap();
                }
            })
        })
        .collect();
    drop(poster);
    for p in producers {
        p.join().unwrap();
    }
    let expected: u64 = (0..2u64)
        .map(|p| (0..500u64).map(|i| p * 1000 + i).sum::<u64>())
        .sum();
    assert_eq!(dispatcher.join().unwrap(), expected);
}

#[test]
fn shutdown_runs_what_was_posted_and_refuses_the_rest() {
    let (dispatcher, mut poster) = Dispatcher::spawn(64, 0u32).unwrap();
    for _ in 0..50 {
        poster.post(|n: &mut u32| *n += 1).unwrap();
    }
    assert_eq!(dispatcher.shutdown().unwrap(), 50);
    assert!(poster.is_closed());

    let PostError(refused) = poster.post(|n: &mut u32| *n += 10).unwrap_err();
    let mut n = 0;
    refused(&mut n); // the closure came back intact
    assert_eq!(n, 10);
    match poster.try_post(|n: &mut u32| *n += 1) {
        Err(e @ TryPostError::Closed(_)) => assert!(!e.is_full()),
        other => panic!("expected Closed, got {other:?}"),
    }
}

#[test]
fn try_post_on_a_full_ring_returns_full_with_the_closure() {
    const CAPACITY: usize = 4;
    let (dispatcher, mut poster) = Dispatcher::spawn(CAPACITY, 0u32).unwrap();
    // The first event holds the worker (and its slot) until `go`.
    let go = Arc::new(AtomicBool::new(false));
    let gate = Arc::clone(&go);
    poster
        .post(move |_| {
            while !gate.load(Ordering::Acquire) {
                thread::yield_now();
            }
        })
        .unwrap();
    let mut accepted = 0;
    let refused = loop {
        match poster.try_post(|n: &mut u32| *n += 1) {
            Ok(()) => accepted += 1,
            Err(e) => break e,
        }
        assert!(
            accepted < CAPACITY,
            "try_post accepted more than the capacity"
        );
    };
    assert_eq!(accepted, CAPACITY - 1);
    assert!(refused.is_full());
    assert_eq!(refused.to_string(), "dispatcher ring is full");
    let mut n = 0;
    refused.into_inner()(&mut n);
    assert_eq!(n, 1);

    go.store(true, Ordering::Release);
    drop(poster);
    assert_eq!(dispatcher.join().unwrap(), (CAPACITY - 1) as u32);
}

#[test]
fn a_panicking_callback_closes_the_dispatcher_and_join_reports_it() {
    let (dispatcher, mut poster) = Dispatcher::spawn(8, ()).unwrap();
    poster.post(|_| panic!("callback failure")).unwrap();
    // Posts succeed (or wait) until the worker's exit closes the ring, then fail.
    let mut posted_after = 0u64;
    while poster.post(|_| ()).is_ok() {
        posted_after += 1;
        assert!(posted_after < 1_000_000, "the dispatcher never closed");
    }
    assert!(poster.is_closed());
    let payload = dispatcher.join().unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"callback failure"));
}

#[test]
fn zero_capacity_is_a_typed_error() {
    let err = Dispatcher::<()>::spawn(0, ()).unwrap_err();
    assert!(matches!(err, SpawnError::Capacity(_)));
    assert!(err.to_string().starts_with("dispatcher ring"));
}

#[test]
fn a_larger_words_parameter_holds_larger_closures() {
    // Seven words of captures: more than the default 4-word slot, within 8 words on 32- and
    // 64-bit targets alike.
    let payload = [3usize; 7];
    let (dispatcher, mut poster) = Dispatcher::<u64, 8>::spawn_sized(2, 0).unwrap();
    for _ in 0..5 {
        poster
            .post(move |sum: &mut u64| *sum += payload.iter().sum::<usize>() as u64)
            .unwrap();
    }
    drop(poster);
    assert_eq!(dispatcher.join().unwrap(), 5 * 21);
}

#[test]
fn single_producer_dispatcher_runs_everything_in_order() {
    const EVENTS: u64 = 10_000;
    let ctx = OrderCheck {
        next: [0; 4],
        runs: 0,
        violations: 0,
    };
    let (dispatcher, mut poster) = Dispatcher::spawn_single(8, ctx).unwrap();
    let producer = thread::spawn(move || {
        for i in 0..EVENTS {
            poster
                .post(move |c: &mut OrderCheck| {
                    if c.next[0] != i {
                        c.violations += 1;
                    }
                    c.next[0] = i + 1;
                    c.runs += 1;
                })
                .unwrap();
        }
    });
    producer.join().unwrap();
    let ctx = dispatcher.join().unwrap();
    assert_eq!(ctx.violations, 0);
    assert_eq!(ctx.next[0], EVENTS);
    assert_eq!(ctx.runs, EVENTS);
}
