//! The ring's futures: [`ReserveFuture`] (from [`Writer::reserve_async`]) and [`ReadFuture`]
//! (from [`Reader::read_async`] / [`Reader::read_exact_async`]).
//!
//! Each poll follows register-then-check: try; if the ring is full (empty), register the
//! task's waker with the ring's [`WakerRegistry`], then try once more before returning
//! `Pending`. A wake-up between the two tries is therefore never lost.
//!
//! **Cancel safety.** Slots are claimed (and items shown) only inside a poll that returns
//! `Ready`: a future dropped while pending has claimed nothing, consumed nothing, and gives
//! its waker cell back on drop.

use core::future::Future;
use core::ops::Deref;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::async_wait::{WakerCellId, WakerRegistry};
use crate::claim::ClaimMode;
use crate::error::{FillError, PushError, ReadError, ReserveError};
use crate::reader::ReadSpan;
use crate::reader::Reader;
use crate::readers::Registry;
use crate::ring::GenericRing;
use crate::ring::RingCore;
use crate::ring_ref::RingPtr;
use crate::storage::Storage;
use crate::writer::WriteSpan;
use crate::writer::Writer;

/// Registers `cx`'s waker in `cell` (claiming one the first time); wakes it at once when all
/// cells are taken, so the future is polled again instead of sleeping unregistered.
fn register<W: WakerRegistry>(wait: &W, cell: &mut Option<WakerCellId>, cx: &Context<'_>) {
    if cell.is_none() {
        *cell = wait.claim_cell();
    }
    match cell {
        Some(c) => wait.register(c, cx.waker()),
        None => cx.waker().wake_by_ref(),
    }
}

/// Waits for `n` free slots: resolves to the [`WriteSpan`], or to the error
/// [`Writer::try_reserve`] would give other than `Full` (`TooLarge`, `Closed`).
///
/// Cancel-safe: dropping it before it resolves claims nothing. Panics if polled again after
/// it resolved.
#[must_use = "futures do nothing unless awaited"]
pub struct ReserveFuture<'a, R>
where
    R: Deref,
    R::Target: AsyncRing,
{
    writer: Option<&'a mut Writer<R>>,
    n: usize,
    cell: Option<WakerCellId>,
}

