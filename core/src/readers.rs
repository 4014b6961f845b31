//! [`ReaderRegistry`]: the fixed-capacity set of reader cursors writers gate on, with the
//! cached minimum so writers do not rescan every reader on every claim.
//!
//! ## Protocol
//!
//! A slot is `FREE`, `ATTACHING` or `ACTIVE`. Attaching claims a free slot with a CAS (no lock,
//! so an interrupt that preempts an attach cannot deadlock a writer), stores a provisional
//! cursor, marks the slot `ACTIVE`, bumps `generation` with an acquire-release RMW, and then
//! stores its real start: the published cursor loaded *after* the bump.
//!
//! A writer computes the minimum between two acquire-release RMWs of `generation` (reads that
//! take part in its modification order), loading the published cursor and every active reader
//! cursor in between — each exactly once, into a local: comparing a live cursor twice can yield
//! a minimum that is too high (a bug GNU Radio 4 had with libc++). Because RMWs on one location
//! are totally ordered, exactly one of three things happened:
//! - the attach's bump came before the writer's first RMW: the writer acquired it and sees the
//!   slot `ACTIVE` with (at least) its provisional cursor;
//! - it came between the two: the generations differ and the writer rescans (bounded; a writer
//!   that gives up keeps its older, lower, still-valid cache);
//! - it came after the writer's second RMW: the attach acquired the writer's scan, so its
//!   load of the published cursor happens after every load the scan made, and by coherence
//!   returns a cursor no older than any of them. The minimum the writer computed is therefore
//!   ≤ the new reader's start.
//!
//! In every case a computed minimum stays a valid lower bound of all readers, present and
//! future, so caching it is safe: a stale cache can only make a writer wait or rescan, never
//! overwrite unread slots. The argument uses only acquire/release and RMW atomicity, so loom
//! (which does not model `SeqCst` fully) checks it as written.

use crate::cache_padded::CachePadded;
use crate::error::AttachError;
use crate::internal::Internal;
use crate::layout::Layout;
use crate::sequence::is_before;
use crate::sync::{AtomicUsize, Ordering};

const FREE: usize = 0;
const ATTACHING: usize = 1;
const ACTIVE: usize = 2;

#[derive(Debug)]
#[repr(C)]
struct ReaderSlot {
    state: AtomicUsize,
    cursor: AtomicUsize,
}

/// A reader's own position (kept apart from the ring handle so waiting closures can borrow it
/// mutably while the ring is borrowed shared).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadPos {
    pub(crate) slot: usize,
    /// Next cursor to read.
    pub(crate) cursor: usize,
    /// The end of the items this reader already knows are published (a cursor at or after
    /// `cursor`): a cache of the published cursor, or (multi-producer) of the data records
    /// walked, always a span head there. Stale only means "fewer"; never past a skipped slot.
    front: usize,
    /// The part of `cursor..front` that plain `+ 1` steps reach ([`Layout::plain_steps`]: all
    /// of it on a power-of-two capacity, else up to the lap's last slot). Kept as a cursor so
    /// the one-item read's fast path is one compare and its consume one increment.
    pub(crate) end: usize,
}

impl ReadPos {
    /// A position at `cursor` in registry slot `slot`, knowing of no published item yet.
    pub(crate) fn new(slot: usize, cursor: usize) -> Self {
        Self {
            slot,
            cursor,
            front: cursor,
            end: cursor,
        }
    }

    /// Items from `cursor` known published that plain steps reach (`cursor..end`): what the
    /// fast paths may take without lap arithmetic or an atomic access.
    #[inline(always)]
    pub(crate) fn known(&self) -> usize {
        self.end.wrapping_sub(self.cursor)
    }

    /// Every item from `cursor` known published (`cursor..front`).
    #[inline]
    pub(crate) fn ready(&self, layout: &Layout) -> usize {
        layout.distance(self.cursor, self.front).max(0) as usize
    }

    /// The end of everything known published (a span head on a multi-producer ring).
    #[inline(always)]
    pub(crate) fn front(&self) -> usize {
        self.front
    }

