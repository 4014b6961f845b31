//! [`PostGate`]: lets `shutdown` finish without waiting for an idle [`Poster`](super::Poster),
//! and without losing a post in progress.
//!
//! The core's single-producer ring cannot tell on its own whether its one writer is between
//! `reserve` and publish (claiming touches no shared memory; that is what makes it fast), so
//! readers of a closed ring wait until the writer notices the close (`Ring::close`). The same
//! holds for a multi-producer ring while it has exactly one writer (one `Poster`, not cloned):
//! that writer claims with a plain store, and a close that finds it alone leaves the seal to
//! it. A dispatcher knows more: a post is one call. Each post raises the gate (a flag for the
//! single-producer kind, a count of posts in progress for the multi-producer kind, whose
//! posters may post at the same time), then a `SeqCst` fence, then reserves (which reads
//! whether the ring is closed); `shutdown` closes the ring, fences, and waits until the gate
//! is down before it seals the close on the writer's behalf. By the fences (a
//! store-buffering pattern closed with two SeqCst fences): either the post's reserve sees the
//! close and fails, or `shutdown` sees the gate raised and waits for the post to publish —
//! never neither. A post is bounded (the worker keeps draining until the close is sealed, so
//! a post waiting for space gets it or sees the close). A multi-producer close that found
//! two or more writers is sealed by the core already (it orders itself against every claim
//! exactly); sealing it again changes nothing.

use spanring_core::{ClaimMode, Ring, Storage, WaitStrategy};

use crate::sync::{fence, AtomicUsize, Ordering};

/// "A post is in progress": a flag (0 or 1) for a single-producer dispatcher, the number of
/// posts in progress for a multi-producer one.
#[derive(Debug, Default)]
pub(crate) struct PostGate {
    posting: AtomicUsize,
}

/// Lowers the gate when the post ends, also by unwinding.
pub(crate) struct Posting<'a> {
    gate: &'a PostGate,
    multi: bool,
}

impl Drop for Posting<'_> {
    #[inline]
    fn drop(&mut self) {
        // Release: `shutdown` acquires this (multi-producer: or a later change of the count,
        // all read-modify-writes, so in this one's release sequence) and then seals; our
        // publication (before it) is then visible to the worker through the seal.
        if self.multi {
            self.gate.posting.fetch_sub(1, Ordering::Release);
        } else {
            self.gate.posting.store(0, Ordering::Release);
        }
    }
}

impl PostGate {
    /// Marks a post in progress; keep the guard until the span is published or dropped.
    #[inline]
    pub(crate) fn enter<P: ClaimMode>(&self) -> Posting<'_> {
        // Relaxed store (or increment) + SeqCst fence: the fence orders the gate before the
        // load of the close state in the reserve that follows, against the fence in
        // `close_and_seal` (module docs). Several multi-producer posters may post at once, so
        // they count instead of raising a flag that another one's end would lower.
        if P::MULTI {
            self.posting.fetch_add(1, Ordering::Relaxed);
        } else {
            self.posting.store(1, Ordering::Relaxed);
        }
        fence(Ordering::SeqCst);
        Posting {
            gate: self,
            multi: P::MULTI,
        }
    }

    /// Closes `ring` and seals the close as soon as no post is in progress (module docs).
    pub(crate) fn close_and_seal<S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize>(
        &self,
        ring: &Ring<S, P, W, N>,
    ) {
        ring.close();
        // SeqCst fence: pairs with the one in `enter` (module docs).
        fence(Ordering::SeqCst);
        // Acquire: pairs with the Release in `Posting::drop`. Bounded: a post in progress
        // either publishes or fails with `Closed`, and a post that starts now fails at once
        // (module docs).
        while self.posting.load(Ordering::Acquire) != 0 {
            crate::sync::yield_now();
        }
        ring.seal_for_idle_writer();
    }
}
