//! [`ReadHandle`] and [`WriteHandle`]: one trait per side, so code generic over a handle names
//! the item type and nothing else — `fn f(r: &mut impl ReadHandle<Item = u64>)` — instead of
//! the ring's storage, producer kind, wait strategy, reader capacity and handle type. Every
//! reader and writer implements them: core's [`Reader`]/[`Writer`] over any ring reference, and
//! (in `spanring-std`) the owned handles.
//!
//! The span forms take a closure that sees the span as two slices (the second is empty unless
//! the span wraps around the end of plain memory) and returns how many items it used: zero
//! copies, and nothing escapes the closure, so no span type (and no lifetime) has to be named.

use crate::error::PushError;
use crate::error::ReadError;
use crate::error::ReserveError;
use crate::reader::ReadSpan;
use crate::reader::Reader;
use crate::ring_ref::RingPtr;
use crate::writer::WriteSpan;
use crate::writer::Writer;

/// The reading side of any handle. `pop`/`read_with` wait through the ring's wait strategy;
/// the `try_` forms never wait.
///
/// ```
/// use spanring_core::{ReadError, Ring, SliceStorage};
/// use spanring_core::handle::ReadHandle;
/// use spanring_core::handle::WriteHandle;
///
/// // A helper over any reader of u64: no storage, producer or wait-strategy parameters.
/// fn sum_all(r: &mut impl ReadHandle<Item = u64>) -> u64 {
///     let mut sum = 0;
///     while let Ok(_) = r.try_read_with(usize::MAX, |a, b| {
///         sum += a.iter().chain(b).sum::<u64>();
///         a.len() + b.len() // consume everything shown
///     }) {}
///     sum
/// }
///
/// let mut memory = [0u64; 8];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// let mut w = ring.writer().unwrap();
/// for i in 1..=4 {
///     w.try_push(i).unwrap();
/// }
/// assert_eq!(sum_all(&mut r), 10);
/// assert_eq!(r.try_pop(), Err(ReadError::Empty));
/// ```
pub trait ReadHandle {
    /// The item type.
    type Item;

    /// Published items not yet consumed by this reader (a snapshot).
    fn available(&self) -> usize;

    /// One item (a clone: other readers see it too), without waiting.
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`], [`ReadError::Closed`].
    fn try_pop(&mut self) -> Result<Self::Item, ReadError>
    where
        Self::Item: Clone;

    /// One item, waiting until one is published.
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once the ring is closed and drained.
    fn pop(&mut self) -> Result<Self::Item, ReadError>
    where
        Self::Item: Clone;

    /// Shows up to `max` published items to `f`, without waiting, and consumes as many as `f`
    /// returns (at most the number shown); returns that count.
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`] (and `f` is not called), [`ReadError::Closed`].
    fn try_read_with<F>(&mut self, max: usize, f: F) -> Result<usize, ReadError>
    where
        F: FnOnce(&[Self::Item], &[Self::Item]) -> usize;

    /// As [`try_read_with`](Self::try_read_with), waiting until at least one item is
    /// published.
    ///
    /// # Errors
    ///
    /// [`ReadError::Closed`] once the ring is closed and drained.
    fn read_with<F>(&mut self, max: usize, f: F) -> Result<usize, ReadError>
    where
        F: FnOnce(&[Self::Item], &[Self::Item]) -> usize;
}

/// The writing side of any handle. `push`/`write_with` wait through the ring's wait strategy
/// while the ring is full; the `try_` forms never wait.
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// use spanring_core::handle::ReadHandle;
/// use spanring_core::handle::WriteHandle;
///
/// // A helper over any writer of u32.
/// fn send_counter(w: &mut impl WriteHandle<Item = u32>, n: u32) -> usize {
///     w.try_write_with(n as usize, |a, b| {
///         let reserved = a.len() + b.len();
///         for (i, slot) in a.iter_mut().chain(b).enumerate() {
///             *slot = i as u32;
///         }
///         reserved // publish all of them
///     })
///     .unwrap()
/// }
///
/// let mut memory = [0u32; 8];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// let mut w = ring.writer().unwrap();
/// assert_eq!(send_counter(&mut w, 3), 3);
/// assert_eq!((r.try_pop(), r.try_pop(), r.try_pop()), (Ok(0), Ok(1), Ok(2)));
/// ```
pub trait WriteHandle {
    /// The item type.
    type Item;

    /// Slots free for this writer right now (a snapshot).
    fn free(&self) -> usize;

