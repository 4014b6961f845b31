//! The multi-producer claim past its fast path: the writers word decides between the
//! sole-writer cache (one writer alone claims from a private copy of the claim cursor, without
//! a CAS) and the CAS loop on the shared claim cursor; a claim whose CAS lands after a close is
//! withdrawn (published as nothing) so readers waiting for it can finish.
//!
//! A claim held while user code runs is guarded by the handle layer
//! (`writer/guard.rs`, `PublishNoneOnUnwind`): unwinding publishes none of it, so no reader
//! ever stops at a claimed slot.

use super::state::RingState;
use super::{closed_for_claim, closed_since_scan};
use crate::claim::{ClaimMode, MultiClaim, SpLocal};
use crate::error::ReserveError;
use crate::readers::Registry;
use crate::sync::Ordering;
use crate::writers;

/// The multi-producer claim past the fast paths: by the writers word, the sole writer's
/// cached claim (taking the cache if this writer is alone) or the CAS loop.
#[inline(always)]
pub(crate) fn claim_multi_slow<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    local: &mut SpLocal,
    m: &P::Multi,
    n: usize,
) -> Result<usize, ReserveError> {
    // Acquire: a writer that left (AcqRel decrement) made its claims visible to
    // our claim-cursor loads; see the writers module for the sole-writer claim.
    let mut word = state.writers.load(Ordering::Acquire);
    loop {
        if word & writers::CLOSED != 0 {
            return Err(closed_for_claim(state));
        }
        if word == writers::SOLO {
            if !writers::take_cache(&state.writers) {
                // Acquire: as the load above, re-read after a change.
                word = state.writers.load(Ordering::Acquire);
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
            return claim_cached(state, local, claim, n);
        }
        return claim_multi(state, m, n);
    }
}

/// The claim of one of several multi-producer writers, inlined: one CAS on the claim
/// cursor when the writers word carries no flag and the cached minimum of the readers
/// covers `n`; the same loads, checks and orderings as the first round of
/// [`claim_multi`](claim_multi). `None` for everything else (one writer, which
/// takes the cache; a close decided; a full ring by the cached minimum; a lost CAS), which
/// `claim_slow` decides. A claim that finds the ring closed
/// after its CAS is withdrawn and fails `Closed`, as in `claim_multi` (its slots may have
/// become a skipped hole, so the slow path could no longer tell the close from a full
/// ring: loom's `mp_close_races_claims_and_partial_publish` caught that).
#[inline(always)]
pub(crate) fn claim_shared_fast<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    n: usize,
) -> Option<Result<usize, ReserveError>> {
    let m = state.producer.multi()?;
    // Acquire: as in `claim_in_slow` (a writer that left made its claims visible to our
    // claim-cursor load).
    let word = state.writers.load(Ordering::Acquire);
    if !writers::shared_claim_allowed(word) {
        return None;
    }
    let layout = &state.layout;
    // As in `claim_multi`: the cached minimum first, then the claim cursor (Relaxed: the
    // CAS validates it); a negative or over-capacity `used` sends us to the slow path.
    let min = state.readers.cached_min();
    let c = m.claim().load(Ordering::Relaxed);
    let used = layout.distance(min, c);
    if used < 0 || state.capacity().saturating_sub(used as usize) < n {
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
    if state.closed.load(Ordering::Relaxed) {
        return Some(Err(withdraw(state, c, n)));
    }
    Some(Ok(c))
}

/// The sole multi-producer writer's claim past its cached free count: rescans the readers
/// (moving the published hint to its claim cursor, writers module) and claims from the
/// cache, as a single-producer writer does.
#[inline(always)]
pub(crate) fn claim_cached<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    local: &mut SpLocal,
    claim: usize,
    n: usize,
) -> Result<usize, ReserveError> {
    let layout = &state.layout;
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
        if let Some(min) = state.refresh_min_sole(claim) {
            local.limit = SpLocal::limit_for(layout, min);
        }
        if closed_since_scan(state) {
            return Err(closed_for_claim(state));
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
pub(crate) fn claim_multi<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    m: &P::Multi,
    n: usize,
) -> Result<usize, ReserveError> {
    let cap = state.capacity();
    let layout = &state.layout;
    let mut lost = 0;
    loop {
        // The cached minimum first, then the claim: the minimum is ≤ the claim cursor at
        // the time it was computed, so `used` is non-negative unless the claim we read
        // is stale (then the CAS fails anyway). `used` can exceed the capacity when a
        // writer stored an older (still valid, lower) minimum over a newer one: that
        // only means "rescan", hence the saturating subtraction.
        let mut min = state.readers.cached_min();
        // Relaxed: the CAS below validates the value; slot reuse is ordered by the
        // Acquire loads of reader cursors (or of the cached minimum) instead.
        let c = m.claim().load(Ordering::Relaxed);
        let mut used = layout.distance(min, c);
        if used < 0 {
            continue;
        }
        if cap.saturating_sub(used as usize) < n {
            if let Some(fresh) = state.refresh_min() {
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
            if state.closed.load(Ordering::Relaxed) {
                return Err(withdraw(state, c, n));
            }
            return Ok(c);
        }
        // Another writer claimed first: back off before taking the line again.
        crate::sync::contention_backoff(&mut lost);
    }
}

/// A multi-producer claim of `[start, start + n)` that found the ring closed: publishes
/// nothing (gives the slots back, or skips them behind a later claim) so readers waiting
/// for the claim cursor can finish (the caller wakes them: the claim returns `Closed`).
#[cold]
#[inline(never)]
pub(crate) fn withdraw<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    start: usize,
    n: usize,
) -> ReserveError {
    if let Some(m) = state.producer.multi() {
        m.publish(&state.layout, start, n, 0);
    }
    closed_for_claim(state)
}
