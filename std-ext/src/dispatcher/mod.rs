//! [`Dispatcher`]: a worker thread that runs callbacks posted from any thread, each built in
//! place in a reusable ring slot — no allocation per event (BlazingMQ's dispatcher events own a
//! "managed callback" buffer for the same reason).

mod backoff;
mod error;
mod event;
mod post_gate;
mod poster;
mod worker;

use std::fmt;
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use spanring_core::callback::ByMut;
use spanring_core::callback::SendCallbackSlot;
use spanring_core::{Reader, SingleProducer, Writer};

pub use error::{PostError, SpawnError, TryPostError};
pub use event::PosterKind;
pub use poster::Poster;

use crate::owned::OwnedMultiProducer;
use event::EventRing;

/// A worker thread that runs posted callbacks, in order per [`Poster`], each with `&mut Ctx`
/// (the worker's own context; use `()` for none).
///
/// ```
/// use spanring_std::Dispatcher;
///
/// struct Stats { events: u64, bytes: u64 }
/// let (dispatcher, poster) = Dispatcher::spawn(64, Stats { events: 0, bytes: 0 })?;
/// let producers: Vec<_> = (0..2)
///     .map(|_| {
///         let mut poster = poster.clone();
///         std::thread::spawn(move || {
///             for len in 0..100u64 {
///                 poster.post(move |s: &mut Stats| { s.events += 1; s.bytes += len }).unwrap();
///             }
///         })
///     })
///     .collect();
/// drop(poster); // the clones keep the dispatcher open
/// for p in producers { p.join().unwrap(); }
/// let stats = dispatcher.join().unwrap(); // all posters gone: drain, stop, return Ctx
/// assert_eq!((stats.events, stats.bytes), (200, 2 * 4950));
/// # Ok::<(), spanring_std::SpawnError>(())
/// ```
///
/// # How it works
///
/// The worker owns the only reader of a multi-producer ring ([`HeapStorage`](crate::HeapStorage),
/// [`BlockingWait`](crate::BlockingWait) on both sides, one reader slot) whose slots each hold
/// a [`SendCallbackSlot`](spanring_core::callback::SendCallbackSlot)`<ByMut<Ctx>, (), WORDS>`. A post
/// reserves one slot, builds the closure in it through the write span's `&mut` (`set_once`),
/// and publishes. The worker reads spans of events and, being the ring's only reader, gets
/// `&mut` to them ([`ReadSpan::as_mut_slices`](spanring_core::ReadSpan::as_mut_slices)); it
/// runs each with `call_once(&mut ctx)`, which moves the closure out of the slot, runs it and
/// leaves the slot empty, then consumes the span, which frees the slots for posters.
///
/// # Why callbacks need `Send` but not `Sync`
///
/// A callback is `FnOnce(&mut Ctx) + Send + 'static`. `Sync` would be needed if two threads
/// could use the closure at the same time; here only one thread at a time ever touches it:
///
/// 1. the poster builds it in a slot it reserved, which no reader can see yet;
/// 2. publishing hands the slot over: the poster's writes happen before the worker's read
///    (publication is a release operation that the reader acquires before it shows the slot),
///    and the poster never touches the slot again;
/// 3. the worker is the ring's *only* reader (the ring has a single reader slot, held by the
///    worker), so no other thread can reach the slot while the worker moves the closure out
///    and calls it; posters cannot reuse the slot until the worker consumes it.
///
/// That is a transfer of ownership from one thread to another — what `Send` covers, as for a
/// value sent over a channel. So a closure may capture `Cell`s, an `mpsc::Sender`, or anything
/// else that is `Send`, and may consume its captures (it runs once):
///
/// ```
/// use std::cell::Cell;
/// use spanring_std::Dispatcher;
/// let (dispatcher, mut poster) = Dispatcher::spawn(4, Vec::<String>::new())?;
/// let hits = Cell::new(2); // `Send`, not `Sync`
/// let name = String::from("first");
/// poster.post(move |log: &mut Vec<String>| {
///     hits.set(hits.get() + 1);
///     log.push(name); // moves a capture out: an `FnOnce`
/// }).unwrap();
/// drop(poster);
/// assert_eq!(dispatcher.join().unwrap(), ["first"]);
/// # Ok::<(), spanring_std::SpawnError>(())
/// ```
///
/// A closure that is not `Send` is still refused, since it does run on another thread:
///
/// ```compile_fail,E0277
/// use spanring_std::Dispatcher;
/// let (dispatcher, mut poster) = Dispatcher::spawn(4, 0u32).unwrap();
/// let shared = std::rc::Rc::new(1u32);
/// poster.post(move |n: &mut u32| *n += *shared).unwrap();
/// ```
///
/// # When captures are dropped
///
/// Right after the callback runs, on the worker thread: `call_once` consumes the closure, so
/// its captures are dropped before the worker runs the next event (or by the unwind, if the
/// callback panics). A captured `mpsc::Sender` is gone as soon as its callback has run, a
/// captured guard is released then. Callbacks that never ran (the rest of the worker's batch,
/// and what was still queued, when a callback panicked) are dropped when a post reuses their
/// slot or when the ring is freed.
///
/// ```
/// use std::sync::mpsc;
/// use spanring_std::Dispatcher;
/// let (dispatcher, mut poster) = Dispatcher::spawn(4, ())?;
/// let (tx, rx) = mpsc::channel();
/// poster.post(move |_| tx.send(42).unwrap()).unwrap();
/// assert_eq!(rx.recv(), Ok(42));
/// // The callback that held the only `Sender` has run and been dropped, so the channel is
/// // disconnected, while the dispatcher (and `poster`) are still alive. (The timeout only
/// // keeps a regression from hanging; the disconnection is what ends the wait.)
/// let next = rx.recv_timeout(std::time::Duration::from_secs(60));
/// assert_eq!(next, Err(mpsc::RecvTimeoutError::Disconnected));
/// drop(poster);
/// dispatcher.join().unwrap();
/// # Ok::<(), spanring_std::SpawnError>(())
/// ```
///
/// # Closure size: `WORDS`
///
/// A closure's captures must fit in `WORDS` machine words (default 4: 32 bytes on 64-bit
/// targets) and be aligned at most like `usize`. A closure that does not fit is a **compile
/// error**, not a runtime failure or a hidden allocation. Raise `WORDS` (each slot is
/// `WORDS + 1` words) or capture less (a reference to shared data, an index):
///
/// ```
/// use spanring_std::Dispatcher;
/// let big = [1u64; 6]; // 48 bytes: needs WORDS >= 6
/// let (dispatcher, mut poster) = Dispatcher::<u64, 6>::spawn_sized(4, 0)?;
/// poster.post(move |sum: &mut u64| *sum += big.iter().sum::<u64>()).unwrap();
/// drop(poster);
/// assert_eq!(dispatcher.join().unwrap(), 6);
/// # Ok::<(), spanring_std::SpawnError>(())
/// ```
///
/// With the default 4 words the same closure does not build. The error names the sizes and
/// the fix, and its "encountered while instantiating" note points at your `post` call (on a
/// 64-bit target):
///
/// ```text
/// error[E0080]: evaluation panicked: closure too large for its CallbackSlot: it captures 48
/// bytes, the slot (`CallbackSlot<A, R, WORDS = 4>`) holds 32 bytes. Fix: raise WORDS to at
/// least 6 (for a Dispatcher: `Dispatcher::<Ctx, 6>::spawn_sized(capacity, ctx)` instead of
/// `Dispatcher::spawn`), or capture less (a reference, an index, an `Arc` or a `Box`)
/// ```
///
/// (The same message follows once more, from inside the slot.) The check is a `const`
/// assertion evaluated when `post` is instantiated for the closure's type (a
/// post-monomorphization error), so it fires under `cargo build`/`cargo test`; `cargo check`
/// does not report it: it never instantiates generic functions, and stable Rust has no way to
/// state "fits in `WORDS` words" as a trait bound that `cargo check` would see. To *ask*
/// whether a closure fits — in a test, in a `const` assertion of your own, or to pick `WORDS` —
/// use [`Dispatcher::fits`].
///
/// ```compile_fail,E0080
/// use spanring_std::Dispatcher;
/// let big = [1u64; 6];
/// let (dispatcher, mut poster) = Dispatcher::spawn(4, 0u64).unwrap();
/// poster.post(move |sum: &mut u64| *sum += big.iter().sum::<u64>()).unwrap();
/// ```
///
/// # Shutting down
///
/// Dropping every [`Poster`] closes the ring; the worker runs everything already posted and
/// exits, and [`join`](Self::join) returns the context. [`shutdown`](Self::shutdown) closes the
/// ring without waiting for posters (their later posts fail with [`PostError`]). If a callback
/// panics, the worker closes the ring (posts fail from then on) and `join` returns the panic.
/// Dropping a `Dispatcher` without joining detaches the worker, which still stops once every
/// `Poster` is gone.
pub struct Dispatcher<Ctx: 'static = (), const WORDS: usize = 4, P: PosterKind = OwnedMultiProducer>
{
    ring: Arc<EventRing<Ctx, WORDS, P>>,
    gate: Arc<post_gate::PostGate>,
    worker: JoinHandle<Ctx>,
}