    /// Publishes one item, without waiting.
    ///
    /// # Errors
    ///
    /// [`PushError::Full`] or [`PushError::Closed`], with the item given back.
    fn try_push(&mut self, item: Self::Item) -> Result<(), PushError<Self::Item>>;

    /// Publishes one item, waiting while the ring is full.
    ///
    /// # Errors
    ///
    /// [`PushError::Closed`], with the item given back.
    fn push(&mut self, item: Self::Item) -> Result<(), PushError<Self::Item>>;

    /// Reserves exactly `n` slots without waiting, lets `f` fill them and publishes as many as
    /// `f` returns (at most `n`; the rest are not published); returns that count.
    ///
    /// # Errors
    ///
    /// [`ReserveError::Full`], [`ReserveError::TooLarge`], [`ReserveError::Closed`] (and `f`
    /// is not called).
    fn try_write_with<F>(&mut self, n: usize, f: F) -> Result<usize, ReserveError>
    where
        F: FnOnce(&mut [Self::Item], &mut [Self::Item]) -> usize;

    /// As [`try_write_with`](Self::try_write_with), waiting while the ring is full.
    ///
    /// # Errors
    ///
    /// [`ReserveError::TooLarge`], [`ReserveError::Closed`].
    fn write_with<F>(&mut self, n: usize, f: F) -> Result<usize, ReserveError>
    where
        F: FnOnce(&mut [Self::Item], &mut [Self::Item]) -> usize;
}

impl<R: RingPtr> ReadHandle for Reader<R> {
    type Item = R::Item;

    #[inline]
    fn available(&self) -> usize {
        Reader::available(self)
    }

    #[inline]
    fn try_pop(&mut self) -> Result<R::Item, ReadError>
    where
        R::Item: Clone,
    {
        Reader::try_pop(self)
    }

    #[inline]
    fn pop(&mut self) -> Result<R::Item, ReadError>
    where
        R::Item: Clone,
    {
        Reader::pop(self)
    }

    #[inline]
    fn try_read_with<F>(&mut self, max: usize, f: F) -> Result<usize, ReadError>
    where
        F: FnOnce(&[R::Item], &[R::Item]) -> usize,
    {
        Ok(show(self.try_read(max)?, f))
    }

    #[inline]
    fn read_with<F>(&mut self, max: usize, f: F) -> Result<usize, ReadError>
    where
        F: FnOnce(&[R::Item], &[R::Item]) -> usize,
    {
        Ok(show(self.read(max)?, f))
    }
}

impl<R: RingPtr> WriteHandle for Writer<R> {
    type Item = R::Item;

    #[inline]
    fn free(&self) -> usize {
        Writer::free(self)
    }

    #[inline]
    fn try_push(&mut self, item: R::Item) -> Result<(), PushError<R::Item>> {
        Writer::try_push(self, item)
    }

    #[inline]
    fn push(&mut self, item: R::Item) -> Result<(), PushError<R::Item>> {
        Writer::push(self, item)
    }

    #[inline]
    fn try_write_with<F>(&mut self, n: usize, f: F) -> Result<usize, ReserveError>
    where
        F: FnOnce(&mut [R::Item], &mut [R::Item]) -> usize,
    {
        Ok(fill(self.try_reserve(n)?, f))
    }

    #[inline]
    fn write_with<F>(&mut self, n: usize, f: F) -> Result<usize, ReserveError>
    where
        F: FnOnce(&mut [R::Item], &mut [R::Item]) -> usize,
    {
        Ok(fill(self.reserve(n)?, f))
    }
}

/// Shows `span` to `f` and consumes what `f` used (at most the span).
#[inline(always)]
fn show<R: RingPtr, F>(span: ReadSpan<'_, R>, f: F) -> usize
where
    F: FnOnce(&[R::Item], &[R::Item]) -> usize,
{
    let (a, b) = span.as_slices();
    let used = f(a, b).min(span.len());
    span.consume(used);
    used
}

/// Lets `f` fill `span` and publishes what `f` says it wrote (at most the span).
#[inline(always)]
fn fill<R: RingPtr, F>(mut span: WriteSpan<'_, R>, f: F) -> usize
where
    F: FnOnce(&mut [R::Item], &mut [R::Item]) -> usize,
{
    let n = span.len();
    let (a, b) = span.as_mut_slices();
    let used = f(a, b).min(n);
    span.publish(used);
    used
}
