//! [`FutexWait`]: parking on a Linux futex, with no syscall in `notify_all` when nobody sleeps.
//!
//! # Protocol (why no wake-up is lost, and why a burst of notifies costs one syscall)
//!
//! The futex word holds an epoch (bits 1..) and a `SLEEPERS` flag (bit 0): "somebody may be
//! asleep on the current value".
//!
//! Waiter: (1) load the word (Acquire); (2) if the flag is clear, set it with an RMW; (3) SeqCst
//! fence; (4) final `ready()`; (5) `FUTEX_WAIT(word, value with the flag)`, which sleeps only while
//! the word is still exactly that; loop.
//! Notifier (called by the ring *after* the store that makes `ready()` true): (a) SeqCst fence;
//! (b) load the word: flag clear → return, no syscall; (c) CAS it to (epoch + 1, flag clear)
//! (Release) and, if that CAS won, (d) `FUTEX_WAKE(all)`. Later notifiers see the flag clear and
//! skip the syscall until a waiter sets it again: a burst of publishes wakes sleepers once, not
//! once per publish.
//!
//! (2)→(4) against store→(b) is the store-buffering pattern; the two SeqCst fences (3) and (a)
//! are totally ordered. If (3) comes first, (b) sees our flag — or a value a later notifier
//! already produced by clearing it, in which case our (5) returns at once (the word changed) and
//! the next iteration runs the same argument again. If (a) comes first, (4) sees the ring's store
//! and we do not sleep. A notifier that clears the flag always wakes: a waiter that reached (5)
//! with the old value is woken by (d), or finds the word changed (the kernel serialises the value
//! check in WAIT against WAKE on the futex's hash bucket).

#![allow(clippy::disallowed_types)] // the futex word must be a real AtomicU32: its address goes to the kernel.

use core::sync::atomic::AtomicU32;
use std::time::Duration;

use spanring_core::{WaitStrategy, WaitTimeout};

use super::deadline::Deadline;
use super::{spin_phase, DEFAULT_SPINS};
use crate::sync::{fence, Ordering};

/// Bit 0 of the futex word: somebody may be asleep on the current value.
const SLEEPERS: u32 = 1;
/// One epoch step (the epoch lives in bits 1..).
const EPOCH: u32 = 2;

/// Parks waiting threads on a Linux futex; the Linux [`BlockingWait`](crate::BlockingWait).
///
/// When to use it: threads that may wait for long and must not burn CPU meanwhile, on Linux.
/// `notify_all` costs a fence and a load while nobody sleeps, and one `FUTEX_WAKE` syscall when
/// somebody does. Waiting spins `spins` times before parking.
///
/// ```
/// use spanring_std::FutexWait;
/// use spanring_std::core_api::{WaitStrategy, WaitTimeout};
/// static WAIT: FutexWait = FutexWait::new();
/// WAIT.notify_all();
/// assert!(!WAIT.wait_until_timeout(&mut || false, std::time::Duration::from_millis(1)));
/// ```
#[derive(Debug)]
pub struct FutexWait {
    /// The futex word: epoch (bits 1..), bumped by every `notify_all` that found the
    /// `SLEEPERS` flag (bit 0) set, and the flag.
    word: AtomicU32,
    spins: u32,
}

impl FutexWait {
    /// A strategy with nobody waiting, spinning 64 checks before parking.
    pub const fn new() -> Self {
        Self::with_spins(DEFAULT_SPINS)
    }

    /// A strategy that checks `spins` times with a spin hint before parking.
    pub const fn with_spins(spins: u32) -> Self {
        Self {
            word: AtomicU32::new(0),
            spins,
        }
    }

    fn wait(&self, ready: &mut dyn FnMut() -> bool, deadline: Deadline) -> bool {
        if spin_phase(ready, self.spins) {
            return true;
        }
        loop {
            // (1) Acquire: pairs with the Release bump in `notify_all`, so a value that already
            // includes a notifier's bump also shows us the store it notified about.
            let mut seen = self.word.load(Ordering::Acquire);
            if seen & SLEEPERS == 0 {
                // (2) AcqRel RMW: announce a sleeper on this epoch (and take the newest value,
                // should a notifier have bumped it since the load).
                seen = self.word.fetch_or(SLEEPERS, Ordering::AcqRel) | SLEEPERS;
            }
            // (3) SeqCst: pairs with the fence in `notify_all` (store-buffering, see module docs).
            fence(Ordering::SeqCst);
            if ready() {
                return true;
            }
            match deadline.remaining() {
                Some(Duration::ZERO) => return ready(), // final check at/after the deadline
                left => futex_wait(&self.word, seen, left),
            }
            // Woken, timed out, interrupted or spurious: go round and check again.
        }
    }
}

impl Default for FutexWait {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStrategy for FutexWait {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        self.wait(ready, Deadline::NEVER);
    }

    fn notify_all(&self) {
        // (a) SeqCst: pairs with the waiter's fence (3); orders the caller's earlier store before
        // the load below (see module docs).
        fence(Ordering::SeqCst);
        // (b) Relaxed: the fence above does the ordering.
        let word = self.word.load(Ordering::Relaxed);
        if word & SLEEPERS == 0 {
            return; // nobody asleep, or already being woken: no syscall
        }
        // (c) Release: pairs with the waiter's Acquire load (1). Only the notifier whose CAS
        // clears the flag wakes; a failed CAS means another notifier just did (or a waiter
        // re-set an already-set flag, which leaves the value unchanged and cannot fail it).
        let next = (word & !SLEEPERS).wrapping_add(EPOCH);
        if self
            .word
            .compare_exchange(word, next, Ordering::Release, Ordering::Relaxed)
            .is_ok()
        {
            // (d)
            futex_wake_all(&self.word);
        }
    }
}

impl WaitTimeout for FutexWait {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        self.wait(ready, Deadline::after(timeout))
    }
}

/// Sleeps while `*word == expected`, at most `timeout` (`None`: no limit). Returns on wake-up,
/// timeout, signal, or at once when the value already differs; the caller re-checks anyway, so
/// the result is not needed.
fn futex_wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) {
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: libc::time_t::try_from(t.as_secs()).unwrap_or(libc::time_t::MAX),
        // < 1e9, fits every c_long.
        tv_nsec: t.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(core::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word.as_ptr()` is a valid, aligned u32 that lives as long as `self` (we hold a
    // borrow for the whole call); `ts_ptr` is null or points to `ts`, alive on this stack frame;
    // FUTEX_WAIT only reads both. PRIVATE: the word is never shared with another process.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            ts_ptr,
        );
    }
}

/// Wakes every thread sleeping on `word`.
fn futex_wake_all(word: &AtomicU32) {
    // SAFETY: `word.as_ptr()` is a valid, aligned u32 for the duration of the call; FUTEX_WAKE
    // does not access user memory beyond using the address as a key.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}
