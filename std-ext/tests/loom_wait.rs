//! Loom model of `CondvarWait`'s register-then-check protocol: every interleaving (and every
//! weak-memory outcome loom explores) of a waiter against a notifier must end with the waiter
//! awake. A lost wake-up leaves the waiter blocked for ever, which loom reports as a deadlock.
//!
//! Run: `RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-std --features __loom --release --test loom_wait`
#![cfg(spanring_loom)]

use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use spanring_core::WaitStrategy;
use spanring_std::{CondvarWait, HybridWait};

#[test]
fn one_waiter_one_notifier() {
    loom::model(|| {
        let ready = Arc::new(AtomicBool::new(false));
        // spins = 0: straight to the parking path (spinning only adds interleavings).
        let wait = Arc::new(CondvarWait::with_spins(0));
        let (r, w) = (ready.clone(), wait.clone());
        let notifier = thread::spawn(move || {
            // Relaxed on purpose: the wait protocol's own fences must be enough for the
            // waiter to see this store (the ring's cursor stores are Release, which is stronger).
            r.store(true, Ordering::Relaxed);
            w.notify_all();
        });
        wait.wait_until(&mut || ready.load(Ordering::Relaxed));
        notifier.join().unwrap();
    });
}

#[test]
fn two_waiters_are_both_woken() {
    loom::model(|| {
        let ready = Arc::new(AtomicBool::new(false));
        let wait = Arc::new(CondvarWait::with_spins(0));
        let waiter = {
            let (r, w) = (ready.clone(), wait.clone());
            thread::spawn(move || w.wait_until(&mut || r.load(Ordering::Acquire)))
        };
        let (r, w) = (ready.clone(), wait.clone());
        let notifier = thread::spawn(move || {
            // Release: pairs with the waiters' Acquire loads.
            r.store(true, Ordering::Release);
            w.notify_all();
        });
        wait.wait_until(&mut || ready.load(Ordering::Acquire));
        waiter.join().unwrap();
        notifier.join().unwrap();
    });
}

#[test]
fn repeated_hand_off() {
    // Two rounds of the ping-pong of tests/wakeup.rs: each side waits for its turn.
    loom::model(|| {
        let turn = Arc::new(AtomicUsize::new(0));
        let waits = Arc::new([CondvarWait::with_spins(0), CondvarWait::with_spins(0)]);
        let (t, ws) = (turn.clone(), waits.clone());
        let other = thread::spawn(move || {
            // Acquire/Release: the turn hand-off.
            ws[1].wait_until(&mut || t.load(Ordering::Acquire) == 1);
            t.store(2, Ordering::Release);
            ws[0].notify_all();
        });
        turn.store(1, Ordering::Release);
        waits[1].notify_all();
        waits[0].wait_until(&mut || turn.load(Ordering::Acquire) == 2);
        other.join().unwrap();
    });
}

/// `HybridWait` has no protocol of its own: with no spins and no yield phase it must park and
/// be woken exactly as `CondvarWait` (its parking phase under loom). (Its yield phase reads the
/// clock, which loom cannot replay, so the model leaves it out; that phase only calls `ready`.)
#[test]
fn hybrid_wait_parks_through_its_blocking_phase() {
    loom::model(|| {
        let ready = Arc::new(AtomicBool::new(false));
        let wait = Arc::new(HybridWait::with_phases(0, std::time::Duration::ZERO));
        let (r, w) = (ready.clone(), wait.clone());
        let notifier = thread::spawn(move || {
            // Relaxed on purpose, as in `one_waiter_one_notifier`.
            r.store(true, Ordering::Relaxed);
            w.notify_all();
        });
        wait.wait_until(&mut || ready.load(Ordering::Relaxed));
        notifier.join().unwrap();
    });
}
