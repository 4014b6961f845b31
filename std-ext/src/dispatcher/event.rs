//! The ring slot of a [`Dispatcher`](super::Dispatcher): an [`Event`] that owns a reusable
//! callback slot, and the ring type that carries events from posters to the worker.

use std::sync::Arc;

use spanring_core::sync::AtomicUsize;
use spanring_core::{words_for, ByMut, CapacityError, MultiProducer, Ring, SendCallbackSlot};

use crate::{BlockingWait, HeapStorage};

/// One ring slot. Its callback slot is built in place by a poster (through the write span's
/// `&mut`) and run by the worker (through the read span's `&`, with `call_shared`), then
/// overwritten by the poster that reuses the slot one lap later. No allocation either way.
pub(crate) struct Event<Ctx: 'static, const WORDS: usize> {
    /// The posted callback: always set with `set_fn` (an `Fn + Send + Sync` closure), so the
    /// worker may run it through the shared reference a read span gives.
    pub(crate) callback: SendCallbackSlot<ByMut<Ctx>, (), WORDS>,
}

impl<Ctx: 'static, const WORDS: usize> Default for Event<Ctx, WORDS> {
    fn default() -> Self {
        Self {
            callback: SendCallbackSlot::new(),
        }
    }
}

/// The dispatcher's ring: heap slots of events, many posters, parking waits on both sides
/// (posters park while the ring is full, the worker while it is empty — after the dispatcher's
/// own spin-and-yield phase, see [`Backoff`](super::backoff::Backoff)), one reader.
pub(crate) type EventRing<Ctx, const WORDS: usize> =
    Ring<HeapStorage<Event<Ctx, WORDS>>, MultiProducer<Box<[AtomicUsize]>>, BlockingWait, 1>;

/// A ring of `capacity` empty events, shared by the dispatcher's handles.
pub(crate) fn new_ring<Ctx: 'static, const WORDS: usize>(
    capacity: usize,
) -> Result<Arc<EventRing<Ctx, WORDS>>, CapacityError> {
    let storage = HeapStorage::with_capacity(capacity).map_err(|_| CapacityError::Zero)?;
    let bits: Box<[AtomicUsize]> = (0..words_for(capacity))
        .map(|_| AtomicUsize::new(0))
        .collect();
    Ok(Arc::new(Ring::new_multi_starting_at(storage, bits, 0)?))
}
