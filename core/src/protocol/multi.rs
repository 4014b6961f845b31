//! The multi-producer claim past its fast path: the writers word decides between the
//! sole-writer cache (one writer alone claims from a private copy of the claim cursor, without
//! a CAS) and the CAS loop on the shared claim cursor; a claim whose CAS lands after a close is
//! withdrawn (published as nothing) so readers waiting for it can finish.
//!
//! [`PublishNoneOnUnwind`] guards a claim while user code runs (an old item's drop, a wait
//! strategy): unwinding publishes none of it, so no reader ever stops at a claimed slot.

use core::ops::Deref;

use crate::claim::{ClaimMode, MultiClaim, SpLocal};
use crate::error::ReserveError;
use crate::sync::Ordering;
use crate::writers;
use crate::{Ring, Storage, WaitStrategy, Writer};

impl<S, P, W, const N: usize, R> Writer<R>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
    R: Deref<Target = Ring<S, P, W, N>>,
{
    /// The multi-producer claim past the fast paths: by the writers word, the sole writer's
    /// cached claim (taking the cache if this writer is alone) or the CAS loop.
    #[inline(always)]
    pub(crate) fn claim_multi_slow(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        m: &P::Multi,
        n: usize,
    ) -> Result<usize, ReserveError> {
        // Acquire: a writer that left (AcqRel decrement) made its claims visible to
        // our claim-cursor loads; see the writers module for the sole-writer claim.
        let mut word = ring.state.writers.load(Ordering::Acquire);
        loop {
            if word & writers::CLOSED != 0 {
                return Err(Self::closed_for_claim(ring));
            }
            if word == writers::SOLO {
                if !writers::take_cache(&ring.state.writers) {
                    // Acquire: as the load above, re-read after a change.
                    word = ring.state.writers.load(Ordering::Acquire);
                    continue;
                }
                // No room: a limit left from an earlier time this writer held the
                // cache may be laps behind the claim cursor by now (other writers
                // claimed meanwhile), where a distance could wrap, so `claim_cached`
                // must not trust it.
                local.room = 0;
                word = writers::CACHED;
            }
            if word == writers::CACHED {
                // Relaxed: only this writer stores it now; a writer that left is
                // ordered before us by the Acquire CAS that took the cache (writers
                // module), or by the one before our earlier claims.
                let claim = m.claim().load(Ordering::Relaxed);
                return Self::claim_cached(ring, local, claim, n);
            }
            return Self::claim_multi(ring, m, n);
        }
    }

    /// The claim of one of several multi-producer writers, inlined: one CAS on the claim
    /// cursor when the writers word carries no flag and the cached minimum of the readers
    /// covers `n`; the same loads, checks and orderings as the first round of
    /// [`claim_multi`](Self::claim_multi). `None` for everything else (one writer, which
    /// takes the cache; a close decided; a full ring by the cached minimum; a lost CAS), which
    /// [`claim_in_slow`](Self::claim_in_slow) decides. A claim that finds the ring closed
    /// after its CAS is withdrawn and fails `Closed`, as in `claim_multi` (its slots may have
    /// become a skipped hole, so the slow path could no longer tell the close from a full
    /// ring: loom's `mp_close_races_claims_and_partial_publish` caught that).
    #[inline(always)]
    pub(crate) fn claim_shared_fast(
        ring: &Ring<S, P, W, N>,
        n: usize,
    ) -> Option<Result<usize, ReserveError>> {
        let m = ring.state.producer.multi()?;
        // Acquire: as in `claim_in_slow` (a writer that left made its claims visible to our
        // claim-cursor load).
        let word = ring.state.writers.load(Ordering::Acquire);
        if !writers::shared_claim_allowed(word) {
            return None;
        }
        let layout = &ring.state.layout;
        // As in `claim_multi`: the cached minimum first, then the claim cursor (Relaxed: the
        // CAS validates it); a negative or over-capacity `used` sends us to the slow path.
        let min = ring.state.readers.cached_min();
        let c = m.claim().load(Ordering::Relaxed);
        let used = layout.distance(min, c);
        if used < 0 || ring.capacity().saturating_sub(used as usize) < n {
            return None;
        }
        // Acquire on success: as in `claim_multi` (slots given back by a partial publish, and
        // the close's Release RMW on this cursor). Weak: a spurious failure only takes the
        // slow path.
        m.claim()
            .compare_exchange_weak(
                c,
                layout.advance(c, n),
                Ordering::Acquire,
                Ordering::Relaxed,
            )
            .ok()?;
        // Relaxed: as in `claim_multi`.
        if ring.state.closed.load(Ordering::Relaxed) {
            return Some(Err(Self::withdraw(ring, c, n)));
        }
        Some(Ok(c))
    }

    /// The sole multi-producer writer's claim past its cached free count: rescans the readers
    /// (moving the published hint to its claim cursor, writers module) and claims from the
    /// cache, as a single-producer writer does.
    #[inline(always)]
    pub(crate) fn claim_cached(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        claim: usize,
        n: usize,
    ) -> Result<usize, ReserveError> {
        let layout = &ring.state.layout;
        // Only this writer moves the claim cursor while it holds the cache: the fast path
        // claims from this copy.
        local.next = claim;
        if local.room == 0 {
            // No room: the cache was taken anew, or a claim on a copy of this state unwound
            // (`push_cold_on_copy`), or the room simply ran out. In the first two cases the
            // limit may be from an earlier cache period, and nothing in the state tells them
            // from the third, so the limit is not trusted: the claim cursor is a valid one
            // (every claim was within a capacity of the readers then, and readers only move
            // on), and it leaves no room until the rescan below. The cost is a rescan where
            // the old limit would have covered the claim: once a lap, at the lap's last slot
            // (which the fast path's count leaves out).
            local.limit = claim;
        }
        // The fast path's count stops short of the lap's last slot (as a single-producer
        // writer's): the cached limit may still cover the claim, and then the readers need no
        // rescan.
        let mut free = local.free(layout, claim);
        if free < n {
            if let Some(min) = ring.state.refresh_min_sole(claim) {
                local.limit = SpLocal::limit_for(layout, min);
            }
            if Self::closed_since_scan(ring) {
                return Err(Self::closed_for_claim(ring));
            }
            free = local.free(layout, claim);
        }
        local.room = SpLocal::fast_room(layout, claim, free);
        if free < n {
            return Err(ReserveError::Full { free });
        }
        Ok(claim)
    }

    /// The multi-producer claim of one of several writers: a CAS on the claim cursor.
    #[inline(always)]
    pub(crate) fn claim_multi(
        ring: &Ring<S, P, W, N>,
        m: &P::Multi,
        n: usize,
    ) -> Result<usize, ReserveError> {
        let cap = ring.capacity();
        let layout = &ring.state.layout;
        let mut lost = 0;
        loop {
            // The cached minimum first, then the claim: the minimum is ≤ the claim cursor at
            // the time it was computed, so `used` is non-negative unless the claim we read
            // is stale (then the CAS fails anyway). `used` can exceed the capacity when a
            // writer stored an older (still valid, lower) minimum over a newer one: that
            // only means "rescan", hence the saturating subtraction.
            let mut min = ring.state.readers.cached_min();
            // Relaxed: the CAS below validates the value; slot reuse is ordered by the
            // Acquire loads of reader cursors (or of the cached minimum) instead.
            let c = m.claim().load(Ordering::Relaxed);
            let mut used = layout.distance(min, c);
            if used < 0 {
                continue;
            }
            if cap.saturating_sub(used as usize) < n {
                if let Some(fresh) = ring.state.refresh_min() {
                    min = fresh;
                }
                used = layout.distance(min, c);
                if used < 0 {
                    continue;
                }
                let free = cap.saturating_sub(used as usize);
                if free < n {
                    if m.claim().load(Ordering::Relaxed) != c {
                        continue; // someone claimed or gave back meanwhile: recompute
                    }
                    return Err(ReserveError::Full { free });
                }
            }
            // Acquire on success: if these slots were given back by a partial publish, the
            // writes their previous claimant made happen before ours (pairs with the
            // Release give-back CAS in `MultiProducer::publish`). Nothing is published by claiming.
            // Acquire also pairs with the Release RMW of `Ring::close` on this cursor.
            if m.claim()
                .compare_exchange_weak(
                    c,
                    layout.advance(c, n),
                    Ordering::Acquire,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                // Relaxed: if our CAS came after the close's RMW in the cursor's order, the
                // Acquire above made `closed` visible; if it came before, the close counts
                // our claim and readers wait for it, so going on is right either way.
                if ring.state.closed.load(Ordering::Relaxed) {
                    return Err(Self::withdraw(ring, c, n));
                }
                return Ok(c);
            }
            // Another writer claimed first: back off before taking the line again.
            crate::sync::contention_backoff(&mut lost);
        }
    }

    /// A multi-producer claim of `[start, start + n)` that found the ring closed: publishes
    /// nothing (gives the slots back, or skips them behind a later claim) so readers waiting
    /// for the claim cursor can finish.
    #[cold]
    #[inline(never)]
    pub(crate) fn withdraw(ring: &Ring<S, P, W, N>, start: usize, n: usize) -> ReserveError {
        if let Some(m) = ring.state.producer.multi() {
            m.publish(&ring.state.layout, start, n, 0);
        }
        ring.data.notify_all();
        Self::closed_for_claim(ring)
    }
}

