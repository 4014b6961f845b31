//! The reader's slow paths: polling the read protocol (`protocol::read`) when the reader's
//! cached window does not cover a request, waiting through the ring's wait strategy, and
//! waking writers when a poll passed holes (slots freed). Each takes the reader's position by
//! value and returns it, so a loop of reads keeps it in registers.

use crate::claim::ClaimMode;
use crate::error::ReadError;
use crate::pacing::Pacing;
use crate::protocol::read;
use crate::readers::ReadPos;
use crate::readers::Registry;
use crate::ring::GenericRing;
use crate::ring::RingCore;
use crate::storage::Storage;
use crate::wait::WaitStrategy;

/// [`read::poll_at_least`], waking writers if it passed holes.
#[inline(always)]
pub(crate) fn poll_at_least<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>(
    ring: &GenericRing<S, P, W, G>,
    pos: &mut ReadPos,
    want: usize,
    max: usize,
) -> Result<usize, ReadError> {
    read::poll_at_least(&ring.state, pos, want, max, &|| ring.space.notify_all())
}

/// [`read::zero_length`], waking writers if it passed holes.
#[inline(always)]
fn zero_length<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>(
    ring: &GenericRing<S, P, W, G>,
    pos: &mut ReadPos,
) -> Result<usize, ReadError> {
    read::zero_length(&ring.state, pos, &|| ring.space.notify_all())
}

/// The slow part of [`Reader::wait_for`]: the cache did not cover the request. Waits through
/// `wait` if nothing is published (`None`: returns `Empty`, for [`Reader::try_pop`]). Takes the
/// reader's position by value and returns it (see `wait_for`).
#[cold]
#[inline(never)]
pub(crate) fn wait_for_cold<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>(
    ring: &GenericRing<S, P, W, G>,
    pos: ReadPos,
    pace: Pacing,
    want: usize,
    max: usize,
    wait: Option<impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool>,
) -> (ReadPos, Result<usize, ReadError>) {
    wait_for_in(ring, pos, pace, want, max, wait)
}

/// [`wait_for_cold`]'s body, inlined into it and into [`pop_cold`] (one call on `pop`'s slow
/// path, not two).
#[inline(always)]
pub(crate) fn wait_for_in<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>(
    ring: &GenericRing<S, P, W, G>,
    mut pos: ReadPos,
    pace: Pacing,
    want: usize,
    max: usize,
    wait: Option<impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool>,
) -> (ReadPos, Result<usize, ReadError>) {
    if max == 0 {
        let outcome = zero_length(ring, &mut pos);
        return (pos, outcome);
    }
    let want = want.min(max).max(1);
    let mut outcome = poll_at_least(ring, &mut pos, want, max);
    if outcome.is_ok() && pace.applies(pos.ready(&ring.state.layout)) {
        // Found a few: let the writers get ahead, then look once more (`Pacing`). The second
        // poll only extends what is known; what the first found stays found.
        pace.spin();
        outcome = poll_at_least(ring, &mut pos, want, max);
    }
    if matches!(outcome, Err(ReadError::Empty)) {
        // No wait: a try read reports `Empty`.
        let Some(wait) = wait else {
            return (pos, outcome);
        };
        let ready = wait(&ring.data, &mut || {
            outcome = poll_at_least(ring, &mut pos, want, max);
            !matches!(outcome, Err(ReadError::Empty))
        });
        if !ready {
            return (pos, Err(ReadError::TimedOut));
        }
    }
    (pos, outcome)
}

/// The slow part of [`Reader::pop`] and [`Reader::try_pop`]: waits
/// for one item (`wait`: `None` for a try read, which returns `Empty` instead), then clones and
/// consumes it. Takes
/// the reader's position by value and returns it, so no call in a loop of `pop`s gets the
/// handle's address.
#[cold]
#[inline(never)]
pub(crate) fn pop_cold<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>(
    ring: &GenericRing<S, P, W, G>,
    pos: ReadPos,
    pace: Pacing,
    wait: Option<impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool>,
) -> (ReadPos, Result<S::Item, ReadError>)
where
    S::Item: Clone,
{
    let (mut pos, outcome) = wait_for_in(ring, pos, pace, 1, 1, wait);
    match outcome {
        Ok(n) => {
            debug_assert!(n >= 1, "a blocking one-item wait returned nothing");
            let item = take_one(ring, &mut pos);
            (pos, Ok(item))
        }
        Err(e) => (pos, Err(e)),
    }
}

/// A clone of the item at `pos`'s cursor, which must be published and not consumed by this
/// reader; consumed afterwards (also when `clone` panics).
#[inline(always)]
pub(crate) fn take_one<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>(
    ring: &GenericRing<S, P, W, G>,
    pos: &mut ReadPos,
) -> S::Item
where
    S::Item: Clone,
{
    /// Consumes the one item when dropped, on the normal path and while unwinding.
    struct ConsumeOne<'a, S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> {
        ring: &'a GenericRing<S, P, W, G>,
        pos: &'a mut ReadPos,
    }
    impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> Drop for ConsumeOne<'_, S, P, W, G> {
        fn drop(&mut self) {
            self.ring
                .consume_span(self.pos, 1, crate::internal::INTERNAL);
        }
    }
    let guard = ConsumeOne { ring, pos };
    // SAFETY: the caller's contract: the slot at the cursor is published and not consumed by
    // this reader, so no writer reuses it until the guard's consume; writers never touch
    // published slots, so sharing it with other readers is fine.
    let item = unsafe { (*guard.ring.slot(guard.pos.cursor)).clone() };
    drop(guard);
    item
}

/// The slow part of [`Reader::try_read`]: the cache did not cover the request. Out of line,
/// so that `try_read` stays small enough to inline (with the poll inlined it was not, and a
/// loop of `try_read(1)` cost twice as much).
#[inline(never)]
pub(crate) fn try_read_cold<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry>(
    ring: &GenericRing<S, P, W, G>,
    pos: &mut ReadPos,
    max: usize,
) -> Result<usize, ReadError> {
    if max == 0 {
        zero_length(ring, pos)
    } else {
        read::poll(&ring.state, pos, max, &|| ring.space.notify_all()).map(|polled| polled.count)
    }
}
