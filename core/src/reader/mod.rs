//! [`Reader`]: one broadcast reader — sees every item published after it attached, in order.

mod span;
pub(crate) mod wait;

use core::ops::Deref;
use core::time::Duration;
pub use span::ReadSpan;

use crate::claim::{ClaimMode, MultiClaim};
use crate::error::{AttachError, ReadError};
use crate::pacing::Pacing;
use crate::readers::ReadPos;
use crate::readers::Registry;
use crate::ring::GenericRing;
use crate::ring::RingCore;
use crate::ring_ref::RingPtr;
use crate::ring_ref::RingRef;
use crate::storage::Storage;
use crate::sync::Ordering;
use crate::wait::WaitStrategy;
use crate::wait::WaitTimeout;
use wait::{pop_cold, try_read_cold, wait_for_cold};

/// A reader attached to a [`Ring`](crate::Ring). Readers are independent: each sees every item published
/// after it attached and consumes at its own pace; writers wait for the slowest attached
/// reader. Dropping the reader detaches it, so it never stalls writers afterwards.
///
/// Reading returns a [`ReadSpan`] of at most the requested number of *published* items —
/// never more, in any build. Dropping the span consumes everything it showed;
/// [`ReadSpan::consume`] consumes fewer (the rest is shown again by the next read).
///
/// `try_read` never waits; `read` waits through the ring's [`WaitStrategy`]; `read_timeout`
/// waits at most a given time; `read_exact` waits for a given count; `try_read_all` /
/// `read_all` show everything published. One item at a time (`Item: Clone`):
/// [`try_pop`](Self::try_pop), [`pop`](Self::pop), [`pop_timeout`](Self::pop_timeout) return
/// a clone (the ring is broadcast: other readers still see the item), on the same fast path as
/// `try_read(1)`.
///
/// **Zero items.** Every form (try, blocking, timeout, exact, async) asked for 0 items returns
/// at once: an empty span while the ring is open or items are left, [`ReadError::Closed`] once
/// it is closed and drained. It never reports `Empty` or `TimedOut` and consumes nothing.
/// (Reserving 0 slots likewise returns an empty span at once, or `Closed`.)
///
/// **Close.** A reader reports `Closed` only after every span claimed before the close was
/// published or dropped (see [`Ring::close`](crate::Ring::close)).
///
/// ```
/// use spanring_core::{ReadError, Ring, SliceStorage};
/// let mut memory = [0u16; 8];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut a = ring.reader().unwrap();
/// let mut b = ring.reader().unwrap();
/// let mut w = ring.writer().unwrap();
/// w.try_reserve(2).unwrap().copy_from_slice(&[5, 6]);
/// assert_eq!(a.try_read(8).unwrap().to_array::<2>(), Some([5, 6]));
/// assert_eq!(b.try_read(1).unwrap().to_array::<1>(), Some([5])); // b has its own pace
/// drop(w); // last writer gone: the ring closes
/// assert_eq!(b.try_read(8).unwrap().to_array::<1>(), Some([6])); // drained first
/// assert_eq!(b.try_read(8).unwrap_err(), ReadError::Closed);
/// ```
#[derive(Debug)]
pub struct Reader<R>
where
    R: Deref,
    R::Target: RingCore,
{
    pub(crate) ring: R,
    pub(crate) pos: ReadPos,
    /// [`Pacing::for_items`] unless [`set_pacing`](Self::set_pacing) said otherwise.
    pace: Pacing,
}

impl<R: RingPtr> Reader<R> {
    /// A reader of the ring behind `ring`, attached at its current published cursor.
    ///
    /// # Errors
    ///
    /// [`AttachError::TooManyReaders`] when `N` readers are attached.
    ///
    /// ```
    /// use spanring_core::{AttachError, Reader, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).readers::<1>().build().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap(); // before the reader: it will not see this one
    /// let mut r = Reader::attach(&ring).unwrap(); // as `ring.reader()`
    /// assert_eq!(Reader::attach(&ring).unwrap_err(), AttachError::TooManyReaders { max: 1 });
    /// w.try_push(2).unwrap();
    /// assert_eq!(r.try_pop(), Ok(2));
    /// ```
    pub fn attach(ring: R) -> Result<Self, AttachError>
    where
        R: RingRef,
    {
        if let Some(m) = ring.state.producer.multi() {
            // Multi-producer: the published cursor is a hint; bring it up to date first, so
            // the reader starts at the current frontier (module docs of `claim`).
            m.walk_hint(&ring.state.layout, &ring.state.published);
        }
        let slot = ring
            .state
            .readers
            .attach(ring.state.published.as_atomic())?;
        let cursor = ring.state.readers.cursor(slot);
        let reader = Self {
            ring,
            pos: ReadPos::new(slot, cursor),
            pace: Pacing::for_items::<R::Item>(),
        };
        // A writer whose rescan of the readers overlapped this attach (and every retry of it)
        // kept its old minimum and may be waiting for space it actually has; nothing else
        // would wake it if every reader is now waiting for data. Found as a hang by
        // std-ext/tests/subscriber.rs (clients attaching in a loop, writer in `push`).
        // After the handle exists: if the wait strategy's `notify_all` panics, unwinding drops
        // the handle, which detaches it, instead of leaking a registry slot that would hold
        // every writer back for good.
        reader.ring.space.notify_all();
        Ok(reader)
    }

