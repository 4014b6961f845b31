//! The claim as a [`Writer`] makes it: the protocol's claim (`protocol`, over the ring's
//! [`RingState`](crate::protocol::state::RingState)), and the wake-up that is the handle
//! layer's part: a claim that returns `Closed` may have sealed the close or withdrawn a
//! claim, so the readers waiting for either are woken.

use core::ops::Deref;

use crate::claim::{ClaimMode, SpLocal};
use crate::error::ReserveError;
use crate::protocol::{self, multi};
use crate::ring::Ring;
use crate::storage::Storage;
use crate::sync::Ordering;
use crate::wait::WaitStrategy;
use crate::writer::Writer;

impl<S, P, W, const N: usize, R> Writer<R>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
    R: Deref<Target = Ring<S, P, W, N>>,
{
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
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        n: usize,
    ) -> Result<usize, ReserveError> {
        if let Some(start) = protocol::claim_fast(&ring.state, local, n) {
            return Ok(start);
        }
        if P::MULTI {
            if let Some(claimed) = Self::claim_shared_fast(ring, n) {
                return claimed;
            }
        }
        // Relaxed: a hint, as in `claim_fast` (the multi-producer path reads the writers word).
        let closed = !P::MULTI && ring.state.closed.load(Ordering::Relaxed);
        Self::claim_in_slow(ring, local, n, closed)
    }

    /// One CAS on the claim cursor for one of several multi-producer writers
    /// (`protocol::multi::claim_shared_fast`); `None` when the slow path must decide.
    #[inline(always)]
    pub(crate) fn claim_shared_fast(
        ring: &Ring<S, P, W, N>,
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
        ring: &Ring<S, P, W, N>,
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
    fn wake_readers_after_close(ring: &Ring<S, P, W, N>) {
        ring.data.notify_all();
    }
}