impl<Ctx: Send + 'static> Dispatcher<Ctx> {
    /// Starts a worker thread owning `ctx`, with a ring of `capacity` events whose closures may
    /// capture up to 4 words; returns the dispatcher and the first [`Poster`] (clone it for
    /// more). For another closure size use [`spawn_sized`](Self::spawn_sized).
    ///
    /// The ring is allocated here, once; posting never allocates.
    ///
    /// # Errors
    ///
    /// [`SpawnError::Capacity`] if `capacity` is 0 (or too large),
    /// [`SpawnError::Thread`] if the thread cannot be started.
    ///
    /// ```
    /// use spanring_std::{Dispatcher, SpawnError};
    /// let (dispatcher, mut poster) = Dispatcher::spawn(8, String::new())?;
    /// poster.post(|s: &mut String| s.push_str("hello")).unwrap();
    /// drop(poster);
    /// assert_eq!(dispatcher.join().unwrap(), "hello");
    /// assert!(matches!(Dispatcher::spawn(0, ()), Err(SpawnError::Capacity(_))));
    /// # Ok::<(), SpawnError>(())
    /// ```
    pub fn spawn(capacity: usize, ctx: Ctx) -> Result<(Self, Poster<Ctx>), SpawnError> {
        Self::spawn_sized(capacity, ctx)
    }
}

