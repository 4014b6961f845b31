//! [`Progress`]: counters a bridge thread updates and other threads read or wait on.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// A snapshot value shared between a bridge thread (which updates it) and its handle (which
/// reads it, or waits until it satisfies a condition).
#[derive(Debug, Default)]
pub(crate) struct Progress<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

/// The value, and how many threads wait for it to change: `update` wakes them only when there
/// are any (a `notify_all` is a `FUTEX_WAKE` system call even with nobody waiting, and a bridge
/// updates its counters once per message).
#[derive(Debug, Default)]
struct State<T> {
    value: T,
    waiters: usize,
}

impl<T: Copy> Progress<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // The closures run under the lock only add to counters: a poisoned lock still holds
        // consistent numbers.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies `f` and wakes every waiter. A waiter registers under the lock before it sleeps,
    /// so either this update sees it registered, or it locks after this update and sees the
    /// new value before it sleeps: no wake-up is lost.
    pub(crate) fn update(&self, f: impl FnOnce(&mut T)) {
        let mut state = self.lock();
        f(&mut state.value);
        let waiters = state.waiters;
        drop(state);
        if waiters > 0 {
            self.changed.notify_all();
        }
    }

    /// The current value.
    pub(crate) fn get(&self) -> T {
        self.lock().value
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
            if done(&guard.value) {
                return Ok(guard.value);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(guard.value);
            }
            guard.waiters += 1;
            guard = self
                .changed
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            guard.waiters -= 1;
        }
    }
}
