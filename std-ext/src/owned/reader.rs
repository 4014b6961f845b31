//! [`OwnedReader`]: a counted reader handle of an owned buffer; the last one to go closes it.

use core::fmt;
use core::time::Duration;
use std::sync::Arc;

use spanring_core::{
    AttachError, Producer, ReadError, ReadSpan, Reader, Ring, SingleProducer, Storage,
    WaitStrategy, WaitTimeout,
};

use super::SharedRing;
use crate::sync::{AtomicUsize, Ordering};
use crate::BlockingWait;

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
pub struct OwnedReader<S, P = SingleProducer, W = BlockingWait, const READERS: usize = 4>
where
    S: Storage,
    P: Producer,
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
    P: Producer,
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
    pub fn subscribe(&self) -> Result<Self, AttachError> {
        let reader = Reader::attach(Arc::clone(&self.ring))?;
        // Relaxed: `self` is a live handle, so the count is ≥ 1 and cannot reach zero (and
        // close the ring) concurrently; like `Arc::clone`, no ordering is needed to add one.
        self.handles.fetch_add(1, Ordering::Relaxed);
        Ok(Self {
            reader,
            ring: Arc::clone(&self.ring),
            handles: Arc::clone(&self.handles),
        })
    }

    /// Reader handles of this buffer alive right now (a snapshot).
    pub fn handle_count(&self) -> usize {
        // Relaxed: a statistic; nothing is ordered by it.
        self.handles.load(Ordering::Relaxed)
    }

    /// The ring.
    pub fn ring(&self) -> &Ring<S, P, W, READERS> {
        &self.ring
    }

    /// The cursor of the next item this reader will see ([`Reader::cursor`]).
    pub fn cursor(&self) -> usize {
        self.reader.cursor()
    }

    /// Published items not yet consumed by this reader ([`Reader::available`]).
    pub fn available(&mut self) -> usize {
        self.reader.available()
    }

    /// Up to `max` published items, without waiting ([`Reader::try_read`]).
    ///
    /// # Errors
    ///
    /// [`ReadError::Empty`], or [`ReadError::Closed`] once every writer is gone and this
    /// reader has read everything.
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
}

impl<S, P, W, const READERS: usize> Drop for OwnedReader<S, P, W, READERS>
where
    S: Storage,
    P: Producer,
    W: WaitStrategy,
{
    fn drop(&mut self) {
        // AcqRel: exactly one handle sees 1 (the RMW total order guarantees that); Acquire and
        // Release make every other handle's reads happen before the close, as for `Arc`.
        if self.handles.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last reader handle: close before the field `reader` detaches (right after
            // this), so a writer that the detach would free sees `closed` first; `close`
            // wakes writers blocked in `reserve`, which then return `ReserveError::Closed`.
            self.ring.close();
        }
    }
}

impl<S, P, W, const READERS: usize> fmt::Debug for OwnedReader<S, P, W, READERS>
where
    S: Storage,
    P: Producer,
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
