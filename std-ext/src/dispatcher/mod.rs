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

use spanring_core::{Reader, SingleProducer, Writer};

pub use error::{PostError, SpawnError, TryPostError};
pub use event::{Multi, PosterKind};
pub use poster::Poster;

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
/// [`BlockingWait`](crate::BlockingWait) on both sides) whose slots each hold a
/// [`SendCallbackSlot`](spanring_core::SendCallbackSlot)`<ByMut<Ctx>, (), WORDS>`. A post
/// reserves one slot, builds the closure in it through the write span's `&mut` (`set_fn`), and
/// publishes. The worker reads spans of events, runs each through the read span's `&` with
/// `call_shared(&mut ctx)`, and consumes them, which frees the slots for posters.
///
/// # Why callbacks are `Fn + Send + Sync`
///
/// A ring reader only ever gets `&Event` (a broadcast ring may have several readers), so the
/// worker can only run what a shared reference may run: an `Fn` stored with `set_fn`, which on
/// a `SendCallbackSlot` must also be `Sync`. That is no restriction on the *context*: the
/// callback still gets `&mut Ctx`, so state that the callbacks mutate belongs in `Ctx`. A closure
/// that must mutate its own captures can use a `Sync` interior-mutable type (an atomic), or
/// keep that state in `Ctx`. `FnOnce` callbacks are not needed: each post
/// overwrites its slot, so every posted callback runs exactly once.
///
/// # When captures are dropped
///
/// Each posted closure is dropped exactly once, but *not* right after it runs (the worker only
/// has `&`): it is dropped by the post that reuses its slot (one lap later, on that poster's
/// thread), or when the ring is freed after [`join`](Self::join)/[`shutdown`](Self::shutdown).
/// So capture plain data, indices or `Arc`s whose lifetime does not matter — not guards, and
/// not something the worker must see released.
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
/// With the default 4 words the same closure does not build
/// (`closure too large for CallbackSlot: ...`):
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
pub struct Dispatcher<Ctx: 'static = (), const WORDS: usize = 4, P: PosterKind = Multi> {
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
    pub fn capacity(&self) -> usize {
        self.ring.capacity()
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