    /// Records that the `ready` items from `cursor` to `front` are published (`front` is
    /// `ready` items on: `Layout::advance(cursor, ready)`, `ready ≤ capacity`; on a
    /// multi-producer ring a span head).
    #[inline]
    pub(crate) fn set_ready(&mut self, layout: &Layout, front: usize, ready: usize) {
        debug_assert_eq!(front, layout.advance(self.cursor, ready));
        self.front = front;
        self.set_end(layout, ready);
    }

    /// Sets `end` for the `ready` items known from `cursor` (`cursor..front`): the plain
    /// steps among them.
    #[inline]
    pub(crate) fn set_end(&mut self, layout: &Layout, ready: usize) {
        self.end = self
            .cursor
            .wrapping_add(ready.min(layout.plain_steps(self.cursor)));
    }

    /// Moves to `cursor`, `count` items on (never past `front`: a read shows only items known
    /// published). A move that reaches `end` leaves no plain steps known, even if `front` is
    /// further (the lap's last slot was passed): the next read's poll sets them again from
    /// `front` (`set_end`), without an atomic access. Kept this small because it is every
    /// span's consume: a larger form (recomputing `end` here) tipped the span's drop out of
    /// line and cost a `try_read(1)` loop 6–15% (the calls bench, 2026-12-07).
    #[inline(always)]
    pub(crate) fn consumed(&mut self, cursor: usize, count: usize) {
        if count >= self.known() {
            self.end = cursor;
        }
        self.cursor = cursor;
    }
}

/// Reader cursors (at most `N`) and the writers' cached minimum over them.
///
/// ```
/// use spanring_core::sync::{AtomicUsize, Ordering};
/// use spanring_core::parts::ReaderRegistry;
/// use spanring_core::parts::Registry;
/// let published = AtomicUsize::new(10);
/// let readers = ReaderRegistry::<2>::new(10);
/// let a = readers.attach(&published).unwrap();
/// published.store(20, Ordering::Release);
/// let b = readers.attach(&published).unwrap();
/// assert_eq!(readers.cursor(b), 20);
/// assert_eq!(readers.refresh_min(&published), Some(10)); // reader `a` is still at 10
/// readers.store_cursor(a, 15);
/// assert_eq!(readers.refresh_min(&published), Some(15));
/// readers.detach(a);
/// readers.detach(b);
/// assert_eq!(readers.refresh_min(&published), Some(20)); // no readers: the published cursor
/// ```
#[derive(Debug)]
#[repr(C)]
pub struct ReaderRegistry<const N: usize> {
    slots: [CachePadded<ReaderSlot>; N],
    generation: CachePadded<AtomicUsize>,
    cached_min: CachePadded<AtomicUsize>,
}

/// How often a writer rescans when readers keep attaching under it before it settles for its
/// old cached minimum.
const SCAN_RETRIES: usize = 4;

impl<const N: usize> ReaderRegistry<N> {
    /// An empty registry whose cached minimum starts at `start` (the ring's first cursor).
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let readers = ReaderRegistry::<4>::new(100);
    /// assert_eq!((readers.cached_min(), readers.active()), (100, 0));
    /// let slot = readers.attach(&AtomicUsize::new(100)).unwrap();
    /// assert_eq!(readers.cursor(slot), 100);
    /// ```
    pub fn new(start: usize) -> Self {
        Self {
            slots: core::array::from_fn(|_| {
                CachePadded::new(ReaderSlot {
                    state: AtomicUsize::new(FREE),
                    cursor: AtomicUsize::new(start),
                })
            }),
            generation: CachePadded::new(AtomicUsize::new(0)),
            cached_min: CachePadded::new(AtomicUsize::new(start)),
        }
    }

