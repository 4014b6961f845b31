//! [`YieldWait`]: `thread::yield_now` between checks (optionally after a spin phase).

use std::time::Duration;

use spanring_core::{WaitStrategy, WaitTimeout};

use super::deadline::Deadline;
use super::spin_phase;

/// Yields the time slice between checks of the condition, after `spins` checks with a spin
/// hint (none by default).
///
/// When to use it: latency matters but the threads share cores with others (a yield lets the
/// thread we wait for run on our core); it still keeps a core busy while idle, so prefer
/// [`SleepWait`](crate::SleepWait) or [`BlockingWait`](crate::BlockingWait) for long idle periods.
/// `notify_all` does nothing (waiters poll).
///
/// Why no spin phase by default: a waiting reader that spins re-reads the published cursor as
/// fast as the core allows, so the writer's next store to it must first take the line back,
/// and where threads outnumber cores the spins burn the time slice the awaited thread needs.
/// Measured in the buffer bench (threads pinned apart on this 2-core machine, 3·10⁶ items,
/// median of 5): 1 writer → 2 readers 124 → 142 M/s, 1 → 4 readers 106 → 138 M/s, with
/// batch reads 137 → 155 and 120 → 157 M/s; a spin phase with exponential backoff between
/// checks did no better than 64 plain spins. [`with_spins`](Self::with_spins) brings the
/// phase back for threads that each own a core and wait only briefly.
///
/// ```
/// use spanring_std::YieldWait;
/// use spanring_std::core_api::{WaitStrategy, WaitTimeout};
/// let w = YieldWait::default();
/// let mut n = 0;
/// w.wait_until(&mut || { n += 1; n == 100 });
/// assert!(!w.wait_until_timeout(&mut || false, std::time::Duration::from_micros(100)));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct YieldWait {
    /// Checks with a spin hint before the first yield.
    pub spins: u32,
}

impl YieldWait {
    /// Yields at every failed check, with no spin phase.
    ///
    /// ```
    /// use spanring_std::YieldWait;
    /// assert_eq!(YieldWait::new().spins, 0);
    /// ```
    pub const fn new() -> Self {
        Self::with_spins(0)
    }

    /// Checks `spins` times with a spin hint before the first yield.
    ///
    /// ```
    /// use spanring_std::YieldWait;
    /// use spanring_std::core_api::WaitStrategy;
    /// let w = YieldWait::with_spins(64);
    /// let mut checks = 0;
    /// w.wait_until(&mut || { checks += 1; checks == 3 }); // ready during the spin phase
    /// assert_eq!(checks, 3);
    /// ```
    pub const fn with_spins(spins: u32) -> Self {
        Self { spins }
    }

    fn wait(&self, ready: &mut dyn FnMut() -> bool, deadline: Deadline) -> bool {
        if spin_phase(ready, self.spins) {
            return true;
        }
        loop {
            if ready() {
                return true;
            }
            if deadline.has_passed() {
                return ready(); // the final check, at/after the deadline
            }
            crate::sync::yield_now();
        }
    }
}

impl Default for YieldWait {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStrategy for YieldWait {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        self.wait(ready, Deadline::NEVER);
    }
    fn notify_all(&self) {}
}

impl WaitTimeout for YieldWait {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        self.wait(ready, Deadline::after(timeout))
    }
}
