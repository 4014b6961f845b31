//! [`PostGate`]: lets `shutdown` of a single-producer dispatcher finish without waiting for an
//! idle [`Poster`](super::Poster), and without losing a post in progress.
//!
//! The core's single-producer ring cannot tell on its own whether its one writer is between
//! `reserve` and publish (claiming touches no shared memory; that is what makes it fast), so
//! readers of a closed ring wait until the writer notices the close (`Ring::close`). A
//! dispatcher knows more: a post is one call. Each post of a single-producer dispatcher
//! raises a flag, then a `SeqCst` fence, then reserves (which reads `closed`); `shutdown`
//! closes the ring, fences, and waits until the flag is down before it seals the close on the
//! writer's behalf. By the fences (a store-buffering pattern closed with two SeqCst fences):
//! either the post's reserve sees `closed` and fails, or `shutdown` sees the flag raised and
//! waits for the post to publish — never neither. A post is bounded (the worker keeps
//! draining until the close is sealed, so a post waiting for space gets it or sees `closed`).
//! Multi-producer dispatchers do not need this: the core orders their close against every
//! claim exactly.

use spanring_core::{Producer, Ring, Storage, WaitStrategy};

use crate::sync::{fence, AtomicUsize, Ordering};

/// The flag "a post is in progress" of a single-producer dispatcher (unused by multi-producer
/// ones).
#[derive(Debug, Default)]
pub(crate) struct PostGate {
    posting: AtomicUsize,
}

/// Lowers the flag when the post ends, also by unwinding.
pub(crate) struct Posting<'a>(Option<&'a PostGate>);

impl Drop for Posting<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(gate) = self.0 {
            // Release: `shutdown` acquires this and then seals; our publication (before it)
            // is then visible to the worker through the seal.
            gate.posting.store(0, Ordering::Release);
        }
    }
}

impl PostGate {
    /// Marks a post in progress (only when `P` is single-producer); keep the guard until the
    /// span is published or dropped.
    #[inline]
    pub(crate) fn enter<P: Producer>(&self) -> Posting<'_> {
        if P::MULTI {
            return Posting(None);
        }
        // Relaxed store + SeqCst fence: the fence orders the flag before the `closed` load in
        // the reserve that follows, against the fence in `close_and_seal` (module docs).
        self.posting.store(1, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        Posting(Some(self))
    }

    /// Closes `ring` and, for a single-producer ring, seals the close as soon as no post is in
    /// progress (module docs).
    pub(crate) fn close_and_seal<S: Storage, P: Producer, W: WaitStrategy, const N: usize>(
        &self,
        ring: &Ring<S, P, W, N>,
    ) {
        ring.close();
        if P::MULTI {
            return;
        }
        // SeqCst fence: pairs with the one in `enter` (module docs).
        fence(Ordering::SeqCst);
        // Acquire: pairs with the Release in `Posting::drop`. Bounded: the post in progress
        // either publishes or fails with `Closed` (module docs).
        while self.posting.load(Ordering::Acquire) != 0 {
            crate::sync::yield_now();
        }
        ring.seal_for_idle_writer();
    }
}
