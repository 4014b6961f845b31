//! [`Writer`]: the handle that reserves spans; single- or multi-producer by the ring's type.

mod claim;
mod guard;
mod one_item;
mod span;

pub use span::WriteSpan;

use one_item::FastPush;

use core::ops::Deref;
use core::time::Duration;

use crate::claim::{ClaimMode, MultiClaim, SpLocal};
use crate::error::{AttachError, FillError, PushError, ReserveError};
use crate::readers::Registry;
use crate::ring::GenericRing;
use crate::ring::RingCore;
use crate::ring_ref::RingPtr;
use crate::ring_ref::RingRef;
use crate::storage::Storage;
use crate::sync::Ordering;
use crate::wait::WaitStrategy;
use crate::wait::WaitTimeout;
use crate::writers;

/// Reserves spans of slots in a [`Ring`](crate::Ring) and publishes them.
///
/// `R` is anything that dereferences to the ring: `&Ring` (from [`Ring::writer`](crate::Ring::writer)) or an owning
/// pointer such as `Arc<Ring>` (via [`Writer::attach`]). A single-producer ring has exactly one
/// writer (this handle is then not `Clone`); a multi-producer writer can be cloned.
///
/// Waiting follows one naming rule: `try_reserve` never waits (usable from an interrupt
/// handler), `reserve` waits through the ring's [`WaitStrategy`], `reserve_timeout` waits at
/// most a given time. One item at a time: [`try_push`](Self::try_push), [`push`](Self::push),
/// [`push_timeout`](Self::push_timeout) (a failed push gives the item back in a
/// [`PushError`]), on the same fast path as a one-slot span.
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let _reader = ring.reader().unwrap();
/// let mut writer = ring.writer().unwrap();
/// writer.try_reserve(4).unwrap().fill(7); // published on drop
/// assert!(matches!(writer.try_reserve(1), Err(spanring_core::ReserveError::Full { free: 0 })));
/// ```
#[derive(Debug)]
pub struct Writer<R>
where
    R: Deref,
    R::Target: RingCore,
{
    pub(crate) ring: R,
    /// Single-producer only: the writer's own claim cursor and how many slots after it are
    /// known to be free (the cached minimum of the readers, kept as a count so the fast path
    /// is one compare).
    pub(crate) local: SpLocal,
}

