//! How a writer waits for space and a reader waits for data: [`WaitStrategy`], and the two
//! strategies that need nothing but a CPU ([`BusySpin`], [`Backoff`]). Thread-parking and
//! timed strategies live in `spanring-std`.

pub use crate::pacing::Pacing;
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

/// A [`WaitStrategy`] that can give up after a timeout (needs a clock, so std-only in practice):
/// what the `_timeout` forms (`pop_timeout`, `read_timeout`, `push_timeout`, …) ask of a
/// ring's strategy. spanring-std's strategies have it; [`BusySpin`] and [`Backoff`] have it
/// with this crate's `std` feature (which the facade's `std` feature turns on).
///
/// ```
/// use core::time::Duration;
/// use spanring_core::{WaitStrategy, WaitTimeout};
/// fn wait_a_bit<W: WaitTimeout>(w: &W) -> bool {
///     w.wait_until_timeout(&mut || false, Duration::from_millis(1))
/// }
/// ```
///
/// A strategy without a clock is refused at compile time, with a message that names this
/// trait and what to do:
///
/// ```compile_fail
/// use core::time::Duration;
/// use spanring_core::{Ring, SliceStorage, WaitStrategy};
/// #[derive(Default)]
/// struct Spin;
/// impl WaitStrategy for Spin {
///     fn wait_until(&self, ready: &mut dyn FnMut() -> bool) { while !ready() {} }
///     fn notify_all(&self) {}
/// }
/// let mut memory = [0u8; 4];
/// let ring = Ring::builder(SliceStorage::new(&mut memory)).wait::<Spin>().build().unwrap();
/// let mut r = ring.reader().unwrap();
/// // error: `Spin` cannot wait with a timeout
/// let _ = r.pop_timeout(Duration::from_millis(1));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot wait with a timeout",
    label = "the ring's wait strategy (`W`) has no `WaitTimeout`",
    note = "the `_timeout` forms need a clock: build the ring with `.wait::<BlockingWait>()` (or \
            `YieldWait`, `SleepWait`, spanring-std's strategies), or turn on spanring-core's \
            `std` feature (the facade's `std` does), which gives `BusySpin` and `Backoff` a timeout"
)]
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

/// With the `std` feature: spins as [`wait_until`](WaitStrategy::wait_until) does, reading
/// the clock between checks.
///
/// ```
/// # #[cfg(feature = "std")] {
/// use core::time::Duration;
/// use spanring_core::{BusySpin, Ring, SliceStorage, ReadError};
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap(); // waits with BusySpin
/// let mut r = ring.reader().unwrap();
/// assert_eq!(r.pop_timeout(Duration::from_millis(1)), Err(ReadError::TimedOut));
/// # }
/// ```
#[cfg(feature = "std")]
impl WaitTimeout for BusySpin {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        spin_until(ready, timeout, |_| crate::sync::spin_loop())
    }
}

/// Checks `ready` until it returns `true` (then `true`) or `timeout` has passed (then one last
/// check decides), calling `pause(checks so far)` between checks.
#[cfg(feature = "std")]
fn spin_until(
    ready: &mut dyn FnMut() -> bool,
    timeout: Duration,
    mut pause: impl FnMut(u32),
) -> bool {
    // `None`: a timeout too far to represent, which never passes.
    let deadline = std::time::Instant::now().checked_add(timeout);
    let mut checks = 0u32;
    loop {
        if ready() {
            return true;
        }
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return ready();
        }
        pause(checks);
        checks = checks.saturating_add(1);
    }
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

impl Backoff {
    /// Spin hints after the `checks`th failed check (from 0): `2^min(checks, max_exponent)`.
    fn pause(&self, checks: u32) {
        for _ in 0..(1u32 << checks.min(self.max_exponent).min(31)) {
            crate::sync::spin_loop();
        }
    }
}

impl WaitStrategy for Backoff {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        let mut checks = 0u32;
        while !ready() {
            self.pause(checks);
            checks = checks.saturating_add(1);
        }
    }
    fn notify_all(&self) {}
}

/// With the `std` feature: backs off as [`wait_until`](WaitStrategy::wait_until) does,
/// reading the clock between checks.
///
/// ```
/// # #[cfg(feature = "std")] {
/// use core::time::Duration;
/// use spanring_core::{Backoff, Ring, SliceStorage, WaitTimeout};
/// assert!(!Backoff::new().wait_until_timeout(&mut || false, Duration::from_millis(1)));
/// assert!(Backoff::new().wait_until_timeout(&mut || true, Duration::ZERO));
/// # }
/// ```
#[cfg(feature = "std")]
impl WaitTimeout for Backoff {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        spin_until(ready, timeout, |checks| self.pause(checks))
    }
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

    /// Waits through `w` with `timeout` on a condition that turns true at its `ready_at`th
    /// check (never, for `None`); returns the outcome and the checks made.
    #[cfg(feature = "std")]
    fn checks(w: &dyn WaitTimeout, ready_at: Option<usize>, timeout: Duration) -> (bool, usize) {
        let mut calls = 0;
        let ready = w.wait_until_timeout(
            &mut || {
                calls += 1;
                Some(calls) == ready_at
            },
            timeout,
        );
        (ready, calls)
    }

    /// Both spinning strategies, with a timeout: ready in time → `true` after exactly the
    /// checks it took; never ready → `false`, not before the timeout; a timeout too long to
    /// represent is no timeout.
    #[cfg(feature = "std")]
    #[test]
    fn spinning_strategies_time_out_only_when_not_ready() {
        let strategies: [&dyn WaitTimeout; 2] = [&BusySpin, &Backoff { max_exponent: 3 }];
        for w in strategies {
            assert_eq!(checks(w, Some(7), Duration::from_secs(600)), (true, 7));
            let t0 = std::time::Instant::now();
            assert!(!checks(w, None, Duration::from_millis(2)).0);
            assert!(t0.elapsed() >= Duration::from_millis(2));
            assert_eq!(checks(w, Some(3), Duration::MAX), (true, 3));
        }
    }

    /// The check after the deadline decides: with no time at all, a condition that turns true
    /// at its second check counts as ready, one that does not is a timeout after two checks.
    #[cfg(feature = "std")]
    #[test]
    fn the_check_after_the_deadline_decides() {
        let strategies: [&dyn WaitTimeout; 2] = [&BusySpin, &Backoff::new()];
        for w in strategies {
            assert_eq!(checks(w, Some(2), Duration::ZERO), (true, 2));
            assert_eq!(checks(w, None, Duration::ZERO), (false, 2));
        }
    }
}
