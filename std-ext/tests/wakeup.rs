//! No lost wake-ups: two threads hand a counter back and forth, each parking on a wait strategy
//! for its turn and notifying the other's. A lost wake-up would hang both; the main thread
//! watches progress and fails the test after 10 s without any, instead of hanging.

use spanring_core::sync::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use spanring_core::WaitStrategy;
#[cfg(target_os = "linux")]
use spanring_std::FutexWait;
use spanring_std::{BlockingWait, CondvarWait, YieldWait};

const ROUNDS: usize = if cfg!(miri) { 200 } else { 100_000 };
const STALL_LIMIT: Duration = Duration::from_secs(10);

/// Thread `side` (0 or 1) may increment `counter` when `counter % 2 == side`.
fn player<W: WaitStrategy>(side: usize, counter: &AtomicUsize, mine: &W, theirs: &W) {
    loop {
        // Acquire: pairs with the other side's Release increment (its turn's writes).
        mine.wait_until(&mut || {
            let n = counter.load(Ordering::Acquire);
            n >= ROUNDS || n % 2 == side
        });
        let n = counter.load(Ordering::Acquire);
        if n >= ROUNDS {
            theirs.notify_all(); // let the other side see the end too
            return;
        }
        // Release: publishes our turn to the other side's Acquire load.
        counter.store(n + 1, Ordering::Release);
        theirs.notify_all();
    }
}

fn ping_pong<W: WaitStrategy + Send + Sync + 'static>(make: fn() -> W) {
    let counter = Arc::new(AtomicUsize::new(0));
    let waits = Arc::new([make(), make()]);
    let handles: Vec<_> = (0..2)
        .map(|side| {
            let (counter, waits) = (counter.clone(), waits.clone());
            thread::spawn(move || player(side, &counter, &waits[side], &waits[1 - side]))
        })
        .collect();

    // Watchdog: poll progress; a stall of STALL_LIMIT fails the test instead of hanging it.
    let mut last = (counter.load(Ordering::Relaxed), Instant::now());
    while !handles.iter().all(|h| h.is_finished()) {
        thread::sleep(Duration::from_millis(5));
        let now = counter.load(Ordering::Relaxed);
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > STALL_LIMIT {
            panic!("no progress for {STALL_LIMIT:?} at count {now}: lost wake-up");
        }
    }
    for h in handles {
        h.join().unwrap();
    }
    assert!(counter.load(Ordering::Relaxed) >= ROUNDS);
}

#[test]
#[cfg(target_os = "linux")]
fn futex_wait_never_loses_a_wake_up() {
    // spins = 0: every wait goes straight to the parking path, the one that can lose wake-ups.
    ping_pong(|| FutexWait::with_spins(0));
}

#[test]
fn condvar_wait_never_loses_a_wake_up() {
    ping_pong(|| CondvarWait::with_spins(0));
}

#[test]
fn blocking_wait_with_default_spinning() {
    ping_pong(BlockingWait::new);
}

#[test]
fn yield_wait_ping_pong() {
    ping_pong(YieldWait::new);
}

/// `notify_all` wakes every parked waiter, not just one.
fn wakes_all<W: WaitStrategy + Send + Sync + 'static>(wait: W) {
    let flag = Arc::new(AtomicBool::new(false));
    let wait = Arc::new(wait);
    let parked = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let (flag, wait, parked) = (flag.clone(), wait.clone(), parked.clone());
            thread::spawn(move || {
                // Relaxed: only a progress hint for the main thread, not synchronisation.
                parked.fetch_add(1, Ordering::Relaxed);
                // Acquire: pairs with the Release store below.
                wait.wait_until(&mut || flag.load(Ordering::Acquire));
            })
        })
        .collect();
    while parked.load(Ordering::Relaxed) < 3 {
        thread::yield_now();
    }
    flag.store(true, Ordering::Release);
    wait.notify_all();
    let start = Instant::now();
    while !handles.iter().all(|h| h.is_finished()) {
        assert!(start.elapsed() < STALL_LIMIT, "a waiter was not woken");
        thread::sleep(Duration::from_millis(1));
    }
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
#[cfg(target_os = "linux")]
fn futex_notify_all_wakes_every_waiter() {
    wakes_all(FutexWait::with_spins(0));
}

#[test]
fn condvar_notify_all_wakes_every_waiter() {
    wakes_all(CondvarWait::with_spins(0));
}
