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
use spanring_std::{BlockingWait, CondvarWait, HybridWait, YieldWait};

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
fn hybrid_wait_never_loses_a_wake_up() {
    // No spins and a 2 µs yield phase: most waits reach the parking phase.
    ping_pong(|| HybridWait::with_phases(0, Duration::from_micros(2)));
}

#[test]
fn hybrid_wait_with_default_phases() {
    ping_pong(HybridWait::new);
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
fn hybrid_notify_all_wakes_every_waiter() {
    wakes_all(HybridWait::with_phases(0, Duration::ZERO));
    wakes_all(HybridWait::new());
}

#[test]
fn condvar_notify_all_wakes_every_waiter() {
    wakes_all(CondvarWait::with_spins(0));
}

/// Rounds of [`sleeper_meets_notifier`]: each is one sleep and one wake-up (a few µs).
const RACE_ROUNDS: usize = if cfg!(miri) { 50 } else { 40_000 };
/// A round with no progress for this long lost its wake-up (the watchdog then rescues it).
const RACE_STALL: Duration = Duration::from_secs(2);

/// The store-buffering window itself, round by round: a notifier stores the round's data and
/// notifies at the moment a waiter (no spinning) announces itself and goes to sleep. Each side
/// first spins a round-dependent few iterations, so the two sweep across each other's steps.
/// If the notifier's load of the wait word could pass its data store unordered with the waiter
/// (the fence pair missing or too weak), the waiter would find no data and the notifier no
/// sleeper: a lost wake-up, which a watchdog turns into a failure after `RACE_STALL`.
/// Returns the number of rounds the watchdog had to rescue. (End to end, and not sharp: with
/// no barrier in the futex's heavy half it failed one run in three here. The sharp test of the
/// fence pair is the litmus test in `wait/asymmetric_fence.rs`.)
fn sleeper_meets_notifier<W: WaitStrategy + Sync>(wait: &W) -> usize {
    let data = AtomicUsize::new(0);
    let go = AtomicUsize::new(0);
    let finished = AtomicBool::new(false);
    let rescued = AtomicUsize::new(0);
    // 0 to 22 spin hints (each tens of cycles): the waiter reaches its sleep at a different
    // point of the notifier's store and notify in every round.
    let skew = |round: usize| {
        for _ in 0..(round * 7) % 23 {
            std::hint::spin_loop();
        }
    };
    thread::scope(|s| {
        s.spawn(|| {
            for round in 1..=RACE_ROUNDS {
                // Acquire: pairs with the waiter's Release start of the round (it saw round − 1).
                while go.load(Ordering::Acquire) < round {
                    std::hint::spin_loop();
                }
                skew(round);
                // Release: the data the waiter's `ready()` acquires.
                data.store(round, Ordering::Release);
                wait.notify_all();
            }
        });
        s.spawn(|| {
            // Watchdog: a round that makes no progress for RACE_STALL lost its wake-up; count it
            // and wake the sleeper so that the test ends instead of hanging.
            let mut last = (0, Instant::now());
            // Acquire: pairs with the Release store of `finished` below.
            while !finished.load(Ordering::Acquire) {
                thread::sleep(Duration::from_millis(10));
                // Relaxed: a progress hint only.
                let now = go.load(Ordering::Relaxed);
                if now != last.0 {
                    last = (now, Instant::now());
                } else if last.1.elapsed() > RACE_STALL {
                    rescued.fetch_add(1, Ordering::Relaxed);
                    wait.notify_all();
                    last = (now, Instant::now());
                }
            }
        });
        for round in 1..=RACE_ROUNDS {
            // Release: the notifier starts this round only after the last one ended here.
            go.store(round, Ordering::Release);
            skew(round / 23);
            // Acquire: pairs with the notifier's Release data store.
            wait.wait_until(&mut || data.load(Ordering::Acquire) >= round);
        }
        // Release: pairs with the watchdog's Acquire load.
        finished.store(true, Ordering::Release);
    });
    rescued.load(Ordering::Relaxed)
}

#[test]
#[cfg(target_os = "linux")]
fn futex_wait_sleeper_meets_notifier() {
    let rescued = sleeper_meets_notifier(&FutexWait::with_spins(0));
    assert_eq!(rescued, 0, "lost wake-ups (rounds rescued by the watchdog)");
}

#[test]
#[cfg(target_os = "linux")]
fn futex_wait_with_symmetric_fences_sleeper_meets_notifier() {
    let rescued = sleeper_meets_notifier(&FutexWait::with_spins(0).with_symmetric_fences());
    assert_eq!(rescued, 0, "lost wake-ups (rounds rescued by the watchdog)");
}

#[test]
fn condvar_wait_sleeper_meets_notifier() {
    let rescued = sleeper_meets_notifier(&CondvarWait::with_spins(0));
    assert_eq!(rescued, 0, "lost wake-ups (rounds rescued by the watchdog)");
}

#[test]
fn hybrid_wait_sleeper_meets_notifier() {
    // No yield phase: every round's waiter goes straight to the parking phase.
    let rescued = sleeper_meets_notifier(&HybridWait::with_phases(0, Duration::ZERO));
    assert_eq!(rescued, 0, "lost wake-ups (rounds rescued by the watchdog)");
}
