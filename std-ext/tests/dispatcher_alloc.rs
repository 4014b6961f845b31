//! Proof that posting to a [`Dispatcher`] allocates nothing in steady state: a counting global
//! allocator sees zero allocations, on any thread, while two producers post 10 000 events each
//! and the worker runs them all.
//!
//! One test in this binary on purpose: the counter is global, so no other test may run
//! concurrently inside the measured window.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use spanring_std::Dispatcher;

#[path = "../../tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{CountingAlloc, ALLOCATIONS};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const PRODUCERS: usize = 2;
const PER_PRODUCER: u64 = 10_000;
const WARM_UP: u64 = 100;

/// Callbacks run so far (the last one of the measured run makes it reach the target).
static RUN: AtomicUsize = AtomicUsize::new(0);

/// Worker state: each producer's next expected counter, and order violations.
struct Ctx {
    next: [u64; PRODUCERS],
    violations: u64,
}

/// The event every producer posts: checks per-producer order, then counts itself. Captures
/// three words (producer, counter, a `&'static`).
fn event(producer: usize, i: u64, run: &'static AtomicUsize) -> impl FnOnce(&mut Ctx) + Send {
    move |ctx: &mut Ctx| {
        if ctx.next[producer] != i {
            ctx.violations += 1;
        }
        ctx.next[producer] = i + 1;
        // Release: pairs with the test's Acquire load, so everything the worker did before
        // (including any allocation it might have made) happens before the final count read.
        run.fetch_add(1, Ordering::Release);
    }
}

/// Yields until `RUN` reaches `target`; panics after 20 s (a watchdog, not a delay).
fn wait_for_runs(target: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    // Acquire: pairs with the Release increment in `event`.
    while RUN.load(Ordering::Acquire) < target {
        assert!(Instant::now() < deadline, "worker stalled");
        thread::yield_now();
    }
}

#[test]
fn posting_allocates_nothing_in_steady_state() {
    // Capacity smaller than the run, so the measured window wraps the ring many times and
    // producers wait for space (parking included).
    let ctx = Ctx {
        next: [0; PRODUCERS],
        violations: 0,
    };
    let (dispatcher, poster) = Dispatcher::spawn(256, ctx).unwrap();

    // Warm up: the worker thread is running and has handled events from both producers.
    let start = Barrier::new(PRODUCERS + 1);
    let finished = thread::scope(|s| {
        let handles: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let mut poster = poster.clone();
                let start = &start;
                s.spawn(move || {
                    for i in 0..WARM_UP {
                        poster.post(event(p, i, &RUN)).unwrap();
                    }
                    start.wait(); // measured window opens
                    for i in WARM_UP..WARM_UP + PER_PRODUCER {
                        poster.post(event(p, i, &RUN)).unwrap();
                    }
                    poster // dropped after the window, outside the measurement
                })
            })
            .collect();

        // Every thread is spawned and has posted: wait for the warm-up to run, then measure.
        let warm = PRODUCERS * WARM_UP as usize;
        wait_for_runs(warm);
        // Relaxed: this thread's own snapshot; the Barrier orders it before the window.
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        start.wait();
        wait_for_runs(warm + PRODUCERS * PER_PRODUCER as usize);
        // Relaxed: the Acquire in `wait_for_runs` ordered the worker's work before this; the
        // producers' posts all happened before their last event ran.
        let after = ALLOCATIONS.load(Ordering::Relaxed);
        let posters: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        drop(posters);
        after - before
    });
    drop(poster);
    let ctx = dispatcher.join().unwrap();

    assert_eq!(
        finished,
        0,
        "allocations while posting and running {} events",
        PRODUCERS as u64 * PER_PRODUCER
    );
    assert_eq!(ctx.violations, 0);
    assert_eq!(ctx.next, [WARM_UP + PER_PRODUCER; PRODUCERS]);
}
