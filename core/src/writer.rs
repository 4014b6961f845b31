//! [`Writer`]: the handle that reserves spans; single- or multi-producer by the ring's type.

use core::ops::Deref;
use core::time::Duration;

use crate::claim::{ClaimMode, MultiClaim, SpLocal};
use crate::error::{AttachError, FillError, PushError, ReserveError};
use crate::ring::RingCore;
use crate::sync::Ordering;
use crate::writers;
use crate::{Ring, RingRef, Storage, WaitStrategy, WaitTimeout, WriteSpan};

/// Reserves spans of slots in a [`Ring`] and publishes them.
///
/// `R` is anything that dereferences to the ring: `&Ring` (from [`Ring::writer`]) or an owning
/// pointer such as `Arc<Ring>` (via [`Writer::attach`]). A single-producer ring has exactly one
/// writer (this handle is then not `Clone`); a multi-producer writer can be cloned.
///
/// Waiting follows one naming rule: `try_reserve` never waits (usable from an interrupt
/// handler), `reserve` waits through the ring's [`WaitStrategy`], `reserve_timeout` waits at
/// most a given time. One item at a time: [`try_push`](Self::try_push), [`push`](Self::push),
/// [`push_timeout`](Self::push_timeout) (a failed push gives the item back in a
/// [`PushError`]), on the same fast path as a one-slot span.
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let _reader = ring.reader().unwrap();
/// let mut writer = ring.writer().unwrap();
/// writer.try_reserve(4).unwrap().fill(7); // published on drop
/// assert!(matches!(writer.try_reserve(1), Err(spanring_core::ReserveError::Full { free: 0 })));
/// ```
#[derive(Debug)]
pub struct Writer<R>
where
    R: Deref,
    R::Target: RingCore,
{
    pub(crate) ring: R,
    /// Single-producer only: the writer's own claim cursor and how many slots after it are
    /// known to be free (the cached minimum of the readers, kept as a count so the fast path
    /// is one compare).
    pub(crate) local: SpLocal,
}