impl<R: RingPtr> Writer<R> {
    /// A writer for the ring behind `ring`.
    ///
    /// # Errors
    ///
    /// [`AttachError::WriterTaken`] if a writer is attached: a single-producer ring has one
    /// writer; a multi-producer ring hands out its first writer here and the rest through
    /// `clone` (so that a writer that is alone claims without a CAS, see below).
    /// [`AttachError::Closed`] if the ring is closed: by [`Ring::close`](crate::Ring::close), or when its last
    /// writer dropped (closing is final, so keep a writer, or a clone of one, for as long as
    /// more may come). A close after the attach fails the writer's claims instead.
    ///
    /// ```
    /// use spanring_core::{multi_words, sync::AtomicUsize, AttachError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let mut words: [AtomicUsize; multi_words(4)] = Default::default();
    /// let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    /// let first = ring.writer().unwrap();
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken);
    /// let second = first.clone(); // more writers: clones
    /// drop((first, second)); // the last writer gone closes the ring
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    /// ```
    pub fn attach(ring: R) -> Result<Self, AttachError>
    where
        R: RingRef,
    {
        // Closed first: a closed single-producer ring also has its one writer taken, and
        // `Closed` is the reason that lasts.
        if ring.is_closed() {
            return Err(AttachError::Closed);
        }
        if !ring.state.producer.take_writer(&ring.state.writers) {
            return Err(AttachError::WriterTaken);
        }
        // A limit from the cached minimum (a lower bound of every reader cursor, and not past
        // the published cursor where a single-producer writer's claims continue). A
        // multi-producer writer sets its own when it takes the sole-writer cache.
        let mut local = SpLocal {
            limit: SpLocal::limit_for(&ring.state.layout, ring.state.readers.cached_min()),
            // Relaxed: only this writer stores it (single-producer; unused otherwise).
            next: ring.state.published.load(Ordering::Relaxed),
            room: 0,
        };
        local.room = SpLocal::fast_room(
            &ring.state.layout,
            local.next,
            local.free(&ring.state.layout, local.next),
        );
        let writer = Self { ring, local };
        // A writer of a closed ring could claim nothing: refuse it now, not at its first
        // claim. The count taken above makes `close` see us or us see the close (its comment);
        // dropping the writer undoes the count (and, as the last writer of a closed ring, only
        // repeats the seal).
        if writer.ring.is_closed() {
            drop(writer);
            return Err(AttachError::Closed);
        }
        Ok(writer)
    }

    /// The ring.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let w = ring.writer().unwrap();
    /// w.ring().close(); // e.g. to end the stream while keeping the handle
    /// assert!(ring.is_closed());
    /// ```
    pub fn ring(&self) -> &R::Target {
        &self.ring
    }

    /// Slots free right now for this writer (a snapshot; rescans the readers). Takes `&self`:
    /// the rescan updates only the ring's shared cached minimum, never this writer's own cached
    /// free count (the next claim refreshes that itself when it looks too small).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let _reader = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// let w = &w; // a shared borrow is enough
    /// assert_eq!(w.free(), 3);
    /// ```
    pub fn free(&self) -> usize {
        let ring = &*self.ring;
        let min = ring
            .state
            .refresh_min()
            .unwrap_or_else(|| ring.state.readers.cached_min());
        let claim = match ring.state.producer.multi() {
            Some(m) => m.claim().load(Ordering::Relaxed),
            // Relaxed: only this writer stores it.
            None => ring.state.published.load(Ordering::Relaxed),
        };
        let used = ring.state.layout.distance(min, claim).max(0) as usize;
        ring.capacity().saturating_sub(used)
    }

    /// Reserves exactly `n` slots without waiting. The span publishes all `n` when dropped,
    /// or fewer with [`WriteSpan::publish`].
    ///
    /// # Errors
    ///
    /// [`ReserveError::Full`] (with the free count), [`ReserveError::TooLarge`] if
    /// `n > capacity`, [`ReserveError::Closed`]. Returns in bounded time: it never waits for
    /// another writer (a stalled claimer only holds back readers, never other claims).
    ///
    /// ```
    /// use spanring_core::{ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(3).unwrap();
    /// span.copy_from_slice(&[1, 2, 3]);
    /// drop(span); // publishes all 3
    /// assert_eq!(w.try_reserve(2).unwrap_err(), ReserveError::Full { free: 1 });
    /// assert_eq!(r.try_read_all().unwrap().to_array::<3>(), Some([1, 2, 3]));
    /// ```
    #[inline]
    pub fn try_reserve(&mut self, n: usize) -> Result<WriteSpan<'_, R>, ReserveError> {
        let start = self.try_claim(n)?;
        Ok(WriteSpan::new(self, start, n))
    }

    /// Stores one item without waiting (the one-item form of [`try_reserve`](Self::try_reserve),
    /// as `rtrb`'s `Producer::push` or crossbeam's `ArrayQueue::push`). Same fast path as
    /// `try_reserve(1)`: one compare against the cached free count on a single-producer ring.
    ///
    /// # Errors
    ///
    /// The item comes back in [`PushError::Full`] (no free slot now) or [`PushError::Closed`].
    ///
    /// ```
    /// use spanring_core::{PushError, Ring, SliceStorage};
    /// let mut memory = [0u8; 2];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// w.try_push(2).unwrap();
    /// assert_eq!(w.try_push(3), Err(PushError::Full(3)));
    /// assert_eq!(r.try_pop(), Ok(1));
    /// ```
    #[inline]
    pub fn try_push(&mut self, item: R::Item) -> Result<(), PushError<R::Item>> {
        let item = match self.push_fast(item) {
            FastPush::Pushed => return Ok(()),
            FastPush::Slow(item) => item,
            FastPush::Failed(closed) => return Err(closed),
        };
        self.try_push_cold_on_copy(item)
    }

    /// Stores one item, waiting through the ring's wait strategy while the ring is full (the
    /// one-item form of [`reserve`](Self::reserve)).
    ///
    /// For the fastest loop of pushes, hold the writer in a local of the function that runs
    /// the loop (for a by-value argument or a closure capture: `let mut w = w;`). A local
    /// whose address no call gets keeps the single-producer claim state in registers; behind
    /// an argument's or a capture's pointer it is stored and reloaded every item.
    ///
    /// # Errors
    ///
    /// [`PushError::Closed`] with the item.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 2];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.push(9).unwrap(); // a free slot: returns at once
    /// assert_eq!(r.pop(), Ok(9));
    /// ```
    #[inline]
    pub fn push(&mut self, item: R::Item) -> Result<(), PushError<R::Item>> {
        let item = match self.push_fast(item) {
            FastPush::Pushed => return Ok(()),
            FastPush::Slow(item) => item,
            FastPush::Failed(closed) => return Err(closed),
        };
        let wait = |w: &R::Wait, ready: &mut dyn FnMut() -> bool| {
            w.wait_until(ready);
            true
        };
        self.push_cold_on_copy(item, wait)
    }

    /// As [`push`](Self::push), giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// [`PushError::TimedOut`] or [`PushError::Closed`], with the item.
    ///
    /// ```
    /// # use core::time::Duration;
    /// # use spanring_core::{PushError, Ring, SliceStorage, WaitStrategy, WaitTimeout};
    /// # #[derive(Default)] struct NoWait;
    /// # impl WaitStrategy for NoWait { fn wait_until(&self, r: &mut dyn FnMut() -> bool) { while !r() {} } fn notify_all(&self) {} }
    /// # impl WaitTimeout for NoWait { fn wait_until_timeout(&self, r: &mut dyn FnMut() -> bool, _: Duration) -> bool { r() } }
    /// let mut memory = [0u8; 1];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).wait::<NoWait>().build().unwrap();
    /// let _r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.push_timeout(1, Duration::from_millis(1)).unwrap();
    /// let e = w.push_timeout(2, Duration::from_millis(1)).unwrap_err();
    /// assert_eq!(e, PushError::TimedOut(2));
    /// ```
    #[inline]
    pub fn push_timeout(
        &mut self,
        item: R::Item,
        timeout: Duration,
    ) -> Result<(), PushError<R::Item>>
    where
        R::Wait: WaitTimeout,
    {
        let item = match self.push_fast(item) {
            FastPush::Pushed => return Ok(()),
            FastPush::Slow(item) => item,
            FastPush::Failed(closed) => return Err(closed),
        };
        let wait =
            |w: &R::Wait, ready: &mut dyn FnMut() -> bool| w.wait_until_timeout(ready, timeout);
        self.push_cold_on_copy(item, wait)
    }

    /// Reserves exactly `n` slots without waiting and lets `fill` write them; publishes the
    /// count `fill` returns (clamped to `n`) when it returns `Ok`, and **nothing** when it
    /// returns `Err` (the slots are released unpublished, as [`WriteSpan::publish`]`(0)`).
    /// Use it when filling can fail half-way, e.g. decoding input into the slots. (A plain
    /// [`WriteSpan`] still publishes everything when dropped.) If `fill` panics the span
    /// follows its drop rule: with `std`, nothing is published. The waiting forms are
    /// [`reserve_with`](Self::reserve_with), [`reserve_with_timeout`](Self::reserve_with_timeout)
    /// and [`reserve_with_async`](Self::reserve_with_async).
    ///
    /// Returns the published count.
    ///
    /// # Errors
    ///
    /// [`FillError::Reserve`] with what [`try_reserve`](Self::try_reserve) returned (`fill` is
    /// not called), or [`FillError::Fill`] with `fill`'s error.
    ///
    /// ```
    /// use spanring_core::{FillError, ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let bad = w.try_reserve_with(2, |span| {
    ///     span[0] = 1;
    ///     Err("no second item")
    /// });
    /// assert_eq!(bad, Err(FillError::Fill("no second item")));
    /// assert_eq!(r.try_pop(), Err(ReadError::Empty)); // nothing was published
    /// let good = w.try_reserve_with(3, |span| {
    ///     span[0] = 5;
    ///     Ok::<_, ()>(1) // only one of the three
    /// });
    /// assert_eq!(good, Ok(1));
    /// assert_eq!(r.try_pop(), Ok(5));
    /// ```
    #[inline]
    pub fn try_reserve_with<E, F>(&mut self, n: usize, fill: F) -> Result<usize, FillError<E>>
    where
        F: FnOnce(&mut WriteSpan<'_, R>) -> Result<usize, E>,
    {
        self.try_reserve(n)
            .map_err(FillError::Reserve)?
            .publish_filled(fill)
    }

    /// Reserves exactly `n` slots, waiting through the ring's wait strategy while the ring is
    /// full.
    ///
    /// # Errors
    ///
    /// [`ReserveError::TooLarge`] if `n > capacity`, [`ReserveError::Closed`].
    ///
    /// ```
    /// use spanring_core::{ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.reserve(3).unwrap().copy_from_slice(&[1, 2, 3]); // room: returns at once
    /// assert_eq!(r.read_all().unwrap().to_array::<3>(), Some([1, 2, 3]));
    /// let e = w.reserve(5).unwrap_err();
    /// assert_eq!(e, ReserveError::TooLarge { requested: 5, capacity: 4 });
    /// ring.close();
    /// assert_eq!(w.reserve(1).unwrap_err(), ReserveError::Closed);
    /// ```
    #[inline]
    pub fn reserve(&mut self, n: usize) -> Result<WriteSpan<'_, R>, ReserveError> {
        let start = self.claim_waiting(n, |w, ready| {
            w.wait_until(ready);
            true
        })?;
        Ok(WriteSpan::new(self, start, n))
    }

    /// As [`reserve`](Self::reserve), giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// As [`reserve`](Self::reserve), plus [`ReserveError::TimedOut`].
    ///
    /// ```
    /// # #[cfg(feature = "std")] { // `BusySpin`'s timeout needs a clock
    /// use core::time::Duration;
    /// use spanring_core::{ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let t = Duration::from_millis(1);
    /// w.reserve_timeout(4, t).unwrap().copy_from_slice(&[1, 2, 3, 4]);
    /// assert_eq!(w.reserve_timeout(1, t).unwrap_err(), ReserveError::TimedOut); // full
    /// r.pop().unwrap();
    /// w.reserve_timeout(1, t).unwrap()[0] = 5;
    /// # }
    /// ```
    #[inline]
    pub fn reserve_timeout(
        &mut self,
        n: usize,
        timeout: Duration,
    ) -> Result<WriteSpan<'_, R>, ReserveError>
    where
        R::Wait: WaitTimeout,
    {
        let start = self.claim_waiting(n, |w, ready| w.wait_until_timeout(ready, timeout))?;
        Ok(WriteSpan::new(self, start, n))
    }
}

