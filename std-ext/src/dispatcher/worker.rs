//! The worker loop of a [`Dispatcher`](super::Dispatcher): read spans of events, run each
//! callback with the worker's context, consume.

use std::sync::Arc;

use spanring_core::{ReadError, Reader};

use super::backoff::Backoff;
use super::event::{EventRing, PosterKind};

/// Closes the ring when the worker leaves, normally or by a panic in a callback, so that
/// posters get `Closed` instead of posting into a ring nobody reads.
struct CloseOnExit<Ctx: 'static, const WORDS: usize, P: PosterKind>(Arc<EventRing<Ctx, WORDS, P>>);

impl<Ctx: 'static, const WORDS: usize, P: PosterKind> Drop for CloseOnExit<Ctx, WORDS, P> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Runs every posted callback until the ring is closed and drained; returns the context.
pub(crate) fn run<Ctx: 'static, const WORDS: usize, P: PosterKind>(
    ring: Arc<EventRing<Ctx, WORDS, P>>,
    mut reader: Reader<Arc<EventRing<Ctx, WORDS, P>>>,
    mut ctx: Ctx,
) -> Ctx {
    let _close = CloseOnExit(ring);
    let batch = reader.ring().capacity();
    loop {
        let polled = poll_with_backoff(&mut reader, batch);
        match polled {
            Ok(mut span) => {
                // `iter_mut`: the ring has one reader slot and this worker holds it, so the
                // core hands out `&mut` to the published events (see `EventRing`).
                for event in span.iter_mut() {
                    // Every published event was set with `set_once` by its poster (a span is
                    // published only after `set_once` returned; if a poster panics before,
                    // nothing is published) and not run yet (each is read once, then
                    // consumed), so `call_once` cannot be refused. It empties the slot and
                    // consumes the closure, so its captures are dropped here, right after the
                    // call (or by the unwind, if it panics).
                    let outcome = event.callback.call_once(&mut ctx);
                    debug_assert!(outcome.is_ok(), "dispatcher event refused: {outcome:?}");
                }
                // Dropping the span consumes the events and wakes posters waiting for space.
            }
            // `read` waits for data, so `Closed` (after draining) is the only way out.
            Err(ReadError::Closed) => return ctx,
            Err(other) => unreachable!("a waiting read of at most the capacity: {other}"),
        }
    }
}

/// Waits for events without parking for a while ([`Backoff`]), and only then parks in `read`.
///
/// Why: a worker that parks as soon as the ring is momentarily empty makes the *poster* pay a
/// wake-up syscall on its next publish, and on every publish until the worker runs again; with
/// a worker faster than its posters that is one syscall per event (measured: 1–2 M events/s
/// instead of ~15 M). Spinning and yielding first keeps the worker awake across the short gaps
/// between posts, so posters' notifications stay a fence and a load.
fn poll_with_backoff<Ctx: 'static, const WORDS: usize, P: PosterKind>(
    reader: &mut Reader<Arc<EventRing<Ctx, WORDS, P>>>,
    batch: usize,
) -> Result<spanring_core::ReadSpan<'_, Arc<EventRing<Ctx, WORDS, P>>>, ReadError> {
    let mut backoff = Backoff::new();
    while reader.available() == 0 && !reader.ring().is_closed() && backoff.snooze() {}
    reader.read(batch)
}
