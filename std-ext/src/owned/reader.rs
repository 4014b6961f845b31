//! [`OwnedReader`]: a counted reader handle of an owned buffer; the last one to go closes it.

use core::fmt;
use core::time::Duration;
use std::sync::Arc;

use spanring_core::asynch::ReadFuture;
use spanring_core::asynch::WakerRegistry;
use spanring_core::handle::ReadHandle;
use spanring_core::iter::IntoIter;
use spanring_core::iter::Iter;
use spanring_core::iter::TryIter;
use spanring_core::{
    AttachError, ClaimMode, ReadError, ReadSpan, Reader, Ring, SingleProducer, Storage,
    WaitStrategy, WaitTimeout,
};

use super::{SharedRing, Subscriber};
use crate::sync::{AtomicUsize, Ordering};
use crate::HybridWait;

/// A reader handle of an owned buffer: core's [`Reader`] over the shared ring (same reading
/// API, forwarded below), plus [`subscribe`](Self::subscribe) to attach more readers while the
/// buffer runs, and a count of reader handles: when the last one is dropped the ring closes,
/// so writers get [`ReserveError::Closed`](spanring_core::ReserveError::Closed) (and blocked
/// writers wake up) instead of waiting for readers that will never come back.
///
/// `'static`, and `Send` when the item type is `Send + Sync`.
///
/// ```
/// use spanring_std::owned;
/// use spanring_std::core_api::ReserveError;
/// let (mut w, r) = owned::portable::<u8>(4).build()?;
/// let late = r.subscribe()?; // a second handle, attached now
/// drop(r);
/// w.try_reserve(1)?.fill(1); // `late` still reads
/// drop(late); // the last reader handle: the ring closes
/// assert_eq!(w.try_reserve(1).unwrap_err(), ReserveError::Closed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OwnedReader<S, P = SingleProducer, W = HybridWait, const READERS: usize = 4>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    reader: Reader<SharedRing<S, P, W, READERS>>,
    /// The ring again: `Reader` does not give its pointer back, and `subscribe` needs one.
    ring: SharedRing<S, P, W, READERS>,
    /// Live reader handles of this buffer (≥ 1 while any exists).
    handles: Arc<AtomicUsize>,
}

