//! How a writer waits for space and a reader waits for data: [`WaitStrategy`], and the two
//! strategies that need nothing but a CPU ([`BusySpin`], [`Backoff`]). Thread-parking and
//! timed strategies live in `spanring-std`.

use core::time::Duration;

/// Waits for a condition that another thread (or an interrupt) will make true, and wakes
/// waiters when it may have become true.
///
/// The ring keeps two instances: one that writers wait on for free space (notified by readers
/// when they consume), one that readers wait on for data (notified by writers when they
/// publish, and on close).
///
/// Contract (what makes wake-ups impossible to lose): an implementation that puts a thread to
/// sleep must register it as a waiter *before* its final call to `ready()`, and `notify_all`
/// must wake every waiter registered before it is called. The ring calls `notify_all` after
/// the store that makes the condition true, so either the waiter's final check sees the
/// store, or the notifier sees the registration.
///
/// `wait_until` should return as soon as `ready()` returned `true`: on a writer's wait that
/// call has claimed slots. A strategy that does not is still safe: calling `ready()` again
/// after `true` claims nothing more, and a timeout reported after `true` still returns the
/// claim.
///
/// Panics: a strategy may panic (in `wait_until` or `notify_all`); the ring stays sound, every
/// handle stays in step, and nothing claimed stays unpublished: a claim `ready()` made before
/// the panic is published as nothing while unwinding (given back, or skipped behind a later
/// claim), so readers never stop at it. The `hazards` tests panic at each point.
///
/// ```
/// use spanring_core::{BusySpin, WaitStrategy};
/// let mut tries = 0;
/// BusySpin.wait_until(&mut || { tries += 1; tries == 3 });
/// assert_eq!(tries, 3);
/// ```
pub trait WaitStrategy {
    /// Returns once `ready()` has returned `true`.
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool);
    /// Wakes every waiter; must be cheap (no syscall) when nobody waits.
    fn notify_all(&self);
}

/// A [`WaitStrategy`] that can give up after a timeout (needs a clock, so std-only in practice).
///
/// ```
/// use core::time::Duration;
/// use spanring_core::{WaitStrategy, WaitTimeout};
/// fn wait_a_bit<W: WaitTimeout>(w: &W) -> bool {
///     w.wait_until_timeout(&mut || false, Duration::from_millis(1))
/// }
/// ```
pub trait WaitTimeout: WaitStrategy {
    /// Returns `true` once `ready()` returned `true`, or `false` when `timeout` has passed
    /// first (after one last check).
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool;
}

/// Spins on the condition with a CPU pause hint between checks: lowest latency, burns a core.
/// Right for dedicated cores and for interrupt-driven embedded targets.
///
/// ```
/// use spanring_core::{BusySpin, WaitStrategy};
/// BusySpin.wait_until(&mut || true);
/// BusySpin.notify_all(); // nothing to wake
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct BusySpin;

impl WaitStrategy for BusySpin {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        while !ready() {
            crate::sync::spin_loop();
        }
    }
    fn notify_all(&self) {}
}

/// Spins with exponential backoff: 1, 2, 4, … up to `2^max_exponent` pause hints between
/// checks, then stays at that bound. Eases pressure on the contended cache line without any
/// OS support. (std's `YieldWait` adds a `thread::yield_now` stage on top.)
///
/// ```
/// use spanring_core::{Backoff, WaitStrategy};
/// let w = Backoff::default();
/// let mut n = 0;
/// w.wait_until(&mut || { n += 1; n > 10 });
/// assert_eq!(n, 11);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    /// Upper bound of the exponent: at most `2^max_exponent` spin hints between checks.
    pub max_exponent: u32,
}

impl Backoff {
    /// At most 2^6 = 64 spin hints between checks; `const`, for `static` rings.
    ///
    /// ```
    /// assert_eq!(spanring_core::Backoff::new().max_exponent, 6);
    /// ```
    pub const fn new() -> Self {
        Self { max_exponent: 6 }
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStrategy for Backoff {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        let mut exponent = 0;
        while !ready() {
            for _ in 0..(1u32 << exponent) {
                crate::sync::spin_loop();
            }
            if exponent < self.max_exponent {
                exponent += 1;
            }
        }
    }
    fn notify_all(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_spin_checks_until_ready() {
        let mut calls = 0;
        BusySpin.wait_until(&mut || {
            calls += 1;
            calls >= 5
        });
        assert_eq!(calls, 5);
    }

    #[test]
    fn backoff_caps_exponent() {
        let w = Backoff { max_exponent: 2 };
        let mut calls = 0;
        w.wait_until(&mut || {
            calls += 1;
            calls >= 20
        });
        assert_eq!(calls, 20);
    }
}
