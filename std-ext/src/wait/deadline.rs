//! Turning a timeout into a deadline, once, so every retry loop measures against the same end.

use std::time::{Duration, Instant};

/// When a timed wait must give up. `None` inside means "never" (the timeout overflowed
/// `Instant`, which happens only for absurd durations such as `Duration::MAX`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline(Option<Instant>);

impl Deadline {
    /// No deadline: wait for ever.
    pub(crate) const NEVER: Deadline = Deadline(None);

    /// `timeout` from now.
    pub(crate) fn after(timeout: Duration) -> Self {
        Deadline(Instant::now().checked_add(timeout))
    }

    /// Time left, or `None` for "no deadline"; `Some(Duration::ZERO)` once it has passed.
    pub(crate) fn remaining(self) -> Option<Duration> {
        self.0
            .map(|end| end.saturating_duration_since(Instant::now()))
    }

    /// True once the deadline has passed (never for [`Deadline::NEVER`]).
    pub(crate) fn has_passed(self) -> bool {
        self.remaining() == Some(Duration::ZERO)
    }
}