impl<S, P, W, const READERS: usize> OwnedReader<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    /// The first reader handle of a new buffer (the count starts at 1).
    pub(super) fn first(ring: SharedRing<S, P, W, READERS>) -> Result<Self, AttachError> {
        Ok(Self {
            reader: Reader::attach(Arc::clone(&ring))?,
            ring,
            handles: Arc::new(AtomicUsize::new(1)),
        })
    }

    /// Another reader handle of the same buffer, attached at the current published cursor: it
    /// sees the items published from now on (not those this reader has not read yet).
    ///
    /// # Errors
    ///
    /// [`AttachError::TooManyReaders`] when `READERS` readers are attached.
    ///
    /// ```
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// w.try_push(1)?;
    /// let mut late = r.subscribe()?; // attached after `1` was published
    /// w.try_push(2)?;
    /// assert_eq!(r.try_iter().collect::<Vec<_>>(), [1, 2]);
    /// assert_eq!(late.try_iter().collect::<Vec<_>>(), [2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn subscribe(&self) -> Result<Self, AttachError> {
        Self::attach_counted(&self.ring, &self.handles)
    }

    /// A [`Subscriber`] of this buffer: it makes readers on demand and keeps the buffer open
    /// without holding the writer back (it has no reader slot). For a server whose clients
    /// come and go: keep the subscriber, drop the readers.
    ///
    /// ```
    /// use spanring_std::owned;
    /// let (mut w, r) = owned::portable::<u8>(2).build()?;
    /// let clients = r.subscriber();
    /// drop(r); // no reader: the writer is never held back
    /// for i in 0..10 {
    ///     w.try_reserve(1)?.fill(i);
    /// }
    /// let mut late = clients.subscribe()?;
    /// w.try_reserve(1)?.fill(10);
    /// assert_eq!(late.try_pop()?, 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn subscriber(&self) -> Subscriber<S, P, W, READERS> {
        // Relaxed: as in `attach_counted`.
        self.handles.fetch_add(1, Ordering::Relaxed);
        Subscriber::counted(Arc::clone(&self.ring), Arc::clone(&self.handles))
    }

    /// A new reader handle of the ring, counted in `handles`, which a live handle (reader or
    /// subscriber) of the caller keeps ≥ 1.
    pub(super) fn attach_counted(
        ring: &SharedRing<S, P, W, READERS>,
        handles: &Arc<AtomicUsize>,
    ) -> Result<Self, AttachError> {
        let reader = Reader::attach(Arc::clone(ring))?;
        // Relaxed: the caller's live handle keeps the count ≥ 1, so it cannot reach zero (and
        // close the ring) concurrently; like `Arc::clone`, no ordering is needed to add one.
        handles.fetch_add(1, Ordering::Relaxed);
        Ok(Self {
            reader,
            ring: Arc::clone(ring),
            handles: Arc::clone(handles),
        })
    }

    /// Reader-side handles of this buffer ([`OwnedReader`]s and [`Subscriber`]s) alive right
    /// now (a snapshot).
    ///
    /// ```
    /// let (_w, r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// assert_eq!(r.handle_count(), 1);
    /// let (second, clients) = (r.subscribe()?, r.subscriber());
    /// assert_eq!(r.handle_count(), 3); // readers and subscribers alike
    /// drop((second, clients));
    /// assert_eq!(r.handle_count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn handle_count(&self) -> usize {
        // Relaxed: a statistic; nothing is ordered by it.
        self.handles.load(Ordering::Relaxed)
    }

    /// The ring.
    ///
    /// ```
    /// let (w, r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// assert_eq!(r.ring().capacity(), 4);
    /// assert!(std::ptr::eq(r.ring(), w.ring())); // the one ring every handle shares
    /// assert!(!r.ring().is_closed());
    /// drop(w); // the last writer closes it
    /// assert!(r.ring().is_closed());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn ring(&self) -> &Ring<S, P, W, READERS> {
        &self.ring
    }

    /// The cursor of the next item this reader will see ([`Reader::cursor`]).
    ///
    /// ```
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// assert_eq!(r.cursor(), 0);
    /// w.try_reserve(3)?.copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.try_read(2)?.len(), 2);
    /// assert_eq!(r.cursor(), 2); // the third item is next
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn cursor(&self) -> usize {
        self.reader.cursor()
    }

    /// How this reader's blocking reads let its writers get ahead when it keeps up with them
    /// ([`Reader::set_pacing`], [`Pacing`](spanring_core::wait::Pacing)). Every reader starts with
    /// `Pacing::for_items::<T>()`, readers made from this one (`subscribe`, a `Subscriber`)
    /// too.
    ///
    /// ```
    /// use spanring_std::core_api::wait::Pacing;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// assert_eq!(r.pacing(), Pacing::for_items::<u8>());
    /// assert_eq!(r.subscribe()?.pacing(), Pacing::for_items::<u8>());
    /// r.set_pacing(Pacing::new(16, 32));
    /// assert_eq!(r.pacing(), Pacing::new(16, 32));
    /// w.try_push(1)?;
    /// assert_eq!(r.pop()?, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_pacing(&mut self, pacing: spanring_core::wait::Pacing) {
        self.reader.set_pacing(pacing);
    }

    /// This reader's pacing ([`Reader::pacing`]).
    ///
    /// ```
    /// use spanring_std::core_api::wait::Pacing;
    /// let (_w, r) = spanring_std::owned::portable::<u64>(4).build()?;
    /// assert_eq!(r.pacing(), Pacing::for_items::<u64>());
    /// assert_eq!(r.pacing(), Pacing::new(16, Pacing::DEFAULT_SPINS)); // 128 bytes of u64s
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pacing(&self) -> spanring_core::wait::Pacing {
        self.reader.pacing()
    }

    /// Published items not yet consumed by this reader ([`Reader::available`]; a snapshot
    /// through `&self`).
    ///
    /// ```
    /// let (mut w, r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// w.try_push(1)?;
    /// assert_eq!(r.available(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn available(&self) -> usize {
        self.reader.available()
    }

    /// Up to `max` published items, without waiting ([`Reader::try_read`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`], or [`ReadError::Closed`] once every writer is gone and this
    /// reader has read everything.
    ///
    /// ```
    /// use spanring_std::core_api::ReadError;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// assert_eq!(r.try_read(2).unwrap_err(), ReadError::Empty);
    /// w.try_reserve(3)?.copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.try_read(2)?.to_array::<2>(), Some([1, 2])); // at most `max`
    /// drop(w);
    /// assert_eq!(r.try_read(2)?.to_array::<1>(), Some([3]));
    /// assert_eq!(r.try_read(2).unwrap_err(), ReadError::Closed);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_read(
        &mut self,
        max: usize,
    ) -> Result<ReadSpan<'_, SharedRing<S, P, W, READERS>>, ReadError> {
        self.reader.try_read(max)
    }

    /// Up to `max` items, waiting until at least one is published ([`Reader::read`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once every writer is gone and everything is read.
    ///
    /// ```
    /// use spanring_std::core_api::ReadError;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u32>(8).build()?;
    /// let t = std::thread::spawn(move || w.push(7)); // `w` drops when the thread ends
    /// assert_eq!(r.read(4)?.to_array::<1>(), Some([7])); // waits for the push
    /// t.join().unwrap()?;
    /// assert_eq!(r.read(4).unwrap_err(), ReadError::Closed);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn read(
        &mut self,
        max: usize,
    ) -> Result<ReadSpan<'_, SharedRing<S, P, W, READERS>>, ReadError> {
        self.reader.read(max)
    }

    /// Exactly `n` items, waiting until they are published ([`Reader::read_exact`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::TooLarge`] if `n` exceeds the capacity, [`ReadError::Closed`].
    ///
    /// ```
    /// use spanring_std::core_api::ReadError;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u32>(8).build()?;
    /// let t = std::thread::spawn(move || (1..=4).try_for_each(|i| w.push(i)));
    /// assert_eq!(r.read_exact(4)?.to_array::<4>(), Some([1, 2, 3, 4])); // waits for all four
    /// t.join().unwrap()?;
    /// let too_many = r.read_exact(9).unwrap_err();
    /// assert_eq!(too_many, ReadError::TooLarge { requested: 9, capacity: 8 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn read_exact(
        &mut self,
        n: usize,
    ) -> Result<ReadSpan<'_, SharedRing<S, P, W, READERS>>, ReadError> {
        self.reader.read_exact(n)
    }

    /// As [`read`](Self::read), giving up after `timeout` ([`Reader::read_timeout`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`], [`ReadError::TimedOut`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use spanring_std::core_api::ReadError;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// let t = Duration::from_millis(1);
    /// assert_eq!(r.read_timeout(4, t).unwrap_err(), ReadError::TimedOut); // nothing came
    /// w.try_push(5)?;
    /// assert_eq!(r.read_timeout(4, t)?.to_array::<1>(), Some([5]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn read_timeout(
        &mut self,
        max: usize,
        timeout: Duration,
    ) -> Result<ReadSpan<'_, SharedRing<S, P, W, READERS>>, ReadError>
    where
        W: WaitTimeout,
    {
        self.reader.read_timeout(max, timeout)
    }
    /// Everything published and not yet consumed, without waiting
    /// ([`Reader::try_read_all`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`], [`ReadError::Closed`].
    ///
    /// ```
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// w.try_reserve(3)?.copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.try_read_all()?.len(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_read_all(
        &mut self,
    ) -> Result<ReadSpan<'_, SharedRing<S, P, W, READERS>>, ReadError> {
        self.reader.try_read_all()
    }

    /// Everything published and not yet consumed, waiting until at least one item is
    /// ([`Reader::read_all`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once every writer is gone and everything is read.
    ///
    /// ```
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// w.try_reserve(2)?.copy_from_slice(&[1, 2]);
    /// drop(w);
    /// assert_eq!(r.read_all()?.to_array::<2>(), Some([1, 2]));
    /// assert!(r.read_all().unwrap_err().is_terminal());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn read_all(&mut self) -> Result<ReadSpan<'_, SharedRing<S, P, W, READERS>>, ReadError> {
        self.reader.read_all()
    }

    /// A clone of the next item, without waiting ([`Reader::try_pop`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`], [`ReadError::Closed`].
    ///
    /// ```
    /// use spanring_std::core_api::ReadError;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// w.try_push(5)?;
    /// assert_eq!(r.try_pop(), Ok(5));
    /// assert_eq!(r.try_pop(), Err(ReadError::Empty));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_pop(&mut self) -> Result<S::Item, ReadError>
    where
        S::Item: Clone,
    {
        self.reader.try_pop()
    }

    /// A clone of the next item, waiting until one is published ([`Reader::pop`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once every writer is gone and everything is read.
    ///
    /// ```
    /// let (mut w, mut r) = spanring_std::owned::portable::<u64>(4).build()?;
    /// let t = std::thread::spawn(move || w.push(42));
    /// assert_eq!(r.pop(), Ok(42));
    /// t.join().unwrap()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn pop(&mut self) -> Result<S::Item, ReadError>
    where
        S::Item: Clone,
    {
        self.reader.pop()
    }

    /// As [`pop`](Self::pop), giving up after `timeout` ([`Reader::pop_timeout`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`], [`ReadError::TimedOut`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use spanring_std::core_api::ReadError;
    /// let (_w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// assert_eq!(r.pop_timeout(Duration::from_millis(1)), Err(ReadError::TimedOut));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn pop_timeout(&mut self, timeout: Duration) -> Result<S::Item, ReadError>
    where
        S::Item: Clone,
        W: WaitTimeout,
    {
        self.reader.pop_timeout(timeout)
    }

    /// The items published now, one at a time, without waiting ([`Reader::try_iter`]).
    ///
    /// ```
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// w.try_reserve(2)?.copy_from_slice(&[1, 2]);
    /// assert_eq!(r.try_iter().collect::<Vec<_>>(), [1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_iter(&mut self) -> TryIter<'_, Self> {
        TryIter::new(self)
    }
}

