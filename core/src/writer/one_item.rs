//! The one-item paths of [`Writer`]: `push`, `try_push` and `push_timeout` past their inline
//! fast path, and the store-and-publish of one slot for each claim mode.
//!
//! Slow paths work on a copy of the claim state, passed in as scalars and returned, so no call
//! in a push loop takes the handle's address and the loop keeps its cursor in registers
//! (`core/src/NOTES.md` has the measurements behind that choice).

use super::guard::PublishNoneOnUnwind;
use crate::claim::{ClaimMode, MultiClaim, SpLocal};
use crate::error::{PushError, ReserveError};
use crate::ring::RingCore;
use crate::ring_ref::RingPtr;
use crate::wait::WaitStrategy;
use crate::writer::Writer;

impl<R: RingPtr> Writer<R> {
    /// A waiting one-item push past the fast path: the claim out of line on a copy of the
    /// private state ([`claim_cold_on_copy`](Self::claim_cold_on_copy)), the store and the
    /// publish inline. No call gets the handle's address, so in a loop of pushes on a handle
    /// the loop owns, the compiler can keep the claim state in registers (as `for x in reader`
    /// does for the reader's cursor, `reader_iter.rs`; the measurements are in
    /// `core/src/NOTES.md`). (`try_push` puts the store and the publish out of line too:
    /// [`try_push_cold_on_copy`](Self::try_push_cold_on_copy).)
    ///
    /// If the claim unwinds (a panicking wait strategy, or a `notify_all` in a seal), the
    /// handle keeps its state from before the call, and that must stay right:
    /// - Single-producer: a claim changes nothing shared but the readers' cached minimum
    ///   (which stays valid), the old limit is a lower bound of the new one, `next` has not
    ///   moved (nothing was published), and the fast path only fails with no cached room or a
    ///   close seen, so the next push comes back here.
    /// - Multi-producer: the claim may have taken the sole-writer cache anew, and then the
    ///   handle's room and limit are from an earlier cache period (the limit may even look
    ///   ahead of the claim cursor once distances wrap on 32-bit). So the handle is marked
    ///   first: no room, which sends its next claim to `claim_cached`, and that trusts no
    ///   limit when it finds no room (it starts from the claim cursor and rescans the
    ///   readers). A normal return overwrites the mark with the copy's state, so it costs
    ///   nothing. Nothing shared is left half-done: a claim `ready()` made is published as
    ///   nothing while unwinding (`claim_waiting_in`).
    #[inline(always)]
    pub(crate) fn push_cold_on_copy(
        &mut self,
        item: R::Item,
        wait: impl FnOnce(&R::Wait, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<(), PushError<R::Item>> {
        let SpLocal { limit, next, room } = self.local;
        if <R::Mode as ClaimMode>::MULTI {
            self.local.room = 0;
        }
        let (local, claimed) = Self::claim_cold_on_copy(&self.ring, limit, next, room, wait);
        self.local = local;
        match claimed {
            Ok(start) => {
                Self::write_one_in(&self.ring, &mut self.local, start, item);
                Ok(())
            }
            Err(e) => Err(PushError::from_reserve(e, item)),
        }
    }

    /// [`try_push`](Self::try_push) past the fast path: the claim, the store and the publish
    /// all out of line ([`try_push_cold_in`](Self::try_push_cold_in)), on a copy of the
    /// private state that comes back with the outcome. What stays inline at a `try_push` is
    /// the fast path and one call, so a `try_push` wrapped in a retry closure (a closure handed
    /// to a wait loop) stays small enough for the compiler to inline into the caller's loop;
    /// with the store and the publish inline here too it was not, a call per item. The
    /// waiting forms keep the store and the publish inline ([`push_cold_on_copy`](
    /// Self::push_cold_on_copy)): their own loops are faster that way (`core/src/NOTES.md`).
    ///
    /// If the cold part unwinds (an old item's drop, a `notify_all` after the publish or in a
    /// seal), the handle keeps its state from before the call, marked first: no room, so its
    /// next claim takes the slow path, which does not trust that state.
    /// - Single-producer: the slow claim starts from the published cursor
    ///   ([`claim_in_slow`](Self::claim_in_slow)), which is the claim cursor whenever no span
    ///   is in flight (every publish moves both to the same place), so a slot the copy
    ///   published before unwinding is not claimed again. The old limit is a lower bound of
    ///   the new one (a claim changes nothing shared but the readers' cached minimum).
    /// - Multi-producer: as for [`push_cold_on_copy`](Self::push_cold_on_copy): the cache
    ///   holder's slow claim starts from the claim cursor and trusts no limit without room; a
    ///   writer that claims by CAS does not use the state. A claimed slot whose old item's
    ///   drop panics is published as nothing (`write_one_in`).
    ///
    /// A normal return overwrites the mark with the copy's state, so it costs nothing.
    #[inline(always)]
    pub(crate) fn try_push_cold_on_copy(
        &mut self,
        item: R::Item,
    ) -> Result<(), PushError<R::Item>> {
        let SpLocal { limit, next, room } = self.local;
        self.local.room = 0;
        let (local, pushed) = Self::try_push_cold_in(&self.ring, limit, next, room, item);
        self.local = local;
        pushed
    }

    /// The one-item claim of [`push_cold_on_copy`](Self::push_cold_on_copy), out of line: on
    /// a copy of the claim state, returned with the outcome; waits through `wait` while full.
    /// The state comes in as three scalars, not as an `SpLocal`: a struct of three words or
    /// more is passed by pointer, and the compiler may then pass the handle's own `local`
    /// (dead after the call, which overwrites it), whose address then escapes and keeps it in
    /// memory through the whole push loop (`core/src/NOTES.md` has what that cost).
    #[cold]
    #[inline(never)]
    pub(crate) fn claim_cold_on_copy(
        ring: &R::Target,
        limit: usize,
        next: usize,
        room: usize,
        wait: impl FnOnce(&R::Wait, &mut dyn FnMut() -> bool) -> bool,
    ) -> (SpLocal, Result<usize, ReserveError>) {
        let mut local = SpLocal { limit, next, room };
        let claimed = Self::claim_waiting_in(ring, &mut local, 1, wait);
        (local, claimed)
    }

    /// The one-item push of [`try_push_cold_on_copy`](Self::try_push_cold_on_copy), out of
    /// line: the claim, the store and the publish, on a copy of the claim state (in as
    /// scalars, as [`claim_cold_on_copy`](Self::claim_cold_on_copy) says why), returned with
    /// the outcome.
    #[cold]
    #[inline(never)]
    pub(crate) fn try_push_cold_in(
        ring: &R::Target,
        limit: usize,
        next: usize,
        room: usize,
        item: R::Item,
    ) -> (SpLocal, Result<(), PushError<R::Item>>) {
        let mut local = SpLocal { limit, next, room };
        let pushed = match Self::claim_in(ring, &mut local, 1) {
            Ok(start) => {
                Self::write_one_in(ring, &mut local, start, item);
                Ok(())
            }
            Err(e) => Err(PushError::from_reserve(e, item)),
        };
        (local, pushed)
    }

    /// Stores `item` in the claimed slot at `start` and publishes it, moving `local` past it.
    ///
    /// A single-producer writer does it without a span (a span's two-part slices and its
    /// drop flag cost more than the store at one item a time). Nothing shared changed at the
    /// claim, so if dropping the slot's old item panics, nothing needs undoing: the slot is
    /// simply claimed again. A multi-producer claim moved the shared claim cursor, so its
    /// slot must be published or given back even then: that is the span's drop.
    #[inline(always)]
    pub(crate) fn write_one_in(ring: &R::Target, local: &mut SpLocal, start: usize, item: R::Item) {
        if <R::Mode as ClaimMode>::MULTI {
            return Self::write_one_multi(ring, local, start, item);
        }
        Self::store_single(ring, start, item);
        // Moves `local` past the slot (a slow claim may have taken the lap's last slot, beyond
        // the fast-path count: `finish_span` saturates), then publishes.
        ring.finish_span(start, 1, 1, local, crate::internal::INTERNAL);
    }

    /// The inline part of every one-item push: the cached claim (`protocol::claim_fast`) and
    /// the store and publish, then [`push_shared`](Self::push_shared). [`FastPush::Slow`]
    /// gives the item back for the push's out-of-line part.
    #[inline(always)]
    pub(crate) fn push_fast(&mut self, item: R::Item) -> FastPush<R::Item> {
        if let Some(start) = crate::protocol::claim_fast(&self.ring.state, &self.local, 1) {
            self.write_one_fast(start, item);
            return FastPush::Pushed;
        }
        self.push_shared(item)
    }

    /// The second fast path of every one-item push, after the cached claim
    /// (`protocol::claim_fast`) failed: with several multi-producer writers, one CAS
    /// on the claim cursor ([`claim_shared_fast`](Self::claim_shared_fast)), then the store
    /// and the publish, inlined. [`FastPush::Slow`] gives the item back when the slow path
    /// must decide (always on a single-producer ring, where this compiles to nothing).
    #[inline(always)]
    pub(crate) fn push_shared(&mut self, item: R::Item) -> FastPush<R::Item> {
        if <R::Mode as ClaimMode>::MULTI {
            match Self::claim_shared_fast(&self.ring, 1) {
                Some(Ok(start)) => {
                    self.write_one_shared(start, item);
                    return FastPush::Pushed;
                }
                Some(Err(e)) => return FastPush::Failed(PushError::from_reserve(e, item)),
                None => {}
            }
        }
        FastPush::Slow(item)
    }

    /// [`write_one_in`](Self::write_one_in) for a slot [`claim_shared_fast`](Self::claim_shared_fast)
    /// granted (one of several multi-producer writers): the store, then the one-slot record
    /// (one `Release` store: a one-slot span has no interior to scrub and gives nothing back),
    /// the close check and the wake-up: what [`RingCore::finish_span`](crate::ring::RingCore)
    /// does for such a span, without its calls.
    #[inline(always)]
    pub(crate) fn write_one_shared(&mut self, start: usize, item: R::Item) {
        let ring = &*self.ring;
        let Some(m) = ring.state.producer.multi() else {
            return; // unreachable: only called on a multi-producer ring
        };
        let guard = PublishNoneOnUnwind::new(ring, start, 1);
        // The claim CAS gave this writer the slot at `start` exclusively: not published, so
        // no reader looks at it, and the claim cursor moved past it, so no other writer claims
        // it.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
        guard.disarm();
        m.publish_one(&ring.state.layout, start);
        ring.after_shared_publish();
    }

    /// [`write_one_in`](Self::write_one_in) for a slot `protocol::claim_fast` granted: on
    /// a single-producer ring that is never the lap's last slot (`SpLocal::fast_room`), so
    /// the next cursor is `start + 1`, with no lap arithmetic.
    #[inline(always)]
    pub(crate) fn write_one_fast(&mut self, start: usize, item: R::Item) {
        if <R::Mode as ClaimMode>::MULTI {
            return self.write_one_sole_fast(start, item);
        }
        Self::store_single(&self.ring, start, item);
        // The index of `start` is below `capacity − 1`, so adding one carries into no lap
        // bit: the same cursor `Layout::advance(start, 1)` computes.
        let next = start.wrapping_add(1);
        debug_assert_eq!(next, self.ring.state.layout.advance(start, 1));
        // The private state first: the publish ends in the wait strategy's `notify_all`, user
        // code that may panic, and a writer left behind its published cursor would claim the
        // published slot again (ring.rs, `finish_span`).
        self.local.next = next;
        self.local.room -= 1; // the fast claim checked `1 ≤ room`
        self.ring.publish_single(next, true);
    }

    /// Stores `item` in the single-producer writer's claimed slot at `start`.
    #[inline(always)]
    pub(crate) fn store_single(ring: &R::Target, start: usize, item: R::Item) {
        // The claim gave this writer the slot at `start` exclusively: not published, so no
        // reader looks at it, and a single-producer ring has no other writer.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
    }

    /// [`write_one_in`](Self::write_one_in) on a multi-producer ring: the claim moved the shared
    /// claim cursor, so the slot is published, or (if dropping the slot's old item panics)
    /// given back or skipped by publishing none of it, as a span's drop would. A guard instead
    /// of a span: for items whose drop cannot panic it compiles away.
    #[inline(always)]
    pub(crate) fn write_one_multi(
        ring: &R::Target,
        local: &mut SpLocal,
        start: usize,
        item: R::Item,
    ) {
        let guard = PublishNoneOnUnwind::new(ring, start, 1);
        // The claim gave this writer the slot at `start` exclusively: not published, so no
        // reader looks at it, and the claim cursor moved past it, so no other writer claims it.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
        guard.disarm();
        // The claim came from the cache (then `1 ≤ room`) or from the CAS (then `room` is not
        // used until the cache is taken again, which resets it): `finish_span` saturates.
        ring.finish_span(start, 1, 1, local, crate::internal::INTERNAL);
    }

    /// [`write_one_in`](Self::write_one_in) on a multi-producer ring for a slot
    /// `protocol::claim_fast` granted: the writer holds the sole-writer cache (the
    /// fast path saw the writers word at exactly `CACHED`: no clone, no close) and the slot is
    /// not the lap's last (its count stops short of it, `SpLocal::fast_room`). So the publish
    /// is one record store and the claim cursor `start + 1`, without the writers-word reload
    /// and lap arithmetic of a span's publish. A close that lands after the fast path's load
    /// defers its seal to this writer (writers module); it is sealed at the next claim, clone
    /// or drop, as for a close landing just after a span's publish.
    #[inline(always)]
    pub(crate) fn write_one_sole_fast(&mut self, start: usize, item: R::Item) {
        let ring = &*self.ring;
        let Some(m) = ring.state.producer.multi() else {
            return; // unreachable: `<R::Mode as ClaimMode>::MULTI`
        };
        let guard = PublishNoneOnUnwind::new(ring, start, 1);
        // The cache granted this writer the slot at `start` exclusively: not published, so no
        // reader looks at it, and no other writer exists while the cache is held.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
        guard.disarm();
        m.publish_sole_one(&ring.state.layout, start);
        // Before `notify_all`, which may panic (as in `write_one_fast`). The claim cursor's
        // copy moves as `publish_sole_one` moved the cursor (never the lap's last slot).
        self.local.next = start.wrapping_add(1);
        self.local.room -= 1; // the fast claim checked `1 ≤ room`
        ring.data.notify_all();
    }
}

/// What the inline part of a push ([`Writer::push_fast`]) did with an item.
pub(crate) enum FastPush<T> {
    /// Stored and published.
    Pushed,
    /// Not tried here: the slow path decides (the item comes back).
    Slow(T),
    /// The claim found the ring closed (and was withdrawn).
    Failed(PushError<T>),
}
