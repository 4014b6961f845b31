//! [`Progress`]: counters a bridge thread updates and other threads read or wait on.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// A snapshot value shared between a bridge thread (which updates it) and its handle (which
/// reads it, or waits until it satisfies a condition).
#[derive(Debug, Default)]
pub(crate) struct Progress<T> {
    state: Mutex<T>,
    changed: Condvar,
}

impl<T: Copy> Progress<T> {
    fn lock(&self) -> MutexGuard<'_, T> {
        // The closures run under the lock only add to counters: a poisoned lock still holds
        // consistent numbers.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies `f` and wakes every waiter.
    pub(crate) fn update(&self, f: impl FnOnce(&mut T)) {
        f(&mut self.lock());
        self.changed.notify_all();
    }

    /// The current value.
    pub(crate) fn get(&self) -> T {
        *self.lock()
    }

    /// Waits until `done` holds for the value, at most `timeout`: `Ok` with the value that
    /// satisfied it, or `Err` with the last value seen.
    pub(crate) fn wait_until(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&T) -> bool,
    ) -> Result<T, T> {
        let deadline = Instant::now() + timeout;
        let mut guard = self.lock();
        loop {
            if done(&guard) {
                return Ok(*guard);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(*guard);
            }
            guard = self
                .changed
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}