    /// The reader's slot in the ring's reader registry (`0..READERS`), fixed while it is
    /// attached: where a ring shared by processes keeps who owns it.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let (a, b) = (ring.reader().unwrap(), ring.reader().unwrap());
    /// assert_eq!((a.registry_slot(), b.registry_slot()), (0, 1));
    /// ```
    pub fn registry_slot(&self) -> usize {
        self.pos.slot
    }

    /// The ring.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let r = ring.reader().unwrap();
    /// assert_eq!(r.ring().capacity(), 4);
    /// assert_eq!(r.ring().reader_count(), 1);
    /// ```
    pub fn ring(&self) -> &R::Target {
        &self.ring
    }

    /// How this reader's blocking reads let its writers get ahead when it keeps up with them
    /// ([`Pacing`] says how and what it costs). A reader starts with
    /// [`Pacing::for_items`]`::<R::Item>()`; [`Pacing::OFF`] returns every item the moment a
    /// look finds it.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// use spanring_core::wait::Pacing;
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// assert_eq!(r.pacing(), Pacing::for_items::<u8>());
    /// r.set_pacing(Pacing::OFF);
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// drop(w);
    /// assert_eq!(r.into_iter().collect::<Vec<_>>(), [1]);
    /// ```
    pub fn set_pacing(&mut self, pacing: Pacing) {
        self.pace = pacing;
    }

    /// This reader's [`Pacing`].
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// use spanring_core::wait::Pacing;
    /// let mut memory = [0u64; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// assert_eq!(r.pacing(), Pacing::new(16, 4)); // `Pacing::for_items::<u64>()`
    /// r.set_pacing(Pacing::OFF);
    /// assert_eq!(r.pacing(), Pacing::OFF);
    /// ```
    pub fn pacing(&self) -> Pacing {
        self.pace
    }

    /// The cursor of the next item this reader will see: the stream position (it counts on
    /// past the capacity, wrapping at `usize::MAX` like every cursor).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(10).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// assert_eq!(r.cursor(), 10);
    /// w.try_push(1).unwrap();
    /// r.pop().unwrap();
    /// assert_eq!(r.cursor(), 11);
    /// ```
    #[inline]
    pub fn cursor(&self) -> usize {
        self.pos.cursor
    }

    /// Published items not yet consumed by this reader (a snapshot; on a multi-producer ring
    /// it may include skipped hole slots, which reads never return).
    ///
    /// Takes `&self` and changes nothing: the reader's cached count of ready items is not
    /// updated (the next read refreshes it).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// w.try_push(2).unwrap();
    /// assert_eq!(r.available(), 2);
    /// ```
    pub fn available(&self) -> usize {
        let ring = &*self.ring;
        let Some(m) = ring.state.producer.multi() else {
            // Acquire: as in `refresh`.
            let published = ring.state.published.load(Ordering::Acquire);
            return ring
                .state
                .layout
                .distance(self.pos.cursor, published)
                .max(0) as usize;
        };
        // Multi-producer: walk the records from the front (data and holes alike).
        let layout = &ring.state.layout;
        let mut total = self.pos.ready(&ring.state.layout);
        let mut front = layout.advance(self.pos.cursor, total);
        while total < layout.capacity() {
            match m.record(layout, front) {
                Some((len, _)) => {
                    total += len;
                    front = layout.advance(front, len);
                }
                None => break,
            }
        }
        total
    }

