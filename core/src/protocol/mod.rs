//! The claim protocol below the [`Writer`] handle: how a writer gets `n` free slots.
//!
//! One file per claim mode, and one for reading ([`read`]): [`single`] (one writer: a private claim cursor and a cached count
//! of free slots; the slow path rescans the readers, and a writer waiting on a full ring
//! watches the reader that holds it full) and [`multi`] (several writers: a CAS on the shared
//! claim cursor, a sole-writer cache that claims without a CAS while one writer is alone, the
//! withdrawal of a claim that lost a race with `close`). This file holds what both share: the
//! inlined entry ([`claim_in`](Writer::claim_in)), its fast path, the size and close checks.
//! Publication is in `claim.rs` (the multi-producer records) and `ring.rs` (`finish_span`);
//! wake-ups stay in the handle layer (`writer/`, `ring.rs`).
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
//! records for crash recovery. Today the functions still take `&Ring`.

pub(crate) mod multi;
pub(crate) mod read;
pub(crate) mod single;
pub(crate) mod state;

use core::ops::Deref;

use crate::claim::{ClaimMode, SpLocal};
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
    #[inline]
    pub(crate) fn try_claim(&mut self, n: usize) -> Result<usize, ReserveError> {
        Self::claim_in(&self.ring, &mut self.local, n)
    }

    /// Claims `n` slots: returns the first cursor. Free space is `capacity` minus the distance
    /// from the slowest reader (a cached lower bound, refreshed only when it looks too small)
    /// to the claim cursor.
    ///
    /// Always inlined, and only the fast path ([`claim_fast`](Self::claim_fast)): everything
    /// else is in [`claim_in_slow`](Self::claim_in_slow), so the compiler cannot out-line the
    /// one compare along with the rest (it did, when this was one `#[inline]` function).
    #[inline(always)]
    pub(crate) fn claim_in(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        n: usize,
    ) -> Result<usize, ReserveError> {
        if let Some(start) = Self::claim_fast(ring, local, n) {
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

    /// The claim's fast path: the start cursor if the cached free count covers `n` (and, on a
    /// single-producer ring, no close is seen), `None` for everything else. An `Option` in
    /// registers, so the one-item calls that branch on it never build a `Result` in memory.
    #[inline(always)]
    pub(crate) fn claim_fast(ring: &Ring<S, P, W, N>, local: &SpLocal, n: usize) -> Option<usize> {
        if P::MULTI {
            // Relaxed: the flag is set by this writer and cleared only by a clone of it, both
            // ordered before this load (writers module); a close racing the load defers its
            // seal to us, so a claim that misses it counts as made before it.
            if ring.state.writers.load(Ordering::Relaxed) == writers::CACHED && n <= local.room {
                // The cache holder keeps its claim cursor in `next` too (set when it takes the
                // cache, moved with every publish), so the claim loads no shared word that the
                // last publish stored: the chain from one push to the next stays in registers.
                // (Not under loom: an extra atomic load there would only grow the models.
                // Relaxed: only this writer stores the cursor while it holds the cache.)
                #[cfg(not(spanring_loom))]
                debug_assert!(ring.state.producer.multi().is_some_and(
                    |m| crate::claim::MultiClaim::claim(m).load(Ordering::Relaxed) == local.next
                ));
                return Some(local.next); // as single-producer
            }
            return None; // the writers word decides, in `claim_in_slow`
        }
        // Relaxed: a hint; nothing is read on the strength of it.
        let closed = ring.state.closed.load(Ordering::Relaxed);
        // One compare against the cached free count.
        (n <= local.room && !closed).then_some(local.next)
    }

    /// [`claim_in`](Self::claim_in) past the single-producer fast path: the cached free count
    /// is too small, the ring is closed, or the ring is multi-producer (the CAS loop).
    #[inline(never)]
    pub(crate) fn claim_in_slow(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        n: usize,
        closed: bool,
    ) -> Result<usize, ReserveError> {
        let cap = ring.capacity();
        if n > cap {
            return Err(ReserveError::TooLarge {
                requested: n,
                capacity: cap,
            });
        }
        if closed {
            return Err(Self::closed_for_claim(ring));
        }
        match ring.state.producer.multi() {
            None => Self::claim_single_slow(ring, local, n),
            Some(m) => Self::claim_multi_slow(ring, local, m, n),
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
    pub(crate) fn closed_since_scan(ring: &Ring<S, P, W, N>) -> bool {
        ring.state.closed.load(Ordering::Relaxed)
    }

    /// A claim found the ring closed. A single-producer writer, or the one writer a
    /// multi-producer close deferred its seal to, has no span in flight now (a live span
    /// borrows the writer), so the close is complete for readers: seal it.
    #[cold]
    #[inline(never)]
    pub(crate) fn closed_for_claim(ring: &Ring<S, P, W, N>) -> ReserveError {
        // Acquire: the close's CAS (Release) decided the flags we read.
        if !P::MULTI || ring.state.writers.load(Ordering::Acquire) & writers::SEAL_DEFERRED != 0 {
            ring.seal();
        }
        ReserveError::Closed
    }
}