    /// An empty registry for a ring starting at cursor 0, in `const` context (for `static`
    /// rings). Not available under the loom model checker, whose atomics are not const.
    ///
    /// ```
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// static READERS: ReaderRegistry<2> = ReaderRegistry::new_at_zero();
    /// assert_eq!((READERS.cached_min(), READERS.active()), (0, 0));
    /// ```
    #[cfg(not(spanring_loom))]
    pub const fn new_at_zero() -> Self {
        Self {
            slots: [const {
                CachePadded::new(ReaderSlot {
                    state: AtomicUsize::new(FREE),
                    cursor: AtomicUsize::new(0),
                })
            }; N],
            generation: CachePadded::new(AtomicUsize::new(0)),
            cached_min: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// The registry's capacity.
    ///
    /// ```
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let readers = ReaderRegistry::<3>::new(0);
    /// assert_eq!(readers.capacity(), 3);
    /// ```
    pub const fn capacity(&self) -> usize {
        N
    }
}

/// The operations of a reader registry, over which the ring's protocol runs; implemented by
/// [`ReaderRegistry`] (a fixed number of slots inside the ring). Generic code names a ring's
/// registry through this trait, not through its slot count.
///
/// # Safety
///
/// The ring's protocol trusts an implementation to keep this module's attach/scan protocol:
/// a cursor it returns is one a reader stored, and a minimum it computes is a lower bound of
/// every reader present or attaching.
///
/// ```
/// use spanring_core::sync::AtomicUsize;
/// use spanring_core::parts::{ReaderRegistry, Registry};
/// let readers = ReaderRegistry::<2>::new(3);
/// let slot = readers.attach(&AtomicUsize::new(3)).unwrap();
/// assert_eq!((readers.cursor(slot), readers.active()), (3, 1));
/// ```
#[allow(private_interfaces)]
pub unsafe trait Registry {
    /// Attaches a reader at the current published cursor; returns its slot.
    ///
    /// # Errors
    ///
    /// [`AttachError::TooManyReaders`] when all `N` slots are taken.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::AttachError;
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let published = AtomicUsize::new(7);
    /// let readers = ReaderRegistry::<1>::new(7);
    /// let slot = readers.attach(&published).unwrap();
    /// assert_eq!(readers.cursor(slot), 7); // starts at the published cursor
    /// assert_eq!(readers.attach(&published), Err(AttachError::TooManyReaders { max: 1 }));
    /// ```
    fn attach(&self, published: &AtomicUsize) -> Result<usize, AttachError>;

    /// Frees slot `i`; writers stop waiting for it from their next scan on.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let published = AtomicUsize::new(0);
    /// let readers = ReaderRegistry::<1>::new(0);
    /// let slot = readers.attach(&published).unwrap();
    /// readers.detach(slot);
    /// assert_eq!(readers.active(), 0);
    /// assert!(readers.attach(&published).is_ok()); // the slot is free again
    /// ```
    fn detach(&self, i: usize);

    /// The active reader furthest behind, as `(slot, cursor)`, by plain loads (no generation
    /// check, so a reader attaching meanwhile may be missed): only a hint, for a writer
    /// waiting on a full ring to watch ([`holds_at`](Self::holds_at)).
    #[doc(hidden)]
    fn slowest(&self, _: Internal) -> Option<(usize, usize)>;

    /// Whether slot `i` holds an active reader at `cursor` now: then no writer can have more
    /// room than that reader leaves, whatever the other readers do (the minimum over the
    /// active readers is at or behind it).
    #[doc(hidden)]
    fn holds_at(&self, i: usize, cursor: usize, _: Internal) -> bool;

    /// Current cursor of slot `i`.
    ///
    /// ```
    /// use spanring_core::sync::{AtomicUsize, Ordering};
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let published = AtomicUsize::new(5);
    /// let readers = ReaderRegistry::<2>::new(5);
    /// let slot = readers.attach(&published).unwrap();
    /// assert_eq!(readers.cursor(slot), 5);
    /// readers.store_cursor(slot, 6);
    /// assert_eq!(readers.cursor(slot), 6);
    /// ```
    fn cursor(&self, i: usize) -> usize;

    /// Moves slot `i`'s cursor (the reader consumed up to `cursor`).
    ///
    /// ```
    /// use spanring_core::sync::{AtomicUsize, Ordering};
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let published = AtomicUsize::new(0);
    /// let readers = ReaderRegistry::<2>::new(0);
    /// let slot = readers.attach(&published).unwrap();
    /// published.store(5, Ordering::Release); // five items published
    /// readers.store_cursor(slot, 3); // the reader consumed three
    /// assert_eq!(readers.refresh_min(&published), Some(3));
    /// ```
    fn store_cursor(&self, i: usize, cursor: usize);

    /// [`store_cursor`](Self::store_cursor) for an attached reader's own slot, every item:
    /// `i < N` holds (attach handed it out), so with a power-of-two `N` (the default 4) the
    /// index is masked instead of checked (no compare and branch per item; the mask changes
    /// nothing for a valid index).
    #[doc(hidden)]
    fn store_own_cursor(&self, i: usize, cursor: usize, _: Internal);

    /// The cached minimum: a cursor no active reader is behind. May be stale (lower than the
    /// truth), never too high.
    ///
    /// ```
    /// use spanring_core::sync::{AtomicUsize, Ordering};
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let published = AtomicUsize::new(0);
    /// let readers = ReaderRegistry::<2>::new(0);
    /// let slot = readers.attach(&published).unwrap();
    /// published.store(8, Ordering::Release);
    /// readers.store_cursor(slot, 5);
    /// assert_eq!(readers.cached_min(), 0); // stale until a rescan: lower, never higher
    /// assert_eq!(readers.refresh_min(&published), Some(5));
    /// assert_eq!(readers.cached_min(), 5);
    /// ```
    fn cached_min(&self) -> usize;

    /// Rescans every reader (each cursor loaded once) and caches the minimum. With no active
    /// readers the minimum is the published cursor (slots beyond it may still be held by
    /// writers). Returns `None` if readers kept attaching during every retry (the cache then
    /// keeps its older, lower value).
    ///
    /// ```
    /// use spanring_core::sync::{AtomicUsize, Ordering};
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let published = AtomicUsize::new(4);
    /// let readers = ReaderRegistry::<2>::new(0);
    /// assert_eq!(readers.refresh_min(&published), Some(4)); // no readers: the published cursor
    /// let _slot = readers.attach(&published).unwrap();
    /// published.store(9, Ordering::Release);
    /// assert_eq!(readers.refresh_min(&published), Some(4)); // the reader is still at 4
    /// ```
    fn refresh_min(&self, published: &AtomicUsize) -> Option<usize>;

    /// Number of active readers (a snapshot).
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// let published = AtomicUsize::new(0);
    /// let readers = ReaderRegistry::<4>::new(0);
    /// let a = readers.attach(&published).unwrap();
    /// let _b = readers.attach(&published).unwrap();
    /// assert_eq!(readers.active(), 2);
    /// readers.detach(a);
    /// assert_eq!(readers.active(), 1);
    /// ```
    fn active(&self) -> usize;
}

// SAFETY: the bodies below are the module's protocol (see the module docs and the loom models
// in core/tests/loom_ring.rs and loom_records.rs).
#[allow(private_interfaces)]
unsafe impl<const N: usize> Registry for ReaderRegistry<N> {
    fn attach(&self, published: &AtomicUsize) -> Result<usize, AttachError> {
        for (i, slot) in self.slots.iter().enumerate() {
            // Acquire on success: pairs with the Release `detach` of the slot's previous
            // reader. A scan that later sees this slot ACTIVE (through our generation bump)
            // reads *our* cursor, not the old reader's, so the old reader's reads of its slots
            // must reach writers through us: without this, a writer could overwrite slots the
            // detached reader was still reading (loom: loom_records::attach_detach_*).
            // Failure: the slot is taken, nothing to order.
            if slot
                .state
                .compare_exchange(FREE, ATTACHING, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                continue;
            }
            // Release (not Relaxed): a scan may still see the previous reader's ACTIVE state
            // together with this provisional cursor; its Acquire cursor load must then carry
            // the previous reader's detach (acquired by our CAS) to the writer, or the writer
            // could overwrite slots that reader was still reading (loom found it:
            // loom_records::attach_detach_race_refresh_and_hint_walk).
            slot.cursor
                .store(published.load(Ordering::Acquire), Ordering::Release);
            // Release: a scan can see ACTIVE before it sees our generation bump (and then
            // still use our cursor when the bump lands after its second RMW); its Acquire
            // state load must then still carry the previous reader's detach (acquired by our
            // CAS above) to the writer.
            slot.state.store(ACTIVE, Ordering::Release);
            // AcqRel RMW: releases the slot state to scans that acquire the generation later;
            // acquires every scan that ended (with its own RMW) before, see the module docs.
            self.generation.fetch_add(1, Ordering::AcqRel);
            // Acquire: loaded after the RMW, so no older than any cursor a completed scan saw.
            let start = published.load(Ordering::Acquire);
            // Release: writers that acquire it see a cursor ≥ the provisional one.
            slot.cursor.store(start, Ordering::Release);
            return Ok(i);
        }
        Err(AttachError::TooManyReaders { max: N })
    }

    fn detach(&self, i: usize) {
        // Release: the reader's last reads of its slots happen before writers, which acquire
        // the state in their scan, may reuse them.
        self.slots[i].state.store(FREE, Ordering::Release);
    }

    fn slowest(&self, _: Internal) -> Option<(usize, usize)> {
        let mut slowest: Option<(usize, usize)> = None;
        for (i, slot) in self.slots.iter().enumerate() {
            // Acquire: as in `refresh_min` (a hint here, but the same pairing).
            if slot.state.load(Ordering::Acquire) == ACTIVE {
                let cursor = slot.cursor.load(Ordering::Acquire);
                match slowest {
                    Some((_, c)) if !is_before(cursor, c) => {}
                    _ => slowest = Some((i, cursor)),
                }
            }
        }
        slowest
    }

    #[inline]
    fn holds_at(&self, i: usize, cursor: usize, _: Internal) -> bool {
        // Acquire: pairs with the reader's Release stores (attach, consume, detach); a `true`
        // that a detach or a consume makes stale right after is followed by that reader's
        // notify of the writers' wait strategy, as for any scan.
        self.slots[i].state.load(Ordering::Acquire) == ACTIVE
            && self.slots[i].cursor.load(Ordering::Acquire) == cursor
    }

    #[inline]
    fn cursor(&self, i: usize) -> usize {
        // Acquire: pairs with the Release in store_cursor (and the attach stores).
        self.slots[i].cursor.load(Ordering::Acquire)
    }

    #[inline]
    fn store_cursor(&self, i: usize, cursor: usize) {
        // Release: the reader's reads of the consumed slots happen before a writer that
        // acquires this value overwrites them.
        self.slots[i].cursor.store(cursor, Ordering::Release);
    }

    #[inline(always)]
    fn store_own_cursor(&self, i: usize, cursor: usize, _: Internal) {
        debug_assert!(i < N);
        let i = if N.is_power_of_two() { i & (N - 1) } else { i };
        // Release: as in `store_cursor`.
        self.slots[i].cursor.store(cursor, Ordering::Release);
    }

    #[inline]
    fn cached_min(&self) -> usize {
        // Acquire: pairs with the Release store in refresh_min, which was made after acquiring
        // the reader cursors it summarises, so the readers' reads happen before our writes.
        self.cached_min.load(Ordering::Acquire)
    }

    fn refresh_min(&self, published: &AtomicUsize) -> Option<usize> {
        for _ in 0..SCAN_RETRIES {
            // AcqRel RMWs (not loads): they take a place in the generation's modification
            // order, which is what the module-level argument rests on.
            let before = self.generation.fetch_add(0, Ordering::AcqRel);
            // Acquire: slots at or before the published cursor are done by their writers.
            let mut min = published.load(Ordering::Acquire);
            for slot in &self.slots {
                // Acquire: pairs with the readers' Release cursor stores (their reads of the
                // slots happen before we let writers overwrite them).
                if slot.state.load(Ordering::Acquire) == ACTIVE {
                    let cursor = slot.cursor.load(Ordering::Acquire); // loaded exactly once
                    if is_before(cursor, min) {
                        min = cursor;
                    }
                }
            }
            if self.generation.fetch_add(0, Ordering::AcqRel) == before {
                // Release: see cached_min.
                self.cached_min.store(min, Ordering::Release);
                return Some(min);
            }
        }
        None
    }

    fn active(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.state.load(Ordering::Acquire) == ACTIVE)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_pos_keeps_plain_steps_and_everything_known() {
        // Capacity 3 (not a power of two): the lap's last slot is not a plain step.
        let l = Layout::new(3).unwrap();
        let start = l.normalize(usize::MAX); // the last slot of a lap near the wrap
        let lap = l.advance(start, 1); // the next lap's first slot
        let mut p = ReadPos::new(0, lap);
        assert_eq!((p.known(), p.ready(&l)), (0, 0));
        p.set_ready(&l, l.advance(lap, 3), 3);
        assert_eq!((p.known(), p.ready(&l)), (2, 3)); // stops before the last slot
        let c = l.advance(lap, 1);
        p.consumed(c, 1); // a plain step: the window stays
        assert_eq!((p.end, p.known(), p.ready(&l)), (lap.wrapping_add(2), 1, 2));
        let c = l.advance(c, 1);
        p.consumed(c, 1); // at the last slot: no plain step left, one item still ready
        assert_eq!((p.known(), p.ready(&l)), (0, 1));
        p.set_ready(&l, l.advance(c, 3), 3); // two more published in the next lap
        let c = l.advance(c, 1);
        p.consumed(c, 1); // past the last slot: nothing plain known until `set_end`
        assert_eq!((p.cursor, p.known(), p.ready(&l)), (c, 0, 2));
        p.set_end(&l, p.ready(&l)); // what a poll does with what it already knows
        assert_eq!(p.known(), 2);
        let c = l.advance(c, 2);
        p.consumed(c, 2); // everything
        assert_eq!((p.end, p.known(), p.ready(&l)), (c, 0, 0));

        // A power-of-two capacity: every step is plain, across the lap and the usize wrap.
        let l = Layout::new(4).unwrap();
        let mut p = ReadPos::new(1, usize::MAX - 1);
        p.set_ready(&l, l.advance(usize::MAX - 1, 4), 4);
        assert_eq!((p.known(), p.ready(&l)), (4, 4));
        p.consumed(1, 3);
        assert_eq!((p.known(), p.ready(&l)), (1, 1));
    }

    #[test]
    fn min_is_the_oldest_reader_across_wrap() {
        let start = usize::MAX - 3;
        let published = AtomicUsize::new(start);
        let r = ReaderRegistry::<3>::new(start);
        let a = r.attach(&published).unwrap();
        let b = r.attach(&published).unwrap();
        published.store(start.wrapping_add(10), Ordering::Relaxed);
        r.store_cursor(a, start.wrapping_add(8)); // past the wrap
        assert_eq!(r.refresh_min(&published), Some(start)); // b is still at start
        r.store_cursor(b, start.wrapping_add(9));
        assert_eq!(r.refresh_min(&published), Some(start.wrapping_add(8)));
        assert_eq!(r.cached_min(), start.wrapping_add(8));
    }

    #[test]
    fn registry_full_is_a_typed_error() {
        let published = AtomicUsize::new(0);
        let r = ReaderRegistry::<1>::new(0);
        let a = r.attach(&published).unwrap();
        assert_eq!(
            r.attach(&published),
            Err(AttachError::TooManyReaders { max: 1 })
        );
        r.detach(a);
        assert!(r.attach(&published).is_ok());
        assert_eq!(r.active(), 1);
    }
}