impl<Ctx: Send + 'static> Dispatcher<Ctx, 4, SingleProducer> {
    /// As [`spawn`](Dispatcher::spawn), for exactly one posting thread: the [`Poster`] is
    /// unique (not `Clone`), and each post skips the multi-producer claim (a compare-and-swap)
    /// and out-of-order publication bookkeeping — several times the throughput (see
    /// `benches/dispatcher.rs`). Other sizes: `Dispatcher::<Ctx, W, SingleProducer>::spawn_sized`.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Dispatcher::spawn).
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, mut poster) = Dispatcher::spawn_single(64, 0u64)?;
    /// for i in 0..100u64 {
    ///     poster.post(move |sum: &mut u64| *sum += i).unwrap();
    /// }
    /// drop(poster);
    /// assert_eq!(dispatcher.join().unwrap(), 4950);
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn spawn_single(
        capacity: usize,
        ctx: Ctx,
    ) -> Result<(Self, Poster<Ctx, 4, SingleProducer>), SpawnError> {
        Self::spawn_sized(capacity, ctx)
    }
}

impl<Ctx: Send + 'static, const WORDS: usize, P: PosterKind> Dispatcher<Ctx, WORDS, P> {
    /// As [`spawn`](Dispatcher::spawn), with closures of up to `WORDS` words (name the type:
    /// `Dispatcher::<Ctx, 8>::spawn_sized(capacity, ctx)`).
    ///
    /// # Errors
    ///
    /// As [`spawn`](Dispatcher::spawn).
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let table = [2usize; 7]; // 7 words: more than the default 4
    /// let (dispatcher, mut poster) = Dispatcher::<usize, 8>::spawn_sized(4, 0)?;
    /// poster.post(move |sum: &mut usize| *sum += table.iter().sum::<usize>()).unwrap();
    /// drop(poster);
    /// assert_eq!(dispatcher.join().unwrap(), 14);
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn spawn_sized(
        capacity: usize,
        ctx: Ctx,
    ) -> Result<(Self, Poster<Ctx, WORDS, P>), SpawnError> {
        let ring = P::new_ring::<Ctx, WORDS>(capacity).map_err(SpawnError::Capacity)?;
        // The reader attaches before any poster exists, so it sees every post.
        let reader =
            Reader::attach(Arc::clone(&ring)).expect("a fresh ring has room for its one reader");
        let writer =
            Writer::attach(Arc::clone(&ring)).expect("a fresh ring's writer is not taken yet");
        let for_worker = Arc::clone(&ring);
        let worker = thread::Builder::new()
            .name("spanring-dispatcher".into())
            .spawn(move || worker::run(for_worker, reader, ctx))
            .map_err(SpawnError::Thread)?;
        let gate = Arc::new(post_gate::PostGate::default());
        let poster = Poster {
            writer,
            gate: Arc::clone(&gate),
        };
        Ok((Self { ring, gate, worker }, poster))
    }

    /// Waits until every [`Poster`] is dropped and every posted callback has run, then returns
    /// the worker's context.
    ///
    /// Do not call it while this thread still holds a `Poster`: it would wait for ever. Use
    /// [`shutdown`](Self::shutdown) to stop regardless of posters.
    ///
    /// # Errors
    ///
    /// The panic payload if a callback panicked on the worker.
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, mut poster) = Dispatcher::spawn(4, Vec::new())?;
    /// for i in 0..10 {
    ///     poster.post(move |log: &mut Vec<u32>| log.push(i)).unwrap(); // waits while full
    /// }
    /// drop(poster); // the last poster: `join` can return once all ten have run
    /// assert_eq!(dispatcher.join().unwrap(), (0..10).collect::<Vec<u32>>());
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn join(self) -> thread::Result<Ctx> {
        self.worker.join()
    }

    /// Closes the dispatcher now — posts from remaining posters fail with [`PostError`] — lets
    /// the worker run everything posted before, and returns its context. Nothing is lost: every
    /// `post` that returned `Ok` runs before this returns (a post racing the shutdown either
    /// runs or fails with `PostError`), unless a callback panicked (then this returns the
    /// panic). It does not wait for idle posters.
    ///
    /// # Errors
    ///
    /// The panic payload if a callback panicked on the worker.
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, mut poster) = Dispatcher::spawn(16, 0u32).unwrap();
    /// poster.post(|n: &mut u32| *n += 1).unwrap();
    /// assert_eq!(dispatcher.shutdown().unwrap(), 1); // drained before stopping
    /// assert!(poster.is_closed());
    /// assert!(poster.post(|n: &mut u32| *n += 1).is_err());
    /// ```
    pub fn shutdown(self) -> thread::Result<Ctx> {
        self.gate.close_and_seal(&*self.ring);
        self.worker.join()
    }

    /// Events the ring holds at most: posts beyond that wait (or `try_post` fails).
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, poster) = Dispatcher::spawn(16, ())?;
    /// assert_eq!(dispatcher.capacity(), 16);
    /// drop(poster);
    /// dispatcher.join().unwrap();
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn capacity(&self) -> usize {
        self.ring.capacity()
    }
}

