//! [`RingState`]: the state the ring's protocol runs on, as one block.
//!
//! Everything writers and readers agree through lives here: the published cursor, the reader
//! registry, the claim mode's state (the multi-producer claim cursor and publication records),
//! the writers word (count, close flag, sole-writer cache flag), `closed` and `sealed`, the
//! layout and the start cursor. What is not here stays in the [`Ring`](crate::Ring): the
//! memory (`Storage`) and the two wait strategies, because waking threads is the handle
//! layer's business, not the protocol's.
//!
//! The block is `#[repr(C)]` with its fields in a fixed order, every shared word an atomic of
//! `usize` width and every hot word on its own cache line (the cursor and each reader slot are
//! padded), so the same layout can later be placed in a shared mapping. The reader registry is
//! a type parameter (`G: Registry`), so a registry whose slots live in a mapping, with a count
//! read from its header, can take the place of the in-ring `ReaderRegistry<N>`. What a ring
//! shared by processes will still need, and this block does not yet give:
//! - no references: a multi-producer ring's record words are caller memory held by the claim
//!   mode (`RecordWords`), which a mapping must hold as an offset from the block instead;
//! - fixed-width words (`u32`/`u64`, not `usize`), so a 32-bit and a 64-bit process agree;
//! - owner records (pid, start time, generation) for crash recovery (the header with magic,
//!   format version and a hash of the layout and item type is `spanring_std::shared`'s);
//! - atomics that are lock-free on the target (portable-atomic's lock-based fallback keeps its
//!   locks in process memory), which that mode must require at compile time.

use crate::claim::{ClaimMode, MultiClaim};
use crate::internal::INTERNAL;
use crate::layout::Layout;
use crate::readers::{ReadPos, Registry};
use crate::sequence::Sequence;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};

/// The ring's shared protocol state (see the module docs).
#[repr(C)]
pub(crate) struct RingState<P, G> {
    /// Single-producer: the published cursor. Multi-producer: a hint (a span head with
    /// everything before it published), advanced by walkers.
    pub(crate) published: Sequence,
    pub(crate) readers: G,
    pub(crate) producer: P,
    /// Writer count, close flag and sole-writer cache flag (`writers` module).
    pub(crate) writers: AtomicUsize,
    /// Set by `Ring::close`: new claims fail from then on.
    pub(crate) closed: AtomicBool,
    /// Set once no span claimed before the close can still be published: only then may a
    /// drained reader report `Closed` (`Ring::close`).
    pub(crate) sealed: AtomicBool,
    pub(crate) layout: Layout,
    pub(crate) start: usize,
    /// Whether the last writer's drop closes the ring (`Ring::stays_open` clears it). Set at
    /// construction, read-only afterwards.
    pub(crate) close_on_last_writer: bool,
}

impl<P: ClaimMode, G: Registry> RingState<P, G> {
    crate::__maybe_const_fn! {
        /// An open ring's state at `start`, with no handle attached. `readers` must start at
        /// `start`.
        pub(crate) fn new(
            layout: Layout,
            start: usize,
            readers: G,
            producer: P,
        ) -> Self {
            Self {
                published: Sequence::new(start),
                readers,
                producer,
                writers: AtomicUsize::new(0),
                closed: AtomicBool::new(false),
                sealed: AtomicBool::new(false),
                layout,
                start,
                close_on_last_writer: true,
            }
        }
    }

    /// Marks the close complete for readers (`Ring::close`): no span claimed before the close
    /// can still be published. The caller wakes the readers.
    #[inline]
    pub(crate) fn seal(&self) {
        // Release: a reader that acquires `sealed` sees every publication made before it (the
        // single-producer writer's last publish, or the multi-producer close RMW on the claim
        // cursor, which bounds what readers wait for).
        self.sealed.store(true, Ordering::Release);
    }

    /// Moves the reader at `pos` to `cursor`, `count` items after its cursor (0 when it passes
    /// holes), and tells the writers through its registry slot. The caller wakes writers that
    /// wait for space.
    #[inline(always)]
    pub(crate) fn consume_to(&self, pos: &mut ReadPos, cursor: usize, count: usize) {
        pos.consumed(cursor, count);
        self.readers.store_own_cursor(pos.slot, cursor, INTERNAL);
    }

    /// Number of slots.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.layout.capacity()
    }

    /// Rescans the readers; returns the new minimum if the scan was clean.
    #[inline]
    pub(crate) fn refresh_min(&self) -> Option<usize> {
        if let Some(m) = self.producer.multi() {
            // The hint is the scan's starting minimum: walk it forward first, or it would hold
            // writers back one capacity after it.
            m.walk_hint(&self.layout, &self.published);
        }
        self.readers.refresh_min(self.published.as_atomic())
    }

    /// [`refresh_min`](Self::refresh_min) for a multi-producer writer that is the ring's only
    /// one and has no span in flight: every slot before its claim cursor `claim` is published
    /// (or skipped), so the hint moves there without walking the records.
    #[inline]
    pub(crate) fn refresh_min_sole(&self, claim: usize) -> Option<usize> {
        // Acquire: as in `walk_hint` (the previous hint's walker released its records).
        let h = self.published.load(Ordering::Acquire);
        if self.layout.distance(h, claim) > 0 {
            // Release: attachers and scans that acquire the hint see our records (and the data
            // they announce). Failure: an attacher's walk moved it meanwhile (to a position
            // at or before `claim`); a lower hint only costs a walk later, keep it.
            let _ = self.published.as_atomic().compare_exchange(
                h,
                claim,
                Ordering::Release,
                Ordering::Relaxed,
            );
        }
        self.readers.refresh_min(self.published.as_atomic())
    }

    /// Once the close is sealed: the cursor at which the stream ends *for now* (readers at it
    /// are done only if nothing published is left). `None` while the ring is open or spans
    /// claimed before the close may still be published.
    #[inline]
    pub(crate) fn end_of_stream(&self) -> Option<usize> {
        // Acquire: pairs with `seal`'s Release.
        if !self.sealed.load(Ordering::Acquire) {
            return None;
        }
        Some(match self.producer.multi() {
            // Acquire: the claim cursor as of now, not older than the close RMW (which happens
            // before `seal`). Every slot below it is published, skipped or given back only
            // after its claimant finished; claims after the close withdraw (give back or skip),
            // so a reader at this value that sees nothing published is done.
            Some(m) => m.claim().load(Ordering::Acquire),
            // Acquire: the writer published everything before it sealed.
            None => self.published.load(Ordering::Acquire),
        })
    }
}
