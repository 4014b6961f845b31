//! [`PublishNoneOnUnwind`]: a multi-producer claim held while user code runs (an old item's
//! drop, a wait strategy) is published as nothing if that code unwinds, so no reader ever
//! stops at a claimed slot.

use crate::claim::{ClaimMode, SpLocal};
use crate::readers::Registry;
use crate::ring::GenericRing;
use crate::storage::Storage;
use crate::wait::WaitStrategy;

/// Publishes nothing of a multi-producer claim of `reserved` slots at `start` if dropped,
/// which happens only while unwinding: dropping a one-item slot's old item panicked, or a wait
/// strategy panicked after its `ready()` made the claim. The claim is given back or skipped,
/// as a span's drop would; readers never stop at it. Normal paths [`disarm`](Self::disarm)
/// it. On a single-producer ring it does nothing (a claim changed nothing shared: the slots
/// are simply claimed again), and for items whose drop cannot panic it compiles away.
pub(crate) struct PublishNoneOnUnwind<'a, S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> {
    ring: &'a GenericRing<S, P, W, G>,
    start: usize,
    reserved: usize,
}

impl<'a, S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>
    PublishNoneOnUnwind<'a, S, P, W, G>
{
    #[inline(always)]
    pub(crate) fn new(ring: &'a GenericRing<S, P, W, G>, start: usize, reserved: usize) -> Self {
        Self {
            ring,
            start,
            reserved,
        }
    }

    /// The claim is in good hands (stored and about to be published, or returned to the
    /// caller): forget the guard, returning the claim's start.
    #[inline(always)]
    pub(crate) fn disarm(self) -> usize {
        let start = self.start;
        core::mem::forget(self);
        start
    }
}

impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> Drop
    for PublishNoneOnUnwind<'_, S, P, W, G>
{
    fn drop(&mut self) {
        if !P::MULTI {
            return;
        }
        // Publishing none changes no private claim state (the cursor stays at `start`, `room`
        // loses nothing): a scratch copy will do.
        let mut unchanged = SpLocal {
            limit: 0,
            next: self.start,
            room: 0,
        };
        crate::ring::RingCore::finish_span(
            self.ring,
            self.start,
            self.reserved,
            0,
            &mut unchanged,
            crate::internal::INTERNAL,
        );
    }
}