/// `for x in reader`: the items until every writer is gone and everything is read, the fastest
/// one-item loop ([`IntoIter`]; the reader handle stays counted until the iterator drops).
///
/// ```
/// let (mut w, r) = spanring_std::owned::portable::<u64>(64).build()?;
/// let t = std::thread::spawn(move || r.into_iter().sum::<u64>());
/// for i in 1..=100 {
///     w.push(i)?;
/// }
/// drop(w); // the ring closes: the reader's loop ends once it has read everything
/// assert_eq!(t.join().unwrap(), 5050);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<S, P, W, const READERS: usize> IntoIterator for OwnedReader<S, P, W, READERS>
where
    S: Storage,
    S::Item: Clone,
    P: ClaimMode,
    W: WaitStrategy,
{
    type Item = S::Item;
    type IntoIter = IntoIter<Self>;

    #[inline]
    fn into_iter(self) -> IntoIter<Self> {
        IntoIter::new(self)
    }
}

/// `for x in &mut reader`: as by value, borrowing the reader ([`Iter`]).
///
/// ```
/// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).build()?;
/// w.try_reserve(2)?.copy_from_slice(&[7, 8]);
/// drop(w);
/// assert_eq!((&mut r).into_iter().collect::<Vec<_>>(), [7, 8]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<'a, S, P, W, const READERS: usize> IntoIterator for &'a mut OwnedReader<S, P, W, READERS>
where
    S: Storage,
    S::Item: Clone,
    P: ClaimMode,
    W: WaitStrategy,
{
    type Item = S::Item;
    type IntoIter = Iter<'a, OwnedReader<S, P, W, READERS>>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        Iter::new(self)
    }
}

