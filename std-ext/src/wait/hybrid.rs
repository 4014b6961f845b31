//! [`HybridWait`]: spin briefly, yield for a bounded time, then park on [`BlockingWait`].
//!
//! No protocol of its own: the spin and yield phases only call `ready()` (no registration, so
//! nothing to lose), and the parking phase is [`BlockingWait`]'s `wait_until` (its spins set
//! to 0), whose registration-before-final-check protocol (`futex.rs`, `condvar.rs`) is what
//! makes a wake-up impossible to lose. `notify_all` is `BlockingWait`'s: a load and a branch
//! while nobody is parked, which is the whole time on a busy stream.

use std::time::{Duration, Instant};

use spanring_core::{WaitStrategy, WaitTimeout};

use super::deadline::Deadline;
use super::{spin_phase, DEFAULT_SPINS};
use crate::BlockingWait;

/// How long [`HybridWait::new`] yields before parking.
const DEFAULT_YIELD_FOR: Duration = Duration::from_micros(50);

/// Spins `spins` times (64), then yields the time slice between checks for up to `yield_for`
/// (50 µs), then parks like [`BlockingWait`] until notified: the default wait of the owned
/// buffers ([`owned::portable`](crate::owned::portable), [`owned::mapped`](crate::owned::mapped)).
///
/// When to use it: threads that are sometimes busy and sometimes idle for long, on shared
/// cores. On a busy stream a waiting thread almost always finds its condition true within
/// the spin or yield phase, so nobody parks and `notify_all` stays a load and a branch (no
/// `FUTEX_WAKE` per publish, no `membarrier` per sleep): the plain one-item loop runs about as
/// fast as with [`YieldWait`](crate::YieldWait) (numbers in `benches/owned_wait.rs`). An idle
/// thread burns at most `yield_for` of yielding per wait, then sleeps in the kernel and costs
/// nothing.
///
/// The price: a thread that waits between `yield_for` and a few times `yield_for` for every
/// item (a trickle of items some tens of µs apart) keeps yielding most of that time; choose
/// [`BlockingWait`] (park after 64 spins) when CPU matters more than wake-up cost there, or
/// [`with_yield_for`](Self::with_yield_for) to tune the bound.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::time::Duration;
/// use spanring_std::HybridWait;
/// use spanring_std::core_api::{WaitStrategy, WaitTimeout};
/// static READY: AtomicBool = AtomicBool::new(false);
/// let wait = std::sync::Arc::new(HybridWait::new());
/// let w = wait.clone();
/// let waiter = std::thread::spawn(move || {
///     w.wait_until_timeout(&mut || READY.load(Ordering::Acquire), Duration::from_secs(60))
/// });
/// READY.store(true, Ordering::Release);
/// wait.notify_all(); // after the store that makes the condition true
/// assert!(waiter.join().unwrap()); // woken (or saw it while spinning), not timed out
/// ```
#[derive(Debug)]
pub struct HybridWait {
    /// The parking phase (built with no spins of its own).
    park: BlockingWait,
    /// Checks with a spin hint before the first yield.
    spins: u32,
    /// How long to keep yielding before parking.
    yield_for: Duration,
}

impl HybridWait {
    spanring_core::__maybe_const_fn! {
        /// 64 spins, then up to 50 µs of yielding, then parking (`const` except under loom).
        ///
        /// ```
        /// use spanring_std::HybridWait;
        /// use spanring_std::core_api::WaitStrategy;
        /// let wait = HybridWait::new();
        /// wait.wait_until(&mut || true);
        /// wait.notify_all(); // nobody parked: no syscall
        /// ```
        pub fn new() -> Self {
            Self::with_phases(DEFAULT_SPINS, DEFAULT_YIELD_FOR)
        }
    }

    spanring_core::__maybe_const_fn! {
        /// `spins` checks with a spin hint, then yielding for up to `yield_for`, then parking
        /// (`const` except under loom). `with_phases(64, Duration::ZERO)` waits as
        /// [`BlockingWait`] does.
        ///
        /// ```
        /// use std::time::Duration;
        /// use spanring_std::HybridWait;
        /// use spanring_std::core_api::WaitTimeout;
        /// let wait = HybridWait::with_phases(5, Duration::from_micros(10));
        /// let mut checks = 0;
        /// assert!(!wait.wait_until_timeout(&mut || { checks += 1; false }, Duration::from_millis(1)));
        /// assert!(checks >= 5);
        /// ```
        pub fn with_phases(spins: u32, yield_for: Duration) -> Self {
            Self {
                park: BlockingWait::with_spins(0),
                spins,
                yield_for,
            }
        }
    }

    /// The same strategy, yielding for up to `yield_for` before parking.
    ///
    /// ```
    /// use std::time::Duration;
    /// use spanring_std::HybridWait;
    /// let wait = HybridWait::new().with_yield_for(Duration::from_micros(200));
    /// # let _ = wait;
    /// ```
    pub fn with_yield_for(self, yield_for: Duration) -> Self {
        Self { yield_for, ..self }
    }

    fn wait(&self, ready: &mut dyn FnMut() -> bool, deadline: Deadline) -> bool {
        if spin_phase(ready, self.spins) {
            return true;
        }
        if !self.yield_for.is_zero() {
            // `None` (an absurd bound): yield until the deadline, as YieldWait does.
            let yield_end = Instant::now().checked_add(self.yield_for);
            loop {
                if ready() {
                    return true;
                }
                if deadline.has_passed() {
                    return ready(); // the final check, at/after the deadline
                }
                if yield_end.is_some_and(|end| Instant::now() >= end) {
                    break;
                }
                crate::sync::yield_now();
            }
        }
        match deadline.remaining() {
            None => {
                self.park.wait_until(ready);
                true
            }
            Some(left) => self.park.wait_until_timeout(ready, left),
        }
    }
}

impl Default for HybridWait {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStrategy for HybridWait {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        self.wait(ready, Deadline::NEVER);
    }

    #[inline]
    fn notify_all(&self) {
        self.park.notify_all();
    }
}

impl WaitTimeout for HybridWait {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        self.wait(ready, Deadline::after(timeout))
    }
}

#[cfg(all(test, not(spanring_loom)))]
mod tests {
    use super::*;

    #[test]
    fn ready_during_the_spin_phase_returns_at_once() {
        let mut checks = 0;
        HybridWait::new().wait_until(&mut || {
            checks += 1;
            checks == 3
        });
        assert_eq!(checks, 3);
    }

    #[test]
    fn ready_during_the_yield_phase_returns() {
        let mut checks = 0;
        let wait = HybridWait::with_phases(2, Duration::from_secs(60));
        wait.wait_until(&mut || {
            checks += 1;
            checks == 10
        });
        assert_eq!(checks, 10);
    }

    #[test]
    fn a_timeout_ends_every_phase() {
        for yield_for in [Duration::ZERO, Duration::from_micros(50), Duration::MAX] {
            let wait = HybridWait::with_phases(4, yield_for);
            assert!(!wait.wait_until_timeout(&mut || false, Duration::from_millis(2)));
            assert!(wait.wait_until_timeout(&mut || true, Duration::ZERO));
        }
    }
}
