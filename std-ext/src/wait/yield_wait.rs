//! [`YieldWait`]: spin briefly, then `thread::yield_now` between checks.

use std::time::Duration;

use spanring_core::{WaitStrategy, WaitTimeout};

use super::deadline::Deadline;
use super::{spin_phase, DEFAULT_SPINS};

/// Spins `spins` times, then yields the time slice between checks of the condition.
///
/// When to use it: latency matters but the threads share cores with others (a yield lets the
/// thread we wait for run on our core); it still keeps a core busy while idle, so prefer
/// [`SleepWait`](crate::SleepWait) or [`BlockingWait`](crate::BlockingWait) for long idle periods.
/// `notify_all` does nothing (waiters poll).
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
    /// Spins 64 times, then yields.
    pub const fn new() -> Self {
        Self {
            spins: DEFAULT_SPINS,
        }
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
