//! [`FutexWait`]: parking on a Linux futex, with no syscall in `notify_all` when nobody sleeps.
//!
//! # Protocol (why no wake-up is lost)
//!
//! Waiter: (1) snapshot `epoch` (Acquire); (2) `waiters += 1`; (3) SeqCst fence; (4) final
//! `ready()`; (5) `FUTEX_WAIT(epoch, snapshot)`, which sleeps only while `epoch` still equals
//! the snapshot; (6) `waiters -= 1`; loop.
//! Notifier (called by the ring *after* the store that makes `ready()` true): (a) SeqCst fence;
//! (b) if `waiters == 0` return — the no-syscall fast path; (c) `epoch += 1` (Release);
//! (d) `FUTEX_WAKE(all)`.
//!
//! (2)→(4) against store→(b) is the store-buffering pattern: each side stores one location and
//! then loads the other, and Release/Acquire alone would let both loads miss both stores. The two
//! SeqCst fences (3) and (a) are totally ordered: if (3) comes first, the load (b) sees our
//! increment (it is not undone before (6)), so the notifier bumps the epoch and wakes; if (a)
//! comes first, the load in (4) sees the ring's store and we do not sleep. When the notifier
//! wakes: either our snapshot (1) already read its bump (c) — then Acquire/Release makes the
//! ring's store visible to (4) — or it did not, and the kernel's futex check (5) sees the new
//! epoch and returns at once, or it sleeps first and (d) wakes it (the kernel serialises the
//! value check in WAIT against WAKE on the futex's hash bucket).

#![allow(clippy::disallowed_types)] // the futex word must be a real AtomicU32: its address goes to the kernel.

use core::sync::atomic::AtomicU32;
use std::time::Duration;

use spanring_core::{WaitStrategy, WaitTimeout};

use super::deadline::Deadline;
use super::{spin_phase, Registration, DEFAULT_SPINS};
use crate::sync::{fence, AtomicUsize, Ordering};

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
    /// Bumped by every `notify_all` that saw a waiter; the futex word.
    epoch: AtomicU32,
    /// Threads between registering and leaving the wait (may over-count briefly, never under).
    waiters: AtomicUsize,
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
            epoch: AtomicU32::new(0),
            waiters: AtomicUsize::new(0),
            spins,
        }
    }

    fn wait(&self, ready: &mut dyn FnMut() -> bool, deadline: Deadline) -> bool {
        if spin_phase(ready, self.spins) {
            return true;
        }
        loop {
            // (1) Acquire: pairs with the Release bump in `notify_all`, so a snapshot that already
            // includes a notifier's bump also shows us the store it notified about.
            let seen = self.epoch.load(Ordering::Acquire);
            // (2) counted until `registration` drops, at the end of this iteration.
            let registration = Registration::new(&self.waiters);
            // (3) SeqCst: pairs with the fence in `notify_all` (store-buffering, see module docs).
            fence(Ordering::SeqCst);
            if ready() {
                return true;
            }
            match deadline.remaining() {
                Some(Duration::ZERO) => return ready(), // final check at/after the deadline
                left => futex_wait(&self.epoch, seen, left),
            }
            // (6)
            drop(registration);
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
        // the load of `waiters` below (see module docs).
        fence(Ordering::SeqCst);
        // (b) Relaxed: the fence above does the ordering.
        if self.waiters.load(Ordering::Relaxed) == 0 {
            return;
        }
        // (c) Release: pairs with the waiter's Acquire snapshot (1).
        self.epoch.fetch_add(1, Ordering::Release);
        futex_wake_all(&self.epoch);
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
