//! The claim as a [`Writer`] makes it: the protocol's claim (`protocol`, over the ring's
//! [`RingState`](crate::protocol::state::RingState)), and what is the handle layer's part:
//! waking the readers after a claim that returns `Closed` (it may have sealed the close or
//! withdrawn a claim), and waiting for room through the ring's wait strategy.
//!
//! Waiting: each check of the strategy claims again (or, on a single-producer ring, first
//! asks the watched reader whether anything changed: `protocol::single`); the claim a check
//! makes is held by a guard until the strategy returns, so a strategy that panics after its
//! `ready()` returned `true` loses no claim (`guard.rs`).

use super::guard::PublishNoneOnUnwind;
use crate::claim::{ClaimMode, SpLocal};
use crate::error::ReserveError;
use crate::protocol::single::{self, WatchedReader};
use crate::protocol::{self, multi};
use crate::ring_ref::RingPtr;
use crate::sync::Ordering;
use crate::wait::WaitStrategy;
use crate::writer::Writer;

impl<R: RingPtr> Writer<R> {
    #[inline]
    pub(crate) fn try_claim(&mut self, n: usize) -> Result<usize, ReserveError> {
        Self::claim_in(&self.ring, &mut self.local, n)
    }

    /// Claims `n` slots: returns the first cursor. Free space is `capacity` minus the distance
    /// from the slowest reader (a cached lower bound, refreshed only when it looks too small)
    /// to the claim cursor.
    ///
    /// Always inlined, and only the fast paths (`protocol::claim_fast`, and with several
    /// multi-producer writers one CAS): everything else is in
    /// [`claim_in_slow`](Self::claim_in_slow), so the compiler cannot out-line the one compare
    /// along with the rest (it did, when this was one `#[inline]` function).
    #[inline(always)]
    pub(crate) fn claim_in(
        ring: &R::Target,
        local: &mut SpLocal,
        n: usize,
    ) -> Result<usize, ReserveError> {
        if let Some(start) = protocol::claim_fast(&ring.state, local, n) {
            return Ok(start);
        }
        if <R::Mode as ClaimMode>::MULTI {
            if let Some(claimed) = Self::claim_shared_fast(ring, n) {
                return claimed;
            }
        }
        // Relaxed: a hint, as in `claim_fast` (the multi-producer path reads the writers word).
        let closed = !<R::Mode as ClaimMode>::MULTI && ring.state.closed.load(Ordering::Relaxed);
        Self::claim_in_slow(ring, local, n, closed)
    }

    /// One CAS on the claim cursor for one of several multi-producer writers
    /// (`protocol::multi::claim_shared_fast`); `None` when the slow path must decide.
    #[inline(always)]
    pub(crate) fn claim_shared_fast(
        ring: &R::Target,
        n: usize,
    ) -> Option<Result<usize, ReserveError>> {
        let claimed = multi::claim_shared_fast(&ring.state, n)?;
        if claimed.is_err() {
            Self::wake_readers_after_close(ring);
        }
        Some(claimed)
    }

    /// [`claim_in`](Self::claim_in) past the fast paths (`protocol::claim_slow`).
    #[inline(never)]
    pub(crate) fn claim_in_slow(
        ring: &R::Target,
        local: &mut SpLocal,
        n: usize,
        closed: bool,
    ) -> Result<usize, ReserveError> {
        let claimed = protocol::claim_slow(&ring.state, local, n, closed);
        if matches!(claimed, Err(ReserveError::Closed)) {
            Self::wake_readers_after_close(ring);
        }
        claimed
    }

    /// A claim returned `Closed`: it may have sealed the close or withdrawn a claim (published
    /// it as nothing), and readers may be waiting for either.
    #[cold]
    #[inline(never)]
    fn wake_readers_after_close(ring: &R::Target) {
        ring.data.notify_all();
    }

    /// Claims `n` slots, waiting through `wait` while the ring is full; `wait` returns `false`
    /// when it gave up. The first attempt is the same inline `claim_in` as `try_reserve` (one
    /// compare against the cached free count on a single-producer ring); waiting is out of
    /// line, in [`claim_waiting_cold`](Self::claim_waiting_cold).
    #[inline]
    pub(crate) fn claim_waiting(
        &mut self,
        n: usize,
        wait: impl FnOnce(&R::Wait, &mut dyn FnMut() -> bool) -> bool,
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
        wait: impl FnOnce(&R::Wait, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReserveError> {
        Self::claim_waiting_in(&self.ring, &mut self.local, n, wait)
    }

    /// [`claim_waiting_cold`](Self::claim_waiting_cold) on a ring and a private claim state.
    #[inline(always)]
    pub(crate) fn claim_waiting_in(
        ring: &R::Target,
        local: &mut SpLocal,
        n: usize,
        wait: impl FnOnce(&R::Wait, &mut dyn FnMut() -> bool) -> bool,
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
        let mut held: Option<PublishNoneOnUnwind<'_, _, _, _, _>> = None;
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
                    if !<R::Mode as ClaimMode>::MULTI
                        && matches!(outcome, Err(ReserveError::Full { .. }))
                    {
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