impl<R: RingPtr> Writer<R>
where
    R::Wait: WakerRegistry,
{
    /// Reserves exactly `n` slots, waiting asynchronously while the ring is full.
    ///
    /// # Errors
    ///
    /// The future resolves to [`ReserveError::TooLarge`] if `n > capacity`,
    /// [`ReserveError::Closed`] once the ring is closed.
    ///
    /// ```
    /// # use spanring_core::{AsyncWait, InlineStorage, Ring, SingleProducer};
    /// # let ring = Ring::builder(InlineStorage::new([0u8; 8])).wait::<AsyncWait>().build().unwrap();
    /// # let mut writer = ring.writer().unwrap();
    /// async fn produce<R>(writer: &mut spanring_core::Writer<R>)
    /// where
    ///     R: core::ops::Deref<Target = Ring<InlineStorage<u8, 8>, SingleProducer, AsyncWait>>,
    /// {
    ///     let mut span = writer.reserve_async(3).await.unwrap();
    ///     span.copy_from_slice(&[1, 2, 3]);
    /// } // published when the span drops
    /// # drop(produce(&mut writer));
    /// ```
    pub fn reserve_async(&mut self, n: usize) -> ReserveFuture<'_, R> {
        ReserveFuture {
            writer: Some(self),
            n,
            cell: None,
        }
    }

    /// Stores one item, waiting asynchronously while the ring is full (the one-item form of
    /// [`reserve_async`](Self::reserve_async), as tokio's `Sender::send`).
    ///
    /// **Cancellation.** Dropping the future before it completes stores nothing and drops the
    /// item (like `tokio::sync::mpsc::Sender::send`); no slot is claimed.
    ///
    /// # Errors
    ///
    /// [`PushError::Closed`] with the item.
    ///
    /// ```
    /// # use spanring_core::{AsyncWait, InlineStorage, PushError, Ring, SingleProducer};
    /// async fn produce<R>(writer: &mut spanring_core::Writer<R>) -> Result<(), PushError<u8>>
    /// where
    ///     R: core::ops::Deref<Target = Ring<InlineStorage<u8, 8>, SingleProducer, AsyncWait>>,
    /// {
    ///     for i in 0..100 {
    ///         writer.push_async(i).await?; // waits while the readers are behind
    ///     }
    ///     Ok(())
    /// }
    /// # let ring = Ring::builder(InlineStorage::new([0u8; 8])).wait::<AsyncWait>().build().unwrap();
    /// # let mut writer = ring.writer().unwrap();
    /// # drop(produce(&mut writer));
    /// ```
    pub async fn push_async(&mut self, item: R::Item) -> Result<(), PushError<R::Item>> {
        match self.reserve_async(1).await {
            Ok(span) => {
                span.put_first(item);
                Ok(())
            }
            Err(e) => Err(PushError::from_reserve(e, item)),
        }
    }

    /// As [`try_reserve_with`](Self::try_reserve_with), waiting asynchronously while the ring
    /// is full (as [`reserve_async`](Self::reserve_async)); `fill` is called once the `n` slots
    /// are reserved. Publishes what `fill` returns on `Ok`, nothing on `Err`.
    ///
    /// **Cancellation.** Dropping the future before it completes claims nothing and drops
    /// `fill` uncalled.
    ///
    /// Resolves to the published count.
    ///
    /// # Errors
    ///
    /// [`FillError::Reserve`] with what [`reserve_async`](Self::reserve_async) resolved to
    /// ([`ReserveError::TooLarge`], [`ReserveError::Closed`]; `fill` is not called), or
    /// [`FillError::Fill`] with `fill`'s error.
    ///
    /// ```
    /// use core::future::Future;
    /// use core::pin::pin;
    /// use core::task::{Context, Poll};
    /// use std::sync::Arc;
    /// use std::task::Wake;
    /// use spanring_core::{AsyncWait, InlineStorage, Ring};
    ///
    /// let ring = Ring::builder(InlineStorage::new([0u8; 2])).wait::<AsyncWait>().build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// struct Nothing;
    /// impl Wake for Nothing {
    ///     fn wake(self: Arc<Self>) {}
    /// }
    /// let waker = Arc::new(Nothing).into();
    /// let mut cx = Context::from_waker(&waker);
    ///
    /// w.try_reserve(2).unwrap().fill(1); // full
    /// let mut fut = pin!(w.reserve_with_async(1, |span| {
    ///     span[0] = 2;
    ///     Ok::<_, ()>(1)
    /// }));
    /// assert!(fut.as_mut().poll(&mut cx).is_pending()); // waits; the closure is not called
    /// assert_eq!(r.try_pop(), Ok(1)); // frees a slot (and wakes the future)
    /// assert_eq!(fut.as_mut().poll(&mut cx), Poll::Ready(Ok(1)));
    /// assert_eq!((r.try_pop(), r.try_pop()), (Ok(1), Ok(2)));
    /// ```
    pub async fn reserve_with_async<E, F>(
        &mut self,
        n: usize,
        fill: F,
    ) -> Result<usize, FillError<E>>
    where
        F: FnOnce(&mut WriteSpan<'_, R>) -> Result<usize, E>,
    {
        self.reserve_async(n)
            .await
            .map_err(FillError::Reserve)?
            .publish_filled(fill)
    }
}

impl<'a, R: RingPtr> Future for ReserveFuture<'a, R>
where
    R::Wait: WakerRegistry,
{
    type Output = Result<WriteSpan<'a, R>, ReserveError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let writer = this
            .writer
            .as_deref_mut()
            .expect("ReserveFuture polled after completion");
        let mut outcome = writer.try_claim(this.n);
        if matches!(outcome, Err(ReserveError::Full { .. })) {
            register(&*writer.ring.space, &mut this.cell, cx);
            // The final check, after registering: a reader that frees space from now on
            // wakes us; one that did before is seen here.
            outcome = writer.try_claim(this.n);
            if matches!(outcome, Err(ReserveError::Full { .. })) {
                return Poll::Pending;
            }
        }
        if let Some(cell) = this.cell.take() {
            writer.ring.space.release(cell);
        }
        let writer = this.writer.take().expect("checked above");
        let n = this.n;
        Poll::Ready(outcome.map(move |start| WriteSpan::new(writer, start, n)))
    }
}

impl<R> Drop for ReserveFuture<'_, R>
where
    R: Deref,
    R::Target: AsyncRing,
{
    fn drop(&mut self) {
        if let (Some(cell), Some(writer)) = (self.cell.take(), self.writer.as_deref()) {
            writer.ring.release_space_cell(cell);
        }
    }
}

impl<R> core::fmt::Debug for ReserveFuture<'_, R>
where
    R: Deref,
    R::Target: AsyncRing,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReserveFuture")
            .field("n", &self.n)
            .field("done", &self.writer.is_none())
            .field("cell", &self.cell)
            .finish()
    }
}

