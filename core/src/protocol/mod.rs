//! The claim protocol below the [`Writer`] handle: how a writer gets `n` free slots.
//!
//! One file per claim mode, and one for reading ([`read`]): [`single`] (one writer: a private claim cursor and a cached count
//! of free slots; the slow path rescans the readers, and a writer waiting on a full ring
//! watches the reader that holds it full) and [`multi`] (several writers: a CAS on the shared
//! claim cursor, a sole-writer cache that claims without a CAS while one writer is alone, the
//! withdrawal of a claim that lost a race with `close`). This file holds what both share: the
//! fast path, the size and close checks, and the dispatch to a mode's slow path.
//! Publication is in `claim.rs` (the multi-producer records) and `ring/mod.rs` (`finish_span`);
//! wake-ups stay in the handle layer (`writer/claim.rs` wakes the readers after a claim
//! that found the ring closed).
//!
//! # The state the protocol works on
//!
//! The functions here read and write these fields of [`Ring`]: the published cursor, the
//! reader registry, the claim mode's state (claim cursor and publication records), the
//! writers word, `closed` and `sealed`, the layout and the start cursor, plus the writer's
//! private [`SpLocal`]. All are fixed-width atomics or plain words; none holds a pointer
//! except the multi-producer record storage (`RecordWords`, caller memory by reference).
//! A ring shared by several processes will need that group as one `#[repr(C)]` block that
//! can live in a mapping: the record words as an offset into it rather than a reference,
//! fixed-width (`u32`/`u64`) cursors so a 32-bit and a 64-bit process agree, and owner
//! records for crash recovery. The functions here take that group as one type,
//! [`RingState`](state::RingState), never the `Ring`, its storage or a handle.

pub(crate) mod multi;
pub(crate) mod read;
pub(crate) mod single;
pub(crate) mod state;

use crate::claim::{ClaimMode, SpLocal};
use crate::error::ReserveError;
use crate::readers::Registry;
use crate::sync::Ordering;
use crate::writers;
use state::RingState;

/// The claim's fast path: the start cursor if the cached free count covers `n` (and, on a
/// single-producer ring, no close is seen), `None` for everything else. An `Option` in
/// registers, so the one-item calls that branch on it never build a `Result` in memory.
#[inline(always)]
pub(crate) fn claim_fast<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    local: &SpLocal,
    n: usize,
) -> Option<usize> {
    if P::MULTI {
        // Relaxed: the flag is set by this writer and cleared only by a clone of it, both
        // ordered before this load (writers module); a close racing the load defers its
        // seal to us, so a claim that misses it counts as made before it.
        if state.writers.load(Ordering::Relaxed) == writers::CACHED && n <= local.room {
            // The cache holder keeps its claim cursor in `next` too (set when it takes the
            // cache, moved with every publish), so the claim loads no shared word that the
            // last publish stored: the chain from one push to the next stays in registers.
            // (Not under loom: an extra atomic load there would only grow the models.
            // Relaxed: only this writer stores the cursor while it holds the cache.)
            #[cfg(not(spanring_loom))]
            debug_assert!(state
                .producer
                .multi()
                .is_some_and(
                    |m| crate::claim::MultiClaim::claim(m).load(Ordering::Relaxed) == local.next
                ));
            return Some(local.next); // as single-producer
        }
        return None; // the writers word decides, in `claim_slow`
    }
    // Relaxed: a hint; nothing is read on the strength of it.
    let closed = state.closed.load(Ordering::Relaxed);
    // One compare against the cached free count.
    (n <= local.room && !closed).then_some(local.next)
}

/// The claim past the single-producer fast path: the cached free count is too small, the
/// ring is closed, or the ring is multi-producer (the CAS loop). A claim that returns
/// `Closed` may have sealed the close or withdrawn a claim: the caller wakes the readers.
#[inline(always)]
pub(crate) fn claim_slow<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    local: &mut SpLocal,
    n: usize,
    closed: bool,
) -> Result<usize, ReserveError> {
    let cap = state.capacity();
    if n > cap {
        return Err(ReserveError::TooLarge {
            requested: n,
            capacity: cap,
        });
    }
    if closed {
        return Err(closed_for_claim(state));
    }
    match state.producer.multi() {
        None => single::claim_single_slow(state, local, n),
        Some(m) => multi::claim_multi_slow(state, local, m, n),
    }
}

/// After a rescan of the readers: did a close happen before something the scan saw?
///
/// The `closed` flag the claim checked first was loaded *before* the scan. A close followed
/// by a reader's detach (the last owned reader dropping does exactly that) can land between
/// the two: the scan then sees the detached reader's slots free, and a claim of them is
/// not one that came before the close (the space did not exist then), so it must fail
/// `Closed`. Found by `std-ext/tests/closing.rs` (a writer blocked on a full ring got
/// `Ok` after the last reader dropped).
///
/// Relaxed suffices: the scan read the detach with Acquire (the registry's RMWs and slot
/// loads), the detach follows the close in the closing thread, so the close happens before
/// this load and coherence makes it return `true`. A scan that saw no such detach computed
/// a minimum that gives no space the close could have freed.
#[inline]
pub(crate) fn closed_since_scan<P: ClaimMode, G: Registry>(state: &RingState<P, G>) -> bool {
    state.closed.load(Ordering::Relaxed)
}

/// A claim found the ring closed. A single-producer writer, or the one writer a
/// multi-producer close deferred its seal to, has no span in flight now (a live span
/// borrows the writer), so the close is complete for readers: seal it. (Waking the readers
/// that wait for the seal is the caller's: every claim that returns `Closed` does.)
#[cold]
#[inline(never)]
pub(crate) fn closed_for_claim<P: ClaimMode, G: Registry>(state: &RingState<P, G>) -> ReserveError {
    // Acquire: the close's CAS (Release) decided the flags we read.
    if !P::MULTI || state.writers.load(Ordering::Acquire) & writers::SEAL_DEFERRED != 0 {
        state.seal();
    }
    ReserveError::Closed
}
