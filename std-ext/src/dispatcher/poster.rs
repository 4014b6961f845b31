//! [`Poster`]: the handle any thread uses to post callbacks to a [`Dispatcher`](super::Dispatcher).

use std::fmt;
use std::sync::Arc;

use spanring_core::callback::ByMut;
use spanring_core::callback::SendCallbackSlot;
use spanring_core::{ReserveError, Writer};

use super::backoff::Backoff;
use super::error::{PostError, TryPostError};
use super::event::{EventRing, PosterKind};
use super::post_gate::PostGate;
use crate::owned::OwnedMultiProducer;

/// Posts callbacks to a [`Dispatcher`](super::Dispatcher)'s worker. `Send`; posting takes
/// `&mut self`. With the default kind ([`OwnedMultiProducer`]) it is `Clone` (one per posting thread); a
/// [`SingleProducer`](spanring_core::SingleProducer) dispatcher has exactly one, not `Clone`.
///
/// A post reserves one ring slot, builds the closure *in place* in that slot's
/// [`SendCallbackSlot`](spanring_core::callback::SendCallbackSlot) and publishes it: no allocation. (The
/// slot is empty: the worker consumed the previous closure there when it ran it. Only a
/// closure that never ran, posted after a callback panicked, is dropped here first.) Callbacks
/// from one `Poster` run in the order they were posted; callbacks from different posters
/// interleave.
///
/// The closure is `FnOnce(&mut Ctx) + Send + 'static` (no `Sync` needed, see
/// [`Dispatcher`](super::Dispatcher#why-callbacks-need-send-but-not-sync)) and at most `WORDS`
/// words in size (see [`Dispatcher`](super::Dispatcher#closure-size-words) — a larger one is a
/// compile error; [`Dispatcher::fits`](super::Dispatcher::fits) asks). The worker drops the
/// closure's captures right after running it.
///
/// Dropping the last `Poster` closes the dispatcher: the worker runs what was posted and exits.
pub struct Poster<Ctx: 'static, const WORDS: usize = 4, P: PosterKind = OwnedMultiProducer> {
    pub(crate) writer: Writer<Arc<EventRing<Ctx, WORDS, P>>>,
    /// Shared with the dispatcher: lets `shutdown` finish without waiting for an idle poster
    /// (see `post_gate.rs`).
    pub(crate) gate: Arc<PostGate>,
}

impl<Ctx: Send + 'static, const WORDS: usize, P: PosterKind> Poster<Ctx, WORDS, P> {
    /// Posts `callback`, waiting while the ring is full (briefly spinning and yielding, then
    /// parked, see [`BlockingWait`](crate::BlockingWait)).
    ///
    /// Do not call it from a callback running on the same dispatcher's worker: if the ring is
    /// full the worker would wait for itself. Use [`try_post`](Self::try_post) there.
    ///
    /// # Errors
    ///
    /// [`PostError`] (holding `callback`) if the dispatcher is closed.
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, mut poster) = Dispatcher::spawn(8, 0u64).unwrap();
    /// for i in 1..=10u64 {
    ///     poster.post(move |sum: &mut u64| *sum += i).unwrap();
    /// }
    /// drop(poster);
    /// assert_eq!(dispatcher.join().unwrap(), 55);
    /// ```
    #[inline]
    pub fn post<F>(&mut self, callback: F) -> Result<(), PostError<F>>
    where
        F: FnOnce(&mut Ctx) + Send + 'static,
    {
        // Compile-time: a closure too big for the slot is refused here, with the sizes and
        // `spawn_sized` in the message, so the error's "while instantiating" note points at
        // the caller's `post` (`cargo build`; `cargo check` does not instantiate it).
        const { SendCallbackSlot::<ByMut<Ctx>, (), WORDS>::__assert_fits::<F>() }
        let _posting = self.gate.enter::<P>();
        // While full, wait a little without parking first (see `Backoff`), then park in
        // `reserve`.
        let mut backoff = Backoff::new();
        loop {
            match self.writer.try_reserve(1) {
                Ok(mut span) => {
                    span[0].callback.set_once(callback);
                    return Ok(()); // dropping the span publishes the slot
                }
                Err(ReserveError::Full { .. }) => {}
                Err(_) => return Err(PostError(callback)),
            }
            if !backoff.snooze() {
                break;
            }
        }
        let reserved = self.writer.reserve(1);
        match reserved {
            Ok(mut span) => {
                span[0].callback.set_once(callback);
                Ok(())
            }
            // `reserve(1)` waits instead of reporting `Full`, and 1 never exceeds the
            // capacity, so the only error left is `Closed`.
            Err(_) => Err(PostError(callback)),
        }
    }

    /// Posts `callback` if a slot is free right now; never waits.
    ///
    /// # Errors
    ///
    /// [`TryPostError::Full`] when every slot holds an unfinished event,
    /// [`TryPostError::Closed`] when the dispatcher is closed; both hold `callback`.
    ///
    /// ```
    /// use spanring_std::{Dispatcher, TryPostError};
    /// let (dispatcher, mut poster) = Dispatcher::spawn(4, 0u32)?;
    /// for _ in 0..3 {
    ///     poster.try_post(|n: &mut u32| *n += 1).unwrap(); // 3 events, 4 slots: never full
    /// }
    /// assert_eq!(dispatcher.shutdown().unwrap(), 3);
    /// let refused = poster.try_post(|n: &mut u32| *n += 1);
    /// assert!(matches!(refused, Err(TryPostError::Closed(_))));
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    #[inline]
    pub fn try_post<F>(&mut self, callback: F) -> Result<(), TryPostError<F>>
    where
        F: FnOnce(&mut Ctx) + Send + 'static,
    {
        // Compile-time: a closure too big for the slot is refused here, with the sizes and
        // `spawn_sized` in the message, so the error's "while instantiating" note points at
        // the caller's `post` (`cargo build`; `cargo check` does not instantiate it).
        const { SendCallbackSlot::<ByMut<Ctx>, (), WORDS>::__assert_fits::<F>() }
        let _posting = self.gate.enter::<P>();
        match self.writer.try_reserve(1) {
            Ok(mut span) => {
                span[0].callback.set_once(callback);
                Ok(())
            }
            Err(ReserveError::Full { .. }) => Err(TryPostError::Full(callback)),
            Err(_) => Err(TryPostError::Closed(callback)),
        }
    }

    /// Whether the dispatcher is closed (posts would fail).
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, poster) = Dispatcher::spawn(4, ())?;
    /// assert!(!poster.is_closed());
    /// dispatcher.shutdown().unwrap();
    /// assert!(poster.is_closed());
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn is_closed(&self) -> bool {
        self.writer.ring().is_closed()
    }
}

impl<Ctx: 'static, const WORDS: usize> Clone for Poster<Ctx, WORDS, OwnedMultiProducer> {
    fn clone(&self) -> Self {
        Self {
            writer: self.writer.clone(),
            gate: Arc::clone(&self.gate),
        }
    }
}

impl<Ctx: 'static, const WORDS: usize, P: PosterKind> fmt::Debug for Poster<Ctx, WORDS, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poster")
            .field("capacity", &self.writer.ring().capacity())
            .field("closed", &self.writer.ring().is_closed())
            .finish()
    }
}