/// Waits for published items: resolves to a [`ReadSpan`] of `want..=max` items (fewer only
/// when no more can come: closed, or a skipped hole of a multi-producer ring), or to
/// [`ReadError::Closed`] once the ring is closed and drained.
///
/// Cancel-safe: dropping it before it resolves consumes nothing. Panics if polled again after
/// it resolved.
#[must_use = "futures do nothing unless awaited"]
pub struct ReadFuture<'a, R>
where
    R: Deref,
    R::Target: AsyncRing,
{
    reader: Option<&'a mut Reader<R>>,
    want: usize,
    max: usize,
    cell: Option<WakerCellId>,
}

impl<R: RingPtr> Reader<R>
where
    R::Wait: WakerRegistry,
{
    /// Up to `max` items, waiting asynchronously until at least one is published.
    ///
    /// # Errors
    ///
    /// The future resolves to [`ReadError::Closed`] once the ring is closed and drained.
    ///
    /// ```
    /// # use spanring_core::{AsyncWait, InlineStorage, ReadError, Ring, SingleProducer};
    /// async fn total<R>(reader: &mut spanring_core::Reader<R>) -> u64
    /// where
    ///     R: core::ops::Deref<Target = Ring<InlineStorage<u64, 8>, SingleProducer, AsyncWait>>,
    /// {
    ///     let mut sum = 0;
    ///     loop {
    ///         match reader.read_async(8).await {
    ///             Ok(items) => sum += items.iter().sum::<u64>(), // consumed on drop
    ///             Err(ReadError::Closed) => return sum,
    ///             Err(e) => panic!("{e}"),
    ///         }
    ///     }
    /// }
    /// # let ring = Ring::builder(InlineStorage::new([0u64; 8])).wait::<AsyncWait>().build().unwrap();
    /// # let mut reader = ring.reader().unwrap();
    /// # drop(total(&mut reader));
    /// ```
    pub fn read_async(&mut self, max: usize) -> ReadFuture<'_, R> {
        ReadFuture {
            reader: Some(self),
            want: 1,
            max,
            cell: None,
        }
    }

    /// Exactly `n` items, waiting asynchronously until they are published (fewer only when
    /// no more can come, as [`read_exact`](Self::read_exact)).
    ///
    /// # Errors
    ///
    /// The future resolves to [`ReadError::TooLarge`] if `n > capacity`, or
    /// [`ReadError::Closed`].
    ///
    /// ```
    /// # use core::{future::Future, pin::pin, task::{Context, Poll}}; use std::{sync::Arc, task::Wake};
    /// # struct Nothing; impl Wake for Nothing { fn wake(self: Arc<Self>) {} }
    /// # let waker = Arc::new(Nothing).into(); let mut cx = Context::from_waker(&waker);
    /// use spanring_core::{AsyncWait, InlineStorage, Ring};
    /// let ring = Ring::builder(InlineStorage::new([0u8; 4])).wait::<AsyncWait>().build().unwrap();
    /// let (mut w, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    /// w.try_push(1).unwrap();
    /// let mut read = pin!(r.read_exact_async(2));
    /// assert!(read.as_mut().poll(&mut cx).is_pending()); // one of two: waits
    /// w.try_push(2).unwrap(); // wakes it
    /// let items = read.as_mut().poll(&mut cx).map(|span| span.unwrap().to_array::<2>());
    /// assert_eq!(items, Poll::Ready(Some([1, 2])));
    /// ```
    pub fn read_exact_async(&mut self, n: usize) -> ReadFuture<'_, R> {
        ReadFuture {
            reader: Some(self),
            want: n,
            max: n,
            cell: None,
        }
    }

    /// A clone of the next item, waiting asynchronously until one is published (the one-item
    /// form of [`read_async`](Self::read_async), as tokio's `Receiver::recv`).
    ///
    /// Cancel-safe: dropping the future before it completes consumes nothing.
    ///
    /// # Errors
    ///
    /// The future resolves to [`ReadError::Closed`] once the ring is closed and drained.
    ///
    /// ```
    /// # use spanring_core::{AsyncWait, InlineStorage, Ring, SingleProducer};
    /// async fn total<R>(reader: &mut spanring_core::Reader<R>) -> u64
    /// where
    ///     R: core::ops::Deref<Target = Ring<InlineStorage<u64, 8>, SingleProducer, AsyncWait>>,
    /// {
    ///     let mut sum = 0;
    ///     while let Ok(item) = reader.pop_async().await {
    ///         sum += item; // ends at `Closed`, the only error `pop_async` can give
    ///     }
    ///     sum
    /// }
    /// # let ring = Ring::builder(InlineStorage::new([0u64; 8])).wait::<AsyncWait>().build().unwrap();
    /// # let mut reader = ring.reader().unwrap();
    /// # drop(total(&mut reader));
    /// ```
    pub async fn pop_async(&mut self) -> Result<R::Item, ReadError>
    where
        R::Item: Clone,
    {
        Ok(self.read_async(1).await?.take_first())
    }
}

