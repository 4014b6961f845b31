//! [`Ring`]: the broadcast ring buffer over caller-provided memory.

use crate::cache_padded::CachePadded;
use crate::claim::{ClaimMode, MultiClaim, MultiProducer, SingleProducer};
use crate::error::CapacityError;
use crate::internal::{Internal, INTERNAL};
use crate::layout::Layout;
use crate::protocol::state::RingState;
use crate::readers::ReadPos;
use crate::readers::{ReaderRegistry, Registry};
use crate::storage::Storage;
use crate::sync::Ordering;
use crate::wait::BusySpin;
use crate::wait::WaitStrategy;

mod lifecycle;

/// A broadcast ring buffer: writers reserve spans of slots, fill them and publish them; every
/// attached reader sees every item published after it attached, in order, and consumes at its
/// own pace; writers wait for the slowest reader.
///
/// Type parameters:
/// - `S`: the memory ([`SliceStorage`](crate::SliceStorage) over a borrowed slice,
///   [`InlineStorage`](crate::InlineStorage), or std-ext's heap and double-mapped storage);
/// - `P`: [`SingleProducer`] (default: one unique writer, no CAS) or [`MultiProducer`];
/// - `W`: how blocking calls wait ([`BusySpin`] by default; std-ext adds parking);
/// - `READERS`: how many readers can be attached at once (default 4).
///
/// Handles borrow the ring (`ring.writer()`, `ring.reader()`), or own it through any smart
/// pointer: [`Writer::attach`](crate::Writer::attach) and [`Reader::attach`](crate::Reader::attach) take anything that dereferences to the
/// ring, e.g. an `Arc`.
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u64; 8];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut reader = ring.reader().unwrap();
/// let mut writer = ring.writer().unwrap();
///
/// let mut span = writer.try_reserve(3).unwrap();
/// span.copy_from_slice(&[1, 2, 3]);
/// drop(span); // published
///
/// let items = reader.try_read(10).unwrap();
/// assert_eq!(items.to_array::<3>(), Some([1, 2, 3]));
/// drop(items); // consumed
/// ```
pub type Ring<S, P = SingleProducer, W = BusySpin, const READERS: usize = 4> =
    GenericRing<S, P, W, ReaderRegistry<READERS>>;

/// The type behind [`Ring`], with its reader registry as a type parameter `G` instead of a
/// count. Write [`Ring`]; this name is for code generic over every ring, which the handles
/// name through [`RingPtr`](crate::parts::RingPtr) without repeating the parameters.
#[repr(C)]
pub struct GenericRing<S: Storage, P: ClaimMode, W: WaitStrategy, G> {
    /// The protocol's shared state (`protocol::state`).
    pub(crate) state: RingState<P, G>,
    /// Writers wait here for free slots; readers notify it when they consume or detach.
    /// Padded: writers and readers notify the two sides from different cores.
    pub(crate) space: CachePadded<W>,
    /// Readers wait here for items; writers notify it when they publish or close.
    pub(crate) data: CachePadded<W>,
    pub(crate) storage: S,
}

impl<S: Storage> Ring<S> {
    /// A single-producer ring over `storage` with the default wait strategy ([`BusySpin`]),
    /// reader capacity (4) and start cursor (0). For anything else use
    /// [`Ring::builder`]: `Ring::builder(storage).wait::<Backoff>().readers::<8>().build()?`.
    ///
    /// # Errors
    ///
    /// [`CapacityError`] if the storage has 0 slots or more than [`Layout`] supports.
    ///
    /// ```
    /// use spanring_core::{CapacityError, Ring, SliceStorage};
    /// let mut memory = [0u16; 5]; // any capacity
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// assert_eq!(ring.capacity(), 5);
    /// let mut nothing: [u16; 0] = [];
    /// assert_eq!(Ring::new(SliceStorage::new(&mut nothing)).unwrap_err(), CapacityError::Zero);
    /// ```
    pub fn new(storage: S) -> Result<Self, CapacityError> {
        Self::builder(storage).build()
    }
}