impl<S, P, W, const N: usize, R> Writer<R>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
    R: Deref<Target = Ring<S, P, W, N>>,
{
    /// A writer for the ring behind `ring`.
    ///
    /// # Errors
    ///
    /// [`AttachError::WriterTaken`] if a writer is attached: a single-producer ring has one
    /// writer; a multi-producer ring hands out its first writer here and the rest through
    /// `clone` (so that a writer that is alone claims without a CAS, see below).
    /// [`AttachError::Closed`] if the ring is closed: by [`Ring::close`], or when its last
    /// writer dropped (closing is final, so keep a writer, or a clone of one, for as long as
    /// more may come). A close after the attach fails the writer's claims instead.
    ///
    /// ```
    /// use spanring_core::{multi_words, sync::AtomicUsize, AttachError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let mut words: [AtomicUsize; multi_words(4)] = Default::default();
    /// let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    /// let first = ring.writer().unwrap();
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken);
    /// let second = first.clone(); // more writers: clones
    /// drop((first, second)); // the last writer gone closes the ring
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    /// ```
    pub fn attach(ring: R) -> Result<Self, AttachError>
    where
        R: RingRef,
    {
        // Closed first: a closed single-producer ring also has its one writer taken, and
        // `Closed` is the reason that lasts.
        if ring.is_closed() {
            return Err(AttachError::Closed);
        }
        if !ring.producer.take_writer(&ring.writers) {
            return Err(AttachError::WriterTaken);
        }
        // A limit from the cached minimum (a lower bound of every reader cursor, and not past
        // the published cursor where a single-producer writer's claims continue). A
        // multi-producer writer sets its own when it takes the sole-writer cache.
        let mut local = SpLocal {
            limit: SpLocal::limit_for(&ring.layout, ring.readers.cached_min()),
            // Relaxed: only this writer stores it (single-producer; unused otherwise).
            next: ring.published.load(Ordering::Relaxed),
            room: 0,
        };
        local.room = SpLocal::fast_room(
            &ring.layout,
            local.next,
            local.free(&ring.layout, local.next),
        );
        let writer = Self { ring, local };
        // A writer of a closed ring could claim nothing: refuse it now, not at its first
        // claim. The count taken above makes `close` see us or us see the close (its comment);
        // dropping the writer undoes the count (and, as the last writer of a closed ring, only
        // repeats the seal).
        if writer.ring.is_closed() {
            drop(writer);
            return Err(AttachError::Closed);
        }
        Ok(writer)
    }

    /// The ring.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let w = ring.writer().unwrap();
    /// w.ring().close(); // e.g. to end the stream while keeping the handle
    /// assert!(ring.is_closed());
    /// ```
    pub fn ring(&self) -> &Ring<S, P, W, N> {
        &self.ring
    }

    /// Slots free right now for this writer (a snapshot; rescans the readers). Takes `&self`:
    /// the rescan updates only the ring's shared cached minimum, never this writer's own cached
    /// free count (the next claim refreshes that itself when it looks too small).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let _reader = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// let w = &w; // a shared borrow is enough
    /// assert_eq!(w.free(), 3);
    /// ```
    pub fn free(&self) -> usize {
        let ring = &*self.ring;
        let min = ring
            .refresh_min()
            .unwrap_or_else(|| ring.readers.cached_min());
        let claim = match ring.producer.multi() {
            Some(m) => m.claim().load(Ordering::Relaxed),
            // Relaxed: only this writer stores it.
            None => ring.published.load(Ordering::Relaxed),
        };
        let used = ring.layout.distance(min, claim).max(0) as usize;
        ring.capacity().saturating_sub(used)
    }

    /// Reserves exactly `n` slots without waiting. The span publishes all `n` when dropped,
    /// or fewer with [`WriteSpan::publish`].
    ///
    /// # Errors
    ///
    /// [`ReserveError::Full`] (with the free count), [`ReserveError::TooLarge`] if
    /// `n > capacity`, [`ReserveError::Closed`]. Returns in bounded time: it never waits for
    /// another writer (a stalled claimer only holds back readers, never other claims).
    ///
    /// ```
    /// use spanring_core::{ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(3).unwrap();
    /// span.copy_from_slice(&[1, 2, 3]);
    /// drop(span); // publishes all 3
    /// assert_eq!(w.try_reserve(2).unwrap_err(), ReserveError::Full { free: 1 });
    /// assert_eq!(r.try_read_all().unwrap().to_array::<3>(), Some([1, 2, 3]));
    /// ```
    #[inline]
    pub fn try_reserve(&mut self, n: usize) -> Result<WriteSpan<'_, R>, ReserveError> {
        let start = self.try_claim(n)?;
        Ok(WriteSpan::new(self, start, n))
    }

    /// Stores one item without waiting (the one-item form of [`try_reserve`](Self::try_reserve),
    /// as `rtrb`'s `Producer::push` or crossbeam's `ArrayQueue::push`). Same fast path as
    /// `try_reserve(1)`: one compare against the cached free count on a single-producer ring.
    ///
    /// # Errors
    ///
    /// The item comes back in [`PushError::Full`] (no free slot now) or [`PushError::Closed`].
    ///
    /// ```
    /// use spanring_core::{PushError, Ring, SliceStorage};
    /// let mut memory = [0u8; 2];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// w.try_push(2).unwrap();
    /// assert_eq!(w.try_push(3), Err(PushError::Full(3)));
    /// assert_eq!(r.try_pop(), Ok(1));
    /// ```
    #[inline]
    pub fn try_push(&mut self, item: S::Item) -> Result<(), PushError<S::Item>> {
        if let Some(start) = Self::claim_fast(&self.ring, &self.local, 1) {
            self.write_one_fast(start, item);
            return Ok(());
        }
        let item = match self.push_shared(item) {
            Ok(()) => return Ok(()),
            Err(Ok(item)) => item,
            Err(Err(closed)) => return Err(closed),
        };
        self.try_push_cold_on_copy(item)
    }

    /// Stores one item, waiting through the ring's wait strategy while the ring is full (the
    /// one-item form of [`reserve`](Self::reserve)).
    ///
    /// For the fastest loop of pushes, hold the writer in a local of the function that runs
    /// the loop (for a by-value argument or a closure capture: `let mut w = w;`). A local
    /// whose address no call gets keeps the single-producer claim state in registers; behind
    /// an argument's or a capture's pointer it is stored and reloaded every item.
    ///
    /// # Errors
    ///
    /// [`PushError::Closed`] with the item.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 2];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.push(9).unwrap(); // a free slot: returns at once
    /// assert_eq!(r.pop(), Ok(9));
    /// ```
    #[inline]
    pub fn push(&mut self, item: S::Item) -> Result<(), PushError<S::Item>> {
        if let Some(start) = Self::claim_fast(&self.ring, &self.local, 1) {
            self.write_one_fast(start, item);
            return Ok(());
        }
        let item = match self.push_shared(item) {
            Ok(()) => return Ok(()),
            Err(Ok(item)) => item,
            Err(Err(closed)) => return Err(closed),
        };
        let wait = |w: &W, ready: &mut dyn FnMut() -> bool| {
            w.wait_until(ready);
            true
        };
        self.push_cold_on_copy(item, wait)
    }

    /// As [`push`](Self::push), giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// [`PushError::TimedOut`] or [`PushError::Closed`], with the item.
    ///
    /// ```
    /// # use core::time::Duration;
    /// # use spanring_core::{PushError, Ring, SliceStorage, WaitStrategy, WaitTimeout};
    /// # #[derive(Default)] struct NoWait;
    /// # impl WaitStrategy for NoWait { fn wait_until(&self, r: &mut dyn FnMut() -> bool) { while !r() {} } fn notify_all(&self) {} }
    /// # impl WaitTimeout for NoWait { fn wait_until_timeout(&self, r: &mut dyn FnMut() -> bool, _: Duration) -> bool { r() } }
    /// let mut memory = [0u8; 1];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).wait::<NoWait>().build().unwrap();
    /// let _r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.push_timeout(1, Duration::from_millis(1)).unwrap();
    /// let e = w.push_timeout(2, Duration::from_millis(1)).unwrap_err();
    /// assert_eq!(e, PushError::TimedOut(2));
    /// ```
    #[inline]
    pub fn push_timeout(
        &mut self,
        item: S::Item,
        timeout: Duration,
    ) -> Result<(), PushError<S::Item>>
    where
        W: WaitTimeout,
    {
        if let Some(start) = Self::claim_fast(&self.ring, &self.local, 1) {
            self.write_one_fast(start, item);
            return Ok(());
        }
        let item = match self.push_shared(item) {
            Ok(()) => return Ok(()),
            Err(Ok(item)) => item,
            Err(Err(closed)) => return Err(closed),
        };
        let wait = |w: &W, ready: &mut dyn FnMut() -> bool| w.wait_until_timeout(ready, timeout);
        self.push_cold_on_copy(item, wait)
    }

    /// A waiting one-item push past the fast path: the claim out of line on a copy of the
    /// private state ([`claim_cold_on_copy`](Self::claim_cold_on_copy)), the store and the
    /// publish inline. No call gets the handle's address, so in a loop of pushes on a handle
    /// the loop owns, the compiler can keep the claim state in registers (as `for x in reader`
    /// does for the reader's cursor, `reader_iter.rs`). On the sole multi-producer writer's
    /// fast path that is worth 15% (pinned together, 295 → 338 M/s; the single-producer
    /// writer's gain was larger, see `Writer::push`'s docs). (`try_push` puts the store and
    /// the publish out of line too: [`try_push_cold_on_copy`](Self::try_push_cold_on_copy).)
    ///
    /// If the claim unwinds (a panicking wait strategy, or a `notify_all` in a seal), the
    /// handle keeps its state from before the call, and that must stay right:
    /// - Single-producer: a claim changes nothing shared but the readers' cached minimum
    ///   (which stays valid), the old limit is a lower bound of the new one, `next` has not
    ///   moved (nothing was published), and the fast path only fails with no cached room or a
    ///   close seen, so the next push comes back here.
    /// - Multi-producer: the claim may have taken the sole-writer cache anew, and then the
    ///   handle's room and limit are from an earlier cache period (the limit may even look
    ///   ahead of the claim cursor once distances wrap on 32-bit). So the handle is marked
    ///   first: no room, which sends its next claim to `claim_cached`, and that trusts no
    ///   limit when it finds no room (it starts from the claim cursor and rescans the
    ///   readers). A normal return overwrites the mark with the copy's state, so it costs
    ///   nothing. Nothing shared is left half-done: a claim `ready()` made is published as
    ///   nothing while unwinding (`claim_waiting_in`).
    #[inline(always)]
    fn push_cold_on_copy(
        &mut self,
        item: S::Item,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<(), PushError<S::Item>> {
        let SpLocal { limit, next, room } = self.local;
        if P::MULTI {
            self.local.room = 0;
        }
        let (local, claimed) = Self::claim_cold_on_copy(&self.ring, limit, next, room, wait);
        self.local = local;
        match claimed {
            Ok(start) => {
                Self::write_one_in(&self.ring, &mut self.local, start, item);
                Ok(())
            }
            Err(e) => Err(PushError::from_reserve(e, item)),
        }
    }

    /// [`try_push`](Self::try_push) past the fast path: the claim, the store and the publish
    /// all out of line ([`try_push_cold_in`](Self::try_push_cold_in)), on a copy of the
    /// private state that comes back with the outcome. What stays inline at a `try_push` is
    /// the fast path and one call, so a `try_push` wrapped in a retry closure (a closure handed
    /// to a wait loop) stays small enough for the compiler to inline into the caller's loop;
    /// with the store and the publish inline here too it was not, a call per item. One item
    /// at a time through such a closure, a blocking reader, one core: 148–169 → 203–215 M/s.
    /// The waiting forms keep the store and the publish inline ([`push_cold_on_copy`](
    /// Self::push_cold_on_copy)): out of line, the single-producer push loop of the buffer
    /// bench ran 4% slower (522–527 → 500–507 M/s, alternated).
    ///
    /// If the cold part unwinds (an old item's drop, a `notify_all` after the publish or in a
    /// seal), the handle keeps its state from before the call, marked first: no room, so its
    /// next claim takes the slow path, which does not trust that state.
    /// - Single-producer: the slow claim starts from the published cursor
    ///   ([`claim_in_slow`](Self::claim_in_slow)), which is the claim cursor whenever no span
    ///   is in flight (every publish moves both to the same place), so a slot the copy
    ///   published before unwinding is not claimed again. The old limit is a lower bound of
    ///   the new one (a claim changes nothing shared but the readers' cached minimum).
    /// - Multi-producer: as for [`push_cold_on_copy`](Self::push_cold_on_copy): the cache
    ///   holder's slow claim starts from the claim cursor and trusts no limit without room; a
    ///   writer that claims by CAS does not use the state. A claimed slot whose old item's
    ///   drop panics is published as nothing (`write_one_in`).
    ///
    /// A normal return overwrites the mark with the copy's state, so it costs nothing.
    #[inline(always)]
    fn try_push_cold_on_copy(&mut self, item: S::Item) -> Result<(), PushError<S::Item>> {
        let SpLocal { limit, next, room } = self.local;
        self.local.room = 0;
        let (local, pushed) = Self::try_push_cold_in(&self.ring, limit, next, room, item);
        self.local = local;
        pushed
    }

    /// Reserves exactly `n` slots without waiting and lets `fill` write them; publishes the
    /// count `fill` returns (clamped to `n`) when it returns `Ok`, and **nothing** when it
    /// returns `Err` (the slots are released unpublished, as [`WriteSpan::publish`]`(0)`).
    /// Use it when filling can fail half-way, e.g. decoding input into the slots. (A plain
    /// [`WriteSpan`] still publishes everything when dropped.) If `fill` panics the span
    /// follows its drop rule: with `std`, nothing is published. The waiting forms are
    /// [`reserve_with`](Self::reserve_with), [`reserve_with_timeout`](Self::reserve_with_timeout)
    /// and [`reserve_with_async`](Self::reserve_with_async).
    ///
    /// Returns the published count.
    ///
    /// # Errors
    ///
    /// [`FillError::Reserve`] with what [`try_reserve`](Self::try_reserve) returned (`fill` is
    /// not called), or [`FillError::Fill`] with `fill`'s error.
    ///
    /// ```
    /// use spanring_core::{FillError, ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let bad = w.try_reserve_with(2, |span| {
    ///     span[0] = 1;
    ///     Err("no second item")
    /// });
    /// assert_eq!(bad, Err(FillError::Fill("no second item")));
    /// assert_eq!(r.try_pop(), Err(ReadError::Empty)); // nothing was published
    /// let good = w.try_reserve_with(3, |span| {
    ///     span[0] = 5;
    ///     Ok::<_, ()>(1) // only one of the three
    /// });
    /// assert_eq!(good, Ok(1));
    /// assert_eq!(r.try_pop(), Ok(5));
    /// ```
    #[inline]
    pub fn try_reserve_with<E, F>(&mut self, n: usize, fill: F) -> Result<usize, FillError<E>>
    where
        F: FnOnce(&mut WriteSpan<'_, R>) -> Result<usize, E>,
    {
        self.try_reserve(n)
            .map_err(FillError::Reserve)?
            .publish_filled(fill)
    }

    /// Reserves exactly `n` slots, waiting through the ring's wait strategy while the ring is
    /// full.
    ///
    /// # Errors
    ///
    /// [`ReserveError::TooLarge`] if `n > capacity`, [`ReserveError::Closed`].
    ///
    /// ```
    /// use spanring_core::{ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.reserve(3).unwrap().copy_from_slice(&[1, 2, 3]); // room: returns at once
    /// assert_eq!(r.read_all().unwrap().to_array::<3>(), Some([1, 2, 3]));
    /// let e = w.reserve(5).unwrap_err();
    /// assert_eq!(e, ReserveError::TooLarge { requested: 5, capacity: 4 });
    /// ring.close();
    /// assert_eq!(w.reserve(1).unwrap_err(), ReserveError::Closed);
    /// ```
    #[inline]
    pub fn reserve(&mut self, n: usize) -> Result<WriteSpan<'_, R>, ReserveError> {
        let start = self.claim_waiting(n, |w, ready| {
            w.wait_until(ready);
            true
        })?;
        Ok(WriteSpan::new(self, start, n))
    }

    /// As [`reserve`](Self::reserve), giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// As [`reserve`](Self::reserve), plus [`ReserveError::TimedOut`].
    ///
    /// ```
    /// # #[cfg(feature = "std")] { // `BusySpin`'s timeout needs a clock
    /// use core::time::Duration;
    /// use spanring_core::{ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let t = Duration::from_millis(1);
    /// w.reserve_timeout(4, t).unwrap().copy_from_slice(&[1, 2, 3, 4]);
    /// assert_eq!(w.reserve_timeout(1, t).unwrap_err(), ReserveError::TimedOut); // full
    /// r.pop().unwrap();
    /// w.reserve_timeout(1, t).unwrap()[0] = 5;
    /// # }
    /// ```
    #[inline]
    pub fn reserve_timeout(
        &mut self,
        n: usize,
        timeout: Duration,
    ) -> Result<WriteSpan<'_, R>, ReserveError>
    where
        W: WaitTimeout,
    {
        let start = self.claim_waiting(n, |w, ready| w.wait_until_timeout(ready, timeout))?;
        Ok(WriteSpan::new(self, start, n))
    }

    /// Claims `n` slots, waiting through `wait` while the ring is full; `wait` returns `false`
    /// when it gave up. The first attempt is the same inline `claim_in` as `try_reserve` (one
    /// compare against the cached free count on a single-producer ring); waiting is out of
    /// line, in [`claim_waiting_cold`](Self::claim_waiting_cold).
    #[inline]
    fn claim_waiting(
        &mut self,
        n: usize,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReserveError> {
        let outcome = Self::claim_in(&self.ring, &mut self.local, n);
        if !matches!(outcome, Err(ReserveError::Full { .. })) {
            return outcome;
        }
        self.claim_waiting_cold(n, wait)
    }

    /// The waiting part of [`claim_waiting`](Self::claim_waiting): the ring was full.
    #[cold]
    #[inline(never)]
    fn claim_waiting_cold(
        &mut self,
        n: usize,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReserveError> {
        Self::claim_waiting_in(&self.ring, &mut self.local, n, wait)
    }

    /// [`claim_waiting_cold`](Self::claim_waiting_cold) on a ring and a private claim state.
    #[inline(always)]
    pub(crate) fn claim_waiting_in(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        n: usize,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> Result<usize, ReserveError> {
        // Once more before waiting (cheap here, out of line), so the outcome never depends on
        // a strategy calling `ready()` before it returns.
        let mut outcome = Self::claim_in(ring, local, n);
        if !matches!(outcome, Err(ReserveError::Full { .. })) {
            return outcome;
        }
        // The claim `ready()` makes is held by a guard until `wait` returns: a strategy that
        // panics after `ready()` returned `true` unwinds through it, and on a multi-producer
        // ring a claim dropped unpublished would stop every reader there for good. The guard
        // publishes nothing of it instead (gives it back, or skips it behind a later claim).
        // A strategy that calls `ready()` again after `true` claims nothing more, and one that
        // reports a timeout after `true` still gets its claim: no claim is ever lost.
        let mut held: Option<PublishNoneOnUnwind<'_, S, P, W, N>> = None;
        // A single-producer writer waiting on a full ring watches the reader that holds it
        // full: while that reader is active at the same cursor, a claim would fail again, so
        // a check is three loads instead of a rescan of every reader (two read-modify-writes
        // on the registry's generation each), which matters when both threads share a core
        // and every check before the yield is wasted. The watch may only skip what it
        // watches: the close is a condition of its own, so every check looks at `closed`
        // first (`WatchedReader::still_holds`); a close, a consume or a detach of the
        // watched reader ends the watch, and the next check claims again, which decides.
        // (Skipping the close here once left a writer blocked for good behind an idle
        // reader: `tests/close_matrix.rs`, HAZARDS.md.)
        let mut watch: Option<WatchedReader> = None;
        let ready = wait(&ring.space, &mut || {
            if held.is_some() || !matches!(outcome, Err(ReserveError::Full { .. })) {
                return true;
            }
            if let Some(w) = watch {
                if w.still_holds(ring) {
                    return false;
                }
                watch = None;
            }
            match Self::claim_in(ring, local, n) {
                Ok(start) => held = Some(PublishNoneOnUnwind::new(ring, start, n)),
                failed => {
                    outcome = failed;
                    if !P::MULTI && matches!(outcome, Err(ReserveError::Full { .. })) {
                        watch = Self::holding_reader(ring, local.next, n);
                    }
                }
            }
            held.is_some() || !matches!(outcome, Err(ReserveError::Full { .. }))
        });
        if let Some(guard) = held {
            return Ok(guard.disarm());
        }
        if !ready {
            return Err(ReserveError::TimedOut);
        }
        outcome
    }

    /// The reader that holds a single-producer ring too full for `n` slots at the claim
    /// cursor `next`, as `(registry slot, cursor)`: the one furthest behind, if with it alone
    /// fewer than `n` slots would be free. `None` if no such reader is seen (the next check
    /// then claims again).
    fn holding_reader(ring: &Ring<S, P, W, N>, next: usize, n: usize) -> Option<WatchedReader> {
        let (slot, cursor) = ring.readers.slowest()?;
        // Only this writer moves `next`, and the reader never passes it: `used ≥ 0`.
        let used = ring.layout.distance(cursor, next);
        let free = ring.capacity().saturating_sub(used.max(0) as usize);
        (used >= 0 && free < n).then_some(WatchedReader { slot, cursor })
    }

    /// The one-item claim of [`push_cold_on_copy`](Self::push_cold_on_copy), out of line: on
    /// a copy of the claim state, returned with the outcome; waits through `wait` while full.
    /// The state comes in as three scalars, not as an `SpLocal`: a struct of three words or
    /// more is passed by pointer, and the compiler may then pass the handle's own `local`
    /// (dead after the call, which overwrites it), whose address then escapes and keeps it in
    /// memory through the whole push loop. Measured: the by-struct form ran the sole
    /// multi-producer writer at 310 M/s and the single-producer writer 5% slower than this one
    /// (338 M/s, pinned together).
    #[cold]
    #[inline(never)]
    fn claim_cold_on_copy(
        ring: &Ring<S, P, W, N>,
        limit: usize,
        next: usize,
        room: usize,
        wait: impl FnOnce(&W, &mut dyn FnMut() -> bool) -> bool,
    ) -> (SpLocal, Result<usize, ReserveError>) {
        let mut local = SpLocal { limit, next, room };
        let claimed = Self::claim_waiting_in(ring, &mut local, 1, wait);
        (local, claimed)
    }

    /// The one-item push of [`try_push_cold_on_copy`](Self::try_push_cold_on_copy), out of
    /// line: the claim, the store and the publish, on a copy of the claim state (in as
    /// scalars, as [`claim_cold_on_copy`](Self::claim_cold_on_copy) says why), returned with
    /// the outcome.
    #[cold]
    #[inline(never)]
    fn try_push_cold_in(
        ring: &Ring<S, P, W, N>,
        limit: usize,
        next: usize,
        room: usize,
        item: S::Item,
    ) -> (SpLocal, Result<(), PushError<S::Item>>) {
        let mut local = SpLocal { limit, next, room };
        let pushed = match Self::claim_in(ring, &mut local, 1) {
            Ok(start) => {
                Self::write_one_in(ring, &mut local, start, item);
                Ok(())
            }
            Err(e) => Err(PushError::from_reserve(e, item)),
        };
        (local, pushed)
    }

    /// Stores `item` in the claimed slot at `start` and publishes it, moving `local` past it.
    ///
    /// A single-producer writer does it without a span (a span's two-part slices and its
    /// drop flag cost more than the store at one item a time). Nothing shared changed at the
    /// claim, so if dropping the slot's old item panics, nothing needs undoing: the slot is
    /// simply claimed again. A multi-producer claim moved the shared claim cursor, so its
    /// slot must be published or given back even then: that is the span's drop.
    #[inline(always)]
    fn write_one_in(ring: &Ring<S, P, W, N>, local: &mut SpLocal, start: usize, item: S::Item) {
        if P::MULTI {
            return Self::write_one_multi(ring, local, start, item);
        }
        Self::store_single(ring, start, item);
        // Moves `local` past the slot (a slow claim may have taken the lap's last slot, beyond
        // the fast-path count: `finish_span` saturates), then publishes.
        ring.finish_span(start, 1, 1, local, crate::ring::INTERNAL);
    }

    /// The second fast path of every one-item push, after the cached claim
    /// ([`claim_fast`](Self::claim_fast)) failed: with several multi-producer writers, one CAS
    /// on the claim cursor ([`claim_shared_fast`](Self::claim_shared_fast)), then the store
    /// and the publish, inlined. `Err(Ok(item))` gives the item back when the slow path must
    /// decide (always on a single-producer ring, where this compiles to nothing);
    /// `Err(Err(_))` is a claim that found the ring closed (and was withdrawn).
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn push_shared(&mut self, item: S::Item) -> Result<(), Result<S::Item, PushError<S::Item>>> {
        if P::MULTI {
            match Self::claim_shared_fast(&self.ring, 1) {
                Some(Ok(start)) => {
                    self.write_one_shared(start, item);
                    return Ok(());
                }
                Some(Err(e)) => return Err(Err(PushError::from_reserve(e, item))),
                None => {}
            }
        }
        Err(Ok(item))
    }

    /// [`write_one_in`](Self::write_one_in) for a slot [`claim_shared_fast`](Self::claim_shared_fast)
    /// granted (one of several multi-producer writers): the store, then the one-slot record
    /// (one `Release` store: a one-slot span has no interior to scrub and gives nothing back),
    /// the close check and the wake-up: what [`RingCore::finish_span`](crate::ring::RingCore)
    /// does for such a span, without its calls.
    #[inline(always)]
    fn write_one_shared(&mut self, start: usize, item: S::Item) {
        let ring = &*self.ring;
        let Some(m) = ring.producer.multi() else {
            return; // unreachable: only called on a multi-producer ring
        };
        let guard = PublishNoneOnUnwind::new(ring, start, 1);
        // The claim CAS gave this writer the slot at `start` exclusively: not published, so
        // no reader looks at it, and the claim cursor moved past it, so no other writer claims
        // it.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
        guard.disarm();
        m.publish_one(&ring.layout, start);
        ring.after_shared_publish();
    }

    /// [`write_one_in`](Self::write_one_in) for a slot [`claim_fast`](Self::claim_fast) granted: on
    /// a single-producer ring that is never the lap's last slot (`SpLocal::fast_room`), so
    /// the next cursor is `start + 1`, with no lap arithmetic.
    #[inline(always)]
    fn write_one_fast(&mut self, start: usize, item: S::Item) {
        if P::MULTI {
            return self.write_one_sole_fast(start, item);
        }
        Self::store_single(&self.ring, start, item);
        // The index of `start` is below `capacity − 1`, so adding one carries into no lap
        // bit: the same cursor `Layout::advance(start, 1)` computes.
        let next = start.wrapping_add(1);
        debug_assert_eq!(next, self.ring.layout.advance(start, 1));
        // The private state first: the publish ends in the wait strategy's `notify_all`, user
        // code that may panic, and a writer left behind its published cursor would claim the
        // published slot again (ring.rs, `finish_span`).
        self.local.next = next;
        self.local.room -= 1; // the fast claim checked `1 ≤ room`
        self.ring.publish_single(next, true);
    }

    /// Stores `item` in the single-producer writer's claimed slot at `start`.
    #[inline(always)]
    fn store_single(ring: &Ring<S, P, W, N>, start: usize, item: S::Item) {
        // The claim gave this writer the slot at `start` exclusively: not published, so no
        // reader looks at it, and a single-producer ring has no other writer.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
    }

    /// [`write_one_in`](Self::write_one_in) on a multi-producer ring: the claim moved the shared
    /// claim cursor, so the slot is published, or (if dropping the slot's old item panics)
    /// given back or skipped by publishing none of it, as a span's drop would. A guard instead
    /// of a span: for items whose drop cannot panic it compiles away.
    #[inline(always)]
    fn write_one_multi(ring: &Ring<S, P, W, N>, local: &mut SpLocal, start: usize, item: S::Item) {
        let guard = PublishNoneOnUnwind::new(ring, start, 1);
        // The claim gave this writer the slot at `start` exclusively: not published, so no
        // reader looks at it, and the claim cursor moved past it, so no other writer claims it.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
        guard.disarm();
        // The claim came from the cache (then `1 ≤ room`) or from the CAS (then `room` is not
        // used until the cache is taken again, which resets it): `finish_span` saturates.
        ring.finish_span(start, 1, 1, local, crate::ring::INTERNAL);
    }

    /// [`write_one_in`](Self::write_one_in) on a multi-producer ring for a slot
    /// [`claim_fast`](Self::claim_fast) granted: the writer holds the sole-writer cache (the
    /// fast path saw the writers word at exactly `CACHED`: no clone, no close) and the slot is
    /// not the lap's last (its count stops short of it, `SpLocal::fast_room`). So the publish
    /// is one record store and the claim cursor `start + 1`, without the writers-word reload
    /// and lap arithmetic of a span's publish. A close that lands after the fast path's load
    /// defers its seal to this writer (writers module); it is sealed at the next claim, clone
    /// or drop, as for a close landing just after a span's publish.
    #[inline(always)]
    fn write_one_sole_fast(&mut self, start: usize, item: S::Item) {
        let ring = &*self.ring;
        let Some(m) = ring.producer.multi() else {
            return; // unreachable: `P::MULTI`
        };
        let guard = PublishNoneOnUnwind::new(ring, start, 1);
        // The cache granted this writer the slot at `start` exclusively: not published, so no
        // reader looks at it, and no other writer exists while the cache is held.
        // SAFETY: exclusive (above); the slot holds an initialised item (Storage contract),
        // which the assignment drops.
        unsafe { *ring.slot(start) = item };
        guard.disarm();
        m.publish_sole_one(&ring.layout, start);
        // Before `notify_all`, which may panic (as in `write_one_fast`). The claim cursor's
        // copy moves as `publish_sole_one` moved the cursor (never the lap's last slot).
        self.local.next = start.wrapping_add(1);
        self.local.room -= 1; // the fast claim checked `1 ≤ room`
        ring.data.notify_all();
    }

    #[inline]
    pub(crate) fn try_claim(&mut self, n: usize) -> Result<usize, ReserveError> {
        Self::claim_in(&self.ring, &mut self.local, n)
    }

    /// Claims `n` slots: returns the first cursor. Free space is `capacity` minus the distance
    /// from the slowest reader (a cached lower bound, refreshed only when it looks too small)
    /// to the claim cursor.
    ///
    /// Always inlined, and only the fast path ([`claim_fast`](Self::claim_fast)): everything
    /// else is in [`claim_in_slow`](Self::claim_in_slow), so the compiler cannot out-line the
    /// one compare along with the rest (it did, when this was one `#[inline]` function).
    #[inline(always)]
    fn claim_in(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        n: usize,
    ) -> Result<usize, ReserveError> {
        if let Some(start) = Self::claim_fast(ring, local, n) {
            return Ok(start);
        }
        if P::MULTI {
            if let Some(claimed) = Self::claim_shared_fast(ring, n) {
                return claimed;
            }
        }
        // Relaxed: a hint, as in `claim_fast` (the multi-producer path reads the writers word).
        let closed = !P::MULTI && ring.closed.load(Ordering::Relaxed);
        Self::claim_in_slow(ring, local, n, closed)
    }

    /// The claim's fast path: the start cursor if the cached free count covers `n` (and, on a
    /// single-producer ring, no close is seen), `None` for everything else. An `Option` in
    /// registers, so the one-item calls that branch on it never build a `Result` in memory.
    #[inline(always)]
    fn claim_fast(ring: &Ring<S, P, W, N>, local: &SpLocal, n: usize) -> Option<usize> {
        if P::MULTI {
            // Relaxed: the flag is set by this writer and cleared only by a clone of it, both
            // ordered before this load (writers module); a close racing the load defers its
            // seal to us, so a claim that misses it counts as made before it.
            if ring.writers.load(Ordering::Relaxed) == writers::CACHED && n <= local.room {
                // The cache holder keeps its claim cursor in `next` too (set when it takes the
                // cache, moved with every publish), so the claim loads no shared word that the
                // last publish stored: the chain from one push to the next stays in registers.
                // (Not under loom: an extra atomic load there would only grow the models.
                // Relaxed: only this writer stores the cursor while it holds the cache.)
                #[cfg(not(spanring_loom))]
                debug_assert!(ring
                    .producer
                    .multi()
                    .is_some_and(|m| m.claim().load(Ordering::Relaxed) == local.next));
                return Some(local.next); // as single-producer
            }
            return None; // the writers word decides, in `claim_in_slow`
        }
        // Relaxed: a hint; nothing is read on the strength of it.
        let closed = ring.closed.load(Ordering::Relaxed);
        // One compare against the cached free count.
        (n <= local.room && !closed).then_some(local.next)
    }

    /// The claim of one of several multi-producer writers, inlined: one CAS on the claim
    /// cursor when the writers word carries no flag and the cached minimum of the readers
    /// covers `n`; the same loads, checks and orderings as the first round of
    /// [`claim_multi`](Self::claim_multi). `None` for everything else (one writer, which
    /// takes the cache; a close decided; a full ring by the cached minimum; a lost CAS), which
    /// [`claim_in_slow`](Self::claim_in_slow) decides. A claim that finds the ring closed
    /// after its CAS is withdrawn and fails `Closed`, as in `claim_multi` (its slots may have
    /// become a skipped hole, so the slow path could no longer tell the close from a full
    /// ring: loom's `mp_close_races_claims_and_partial_publish` caught that).
    #[inline(always)]
    fn claim_shared_fast(ring: &Ring<S, P, W, N>, n: usize) -> Option<Result<usize, ReserveError>> {
        let m = ring.producer.multi()?;
        // Acquire: as in `claim_in_slow` (a writer that left made its claims visible to our
        // claim-cursor load).
        let word = ring.writers.load(Ordering::Acquire);
        if !writers::shared_claim_allowed(word) {
            return None;
        }
        let layout = &ring.layout;
        // As in `claim_multi`: the cached minimum first, then the claim cursor (Relaxed: the
        // CAS validates it); a negative or over-capacity `used` sends us to the slow path.
        let min = ring.readers.cached_min();
        let c = m.claim().load(Ordering::Relaxed);
        let used = layout.distance(min, c);
        if used < 0 || ring.capacity().saturating_sub(used as usize) < n {
            return None;
        }
        // Acquire on success: as in `claim_multi` (slots given back by a partial publish, and
        // the close's Release RMW on this cursor). Weak: a spurious failure only takes the
        // slow path.
        m.claim()
            .compare_exchange_weak(
                c,
                layout.advance(c, n),
                Ordering::Acquire,
                Ordering::Relaxed,
            )
            .ok()?;
        // Relaxed: as in `claim_multi`.
        if ring.closed.load(Ordering::Relaxed) {
            return Some(Err(Self::withdraw(ring, c, n)));
        }
        Some(Ok(c))
    }

    /// [`claim_in`](Self::claim_in) past the single-producer fast path: the cached free count
    /// is too small, the ring is closed, or the ring is multi-producer (the CAS loop).
    #[inline(never)]
    fn claim_in_slow(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        n: usize,
        closed: bool,
    ) -> Result<usize, ReserveError> {
        let cap = ring.capacity();
        if n > cap {
            return Err(ReserveError::TooLarge {
                requested: n,
                capacity: cap,
            });
        }
        if closed {
            return Err(Self::closed_for_claim(ring));
        }
        let layout = &ring.layout;
        match ring.producer.multi() {
            None => {
                // The claim cursor is the published cursor whenever no span is in flight (a
                // span borrows the writer, so none is now): start from it, not from the
                // handle's copy, which a `try_push` that unwound in `try_push_cold_in` after
                // its publish left one slot behind (`try_push_cold_on_copy`). Relaxed: only
                // this writer stores it.
                local.next = ring.published.load(Ordering::Relaxed);
                // The fast path stops short of the lap's last slot: the cached limit may
                // still cover the claim, and then the readers need no rescan.
                let mut free = local.free(layout, local.next);
                if free < n {
                    if let Some(min) = ring.refresh_min() {
                        local.limit = SpLocal::limit_for(layout, min);
                    }
                    if Self::closed_since_scan(ring) {
                        return Err(Self::closed_for_claim(ring));
                    }
                    free = local.free(layout, local.next);
                }
                local.room = SpLocal::fast_room(layout, local.next, free);
                if free < n {
                    return Err(ReserveError::Full { free });
                }
                Ok(local.next)
            }
            Some(m) => {
                // Acquire: a writer that left (AcqRel decrement) made its claims visible to
                // our claim-cursor loads; see the writers module for the sole-writer claim.
                let mut word = ring.writers.load(Ordering::Acquire);
                loop {
                    if word & writers::CLOSED != 0 {
                        return Err(Self::closed_for_claim(ring));
                    }
                    if word == writers::SOLO {
                        if !writers::take_cache(&ring.writers) {
                            // Acquire: as the load above, re-read after a change.
                            word = ring.writers.load(Ordering::Acquire);
                            continue;
                        }
                        // No room: a limit left from an earlier time this writer held the
                        // cache may be laps behind the claim cursor by now (other writers
                        // claimed meanwhile), where a distance could wrap, so `claim_cached`
                        // must not trust it.
                        local.room = 0;
                        word = writers::CACHED;
                    }
                    if word == writers::CACHED {
                        // Relaxed: only this writer stores it now; a writer that left is
                        // ordered before us by the Acquire CAS that took the cache (writers
                        // module), or by the one before our earlier claims.
                        let claim = m.claim().load(Ordering::Relaxed);
                        return Self::claim_cached(ring, local, claim, n);
                    }
                    return Self::claim_multi(ring, m, n);
                }
            }
        }
    }

    /// The sole multi-producer writer's claim past its cached free count: rescans the readers
    /// (moving the published hint to its claim cursor, writers module) and claims from the
    /// cache, as a single-producer writer does.
    #[inline(always)]
    fn claim_cached(
        ring: &Ring<S, P, W, N>,
        local: &mut SpLocal,
        claim: usize,
        n: usize,
    ) -> Result<usize, ReserveError> {
        let layout = &ring.layout;
        // Only this writer moves the claim cursor while it holds the cache: the fast path
        // claims from this copy.
        local.next = claim;
        if local.room == 0 {
            // No room: the cache was taken anew, or a claim on a copy of this state unwound
            // (`push_cold_on_copy`), or the room simply ran out. In the first two cases the
            // limit may be from an earlier cache period, and nothing in the state tells them
            // from the third, so the limit is not trusted: the claim cursor is a valid one
            // (every claim was within a capacity of the readers then, and readers only move
            // on), and it leaves no room until the rescan below. The cost is a rescan where
            // the old limit would have covered the claim: once a lap, at the lap's last slot
            // (which the fast path's count leaves out).
            local.limit = claim;
        }
        // The fast path's count stops short of the lap's last slot (as a single-producer
        // writer's): the cached limit may still cover the claim, and then the readers need no
        // rescan.
        let mut free = local.free(layout, claim);
        if free < n {
            if let Some(min) = ring.refresh_min_sole(claim) {
                local.limit = SpLocal::limit_for(layout, min);
            }
            if Self::closed_since_scan(ring) {
                return Err(Self::closed_for_claim(ring));
            }
            free = local.free(layout, claim);
        }
        local.room = SpLocal::fast_room(layout, claim, free);
        if free < n {
            return Err(ReserveError::Full { free });
        }
        Ok(claim)
    }

    /// The multi-producer claim of one of several writers: a CAS on the claim cursor.
    #[inline(always)]
    fn claim_multi(ring: &Ring<S, P, W, N>, m: &P::Multi, n: usize) -> Result<usize, ReserveError> {
        let cap = ring.capacity();
        let layout = &ring.layout;
        let mut lost = 0;
        loop {
            // The cached minimum first, then the claim: the minimum is ≤ the claim cursor at
            // the time it was computed, so `used` is non-negative unless the claim we read
            // is stale (then the CAS fails anyway). `used` can exceed the capacity when a
            // writer stored an older (still valid, lower) minimum over a newer one: that
            // only means "rescan", hence the saturating subtraction.
            let mut min = ring.readers.cached_min();
            // Relaxed: the CAS below validates the value; slot reuse is ordered by the
            // Acquire loads of reader cursors (or of the cached minimum) instead.
            let c = m.claim().load(Ordering::Relaxed);
            let mut used = layout.distance(min, c);
            if used < 0 {
                continue;
            }
            if cap.saturating_sub(used as usize) < n {
                if let Some(fresh) = ring.refresh_min() {
                    min = fresh;
                }
                used = layout.distance(min, c);
                if used < 0 {
                    continue;
                }
                let free = cap.saturating_sub(used as usize);
                if free < n {
                    if m.claim().load(Ordering::Relaxed) != c {
                        continue; // someone claimed or gave back meanwhile: recompute
                    }
                    return Err(ReserveError::Full { free });
                }
            }
            // Acquire on success: if these slots were given back by a partial publish, the
            // writes their previous claimant made happen before ours (pairs with the
            // Release give-back CAS in `MultiProducer::publish`). Nothing is published by claiming.
            // Acquire also pairs with the Release RMW of `Ring::close` on this cursor.
            if m.claim()
                .compare_exchange_weak(
                    c,
                    layout.advance(c, n),
                    Ordering::Acquire,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                // Relaxed: if our CAS came after the close's RMW in the cursor's order, the
                // Acquire above made `closed` visible; if it came before, the close counts
                // our claim and readers wait for it, so going on is right either way.
                if ring.closed.load(Ordering::Relaxed) {
                    return Err(Self::withdraw(ring, c, n));
                }
                return Ok(c);
            }
            // Another writer claimed first: back off before taking the line again.
            crate::sync::contention_backoff(&mut lost);
        }
    }

    /// After a rescan of the readers: did a close happen before something the scan saw?
    ///
    /// The `closed` flag the claim checked first was loaded *before* the scan. A close followed
    /// by a reader's detach (the last owned reader dropping does exactly that) can land between
    /// the two: the scan then sees the detached reader's slots free, and a claim of them is
    /// not one that came before the close (the space did not exist then), so it must fail
    /// `Closed`. Found by `std-ext/tests/closing.rs` (a writer blocked on a full ring got
    /// `Ok` after the last reader dropped).
    ///
    /// Relaxed suffices: the scan read the detach with Acquire (the registry's RMWs and slot
    /// loads), the detach follows the close in the closing thread, so the close happens before
    /// this load and coherence makes it return `true`. A scan that saw no such detach computed
    /// a minimum that gives no space the close could have freed.
    #[inline]
    fn closed_since_scan(ring: &Ring<S, P, W, N>) -> bool {
        ring.closed.load(Ordering::Relaxed)
    }

    /// A claim found the ring closed. A single-producer writer, or the one writer a
    /// multi-producer close deferred its seal to, has no span in flight now (a live span
    /// borrows the writer), so the close is complete for readers: seal it.
    #[cold]
    #[inline(never)]
    fn closed_for_claim(ring: &Ring<S, P, W, N>) -> ReserveError {
        // Acquire: the close's CAS (Release) decided the flags we read.
        if !P::MULTI || ring.writers.load(Ordering::Acquire) & writers::SEAL_DEFERRED != 0 {
            ring.seal();
        }
        ReserveError::Closed
    }
}

impl<S, P, W, const N: usize, R> Writer<R>
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
    R: Deref<Target = Ring<S, P, W, N>>,
{
    /// A multi-producer claim of `[start, start + n)` that found the ring closed: publishes
    /// nothing (gives the slots back, or skips them behind a later claim) so readers waiting
    /// for the claim cursor can finish.
    #[cold]
    #[inline(never)]
    fn withdraw(ring: &Ring<S, P, W, N>, start: usize, n: usize) -> ReserveError {
        if let Some(m) = ring.producer.multi() {
            m.publish(&ring.layout, start, n, 0);
        }
        ring.data.notify_all();
        Self::closed_for_claim(ring)
    }
}

/// The reader that holds a waiting single-producer writer's ring full, as the writer last saw
/// it: its registry slot and its cursor then. A hint that spares a waiting writer the rescan of
/// every reader while nothing it waits for has changed.
#[derive(Clone, Copy)]
struct WatchedReader {
    slot: usize,
    cursor: usize,
}

impl WatchedReader {
    /// Whether the ring is still open and the watched reader still holds it full (active at
    /// the same cursor): then a claim would fail `Full` again. `false` ends the watch and the
    /// caller claims again, which decides (`Closed`, `Full` or a claim).
    #[inline]
    fn still_holds<S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize>(
        self,
        ring: &Ring<S, P, W, N>,
    ) -> bool {
        // Relaxed: a hint, as in `claim_fast`: a `true` seen here only sends us to the claim,
        // whose slow path decides with its own orderings. The close is looked at before the
        // reader, so a close made before the waiting strategy's `notify_all` is seen by the
        // check that follows the wake-up, whatever the watched reader does (the strategy's
        // contract: a check after registration sees every store made before a later notify).
        !ring.closed.load(Ordering::Relaxed) && ring.readers.holds_at(self.slot, self.cursor)
    }
}

/// Publishes nothing of a multi-producer claim of `reserved` slots at `start` if dropped,
/// which happens only while unwinding: dropping a one-item slot's old item panicked, or a wait
/// strategy panicked after its `ready()` made the claim. The claim is given back or skipped,
/// as a span's drop would; readers never stop at it. Normal paths [`disarm`](Self::disarm)
/// it. On a single-producer ring it does nothing (a claim changed nothing shared: the slots
/// are simply claimed again), and for items whose drop cannot panic it compiles away.
struct PublishNoneOnUnwind<'a, S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize> {
    ring: &'a Ring<S, P, W, N>,
    start: usize,
    reserved: usize,
}

impl<'a, S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize>
    PublishNoneOnUnwind<'a, S, P, W, N>
{
    #[inline(always)]
    fn new(ring: &'a Ring<S, P, W, N>, start: usize, reserved: usize) -> Self {
        Self {
            ring,
            start,
            reserved,
        }
    }

    /// The claim is in good hands (stored and about to be published, or returned to the
    /// caller): forget the guard, returning the claim's start.
    #[inline(always)]
    fn disarm(self) -> usize {
        let start = self.start;
        core::mem::forget(self);
        start
    }
}

impl<S: Storage, P: ClaimMode, W: WaitStrategy, const N: usize> Drop
    for PublishNoneOnUnwind<'_, S, P, W, N>
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
            crate::ring::INTERNAL,
        );
    }
}

