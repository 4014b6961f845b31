//! The ring slot of a [`Dispatcher`](super::Dispatcher): an [`Event`] that owns a reusable
//! callback slot, and the ring type that carries events from posters to the worker.

use std::sync::Arc;

use spanring_core::callback::ByMut;
use spanring_core::callback::SendCallbackSlot;
use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, CapacityError, ClaimMode, Ring, SingleProducer};

use crate::{BlockingWait, HeapStorage};

/// One ring slot. Its callback slot is built in place by a poster (through the write span's
/// `&mut`, with `set_once`), then taken out and run once by the worker (through the read span's
/// `&mut`, with `call_once`), which leaves it empty and drops the closure's captures right
/// away. No allocation either way.
pub struct Event<Ctx: 'static, const WORDS: usize> {
    /// The posted callback: set with `set_once` (an `FnOnce + Send` closure); empty once the
    /// worker has run it. The worker may consume it because it is the ring's only reader
    /// (`EventRing` has one reader slot), which is what gives it `&mut` to published events.
    pub(crate) callback: SendCallbackSlot<ByMut<Ctx>, (), WORDS>,
}

impl<Ctx: 'static, const WORDS: usize> std::fmt::Debug for Event<Ctx, WORDS> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("posted", &!self.callback.is_empty())
            .finish()
    }
}

impl<Ctx: 'static, const WORDS: usize> Default for Event<Ctx, WORDS> {
    fn default() -> Self {
        Self {
            callback: SendCallbackSlot::new(),
        }
    }
}

// The multi-producer kind of a dispatcher (the default, `Poster` is `Clone`) is the owned
// buffers' multi-producer kind: one name for one type.
use crate::owned::OwnedMultiProducer;

/// The dispatcher's ring: heap slots of events, posters of kind `P`, parking waits on both
/// sides (posters park while the ring is full, the worker while it is empty — after the
/// dispatcher's own spin-and-yield phase, see `backoff.rs`), and room for exactly one reader
/// (the last parameter), so the worker's read spans give `&mut` access
/// ([`ReadSpan::as_mut_slices`](spanring_core::ReadSpan::as_mut_slices)).
pub(super) type EventRing<Ctx, const WORDS: usize, P> =
    Ring<HeapStorage<Event<Ctx, WORDS>>, P, BlockingWait, 1>;

mod sealed {
    pub trait Sealed {}
}

/// Which posters a [`Dispatcher`](super::Dispatcher) has: [`OwnedMultiProducer`] (the default; `Poster` is
/// `Clone`, any number of posting threads) or [`SingleProducer`] (one unique `Poster`; no
/// compare-and-swap or out-of-order publication bookkeeping per post, so several times faster).
/// Sealed: implemented for exactly these two.
pub trait PosterKind: ClaimMode + sealed::Sealed + Send + Sync + 'static {
    /// A ring of `capacity` empty events.
    #[doc(hidden)]
    fn new_ring<Ctx: 'static, const WORDS: usize>(
        capacity: usize,
    ) -> Result<Arc<EventRing<Ctx, WORDS, Self>>, CapacityError>
    where
        Self: Sized;
}

impl sealed::Sealed for OwnedMultiProducer {}
impl sealed::Sealed for SingleProducer {}

impl PosterKind for OwnedMultiProducer {
    fn new_ring<Ctx: 'static, const WORDS: usize>(
        capacity: usize,
    ) -> Result<Arc<EventRing<Ctx, WORDS, Self>>, CapacityError> {
        let storage = HeapStorage::with_capacity(capacity)?; // EmptyStorage → CapacityError::Zero
        let bits: Box<[AtomicUsize]> = (0..multi_words(capacity))
            .map(|_| AtomicUsize::new(0))
            .collect();
        let ring = Ring::builder(storage)
            .wait::<BlockingWait>()
            .readers::<1>()
            .multi_producer(bits)
            .build()?;
        Ok(Arc::new(ring))
    }
}

impl PosterKind for SingleProducer {
    fn new_ring<Ctx: 'static, const WORDS: usize>(
        capacity: usize,
    ) -> Result<Arc<EventRing<Ctx, WORDS, Self>>, CapacityError> {
        let storage = HeapStorage::with_capacity(capacity)?; // EmptyStorage → CapacityError::Zero
        let ring = Ring::builder(storage)
            .wait::<BlockingWait>()
            .readers::<1>()
            .build()?;
        Ok(Arc::new(ring))
    }
}