/// Publishes nothing of a multi-producer claim of `reserved` slots at `start` if dropped,
/// which happens only while unwinding: dropping a one-item slot's old item panicked, or a wait
/// strategy panicked after its `ready()` made the claim. The claim is given back or skipped,
/// as a span's drop would; readers never stop at it. Normal paths [`disarm`](Self::disarm)
/// it. On a single-producer ring it does nothing (a claim changed nothing shared: the slots
/// are simply claimed again), and for items whose drop cannot panic it compiles away.
pub(crate) struct PublishNoneOnUnwind<'a, S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize>
{
    ring: &'a Ring<S, P, W, N>,
    start: usize,
    reserved: usize,
}

impl<'a, S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize>
    PublishNoneOnUnwind<'a, S, P, W, N>
{
    #[inline(always)]
    pub(crate) fn new(ring: &'a Ring<S, P, W, N>, start: usize, reserved: usize) -> Self {
        Self {
            ring,
            start,
            reserved,
        }
    }

    /// The claim is in good hands (stored and about to be published, or returned to the
    /// caller): forget the guard, returning the claim's start.
    #[inline(always)]
    pub(crate) fn disarm(self) -> usize {
        let start = self.start;
        core::mem::forget(self);
        start
    }
}

impl<S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize> Drop
    for PublishNoneOnUnwind<'_, S, P, W, N>
{
    fn drop(&mut self) {
        if !P::MULTI {
            return;
        }
        // Publishing none changes no private claim state (the cursor stays at `start`, `room`
        // loses nothing): a scratch copy will do.
        let mut unchanged = SpLocal {
            limit: 0,
            next: self.start,
            room: 0,
        };
        crate::ring::RingCore::finish_span(
            self.ring,
            self.start,
            self.reserved,
            0,
            &mut unchanged,
            crate::ring::INTERNAL,
        );
    }
}