impl<S, B, W, const N: usize, R> Clone for Writer<R>
where
    S: Storage,
    B: crate::RecordWords,
    W: WaitStrategy,
    R: Deref<Target = Ring<S, crate::MultiProducer<B>, W, N>> + Clone,
{
    /// Another writer of the same multi-producer ring.
    fn clone(&self) -> Self {
        // The owner holds no span now (`&self`), so a close that deferred its seal to it is
        // complete: seal it before a second writer exists (writers module).
        if writers::add_clone(&self.ring.writers) {
            self.ring.seal();
        }
        Self {
            ring: self.ring.clone(),
            local: self.local,
        }
    }
}

impl<R> Drop for Writer<R>
where
    R: Deref,
    R::Target: RingCore,
{
    #[inline]
    fn drop(&mut self) {
        self.ring.writer_dropped(crate::ring::INTERNAL);
    }
}

/// Handing out writers is the writer's business: the ring (ring.rs) knows nothing of handles.
impl<S: Storage, P: ClaimMode, W: WaitStrategy, const READERS: usize> Ring<S, P, W, READERS> {
    /// A writer handle borrowing the ring.
    ///
    /// # Errors
    ///
    /// [`AttachError::WriterTaken`] if a writer is attached, [`AttachError::Closed`] if the
    /// ring is closed (see [`Writer::attach`]).
    ///
    /// ```
    /// use spanring_core::{AttachError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let w = ring.writer().unwrap();
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken); // single producer
    /// drop(w); // the last writer closes the ring, for good
    /// assert_eq!(ring.writer().unwrap_err(), AttachError::Closed);
    /// ```
    pub fn writer(&self) -> Result<Writer<&Self>, AttachError> {
        Writer::attach(self)
    }
}