impl<B, R> Clone for Writer<R>
where
    B: crate::record_words::RecordWords,
    R: RingPtr<Mode = crate::MultiProducer<B>> + Clone,
{
    /// Another writer of the same multi-producer ring.
    fn clone(&self) -> Self {
        // The owner holds no span now (`&self`), so a close that deferred its seal to it is
        // complete: seal it before a second writer exists (writers module).
        if writers::add_clone(&self.ring.state.writers) {
            self.ring.seal();
        }
        Self {
            ring: self.ring.clone(),
            local: self.local,
        }
    }
}

impl<R> Drop for Writer<R>
where
    R: Deref,
    R::Target: RingCore,
{
    #[inline]
    fn drop(&mut self) {
        self.ring.writer_dropped(crate::internal::INTERNAL);
    }
}

/// Handing out writers is the writer's business: the ring (ring.rs) knows nothing of handles.
impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> GenericRing<S, P, W, G> {
    /// A writer handle borrowing the ring.
    ///
    /// # Errors
    ///
    /// [`AttachError::WriterTaken`] if a writer is attached, [`AttachError::Closed`] if the
    /// ring is closed (see [`Writer::attach`]).
    ///
    /// ```
    /// use spanring_core::{AttachError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let w = ring.writer().unwrap();
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken); // single producer
    /// drop(w); // the last writer closes the ring, for good
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    /// ```
    pub fn writer(&self) -> Result<Writer<&Self>, AttachError> {
        Writer::attach(self)
    }
}
