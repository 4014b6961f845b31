//! The single-producer claim past its fast path, and the watch of a writer waiting on a full
//! ring.
//!
//! One writer: the claim cursor is private ([`SpLocal`]), and the fast path is one compare
//! against a cached count of free slots. Past it, the claim starts again from the published
//! cursor (the claim cursor whenever no span is in flight) and rescans the readers only if
//! the cached limit leaves too little room; a claim that rescanned re-checks `closed`, so a
//! close followed by the last reader's detach is never taken for free space.
//!
//! A writer waiting on a full ring remembers the reader that holds it full
//! ([`WatchedReader`]): while that reader sits at the same cursor and the ring is open, a
//! check is three loads instead of a rescan of every reader. The watch may only skip what it
//! watches: `closed` is read first, and a close, a consume or a detach ends it.

use super::state::RingState;
use super::{closed_for_claim, closed_since_scan};
use crate::claim::{ClaimMode, SpLocal};
use crate::error::ReserveError;
use crate::internal::INTERNAL;
use crate::readers::Registry;
use crate::sync::Ordering;

/// The single-producer claim past the fast path's cached free count: from the published
/// cursor, rescanning the readers only if the cached limit leaves too little room.
#[inline(always)]
pub(crate) fn claim_single_slow<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    local: &mut SpLocal,
    n: usize,
) -> Result<usize, ReserveError> {
    let layout = &state.layout;
    // The claim cursor is the published cursor whenever no span is in flight (a
    // span borrows the writer, so none is now): start from it, not from the
    // handle's copy, which a `try_push` that unwound in `try_push_cold_in` after
    // its publish left one slot behind (`try_push_cold_on_copy`). Relaxed: only
    // this writer stores it.
    local.next = state.published.load(Ordering::Relaxed);
    // The fast path stops short of the lap's last slot: the cached limit may
    // still cover the claim, and then the readers need no rescan.
    let mut free = local.free(layout, local.next);
    if free < n {
        if let Some(min) = state.refresh_min() {
            local.limit = SpLocal::limit_for(layout, min);
        }
        if closed_since_scan(state) {
            return Err(closed_for_claim(state));
        }
        free = local.free(layout, local.next);
    }
    local.room = SpLocal::fast_room(layout, local.next, free);
    if free < n {
        return Err(ReserveError::Full { free });
    }
    Ok(local.next)
}

/// The reader that holds a single-producer ring too full for `n` slots at the claim
/// cursor `next`, as `(registry slot, cursor)`: the one furthest behind, if with it alone
/// fewer than `n` slots would be free. `None` if no such reader is seen (the next check
/// then claims again).
pub(crate) fn holding_reader<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    next: usize,
    n: usize,
) -> Option<WatchedReader> {
    let (slot, cursor) = state.readers.slowest(INTERNAL)?;
    // Only this writer moves `next`, and the reader never passes it: `used ≥ 0`.
    let used = state.layout.distance(cursor, next);
    let free = state.capacity().saturating_sub(used.max(0) as usize);
    (used >= 0 && free < n).then_some(WatchedReader { slot, cursor })
}

/// The reader that holds a waiting single-producer writer's ring full, as the writer last saw
/// it: its registry slot and its cursor then. A hint that spares a waiting writer the rescan of
/// every reader while nothing it waits for has changed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WatchedReader {
    slot: usize,
    cursor: usize,
}

impl WatchedReader {
    /// Whether the ring is still open and the watched reader still holds it full (active at
    /// the same cursor): then a claim would fail `Full` again. `false` ends the watch and the
    /// caller claims again, which decides (`Closed`, `Full` or a claim).
    #[inline]
    pub(crate) fn still_holds<P: ClaimMode, G: Registry>(self, state: &RingState<P, G>) -> bool {
        // Relaxed: a hint, as in `claim_fast`: a `true` seen here only sends us to the claim,
        // whose slow path decides with its own orderings. The close is looked at before the
        // reader, so a close made before the waiting strategy's `notify_all` is seen by the
        // check that follows the wake-up, whatever the watched reader does (the strategy's
        // contract: a check after registration sees every store made before a later notify).
        !state.closed.load(Ordering::Relaxed)
            && state.readers.holds_at(self.slot, self.cursor, INTERNAL)
    }
}