impl<S, P, W, const READERS: usize> OwnedReader<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WakerRegistry,
{
    /// Up to `max` items, waiting asynchronously until at least one is published
    /// ([`Reader::read_async`]; the owned writer has the matching
    /// [`reserve_async`](spanring_core::Writer::reserve_async)). Cancel-safe.
    ///
    /// # Errors
    ///
    /// The future resolves to [`ReadError::Closed`] once every writer is gone and everything
    /// is read.
    ///
    /// ```
    /// use spanring_std::core_api::{AsyncWait, ReadError};
    /// use spanring_std::owned;
    /// async fn sum(mut r: owned::OwnedReader<spanring_std::HeapStorage<u32>, spanring_std::core_api::SingleProducer, AsyncWait>) -> u32 {
    ///     let mut total = 0;
    ///     loop {
    ///         match r.read_async(8).await {
    ///             Ok(items) => total += items.iter().sum::<u32>(),
    ///             Err(e) if e.is_terminal() => return total,
    ///             Err(e) => panic!("{e}"),
    ///         }
    ///     }
    /// }
    /// let (_w, r) = owned::portable::<u32>(8).wait::<AsyncWait>().build()?;
    /// drop(sum(r)); // run it on any executor
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn read_async(&mut self, max: usize) -> ReadFuture<'_, SharedRing<S, P, W, READERS>> {
        self.reader.read_async(max)
    }

    /// A clone of the next item, waiting asynchronously ([`Reader::pop_async`]). Cancel-safe.
    ///
    /// # Errors
    ///
    /// The future resolves to [`ReadError::Closed`] once every writer is gone and everything
    /// is read.
    ///
    /// ```
    /// use spanring_std::core_api::AsyncWait;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u32>(8).wait::<AsyncWait>().build()?;
    /// w.try_push(3)?;
    /// let next = r.pop_async(); // ready at its first poll: an item is published
    /// # drop(next);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub async fn pop_async(&mut self) -> Result<S::Item, ReadError>
    where
        S::Item: Clone,
    {
        self.reader.pop_async().await
    }

    /// Exactly `n` items, waiting asynchronously ([`Reader::read_exact_async`]).
    ///
    /// # Errors
    ///
    /// The future resolves to [`ReadError::TooLarge`] if `n` exceeds the capacity, or
    /// [`ReadError::Closed`].
    ///
    /// ```
    /// use spanring_std::core_api::AsyncWait;
    /// let (_w, mut r) = spanring_std::owned::portable::<u32>(8).wait::<AsyncWait>().build()?;
    /// let future = r.read_exact_async(4); // resolves once four items are published
    /// drop(future); // cancel-safe: nothing consumed
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn read_exact_async(&mut self, n: usize) -> ReadFuture<'_, SharedRing<S, P, W, READERS>> {
        self.reader.read_exact_async(n)
    }
}

