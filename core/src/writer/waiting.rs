//! Waiting for room: the claim of a [`Writer`] on a full ring, through the ring's
//! [`WaitStrategy`]. Each check of the strategy claims again (or, on a single-producer ring,
//! first asks the watched reader whether anything changed: `protocol::single`); the claim a
//! check makes is held by a guard until the strategy returns, so a strategy that panics after
//! its `ready()` returned `true` loses no claim (`protocol::multi::PublishNoneOnUnwind`).

use core::ops::Deref;

use super::guard::PublishNoneOnUnwind;
use crate::claim::{ClaimMode, SpLocal};
use crate::error::ReserveError;
use crate::protocol::single::{self, WatchedReader};
use crate::ring::Ring;
use crate::storage::Storage;
use crate::wait::WaitStrategy;
use crate::writer::Writer;

impl<S, P, W, const N: usize, R> Writer<R>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
    R: Deref<Target = Ring<S, P, W, N>>,
{
    /// Claims `n` slots, waiting through `wait` while the ring is full; `wait` returns `false`
    /// when it gave up. The first attempt is the same inline `claim_in` as `try_reserve` (one
    /// compare against the cached free count on a single-producer ring); waiting is out of
    /// line, in [`claim_waiting_cold`](Self::claim_waiting_cold).
    #[inline]
    pub(crate) fn claim_waiting(
        &mut self,
        n: usize,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReserveError> {
        let outcome = Self::claim_in(&self.ring, &mut self.local, n);
        if !matches!(outcome, Err(ReserveError::Full { .. })) {
            return outcome;
        }
        self.claim_waiting_cold(n, wait)
    }

    /// The waiting part of [`claim_waiting`](Self::claim_waiting): the ring was full.
    #[cold]
    #[inline(never)]
    pub(crate) fn claim_waiting_cold(
        &mut self,
        n: usize,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReserveError> {
        Self::claim_waiting_in(&self.ring, &mut self.local, n, wait)
    }

    /// [`claim_waiting_cold`](Self::claim_waiting_cold) on a ring and a private claim state.
    #[inline(always)]
    pub(crate) fn claim_waiting_in(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        n: usize,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReserveError> {
        // Once more before waiting (cheap here, out of line), so the outcome never depends on
        // a strategy calling `ready()` before it returns.
        let mut outcome = Self::claim_in(ring, local, n);
        if !matches!(outcome, Err(ReserveError::Full { .. })) {
            return outcome;
        }
        // The claim `ready()` makes is held by a guard until `wait` returns: a strategy that
        // panics after `ready()` returned `true` unwinds through it, and on a multi-producer
        // ring a claim dropped unpublished would stop every reader there for good. The guard
        // publishes nothing of it instead (gives it back, or skips it behind a later claim).
        // A strategy that calls `ready()` again after `true` claims nothing more, and one that
        // reports a timeout after `true` still gets its claim: no claim is ever lost.
        let mut held: Option<PublishNoneOnUnwind<'_, S, P, W, N>> = None;
        // A single-producer writer waiting on a full ring watches the reader that holds it
        // full: while that reader is active at the same cursor, a claim would fail again, so
        // a check is three loads instead of a rescan of every reader (two read-modify-writes
        // on the registry's generation each), which matters when both threads share a core
        // and every check before the yield is wasted. The watch may only skip what it
        // watches: the close is a condition of its own, so every check looks at `closed`
        // first (`WatchedReader::still_holds`); a close, a consume or a detach of the
        // watched reader ends the watch, and the next check claims again, which decides.
        // (Skipping the close here once left a writer blocked for good behind an idle
        // reader: `tests/close_matrix.rs`, HAZARDS.md.)
        let mut watch: Option<WatchedReader> = None;
        let ready = wait(&ring.space, &mut || {
            if held.is_some() || !matches!(outcome, Err(ReserveError::Full { .. })) {
                return true;
            }
            if let Some(w) = watch {
                if w.still_holds(&ring.state) {
                    return false;
                }
                watch = None;
            }
            match Self::claim_in(ring, local, n) {
                Ok(start) => held = Some(PublishNoneOnUnwind::new(ring, start, n)),
                failed => {
                    outcome = failed;
                    if !P::MULTI && matches!(outcome, Err(ReserveError::Full { .. })) {
                        watch = single::holding_reader(&ring.state, local.next, n);
                    }
                }
            }
            held.is_some() || !matches!(outcome, Err(ReserveError::Full { .. }))
        });
        if let Some(guard) = held {
            return Ok(guard.disarm());
        }
        if !ready {
            return Err(ReserveError::TimedOut);
        }
        outcome
    }
}