impl<Ctx: 'static, const WORDS: usize, P: PosterKind> Dispatcher<Ctx, WORDS, P> {
    /// Whether a callback of type `F` fits this dispatcher's slots (`WORDS` words, aligned at
    /// most like `usize`), i.e. whether [`Poster::post`] accepts it: the same test `post`
    /// makes at compile time ([`CallbackSlot::fits`](spanring_core::callback::CallbackSlot::fits)).
    ///
    /// A closure's type has no name, so ask through a generic helper taking it by reference:
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// fn fits_default<F: FnOnce(&mut u64)>(_: &F) -> bool {
    ///     Dispatcher::<u64>::fits::<F>() // 4 words
    /// }
    /// fn fits_8<F: FnOnce(&mut u64)>(_: &F) -> bool {
    ///     Dispatcher::<u64, 8>::fits::<F>()
    /// }
    /// let big = [1usize; 6];
    /// let add_big = move |sum: &mut u64| *sum += big.iter().sum::<usize>() as u64;
    /// assert!(!fits_default(&add_big)); // `post` on a `Dispatcher<u64>` would not build
    /// assert!(fits_8(&add_big));
    ///
    /// // A `const fn`: named callback types can be checked in a `const` assertion.
    /// const _: () = assert!(Dispatcher::<u64>::fits::<fn(&mut u64)>());
    /// ```
    ///
    /// It cannot make an oversized `post` build: `post::<F>` is checked when it is
    /// instantiated, even in a branch that `if Dispatcher::fits::<F>()` would skip at run time.
    #[inline]
    #[must_use]
    pub const fn fits<F>() -> bool {
        SendCallbackSlot::<ByMut<Ctx>, (), WORDS>::fits::<F>()
    }
}

impl<Ctx: 'static, const WORDS: usize, P: PosterKind> fmt::Debug for Dispatcher<Ctx, WORDS, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("capacity", &self.ring.capacity())
            .field("closed", &self.ring.is_closed())
            .field("words", &WORDS)
            .finish()
    }
}

// Posters move to producer threads; the dispatcher handle may move too.
static_assertions::assert_impl_all!(Poster<u64>: Send, Clone);
static_assertions::assert_impl_all!(Dispatcher<u64>: Send);
static_assertions::assert_impl_all!(Poster<u64, 4, SingleProducer>: Send);
static_assertions::assert_not_impl_any!(Poster<u64, 4, SingleProducer>: Clone);
