//! How a bridge thread waits while its ring has nothing for it (sender: nothing published;
//! receiver: no free slot): spin, then yield, then short sleeps, so that a stop request is seen
//! within a millisecond without a blocking ring call that nothing could interrupt.

use std::time::Duration;

/// The longest single sleep: bounds both the idle latency and how late a stop is noticed.
pub(crate) const MAX_SLEEP: Duration = Duration::from_micros(500);

/// An escalating idle wait; [`Idle::reset`] after every bit of progress.
#[derive(Debug, Default)]
pub(crate) struct Idle {
    rounds: u32,
}

impl Idle {
    /// Forget earlier idle rounds: the next wait spins again.
    pub(crate) fn reset(&mut self) {
        self.rounds = 0;
    }

    /// Wait a little, longer the more rounds in a row found nothing.
    pub(crate) fn wait(&mut self) {
        match self.rounds {
            0..=7 => core::hint::spin_loop(),
            8..=15 => std::thread::yield_now(),
            n => {
                let micros = 20u64 << ((n - 16) / 4).min(5);
                std::thread::sleep(Duration::from_micros(micros).min(MAX_SLEEP));
            }
        }
        self.rounds = self.rounds.saturating_add(1);
    }
}
