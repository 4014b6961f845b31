//! [`CondvarWait`]: parking on a `Mutex` + `Condvar`, with no locking in `notify_all` when nobody
//! sleeps. Portable to every std target.
//!
//! # Protocol (why no wake-up is lost)
//!
//! Waiter: (1) `waiters += 1`; (2) SeqCst fence; (3) lock; (4) `ready()` under the lock;
//! (5) `Condvar::wait` (releases the lock atomically); loop to (4); finally unlock and
//! `waiters -= 1`. Notifier (after the store that makes `ready()` true): (a) SeqCst fence;
//! (b) if `waiters == 0` return — the fast path, no lock; (c) lock and unlock; (d) `notify_all`.
//!
//! (1)→(4) against store→(b) is the store-buffering pattern; the two SeqCst fences order it: if
//! (2) precedes (a), the notifier sees the waiter and goes on to (c); otherwise (4) sees the
//! store. In the first case the mutex decides: if the waiter locks (3) after the notifier's
//! unlock (c), it synchronises with it and (4) sees the store; if it locked before, it holds the
//! lock until it is inside `wait` (5), so the notifier's `notify_all` (d), issued after it could
//! take the lock, wakes it.

use std::time::Duration;

use spanring_core::{WaitStrategy, WaitTimeout};

use super::deadline::Deadline;
use super::{spin_phase, Registration, DEFAULT_SPINS};
use crate::sync::{fence, AtomicUsize, Condvar, Mutex, MutexGuard, Ordering};

/// Parks waiting threads on a `Mutex` + `Condvar`: the portable
/// [`BlockingWait`](crate::BlockingWait) (and the one the loom model checks).
///
/// When to use it: like [`BlockingWait`](crate::BlockingWait) — threads that may idle for long —
/// on platforms without a futex (on Linux the futex variant is faster). `notify_all` costs a
/// fence and a load while nobody sleeps. `ready` is called with the internal mutex held, so it
/// must not call `notify_all` on the same strategy.
///
/// ```
/// use spanring_std::CondvarWait;
/// use spanring_std::core_api::{WaitStrategy, WaitTimeout};
/// let w = CondvarWait::new();
/// w.notify_all();
/// assert!(w.wait_until_timeout(&mut || true, std::time::Duration::ZERO));
/// ```
#[derive(Debug)]
pub struct CondvarWait {
    /// Threads between registering and leaving the wait (may over-count briefly, never under).
    waiters: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    spins: u32,
}

impl CondvarWait {
    spanring_core::__maybe_const_fn! {
        /// A strategy with nobody waiting, spinning 64 checks before parking (`const` except
        /// under loom).
        ///
        /// ```
        /// use std::sync::atomic::{AtomicBool, Ordering};
        /// use std::time::Duration;
        /// use spanring_std::CondvarWait;
        /// use spanring_std::core_api::{WaitStrategy, WaitTimeout};
        /// static WAIT: CondvarWait = CondvarWait::new(); // `const`: fits a static
        /// static READY: AtomicBool = AtomicBool::new(false);
        /// let waiter = std::thread::spawn(|| {
        ///     WAIT.wait_until_timeout(&mut || READY.load(Ordering::Acquire), Duration::from_secs(60))
        /// });
        /// READY.store(true, Ordering::Release);
        /// WAIT.notify_all(); // after the store that makes the condition true
        /// assert!(waiter.join().unwrap()); // woken, not timed out
        /// ```
        pub fn new() -> Self {
            Self::with_spins(DEFAULT_SPINS)
        }
    }

    spanring_core::__maybe_const_fn! {
        /// A strategy that checks `spins` times with a spin hint before parking.
        ///
        /// ```
        /// use std::time::Duration;
        /// use spanring_std::CondvarWait;
        /// use spanring_std::core_api::WaitTimeout;
        /// let wait = CondvarWait::with_spins(5);
        /// let mut checks = 0;
        /// assert!(!wait.wait_until_timeout(&mut || { checks += 1; false }, Duration::ZERO));
        /// assert!(checks >= 5); // five spin checks, then the parking phase's own
        /// ```
        pub fn with_spins(spins: u32) -> Self {
            Self {
                waiters: AtomicUsize::new(0),
                lock: Mutex::new(()),
                wake: Condvar::new(),
                spins,
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, ()> {
        // The mutex guards no data, so a poisoned lock (a panicking `ready`) is still usable.
        self.lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wait(&self, ready: &mut dyn FnMut() -> bool, deadline: Deadline) -> bool {
        if spin_phase(ready, self.spins) {
            return true;
        }
        // (1) counted until `_registration` drops, after the lock is released.
        let _registration = Registration::new(&self.waiters);
        // (2) SeqCst: pairs with the fence in `notify_all` (store-buffering, see module docs).
        fence(Ordering::SeqCst);
        let mut guard = self.lock();
        let result = loop {
            if ready() {
                break true;
            }
            match deadline.remaining() {
                None => {
                    guard = self
                        .wake
                        .wait(guard)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                Some(Duration::ZERO) => break ready(), // final check at/after the deadline
                Some(left) => {
                    guard = self
                        .wake
                        .wait_timeout(guard, left)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0;
                }
            }
        };
        drop(guard);
        result
    }
}

impl Default for CondvarWait {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStrategy for CondvarWait {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        self.wait(ready, Deadline::NEVER);
    }

    /// Inlined up to the check for waiters (a ring calls it on every publish and consume);
    /// the wake-up is out of line.
    #[inline]
    fn notify_all(&self) {
        // (a) SeqCst: pairs with the waiter's fence (2); orders the caller's earlier store before
        // the load below.
        fence(Ordering::SeqCst);
        // (b) Relaxed: the fence above does the ordering.
        if self.waiters.load(Ordering::Relaxed) != 0 {
            self.wake_all();
        }
    }
}

impl CondvarWait {
    /// `notify_all` past its check: somebody may be waiting.
    #[cold]
    #[inline(never)]
    fn wake_all(&self) {
        // (c) Any waiter that checked `ready` before now is inside `wait` once we get the lock.
        drop(self.lock());
        // (d)
        self.wake.notify_all();
    }
}

impl WaitTimeout for CondvarWait {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        self.wait(ready, Deadline::after(timeout))
    }
}