impl<'a, R: RingPtr> Future for ReadFuture<'a, R>
where
    R::Wait: WakerRegistry,
{
    type Output = Result<ReadSpan<'a, R>, ReadError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let reader = this
            .reader
            .as_deref_mut()
            .expect("ReadFuture polled after completion");
        let capacity = reader.ring.capacity();
        let outcome = if this.want > capacity {
            Err(ReadError::TooLarge {
                requested: this.want,
                capacity,
            })
        } else {
            let want = this.want.min(this.max).max(1);
            let ring = &*reader.ring;
            let mut outcome =
                crate::reader::wait::poll_at_least(ring, &mut reader.pos, want, this.max);
            if matches!(outcome, Err(ReadError::Empty)) {
                register(&*ring.data, &mut this.cell, cx);
                // The final check, after registering: a writer that publishes from now on
                // wakes us; one that did before is seen here.
                outcome = crate::reader::wait::poll_at_least(ring, &mut reader.pos, want, this.max);
            }
            outcome
        };
        if matches!(outcome, Err(ReadError::Empty)) {
            return Poll::Pending;
        }
        if let Some(cell) = this.cell.take() {
            reader.ring.data.release(cell);
        }
        let reader = this.reader.take().expect("checked above");
        Poll::Ready(outcome.map(move |n| ReadSpan::new(reader, n)))
    }
}

impl<R> Drop for ReadFuture<'_, R>
where
    R: Deref,
    R::Target: AsyncRing,
{
    fn drop(&mut self) {
        if let (Some(cell), Some(reader)) = (self.cell.take(), self.reader.as_deref()) {
            reader.ring.release_data_cell(cell);
        }
    }
}

impl<R> core::fmt::Debug for ReadFuture<'_, R>
where
    R: Deref,
    R::Target: AsyncRing,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReadFuture")
            .field("want", &self.want)
            .field("max", &self.max)
            .field("done", &self.reader.is_none())
            .field("cell", &self.cell)
            .finish()
    }
}

/// Internal: a ring whose wait strategy is a [`WakerRegistry`], named without the ring's
/// parameters so the futures' `Drop` can give their cells back.
#[doc(hidden)]
pub trait AsyncRing: RingCore {
    /// Gives back a cell of the writers' (space) registry.
    fn release_space_cell(&self, cell: WakerCellId);
    /// Gives back a cell of the readers' (data) registry.
    fn release_data_cell(&self, cell: WakerCellId);
}

impl<S: Storage, P: ClaimMode, W: WakerRegistry, G: Registry> AsyncRing
    for GenericRing<S, P, W, G>
{
    fn release_space_cell(&self, cell: WakerCellId) {
        self.space.release(cell);
    }
    fn release_data_cell(&self, cell: WakerCellId) {
        self.data.release(cell);
    }
}

impl<S: Storage, P: ClaimMode, W: crate::WaitStrategy, G: Registry> GenericRing<S, P, W, G> {
    /// The wait strategy writers wait on for free space (readers notify it) — e.g. to check
    /// [`AsyncWait::registered`](crate::AsyncWait::registered).
    ///
    /// ```
    /// # use core::{future::Future, pin::pin, task::Context}; use std::{sync::Arc, task::Wake};
    /// # struct Nothing; impl Wake for Nothing { fn wake(self: Arc<Self>) {} }
    /// # let waker = Arc::new(Nothing).into(); let mut cx = Context::from_waker(&waker);
    /// use spanring_core::{AsyncWait, InlineStorage, Ring};
    /// let ring = Ring::builder(InlineStorage::new([0u8; 1])).wait::<AsyncWait>().build().unwrap();
    /// let (mut w, _r) = (ring.writer().unwrap(), ring.reader().unwrap());
    /// w.try_push(1).unwrap(); // full: the reader has not consumed it
    /// let mut reserve = pin!(w.reserve_async(1));
    /// assert!(reserve.as_mut().poll(&mut cx).is_pending());
    /// assert_eq!(ring.space_wait().registered(), 1); // the pending future's cell
    /// ```
    pub fn space_wait(&self) -> &W {
        &self.space
    }

    /// The wait strategy readers wait on for items (writers notify it).
    ///
    /// ```
    /// use spanring_core::{Backoff, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory))
    ///     .wait_with(Backoff::new(), Backoff { max_exponent: 2 })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(ring.data_wait().max_exponent, 2); // readers back off less than writers
    /// assert_eq!(ring.space_wait().max_exponent, 6);
    /// ```
    pub fn data_wait(&self) -> &W {
        &self.data
    }
}