    /// Up to `max` published items, without waiting.
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`] if nothing is published, [`ReadError::Closed`] if the ring is
    /// closed and this reader has read everything.
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// assert_eq!(r.try_read(2).unwrap_err(), ReadError::Empty);
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.try_read(2).unwrap().to_array::<2>(), Some([1, 2]));
    /// assert_eq!(r.try_read(2).unwrap().to_array::<1>(), Some([3]));
    /// ```
    #[inline]
    pub fn try_read(&mut self, max: usize) -> Result<ReadSpan<'_, R>, ReadError> {
        let n = match self.known_ready(max) {
            Some(n) => n,
            None => try_read_cold(&self.ring, &mut self.pos, max)?,
        };
        Ok(ReadSpan::new(self, n))
    }

    /// Everything published and not yet consumed by this reader, without waiting (as
    /// [`try_read`](Self::try_read)`(usize::MAX)`).
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`], [`ReadError::Closed`].
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.try_read_all().unwrap().len(), 3);
    /// ```
    #[inline]
    pub fn try_read_all(&mut self) -> Result<ReadSpan<'_, R>, ReadError> {
        self.try_read(usize::MAX)
    }

    /// Everything published and not yet consumed, waiting until at least one item is (as
    /// [`read`](Self::read)`(usize::MAX)`).
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once the ring is closed and drained.
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
    /// drop(w);
    /// assert_eq!(r.read_all().unwrap().to_array::<2>(), Some([1, 2]));
    /// assert_eq!(r.read_all().unwrap_err(), ReadError::Closed);
    /// ```
    #[inline]
    pub fn read_all(&mut self) -> Result<ReadSpan<'_, R>, ReadError> {
        self.read(usize::MAX)
    }

    /// One item, without waiting: a clone of the next published item, which this reader then
    /// consumes (other readers still see it: the ring is broadcast). The one-item form of
    /// [`try_read`](Self::try_read), with the same fast path as `try_read(1)`. If `clone`
    /// panics the item counts as consumed.
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`], [`ReadError::Closed`].
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut a = ring.reader().unwrap();
    /// let mut b = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(7).unwrap();
    /// assert_eq!(a.try_pop(), Ok(7));
    /// assert_eq!(a.try_pop(), Err(ReadError::Empty));
    /// assert_eq!(b.try_pop(), Ok(7)); // b sees it too
    /// ```
    #[inline]
    pub fn try_pop(&mut self) -> Result<R::Item, ReadError>
    where
        R::Item: Clone,
    {
        if let Some(item) = self.pop_ready() {
            return Ok(item);
        }
        // Out of line on a copy of the position, as `pop` (and never paced: a try read does
        // not wait): the inlined part stays the compare, the load and the consume, so a loop
        // that calls `try_pop` through a closure (a retry helper) still inlines it.
        let (pos, outcome) = pop_cold(&self.ring, self.pos, Pacing::OFF, None::<NoWait<R::Wait>>);
        self.pos = pos;
        outcome
    }

    /// One item, waiting through the ring's wait strategy until one is published (the one-item
    /// form of [`read`](Self::read)).
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once the ring is closed and drained.
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(4).unwrap();
    /// drop(w);
    /// assert_eq!(r.pop(), Ok(4));
    /// assert_eq!(r.pop(), Err(ReadError::Closed));
    /// ```
    #[inline]
    pub fn pop(&mut self) -> Result<R::Item, ReadError>
    where
        R::Item: Clone,
    {
        if let Some(item) = self.pop_ready() {
            return Ok(item);
        }
        let (pos, outcome) = pop_cold(
            &self.ring,
            self.pos,
            self.pace,
            Some(|w: &R::Wait, ready: &mut dyn FnMut() -> bool| {
                w.wait_until(ready);
                true
            }),
        );
        self.pos = pos;
        outcome
    }

    /// As [`pop`](Self::pop), giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`], [`ReadError::TimedOut`].
    ///
    /// ```
    /// # use core::time::Duration;
    /// # use spanring_core::{ReadError, Ring, SliceStorage, WaitStrategy, WaitTimeout};
    /// # #[derive(Default)] struct NoWait;
    /// # impl WaitStrategy for NoWait { fn wait_until(&self, r: &mut dyn FnMut() -> bool) { while !r() {} } fn notify_all(&self) {} }
    /// # impl WaitTimeout for NoWait { fn wait_until_timeout(&self, r: &mut dyn FnMut() -> bool, _: Duration) -> bool { r() } }
    /// let mut memory = [0u8; 2];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).wait::<NoWait>().build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// assert_eq!(r.pop_timeout(Duration::from_millis(1)), Err(ReadError::TimedOut));
    /// w.try_push(3).unwrap();
    /// assert_eq!(r.pop_timeout(Duration::from_millis(1)), Ok(3));
    /// ```
    #[inline]
    pub fn pop_timeout(&mut self, timeout: Duration) -> Result<R::Item, ReadError>
    where
        R::Item: Clone,
        R::Wait: WaitTimeout,
    {
        if let Some(item) = self.pop_ready() {
            return Ok(item);
        }
        // Not through `pop_cold`: the calls bench measured this form slower there
        // (core/src/NOTES.md).
        Ok(self.read_timeout(1, timeout)?.take_first())
    }

    /// Up to `max` items, waiting until at least one is published.
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once the ring is closed and drained.
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.read(2).unwrap().to_array::<2>(), Some([1, 2])); // at most 2
    /// assert_eq!(r.read(8).unwrap().to_array::<1>(), Some([3])); // what is there, at least 1
    /// drop(w); // the last writer closes the ring
    /// assert_eq!(r.read(8).unwrap_err(), ReadError::Closed);
    /// ```
    #[inline]
    pub fn read(&mut self, max: usize) -> Result<ReadSpan<'_, R>, ReadError> {
        let n = self.wait_for(1, max, |w, ready| {
            w.wait_until(ready);
            true
        })?;
        Ok(ReadSpan::new(self, n))
    }

    /// Exactly `n` items, waiting until they are published. Returns fewer only when no more
    /// can come in time: the ring closed with fewer left, or (multi-producer) a skipped hole
    /// ends the run of items early.
    ///
    /// # Errors
    ///
    /// [`ReadError::TooLarge`] if `n > capacity`, [`ReadError::Closed`].
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.read_exact(2).unwrap().to_array::<2>(), Some([1, 2]));
    /// let e = r.read_exact(5).unwrap_err();
    /// assert_eq!(e, ReadError::TooLarge { requested: 5, capacity: 4 });
    /// drop(w); // closed with one item left: that one, not two
    /// assert_eq!(r.read_exact(2).unwrap().to_array::<1>(), Some([3]));
    /// assert_eq!(r.read_exact(2).unwrap_err(), ReadError::Closed);
    /// ```
    #[inline]
    pub fn read_exact(&mut self, n: usize) -> Result<ReadSpan<'_, R>, ReadError> {
        let cap = self.ring.capacity();
        if n > cap {
            return Err(ReadError::TooLarge {
                requested: n,
                capacity: cap,
            });
        }
        let got = self.wait_for(n, n, |w, ready| {
            w.wait_until(ready);
            true
        })?;
        Ok(ReadSpan::new(self, got))
    }

    /// As [`read`](Self::read), giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`], [`ReadError::TimedOut`].
    ///
    /// ```
    /// # #[cfg(feature = "std")] { // `BusySpin`'s timeout needs a clock
    /// use core::time::Duration;
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let t = Duration::from_millis(1);
    /// assert_eq!(r.read_timeout(8, t).unwrap_err(), ReadError::TimedOut);
    /// w.try_push(1).unwrap();
    /// assert_eq!(r.read_timeout(8, t).unwrap().to_array::<1>(), Some([1]));
    /// # }
    /// ```
    #[inline]
    pub fn read_timeout(
        &mut self,
        max: usize,
        timeout: Duration,
    ) -> Result<ReadSpan<'_, R>, ReadError>
    where
        R::Wait: WaitTimeout,
    {
        let n = self.wait_for(1, max, |w, ready| w.wait_until_timeout(ready, timeout))?;
        Ok(ReadSpan::new(self, n))
    }

    /// The one-item fast path: a clone of the next item if this reader already knows it is
    /// published (`cursor != end`), consumed; no span. A clone that panics still consumes the item,
    /// as with a span.
    ///
    /// Its check is one compare (`cursor != end`) and its consume one increment plus the
    /// cursor's store: the reader keeps the end of its known window as a cursor clipped to the
    /// plain steps (`ReadPos`), not a count next to a lap-end test (a `pop` loop went from 21 to
    /// 15 instructions per item).
    ///
    /// Past this fast path, `pop`'s slow path (`pop_cold`) takes the reader's position by value
    /// and returns it with the item, so no call in a loop of `pop`s gets the handle's address:
    /// that is what lets `for x in reader`, which owns the reader as a local, keep the cursor in
    /// a register. A panic in a by-value slow path (a `clone`, a wait strategy) leaves the
    /// reader behind its registry cursor, so every poll first brings it up to date (`resync`);
    /// drop guards holding the position instead would put it back in memory. The cursor is
    /// stored at every consume, not once per window as disruptor's handlers store theirs: that
    /// measured slower and would delay the writers' view of the slots a `pop` freed. The
    /// measurements, and the variants tried and not kept: `core/src/NOTES.md`.
    #[inline(always)]
    fn pop_ready(&mut self) -> Option<R::Item>
    where
        R::Item: Clone,
    {
        // An item known published, reached by a plain step: the next cursor is `cursor + 1`,
        // with no lap arithmetic (`ReadPos::end`; on a capacity that is not a power of two the
        // lap's last slot goes through a span, once per lap).
        if self.pos.cursor == self.pos.end {
            return None;
        }
        /// Consumes the one item when dropped, on the normal path and while unwinding.
        struct ConsumeOne<'a, S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> {
            ring: &'a GenericRing<S, P, W, G>,
            pos: &'a mut ReadPos,
        }
        impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> Drop for ConsumeOne<'_, S, P, W, G> {
            #[inline(always)]
            fn drop(&mut self) {
                // Before `end` (checked above), so a plain step: the same cursor as
                // `Layout::advance(cursor, 1)`, and still at or before `end` and `front`,
                // which stay (`ReadPos::consumed` would keep them too).
                let next = self.pos.cursor.wrapping_add(1);
                debug_assert_eq!(next, self.ring.state.layout.advance(self.pos.cursor, 1));
                self.pos.cursor = next;
                self.ring.publish_read(self.pos.slot, next);
            }
        }
        let guard = ConsumeOne {
            ring: &self.ring,
            pos: &mut self.pos,
        };
        // The slot at the cursor is published (before `end`: below the published cursor, or a
        // data record on a multi-producer ring; `end` never passes a skipped slot) and not
        // consumed by this reader, so no writer reuses it until the guard's consume.
        // SAFETY: readable until the consume (above); writers never touch published slots, so
        // sharing it with other readers is fine.
        let item = unsafe { (*guard.ring.slot(guard.pos.cursor)).clone() };
        drop(guard);
        Some(item)
    }

    /// The fast path of every read: `max` items already known to be published (no atomic
    /// access, on a single-producer ring or a multi-producer one: `ready` is capped at the
    /// first skipped slot). Returns how
    /// many to show, at most `max`.
    #[inline(always)]
    fn known_ready(&self, max: usize) -> Option<usize> {
        // `end` never reaches past a skipped slot: `poll` caps it at the first one.
        // Only when it covers the whole request: a read returns what is published *now* (up to
        // `max`), so a cache that covers less sends us to the cursor.
        let known = self.pos.known();
        (known >= max && max > 0).then_some(max)
    }

    /// Waits (through `wait`) until `want` items are readable or no more can come; returns
    /// how many to show. `wait` returns `false` when it gave up. The fast path is the same
    /// inline `known_ready` compare as `try_read`; everything else (polling, waiting) is out of
    /// line, in [`wait_for_cold`](Self::wait_for_cold).
    #[inline]
    fn wait_for(
        &mut self,
        want: usize,
        max: usize,
        wait: impl FnOnce(&R::Wait, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReadError> {
        if let Some(n) = self.known_ready(max) {
            return Ok(n);
        }
        // The position goes out by value and comes back: no call made here gets a pointer
        // to this handle, so in a caller's loop of `pop`s the compiler can keep the cursor
        // and the ready count in registers instead of storing and reloading them per item.
        let (pos, outcome) = wait_for_cold(&self.ring, self.pos, self.pace, want, max, Some(wait));
        self.pos = pos;
        outcome
    }
}

impl<R> Drop for Reader<R>
where
    R: Deref,
    R::Target: RingCore,
{
    #[inline]
    fn drop(&mut self) {
        self.ring
            .reader_dropped(self.pos.slot, crate::internal::INTERNAL);
    }
}

/// Handing out readers is the reader's business: the ring (ring.rs) knows nothing of handles.
impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> GenericRing<S, P, W, G> {
    /// A reader handle borrowing the ring, attached at the current published cursor: it will
    /// see every item published from now on.
    ///
    /// # Errors
    ///
    /// [`AttachError::TooManyReaders`] when `READERS` readers are attached.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut early = ring.reader().unwrap();
    /// w.try_push(1).unwrap();
    /// let mut late = ring.reader().unwrap();
    /// w.try_push(2).unwrap();
    /// assert_eq!((early.try_pop(), early.try_pop()), (Ok(1), Ok(2))); // broadcast: every item
    /// assert_eq!(late.try_pop(), Ok(2)); // from its attach on
    /// ```
    pub fn reader(&self) -> Result<Reader<&Self>, AttachError> {
        Reader::attach(self)
    }
}

/// The type of "no wait" for [`pop_cold`] and [`wait_for_cold`] (a try read).
type NoWait<W> = fn(&W, &mut dyn FnMut() -> bool) -> bool;
