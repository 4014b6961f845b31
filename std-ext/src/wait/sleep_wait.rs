//! [`SleepWait`]: spin, then yield, then sleep a fixed duration between checks.

use std::time::Duration;

use spanring_core::{WaitStrategy, WaitTimeout};

use super::deadline::Deadline;
use super::{spin_phase, DEFAULT_SPINS};

/// Spins `spins` times, yields `yields` times, then sleeps `sleep` between checks.
///
/// When to use it: background consumers that tolerate up to `sleep` of extra latency and should
/// burn almost no CPU while idle, without any cost on the notifying side (`notify_all` does
/// nothing). For long idle periods with prompt wake-up, use
/// [`BlockingWait`](crate::BlockingWait).
///
/// ```
/// use std::time::Duration;
/// use spanring_std::SleepWait;
/// use spanring_std::core_api::WaitTimeout;
/// let w = SleepWait { sleep: Duration::from_micros(10), ..SleepWait::default() };
/// assert!(w.wait_until_timeout(&mut || true, Duration::ZERO));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SleepWait {
    /// Checks with a spin hint before yielding.
    pub spins: u32,
    /// Checks with a `yield_now` before sleeping.
    pub yields: u32,
    /// Sleep between checks after that (default 50 µs; the OS may round it up).
    pub sleep: Duration,
}

impl SleepWait {
    /// 64 spins, 16 yields, then 50 µs sleeps.
    ///
    /// ```
    /// use std::time::Duration;
    /// use spanring_std::SleepWait;
    /// use spanring_std::core_api::WaitTimeout;
    /// const WAIT: SleepWait = SleepWait::new();
    /// assert_eq!((WAIT.spins, WAIT.yields), (64, 16));
    /// assert_eq!(WAIT.sleep, Duration::from_micros(50));
    /// assert!(!WAIT.wait_until_timeout(&mut || false, Duration::from_millis(1)));
    /// ```
    pub const fn new() -> Self {
        Self {
            spins: DEFAULT_SPINS,
            yields: 16,
            sleep: Duration::from_micros(50),
        }
    }

    fn wait(&self, ready: &mut dyn FnMut() -> bool, deadline: Deadline) -> bool {
        if spin_phase(ready, self.spins) {
            return true;
        }
        let mut yields = 0;
        loop {
            if ready() {
                return true;
            }
            let remaining = deadline.remaining();
            if remaining == Some(Duration::ZERO) {
                return ready(); // the final check, at/after the deadline
            }
            if yields < self.yields {
                yields += 1;
                crate::sync::yield_now();
            } else {
                // Never sleep past the deadline.
                std::thread::sleep(remaining.map_or(self.sleep, |left| left.min(self.sleep)));
            }
        }
    }
}

impl Default for SleepWait {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStrategy for SleepWait {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        self.wait(ready, Deadline::NEVER);
    }
    fn notify_all(&self) {}
}

impl WaitTimeout for SleepWait {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        self.wait(ready, Deadline::after(timeout))
    }
}