/// The owned reader through the one reading trait (forwards to the core reader).
///
/// ```
/// use spanring_std::core_api::handle::ReadHandle;
/// use spanring_std::core_api::handle::WriteHandle;
/// use spanring_std::owned;
/// fn drain(r: &mut impl ReadHandle<Item = u8>) -> usize {
///     let mut n = 0;
///     while let Ok(k) = r.try_read_with(usize::MAX, |a, b| a.len() + b.len()) {
///         n += k;
///     }
///     n
/// }
/// let (mut w, mut r) = owned::portable::<u8>(8).build()?;
/// w.try_write_with(5, |a, b| a.len() + b.len())?;
/// assert_eq!(drain(&mut r), 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<S, P, W, const READERS: usize> ReadHandle for OwnedReader<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    type Item = S::Item;

    #[inline]
    fn available(&self) -> usize {
        self.reader.available()
    }

    #[inline]
    fn try_pop(&mut self) -> Result<S::Item, ReadError>
    where
        S::Item: Clone,
    {
        self.reader.try_pop()
    }

    #[inline]
    fn pop(&mut self) -> Result<S::Item, ReadError>
    where
        S::Item: Clone,
    {
        self.reader.pop()
    }

    #[inline]
    fn try_read_with<F>(&mut self, max: usize, f: F) -> Result<usize, ReadError>
    where
        F: FnOnce(&[S::Item], &[S::Item]) -> usize,
    {
        self.reader.try_read_with(max, f)
    }

    #[inline]
    fn read_with<F>(&mut self, max: usize, f: F) -> Result<usize, ReadError>
    where
        F: FnOnce(&[S::Item], &[S::Item]) -> usize,
    {
        self.reader.read_with(max, f)
    }
}

impl<S, P, W, const READERS: usize> Drop for OwnedReader<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    fn drop(&mut self) {
        // Before the field `reader` detaches (right after this): a writer that the detach would
        // free sees `closed` first.
        release_handle(&self.handles, &self.ring);
    }
}

/// Drops one reader-side handle (reader or [`Subscriber`]) of `ring`; the last one closes it.
pub(super) fn release_handle<S: Storage, P: ClaimMode, W: WaitStrategy, const READERS: usize>(
    handles: &AtomicUsize,
    ring: &Ring<S, P, W, READERS>,
) {
    // AcqRel: exactly one handle sees 1 (the RMW total order guarantees that); Acquire and
    // Release make every other handle's reads happen before the close, as for `Arc`.
    if handles.fetch_sub(1, Ordering::AcqRel) == 1 {
        // The last reader-side handle: `close` wakes writers blocked in `reserve`, which then
        // return `ReserveError::Closed`.
        ring.close();
    }
}

impl<S, P, W, const READERS: usize> fmt::Debug for OwnedReader<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedReader")
            .field("cursor", &self.reader.cursor())
            .field("handles", &self.handle_count())
            .field("ring", &*self.ring)
            .finish()
    }
}