impl<S: Storage, B: crate::record_words::RecordWords> Ring<S, MultiProducer<B>> {
    /// A multi-producer ring over `storage` with default wait strategy and reader capacity,
    /// publishing through `bits`: one record word a slot,
    /// [`multi_words`](crate::multi_words)`(capacity)` words (any initial value; the ring zeroes
    /// them). For other parameters use [`Ring::builder`] with
    /// [`multi_producer`](crate::builder::RingBuilder::multi_producer)`(bits)`.
    ///
    /// # Errors
    ///
    /// [`CapacityError`], including [`CapacityError::BitsetTooSmall`].
    ///
    /// ```
    /// use spanring_core::{multi_words, sync::AtomicUsize, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let words: [AtomicUsize; multi_words(4)] = Default::default();
    /// let ring = Ring::new_multi(SliceStorage::new(&mut memory), words).unwrap();
    /// let (mut a, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    /// let mut b = a.clone(); // a second writer
    /// a.try_push(1).unwrap();
    /// b.try_push(2).unwrap();
    /// assert_eq!(r.try_read(4).unwrap().to_array::<2>(), Some([1, 2]));
    /// ```
    pub fn new_multi(storage: S, bits: B) -> Result<Self, CapacityError> {
        Ring::builder(storage).multi_producer(bits).build()
    }
}

impl<
        S: Storage,
        B: crate::record_words::RecordWords,
        W: WaitStrategy + Default,
        const READERS: usize,
    > Ring<S, MultiProducer<B>, W, READERS>
{
    /// As [`new_multi`](Self::new_multi) with cursors starting at `start` (see
    /// [`RingBuilder::start_at`](crate::builder::RingBuilder::start_at)) and the records' lap tag cut
    /// to at most `tag_bits` bits (≥ 1), so that tests can reach the tag's wrap-around (and
    /// its scrub) in a few laps, as a 32-bit target with a large ring does. Not for production:
    /// a short tag scrubs more often.
    ///
    /// # Errors
    ///
    /// As [`new_multi`](Self::new_multi).
    #[doc(hidden)]
    pub fn new_multi_with_tag_bits(
        storage: S,
        bits: B,
        start: usize,
        tag_bits: u32,
    ) -> Result<Self, CapacityError> {
        Self::build(storage, start, move |layout, start| {
            MultiProducer::checked(bits, layout, start, tag_bits)
        })
    }
}

impl<S: Storage, P: ClaimMode, W: WaitStrategy, const READERS: usize> Ring<S, P, W, READERS> {
    fn build(
        storage: S,
        start: usize,
        producer: impl FnOnce(&Layout, usize) -> Result<P, CapacityError>,
    ) -> Result<Self, CapacityError>
    where
        W: Default,
    {
        Self::build_with(storage, start, W::default(), W::default(), producer)
    }

    /// The one run-time constructor every other one (and [`RingBuilder`](crate::builder::RingBuilder))
    /// goes through.
    pub(crate) fn build_with(
        storage: S,
        start: usize,
        space: W,
        data: W,
        producer: impl FnOnce(&Layout, usize) -> Result<P, CapacityError>,
    ) -> Result<Self, CapacityError> {
        let layout = Layout::new(storage.capacity())?;
        let start = layout.normalize(start);
        let producer = producer(&layout, start)?;
        let readers = ReaderRegistry::new(start);
        Ok(Self::assemble(
            storage, layout, start, readers, producer, space, data,
        ))
    }
}

impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> GenericRing<S, P, W, G> {
    crate::__maybe_const_fn! {
        /// The ring from its parts, open, with no handle attached (every constructor, run-time
        /// or `const`, ends here). `readers` must start at `start`.
        pub(crate) fn assemble(
            storage: S,
            layout: Layout,
            start: usize,
            readers: G,
            producer: P,
            space: W,
            data: W,
        ) -> Self {
            Self {
                state: RingState::new(layout, start, readers, producer),
                space: CachePadded::new(space),
                data: CachePadded::new(data),
                storage,
            }
        }
    }

    /// Replaces the two wait-strategy instances (writers wait on `space`, readers on `data`),
    /// for strategies that carry configuration.
    ///
    /// ```
    /// use spanring_core::{Backoff, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).wait::<Backoff>().build().unwrap();
    /// let (writers, readers) = (Backoff { max_exponent: 10 }, Backoff { max_exponent: 0 });
    /// let ring = ring.with_wait_strategies(writers, readers);
    /// assert_eq!(ring.space_wait().max_exponent, 10); // writers: up to 1024 hints between checks
    /// assert_eq!(ring.data_wait().max_exponent, 0); // readers: one hint between checks
    /// ```
    #[must_use]
    pub fn with_wait_strategies(mut self, space: W, data: W) -> Self {
        self.space = CachePadded::new(space);
        self.data = CachePadded::new(data);
        self
    }

    /// Number of slots.
    ///
    /// ```
    /// use spanring_core::{ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 6];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// assert_eq!(ring.capacity(), 6);
    /// let err = ring.writer().unwrap().try_reserve(7).unwrap_err();
    /// assert_eq!(err, ReserveError::TooLarge { requested: 7, capacity: 6 });
    /// ```
    pub fn capacity(&self) -> usize {
        self.state.layout.capacity()
    }

    /// The ring's memory.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage, Storage};
    /// let mut memory = [0u8; 3];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// assert_eq!(ring.storage().capacity(), 3);
    /// ```
    pub fn storage(&self) -> &S {
        &self.storage
    }

    /// The cursor layout (slot mapping) of this ring.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 3];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(usize::MAX).build().unwrap();
    /// let layout = ring.layout();
    /// assert_eq!(layout.capacity(), 3);
    /// assert_eq!(ring.start(), layout.normalize(usize::MAX)); // the start was rounded down
    /// assert_eq!(layout.index(ring.start()), 2); // to the lap's last slot
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.state.layout
    }

    /// The cursor the ring started at.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(40).build().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// assert_eq!(ring.start(), 40); // fixed; the published cursor moves on
    /// assert_eq!(ring.published(), 41);
    /// ```
    #[inline]
    pub fn start(&self) -> usize {
        self.state.start
    }

    /// The public cursor: every item before it is published (on a multi-producer ring: or
    /// skipped). On a multi-producer ring this walks the publication records from the last
    /// known position first (the cursor is a hint there, see [`MultiProducer`]).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let span = w.try_reserve(2).unwrap();
    /// assert_eq!(ring.published(), 0); // reserved, not yet published
    /// drop(span);
    /// assert_eq!(ring.published(), 2);
    /// ```
    pub fn published(&self) -> usize {
        match self.state.producer.multi() {
            Some(m) => m.walk_hint(&self.state.layout, &self.state.published),
            // Acquire: a caller that then reads slots must see their contents.
            None => self.state.published.load(Ordering::Acquire),
        }
    }

    /// Readers attached right now (a snapshot).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let a = ring.reader().unwrap();
    /// let _b = ring.reader().unwrap();
    /// assert_eq!(ring.reader_count(), 2);
    /// drop(a);
    /// assert_eq!(ring.reader_count(), 1);
    /// ```
    pub fn reader_count(&self) -> usize {
        self.state.readers.active()
    }

    /// The slot of `cursor`: a pointer into the storage (one item, initialised). What the caller
    /// may do with it depends on who owns the slot now (a claim, or a reader's unconsumed
    /// range); see the callers.
    #[inline(always)]
    pub(crate) fn slot(&self, cursor: usize) -> *mut S::Item {
        // SAFETY: a cursor's index is below the capacity (the lap encoding of `Layout` never
        // produces another), and the `Storage` contract makes `base..base + capacity` one
        // allocation of initialised items.
        unsafe {
            self.storage
                .as_mut_ptr()
                .add(self.state.layout.index(cursor))
        }
    }

    /// The span `[start, start + len)` as (first, second) raw parts, both derived from one
    /// base pointer (two separately derived `&mut` halves are UB under Stacked Borrows,
    /// ringbuf#15). Over double-mapped storage the second part is always empty.
    #[inline]
    pub(crate) fn parts(&self, start: usize, len: usize) -> SpanParts<S::Item> {
        debug_assert!(len <= self.state.layout.capacity());
        let base = self.storage.as_mut_ptr();
        let i = self.state.layout.index(start);
        let first = if S::DOUBLE_MAPPED {
            len
        } else {
            len.min(self.state.layout.capacity() - i)
        };
        // SAFETY: `i < capacity`, so `base + i` is inside the storage allocation the `Storage`
        // contract promises (for double-mapped storage `i + len ≤ 2 × capacity` stays inside
        // the second mapping).
        let head = unsafe { base.add(i) };
        SpanParts {
            head,
            first,
            base,
            second: len - first,
        }
    }

    /// Consumes `count` items (up to `cursor`) for the reader at `pos`: publishes its progress
    /// to writers.
    #[inline]
    pub(crate) fn consume_to(&self, pos: &mut ReadPos, cursor: usize, count: usize) {
        self.state.consume_to(pos, cursor, count);
        self.space.notify_all();
    }

    /// Tells the writers that the reader in registry slot `slot` is at `cursor` (everything
    /// before it consumed), and wakes any that wait for space.
    #[inline(always)]
    pub(crate) fn publish_read(&self, slot: usize, cursor: usize) {
        self.state.readers.store_own_cursor(slot, cursor, INTERNAL);
        self.space.notify_all();
    }
}

impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> core::fmt::Debug
    for GenericRing<S, P, W, G>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ring")
            .field("capacity", &self.capacity())
            .field("multi_producer", &P::MULTI)
            .field("double_mapped", &S::DOUBLE_MAPPED)
            .field("published", &self.published())
            .field("readers", &self.reader_count())
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// Internal: what dropping a handle does to its ring, named without the ring's parameters so
/// handle types can bound on it. Its methods take a token only this crate can make
/// ([`Internal`]), so nothing outside can call them:
///
/// ```compile_fail,E0061
/// use spanring_core::{Ring, SliceStorage};
/// use spanring_core::parts::RingCore;
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let reader = ring.reader().unwrap();
/// ring.reader_dropped(0); // error: takes a token this crate keeps private
/// ```
#[doc(hidden)]
#[allow(private_interfaces)]
pub trait RingCore {
    /// `true` on a multi-producer ring.
    const MULTI: bool;
    /// A writer handle was dropped: the last one closes the ring.
    fn writer_dropped(&self, _: Internal);
    /// The reader in registry slot `slot` was dropped.
    fn reader_dropped(&self, slot: usize, _: Internal);
    /// Publishes `count` of the `reserved` slots from `start`, after moving the writer's
    /// private claim state `local` past them.
    fn finish_span(
        &self,
        start: usize,
        reserved: usize,
        count: usize,
        local: &mut crate::claim::SpLocal,
        _: Internal,
    );
    /// Consumes `count` items at the reader position `pos`.
    fn consume_span(&self, pos: &mut crate::readers::ReadPos, count: usize, _: Internal);
}

#[allow(private_interfaces)]
impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> RingCore for GenericRing<S, P, W, G> {
    const MULTI: bool = P::MULTI;

    #[inline]
    fn writer_dropped(&self, _: Internal) {
        self.writer_gone();
    }

    #[inline]
    fn reader_dropped(&self, slot: usize, _: Internal) {
        self.reader_gone(slot);
    }

    #[inline]
    fn consume_span(&self, pos: &mut crate::readers::ReadPos, count: usize, _: Internal) {
        let end = self.state.layout.advance(pos.cursor, count);
        self.consume_to(pos, end, count);
    }

    #[inline(always)]
    fn finish_span(
        &self,
        start: usize,
        reserved: usize,
        count: usize,
        local: &mut crate::claim::SpLocal,
        _: Internal,
    ) {
        let count = count.min(reserved);
        // The writer's private state moves first, before the publish and the wake-up: a wait
        // strategy's `notify_all` is user code and may panic, and a writer left behind what it
        // published would claim a published slot again (or one past its readers).
        // Single-producer: a fast claim checked `reserved ≤ room` (then exact); a slow one may
        // have crossed the lap's end, beyond the fast-path count (then 0 sends the next claim
        // to the slow path, which recounts). Multi-producer: from the sole-writer cache (then
        // `reserved ≤ room`), or from the CAS (then `room` is unused until the cache is taken
        // again, which resets it).
        local.room = local.room.saturating_sub(count);
        // The claim cursor after the publish: a single-producer writer's next claim, and the
        // sole multi-producer writer's copy of its claim cursor (the fast claim reads it); for
        // a claim made by CAS it is unused until the cache is taken again, which resets it.
        // count == 0: the claim cursor never moved, the slots are simply claimed again.
        local.next = if count > 0 {
            self.state.layout.advance(start, count)
        } else {
            start
        };
        match self.state.producer.multi() {
            None => {
                self.publish_single(local.next, count > 0);
                return;
            }
            Some(m) => {
                // Relaxed: SOLE_CACHED cannot change while this span lives: it borrows the
                // ring's only writer, and only that writer's clone clears the flag.
                // SEAL_DEFERRED is a hint, as above: a close that lands after this load is
                // seen by the next reserve (or the drop).
                let word = self.state.writers.load(Ordering::Relaxed);
                let flags = crate::writers::SOLE_CACHED | crate::writers::SEAL_DEFERRED;
                // The span came from the cache (and nothing needs a call): publish like a
                // single-producer writer (slots not published are claimed again next).
                let fast = if word & flags == crate::writers::SOLE_CACHED {
                    m.publish_sole_fast(&self.state.layout, start, count)
                } else {
                    None
                };
                if fast.is_none() {
                    self.finish_multi(m, start, reserved, count, word);
                    return;
                }
            }
        }
        self.data.notify_all();
    }
}

impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> GenericRing<S, P, W, G> {
    /// A writer handle is gone (dropped, or evicted): the last one closes the ring, unless it
    /// stays open.
    #[inline]
    pub(crate) fn writer_gone(&self) {
        if !crate::writers::last_writer_gone(&self.state.writers) {
            return;
        }
        if self.state.close_on_last_writer {
            self.close();
            // No writer is left, so no span is in flight: the close is complete (a ring closed
            // earlier by someone else was waiting for this writer to notice).
            self.seal();
            return;
        }
        // A ring that stays open: the last writer leaving changes nothing for readers, and
        // the writer can be handed out again. A close decided before our decrement (which we
        // then read: the writers word's RMWs are ordered, and `is_closed` acquires it or the
        // flag the closer stored before its RMW) may have left its seal to us; a close after
        // it finds no writer and seals itself.
        if self.is_closed() {
            self.seal();
        } else {
            self.state.producer.release_writer();
        }
    }

    /// The reader in registry slot `slot` is gone (dropped, or evicted).
    #[inline]
    pub(crate) fn reader_gone(&self, slot: usize) {
        self.state.readers.detach(slot);
        // A writer may be waiting for this reader only.
        self.space.notify_all();
    }

    /// The single-producer publish: `next` becomes the published cursor (if `moved`: a span
    /// that published nothing leaves it), then the close check and the readers' wake-up.
    #[inline(always)]
    pub(crate) fn publish_single(&self, next: usize, moved: bool) {
        if moved {
            // Release: the slot writes happen before any reader that acquires the published
            // cursor reads them.
            self.state.published.store(next, Ordering::Release);
        }
        // Relaxed: a hint; if a close is missed here the next reserve (or the drop) sees it
        // and seals. Sealing after this publish covers it (Release in `seal`).
        if self.state.closed.load(Ordering::Relaxed) {
            self.seal();
        }
        self.data.notify_all();
    }

    /// [`finish_span`](RingCore::finish_span) past the sole writer's fast path, out of line so
    /// that the fast path inlines into the span's drop: the publish of one of several
    /// multi-producer writers (give-back or skip records), or the sole writer's publish when a
    /// close deferred its seal to it. `word` is the writers word `finish_span` loaded.
    #[inline(never)]
    fn finish_multi(&self, m: &P::Multi, start: usize, reserved: usize, count: usize, word: usize) {
        if word & crate::writers::SOLE_CACHED != 0 {
            m.publish_sole(&self.state.layout, start, count);
        } else {
            m.publish(&self.state.layout, start, reserved, count);
        }
        self.after_shared_publish();
    }

    /// After a multi-producer publish: the seal a close may have deferred to this writer, and
    /// the readers' wake-up.
    #[inline(always)]
    pub(crate) fn after_shared_publish(&self) {
        // Relaxed: a hint, as in `finish_span`; the seal's Release orders our record before it.
        // (Set when the close found this writer alone: the others dropped, or it is the cache
        // holder.)
        if self.state.writers.load(Ordering::Relaxed) & crate::writers::SEAL_DEFERRED != 0 {
            self.seal();
        }
        self.data.notify_all();
    }
}

/// A span as raw parts: `first` items at `head`, then `second` items at `base` (the start of
/// the storage), both derived from one storage pointer.
pub(crate) struct SpanParts<T> {
    head: *mut T,
    first: usize,
    base: *mut T,
    second: usize,
}

impl<T> SpanParts<T> {
    /// The span as two shared slices, in stream order.
    ///
    /// # Safety
    ///
    /// The parts come from [`Ring::parts`] (so both ranges lie in the storage, hold initialised
    /// items, and are disjoint slots), and the caller has the right to read those slots for
    /// `'a`: they are published and not yet consumed by the calling reader (no writer may
    /// claim them), or reserved by the calling writer's span (nobody else may touch them).
    #[inline]
    pub(crate) unsafe fn slices<'a>(self) -> (&'a [T], &'a [T]) {
        // SAFETY: the caller's contract above.
        unsafe {
            (
                core::slice::from_raw_parts(self.head.cast_const(), self.first),
                core::slice::from_raw_parts(self.base.cast_const(), self.second),
            )
        }
    }

    /// The span as two mutable slices, in stream order.
    ///
    /// # Safety
    ///
    /// As [`slices`](Self::slices), and the caller holds the slots exclusively for `'a` (a
    /// writer's span over slots it claimed, with no other reference to them alive). The two
    /// ranges are disjoint slots, so the two `&mut` never alias.
    #[inline]
    pub(crate) unsafe fn slices_mut<'a>(self) -> (&'a mut [T], &'a mut [T]) {
        // SAFETY: the caller's contract above.
        unsafe {
            (
                core::slice::from_raw_parts_mut(self.head, self.first),
                core::slice::from_raw_parts_mut(self.base, self.second),
            )
        }
    }
}
