//! The worker loop of a [`Dispatcher`](super::Dispatcher): read spans of events, run each
//! callback with the worker's context, consume.

use std::sync::Arc;

use spanring_core::{ReadError, Reader};

use super::event::EventRing;

/// Closes the ring when the worker leaves, normally or by a panic in a callback, so that
/// posters get `Closed` instead of posting into a ring nobody reads.
struct CloseOnExit<Ctx: 'static, const WORDS: usize>(Arc<EventRing<Ctx, WORDS>>);

impl<Ctx: 'static, const WORDS: usize> Drop for CloseOnExit<Ctx, WORDS> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Runs every posted callback until the ring is closed and drained; returns the context.
pub(crate) fn run<Ctx: 'static, const WORDS: usize>(
    ring: Arc<EventRing<Ctx, WORDS>>,
    mut reader: Reader<Arc<EventRing<Ctx, WORDS>>>,
    mut ctx: Ctx,
) -> Ctx {
    let _close = CloseOnExit(ring);
    let batch = reader.ring().capacity();
    loop {
        match reader.read(batch) {
            Ok(span) => {
                let (first, second) = span.as_slices();
                for event in first.iter().chain(second) {
                    // Every published event was set with `set_fn` by its poster (a span is
                    // published only after `set_fn` returned; if a poster panics before,
                    // nothing is published), so `call_shared` cannot be refused.
                    let outcome = event.callback.call_shared(&mut ctx);
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
