//! [`Subscriber`]: a handle that keeps an owned buffer's read side open and makes new readers,
//! without being a reader itself — so it never holds the writer back.

use core::fmt;
use std::sync::Arc;

use spanring_core::{AttachError, ClaimMode, Ring, SingleProducer, Storage, WaitStrategy};

use super::{OwnedReader, SharedRing};
use crate::sync::{AtomicUsize, Ordering};
use crate::HybridWait;

/// Makes [`OwnedReader`]s of an owned buffer on demand, like `tokio::sync::broadcast::Sender::
/// subscribe`: for a server whose clients come and go. A subscriber holds no reader slot, so
/// the writer never waits for it (only for the readers attached right now), but it counts as a
/// reader handle for the close rule: the ring closes when the last [`OwnedReader`] *and* the
/// last `Subscriber` are gone. Items published while no reader is attached are not kept for
/// later readers: a reader sees what is published after it attached.
///
/// `Clone`, `'static`, and `Send + Sync` when the item type is `Send + Sync`.
///
/// ```
/// use spanring_std::owned;
/// use spanring_std::core_api::ReserveError;
///
/// let (mut w, first) = owned::portable::<u32>(4).build()?;
/// let clients = first.subscriber();
/// drop(first); // no reader now: the writer is never held back, and the ring stays open
/// for i in 0..100 {
///     w.try_reserve(1)?.fill(i); // nobody reads these: never Full
/// }
/// let mut a = clients.subscribe()?; // a client arrives
/// w.try_reserve(1)?.fill(100);
/// assert_eq!(a.try_read(8)?.to_array::<1>(), Some([100]));
/// drop(a); // and leaves
/// drop(clients); // the last reader-side handle: the ring closes
/// assert_eq!(w.try_reserve(1).unwrap_err(), ReserveError::Closed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Subscriber<S, P = SingleProducer, W = HybridWait, const READERS: usize = 4>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    ring: SharedRing<S, P, W, READERS>,
    /// Reader-side handles of this buffer (readers and subscribers), ≥ 1 while any exists.
    handles: Arc<AtomicUsize>,
}

impl<S, P, W, const READERS: usize> Subscriber<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    /// A subscriber sharing `handles` with a live handle (the caller counts it first).
    pub(super) fn counted(ring: SharedRing<S, P, W, READERS>, handles: Arc<AtomicUsize>) -> Self {
        Self { ring, handles }
    }

    /// A new reader, attached at the current published cursor: it sees every item published
    /// from now on.
    ///
    /// # Errors
    ///
    /// [`AttachError::TooManyReaders`] when `READERS` readers are attached.
    ///
    /// ```
    /// let (mut w, r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// let clients = r.subscriber();
    /// w.try_push(1)?;
    /// let mut client = clients.subscribe()?; // sees what is published from now on
    /// w.try_push(2)?;
    /// assert_eq!(client.try_iter().collect::<Vec<_>>(), [2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn subscribe(&self) -> Result<OwnedReader<S, P, W, READERS>, AttachError> {
        OwnedReader::attach_counted(&self.ring, &self.handles)
    }

    /// Readers attached to the buffer right now (a snapshot).
    ///
    /// ```
    /// let (_w, r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// let clients = r.subscriber();
    /// assert_eq!(clients.reader_count(), 1); // `r`: a subscriber is no reader
    /// let client = clients.subscribe()?;
    /// assert_eq!(clients.reader_count(), 2);
    /// drop((r, client));
    /// assert_eq!(clients.reader_count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reader_count(&self) -> usize {
        self.ring.reader_count()
    }

    /// The ring.
    ///
    /// ```
    /// let (w, r) = spanring_std::owned::portable::<u8>(4).build()?;
    /// let clients = r.subscriber();
    /// assert_eq!(clients.ring().capacity(), 4);
    /// assert!(!clients.ring().is_closed());
    /// drop(w); // the last writer closes the ring
    /// assert!(clients.ring().is_closed());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ring(&self) -> &Ring<S, P, W, READERS> {
        &self.ring
    }
}

impl<S, P, W, const READERS: usize> Clone for Subscriber<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    fn clone(&self) -> Self {
        // Relaxed: `self` is live, so the count is ≥ 1 and cannot reach zero meanwhile; adding
        // one needs no ordering (as `Arc::clone`).
        self.handles.fetch_add(1, Ordering::Relaxed);
        Self::counted(Arc::clone(&self.ring), Arc::clone(&self.handles))
    }
}

impl<S, P, W, const READERS: usize> Drop for Subscriber<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    fn drop(&mut self) {
        super::reader::release_handle(&self.handles, &self.ring);
    }
}

impl<S, P, W, const READERS: usize> fmt::Debug for Subscriber<S, P, W, READERS>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Relaxed: a statistic for display; nothing is ordered by it.
        let handles = self.handles.load(Ordering::Relaxed);
        f.debug_struct("Subscriber")
            .field("handles", &handles)
            .field("ring", &*self.ring)
            .finish()
    }
}
