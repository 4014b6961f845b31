//! How writers claim slots: [`SingleProducer`] (a plain cursor, no CAS) and
//! [`MultiProducer`] (a CAS on a shared claim cursor, publication through one *record* word per
//! slot). Selected by type, so the single-producer ring pays nothing for the multi-producer
//! machinery.
//!
//! ## Multi-producer publication: records
//!
//! Every slot has one publication word (caller-provided memory,
//! [`multi_words`]`(capacity)` = one word a slot). A published span `[head, head + len)` is
//! announced by **one `Release` store into the word of its head slot**, the *record*:
//!
//! ```text
//!  bit 0       valid (1): a zero word is never a record
//!  bit 1       skip: the span is a hole (a partial publish behind a later claim), not data
//!  bits 2..    len − 1            (lap_shift bits: len ≤ capacity ≤ one lap)
//!  the rest    tag: the low t bits of the head cursor's lap, t = usize::BITS − 2 − lap_shift
//! ```
//!
//! - **Claim** stays one CAS on the claim cursor (gated by the readers' cached minimum).
//! - **Publish** is the record store. No fence, no sweep, no shared published cursor on the
//!   writer's path: the writer touches the claim line (its CAS) and the record word next to its
//!   data, nothing readers poll besides that word.
//! - **Partial publish** (`publish(k)` of `n` reserved): if the claim is still the newest, the
//!   tail goes back with a CAS on the claim cursor and only `[head, head + k)` gets a record;
//!   otherwise the tail gets a *skip record* at `head + k` (written before the data record),
//!   which readers pass without showing. `k = 0` is the same with no data record. Nothing ever
//!   waits for anything, so a partial publish cannot hang the ring (the GNU Radio 4 hang).
//! - **Readers** keep a *front* (`cursor + ready`, always a span head: spans are claimed
//!   back to back and every record says where the next head is). They load the word at the
//!   front (`Acquire`, pairs with the record's `Release` store, so the span's data is visible),
//!   accept it only if it is valid and its tag is the front's lap, and jump by its length;
//!   they stop at the first word that is not this lap's record. So readers find the frontier
//!   themselves and cache it (`ready`); the fast path of a read is still one compare.
//! - **The published cursor is a hint**: a span head with everything before it published.
//!   Only walkers advance it — [`Ring::published`](crate::Ring::published), a writer's
//!   `refresh_min` (when its cached free count looks too small, once per ~capacity items) and
//!   reader attach — by walking records from it and a `Release` CAS; and a writer that holds
//!   the sole-writer cache, which moves it to its own claim cursor with a `Release` CAS
//!   without walking (every slot before that cursor is published or given back, see the
//!   [`writers`](crate::writers) module). It is part of every
//!   writer's minimum (the registry's scan starts from it), so writers never overwrite a
//!   record at or after the hint: a walk from the current hint meets only genuine records or
//!   stale words of earlier laps. A walker whose hint went stale (another walker advanced it
//!   and writers lapped the walker's positions) may misread, but its CAS from the stale value
//!   then fails and its result is discarded; its walk is bounded by one capacity.
//!
//! ### Lap safety (also on 32-bit)
//!
//! Claim: a reader (or walker) at a genuine head `f` of lap `L` never accepts a word that is
//! not the record of the span at `f` in lap `L`. Records of later laps cannot be there: a
//! writer claims lap `L + 1` of the slot only after every reader cursor and the hint passed `f`.
//! A stale record of lap `L' < L` is accepted only if `L ≡ L' (mod 2^t)`, so `L − L' ≥ 2^t`.
//! The tag can be short (on a 32-bit target with 2^20 slots, t = 10), so we *scrub*: a
//! publisher stores 0 (Relaxed, before its Release record store) into each **interior** word of
//! its span whose slot is in a lap `M ≡ 0 (mod S)`, `S = 2^(t−1)` (for t = 1, S = 1: every lap).
//! Among the ≥ 2^t − 1 ≥ S laps strictly between `L'` and `L` there is such an `M`; in lap `M`
//! the slot's position lies before `f`, so it was covered by a published record (a reader
//! only gets to `f` by walking every record before it, or by attaching at a hint that a walker
//! got to the same way), either as that record's head (a record of lap `M` written) or as an
//! interior slot (scrubbed). Either write happens before the reader's load (it is sequenced
//! before the covering record's `Release` store, which the reader or the hint's walker
//! acquired), and after the write of the `L'` record (the lap-`M` writer claimed only after
//! readers passed lap `L'`'s position, through Release cursor stores it acquired). By
//! read-write coherence the load cannot return the `L'` record. Scrubbing costs a compare per
//! span part and, once every `S` laps, a store per interior slot; a one-slot span never
//! scrubs. The loom model `loom_records::lap_reuse_capacity_3` (built with a 1-bit tag) fails
//! when the scrub is removed. Cursor wrap-around: tags are lap bits of the cursor, and `2^t`
//! and `S` divide the lap counter's period, so nothing changes at the `usize` wrap.
//!
//! ### Why there is no store-buffering pattern any more
//!
//! The old sweep had "A marks, then loads B's mark; B marks, then loads A's" — with
//! Release/Acquire both could miss each other and leave items invisible, hence its `SeqCst`
//! fence. Here no writer ever decides, from another writer's state, whether someone else will
//! make its items visible: each publication is complete after its own store, and whoever reads
//! later (a reader, a walker) loads that word itself. Loom models
//! `loom_records::out_of_order_publish_two_claims` and the older
//! `loom_ring::two_producers_out_of_order_*` check that both publications are visible after
//! both writers return.
//!
//! ## What a publish costs, and why the hot paths look as they do
//!
//! Per item at chunk 1, counted from the code: a claim is one CAS on the claim line and a
//! publish one `Release` store to the head slot's record word, next to the data. No fence, no
//! sweep, no shared published cursor on the writer's path, and a reader's only load per span is
//! the record word. (The design before records marked a bitset per publish and swept it into a
//! shared published cursor behind a `SeqCst` fence: 3 RMWs and a fence per item, and its CAS on
//! the cursor every reader polls was the largest single cost.) On top of the protocol, the hot
//! paths avoid what profiles showed to be expensive:
//!
//! - **A lone multi-producer writer claims like a single-producer writer.** A locked RMW drains
//!   the store buffer, where the previous item's record store still waits for the line a
//!   caught-up reader keeps pulling back. So the writer that finds itself alone holds the
//!   sole-writer cache (the [`writers`](crate::writers) module): its claim is the
//!   single-producer fast path (a load of the writers word, one compare), its publish is
//!   inlined into the span's drop, and its rescans move the published hint without walking the
//!   records. More writers are clones, and a clone clears the cache in the CAS that counts it.
//! - **Writers keep private state** ([`SpLocal`]): the next cursor and a free count (`room`),
//!   so a claim is one compare and a publish one subtraction, and no writer loads back a line
//!   that readers poll. The multi-producer cache holder resets its count to 0 whenever it takes
//!   the cache, so a stale count is never trusted.
//! - **The fast path never wraps** ([`SpLocal::fast_room`] stops short of the lap's last
//!   slot), so a one-item push publishes `next + 1` with no lap arithmetic; the lap's last slot
//!   goes through the slow path once per lap. A reader's `pop` steps its cursor the same way.
//! - **Readers walk runs of one-item records without a load-to-address dependency**
//!   ([`MultiClaim::data_run`]): a word equal to the lap's one-slot data record steps the index
//!   by one, so the loads of a run overlap; the published-hint walk does the same. A poll walks
//!   at least 256 records ahead of its request, so item reads load each record line once.
//! - **Several writers try one inlined CAS first** (`claim_shared_fast`: the first round of
//!   `claim_multi`, same loads, orderings and closed check; anything unusual goes to the slow
//!   path), and a one-item push publishes its one-slot record inline. With two or more writers
//!   that `lock cmpxchg` per claim is the floor: fewer than one per item would mean claims
//!   handed out in batches, which leave claimed slots unwritten while a writer idles and hold
//!   every reader back (the stalled-claimer hazard).
//! - **Slow paths work on a copy of the claim state** (`Writer::push_cold_on_copy`,
//!   `Writer::try_push_cold_in`), passed in as scalars and returned, so no call in a push loop
//!   gets the handle's address and a handle held in a local of the loop stays in registers (a
//!   struct would be passed by pointer and pull the handle back into memory). `try_push`'s cold
//!   part also stores and publishes, so a `try_push` in a retry closure stays small enough to
//!   inline; the waiting pushes keep their store and publish inline, which their loops measured
//!   faster. A copy that unwinds (a panicking wait strategy or `notify_all`) would leave the
//!   handle's own state from before, so the handle is marked first (no room; the cache holder
//!   then trusts no limit), and the single-producer slow claim starts from the published
//!   cursor, not the handle's copy.
//!
//! The measurements behind each of these, and the variants tried and not kept, are in
//! `core/src/NOTES.md` in the repository.

use crate::layout::Layout;
use crate::sequence::Sequence;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};

/// Words of publication-record storage a multi-producer ring of `capacity` slots needs: one
/// word a slot (8 bytes a slot on 64-bit targets, 4 on 32-bit).
///
/// ```
/// assert_eq!(spanring_core::multi_words(100), 100);
/// ```
pub const fn multi_words(capacity: usize) -> usize {
    capacity
}

mod sealed {
    pub trait Sealed {}
}

/// How a ring's writers claim slots: [`SingleProducer`] (one writer, no CAS) or
/// [`MultiProducer`] (any number of writers). It names a *mode*, not a handle: the handles are
/// [`Writer`](crate::Writer) and [`Reader`](crate::Reader). Sealed. Generic code over both
/// modes bounds on it:
///
/// ```
/// use spanring_core::{ClaimMode, Reader, Ring, SliceStorage, Storage, WaitStrategy};
/// fn drain<S: Storage<Item = u8>, P: ClaimMode, W: WaitStrategy>(
///     r: &mut Reader<&Ring<S, P, W>>,
/// ) -> usize {
///     r.try_read_all().map_or(0, |span| span.len())
/// }
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// ring.writer().unwrap().try_push(1).unwrap();
/// assert_eq!(drain(&mut r), 1);
/// assert!(!<spanring_core::SingleProducer as ClaimMode>::MULTI);
/// ```
pub trait ClaimMode: sealed::Sealed {
    /// `true` for [`MultiProducer`].
    const MULTI: bool;
    #[doc(hidden)]
    type Multi: MultiClaim;
    #[doc(hidden)]
    fn multi(&self) -> Option<&Self::Multi>;
    /// Counts a new writer in the ring's writers word, if this claim mode hands one out now.
    #[doc(hidden)]
    fn take_writer(&self, writers: &AtomicUsize) -> bool;
    /// Hands the writer out again after the last one left a ring that stays open.
    #[doc(hidden)]
    fn release_writer(&self);
}

/// The multi-producer half of the protocol (internal; public only because it appears in the
/// sealed [`ClaimMode`] trait).
#[doc(hidden)]
pub trait MultiClaim {
    fn claim(&self) -> &Sequence;
    /// Publishes `count` of the `reserved` slots claimed at `start` (module docs).
    fn publish(&self, layout: &Layout, start: usize, reserved: usize, count: usize);
    /// Publishes the first `count` slots claimed at `start` by the writer that holds the
    /// sole-writer cache (the rest are simply claimed again later) and stores the claim
    /// cursor after them; returns that cursor.
    fn publish_sole(&self, layout: &Layout, start: usize, count: usize) -> usize;
    /// [`publish_sole`](Self::publish_sole) when it needs no call (at least one slot, no scrub):
    /// `Some(cursor after them)`, else `None` and nothing was done.
    fn publish_sole_fast(&self, layout: &Layout, start: usize, count: usize) -> Option<usize>;
    /// The one-item publish of the sole writer's cached claim at `start`, which the fast path
    /// granted and so is never the lap's last slot: one record store, then the claim cursor
    /// `start + 1` (no lap arithmetic).
    fn publish_sole_one(&self, layout: &Layout, start: usize);
    /// Publishes the one slot claimed at `start` (by any writer): its record, one `Release`
    /// store (one slot has no interior word to scrub).
    fn publish_one(&self, layout: &Layout, start: usize);
    /// Data records from the span head `front` in its lap, with no skip among them: how many
    /// slots they cover (stopping once that reaches `want`), the cursor after them, and whether
    /// the walk stopped at a word that is not this lap's record (`true`: nothing more is
    /// published there now). Every word accepted is tested exactly as [`record`](Self::record)
    /// tests it, with the same `Acquire`; only the expected tag is computed once per lap.
    fn data_run(&self, layout: &Layout, front: usize, want: usize) -> (usize, usize, bool);
    /// The record of the span whose head is the stream position `at`, if published: its length
    /// and whether it is a skipped hole. `Acquire`: the span's data is visible after `Some`.
    fn record(&self, layout: &Layout, at: usize) -> Option<(usize, bool)>;
    /// Advances the published-cursor hint over the records that follow it; returns the hint.
    fn walk_hint(&self, layout: &Layout, hint: &Sequence) -> usize;
}

/// Exactly one writer, which owns its claim cursor: reserving is a few loads and compares,
/// publishing is one `Release` store. The writer handle is unique (not `Clone`, and a ring
/// hands it out once), so a second writer is impossible by type.
///
/// ```
/// use spanring_core::{Ring, SingleProducer, SliceStorage};
/// let mut memory = [0u32; 8];
/// let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let _writer = ring.writer().unwrap();
/// assert!(ring.writer().is_err()); // only one
/// ```
///
/// The single-producer writer cannot be cloned (a second writer would be a data race):
///
/// ```compile_fail,E0599
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u32; 8];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let writer = ring.writer().unwrap();
/// let second = writer.clone(); // error: no method `clone` for a single-producer writer
/// ```
#[derive(Debug, Default)]
#[repr(C)]
pub struct SingleProducer {
    taken: AtomicBool,
}

impl SingleProducer {
    crate::__maybe_const_fn! {
        /// A claim whose writer has not been taken yet.
        ///
        /// ```
        /// use spanring_core::SingleProducer;
        /// static CLAIM: SingleProducer = SingleProducer::new(); // `const`, for `static` rings
        /// // The same fresh state as `Default` (no writer taken yet):
        /// assert_eq!(format!("{CLAIM:?}"), format!("{:?}", SingleProducer::default()));
        /// ```
        pub fn new() -> Self {
            Self { taken: AtomicBool::new(false) }
        }
    }
}

impl sealed::Sealed for SingleProducer {}

impl ClaimMode for SingleProducer {
    const MULTI: bool = false;
    type Multi = NoMulti;
    #[inline]
    fn multi(&self) -> Option<&NoMulti> {
        None
    }
    fn take_writer(&self, writers: &AtomicUsize) -> bool {
        // Acquire: pairs with `release_writer`'s Release (a ring that stays open hands the
        // writer out again after the last one left). A compare-exchange, not a swap: a refused
        // attach writes nothing, so it cannot land after that release and take the flag back
        // (loom's `loom_stays_open` found that with a swap). Failure: Relaxed, nothing is read.
        if self
            .taken
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        // Acquire: if `close` already did its RMW on the count, we read it and so see
        // `closed` (our claims fail); otherwise `close` counts us and leaves sealing to us.
        // Closing on the last drop uses AcqRel.
        writers.fetch_add(1, Ordering::Acquire);
        true
    }
    fn release_writer(&self) {
        // Release: pairs with `take_writer`'s Acquire swap: the next writer, which continues
        // from the published cursor, sees everything this one did.
        self.taken.store(false, Ordering::Release);
    }
}

/// The (never constructed) multi-producer part of a single-producer ring.
#[doc(hidden)]
#[derive(Debug)]
pub enum NoMulti {}

impl MultiClaim for NoMulti {
    fn claim(&self) -> &Sequence {
        match *self {}
    }
    fn publish(&self, _: &Layout, _: usize, _: usize, _: usize) {
        match *self {}
    }
    fn publish_sole(&self, _: &Layout, _: usize, _: usize) -> usize {
        match *self {}
    }
    fn publish_sole_fast(&self, _: &Layout, _: usize, _: usize) -> Option<usize> {
        match *self {}
    }
    fn publish_sole_one(&self, _: &Layout, _: usize) {
        match *self {}
    }
    fn publish_one(&self, _: &Layout, _: usize) {
        match *self {}
    }
    fn data_run(&self, _: &Layout, _: usize, _: usize) -> (usize, usize, bool) {
        match *self {}
    }
    fn record(&self, _: &Layout, _: usize) -> Option<(usize, bool)> {
        match *self {}
    }
    fn walk_hint(&self, _: &Layout, _: &Sequence) -> usize {
        match *self {}
    }
}

/// Any number of writers (the first from `ring.writer()`, the rest cloned from it), claiming
/// ranges with a CAS (a plain store while one writer is alone) and publishing out
/// of order through one record word a slot (module docs), stored in `B`: an inline
/// `[AtomicUsize; C]` (C = [`multi_words`](crate::multi_words)`(capacity)` = capacity), a boxed
/// slice or `Vec`, or a `&mut [AtomicUsize]`: a [`RecordWords`](crate::record_words::RecordWords) container,
/// which nothing but the ring can store through. The words need no particular initial value:
/// the ring zeroes them when it is built.
///
/// ```
/// use spanring_core::sync::AtomicUsize;
/// use spanring_core::{MultiProducer, Ring, SliceStorage};
/// let mut memory = [0u32; 100];
/// let mut words: [AtomicUsize; spanring_core::multi_words(100)] =
///     core::array::from_fn(|_| AtomicUsize::new(0)); // one word a slot
/// let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
/// let a = ring.writer().unwrap();
/// let b = a.clone(); // more writers are clones of the first
/// # drop((a, b));
/// ```
#[derive(Debug)]
pub struct MultiProducer<B: crate::record_words::RecordWords> {
    claim: Sequence,
    /// One record word a slot.
    records: B,
    /// The layout's index mask (`one_lap − 1`): the `len − 1` field of a record.
    mask: usize,
    /// The record bits compared against the front: the tag field and the valid bit.
    check: usize,
    /// Cursor bits that are all zero in a scrub lap (`(S − 1) << lap_shift`).
    scrub_bits: usize,
}

/// Record flag: a record (0 is never one).
const VALID: usize = 1;
/// Record flag: a skipped hole.
const SKIP: usize = 2;

impl<B: crate::record_words::RecordWords> MultiProducer<B> {
    /// A claim starting at `start` over `records` (at least `capacity` words, checked by the
    /// caller), with a tag of at most `max_tag_bits` bits (tests shrink it to exercise the
    /// scrub).
    pub(crate) fn new(records: B, layout: &Layout, start: usize, max_tag_bits: u32) -> Self {
        for w in &records.as_ref()[..layout.capacity()] {
            // Relaxed: the ring is not shared yet; handing it to other threads publishes this.
            w.store(0, Ordering::Relaxed);
        }
        Self::with_zeroed_records(records, layout, start, max_tag_bits)
    }

    /// As `new`, after checking that `records` has a word for every slot.
    pub(crate) fn checked(
        records: B,
        layout: &Layout,
        start: usize,
        max_tag_bits: u32,
    ) -> Result<Self, crate::CapacityError> {
        let available = records.as_ref().len();
        let needed = multi_words(layout.capacity()); // one record word a slot
        if available < needed {
            return Err(crate::CapacityError::BitsetTooSmall { needed, available });
        }
        Ok(Self::new(records, layout, start, max_tag_bits))
    }

    crate::__maybe_const_fn! {
        /// As `new`, over records the caller guarantees are all 0 (a `const` array of fresh
        /// atomics): nothing to store, so it works in `const` context.
        pub(crate) fn with_zeroed_records(
            records: B,
            layout: &Layout,
            start: usize,
            max_tag_bits: u32,
        ) -> Self {
            let lap_shift = layout.lap_shift();
            // len − 1 < one lap fits in lap_shift bits; Layout guarantees lap_shift ≤ BITS − 3.
            let mut tag_bits = usize::BITS - 2 - lap_shift;
            if max_tag_bits < tag_bits {
                tag_bits = max_tag_bits;
            }
            if tag_bits == 0 {
                tag_bits = 1;
            }
            let tag_field = ((1usize << tag_bits) - 1) << (lap_shift + 2);
            let scrub_period_mask = (1usize << (tag_bits - 1)) - 1; // S − 1, S = 2^(t−1)
            Self {
                claim: Sequence::new(start),
                records,
                mask: layout.mask(),
                check: tag_field | VALID,
                scrub_bits: scrub_period_mask << lap_shift,
            }
        }
    }

    /// The record word of the slot at the stream position `at`, without a bounds check (the
    /// one-item publish stores here every item).
    #[inline(always)]
    fn word(&self, layout: &Layout, at: usize) -> &AtomicUsize {
        let words = self.records.as_ref();
        let i = layout.index(at);
        debug_assert!(i < layout.capacity() && layout.capacity() <= words.len());
        // The words are at least `capacity`: `new` slices `[..capacity]` before anything else
        // (`checked` tests the length first), the inline constructor passes `N` words for `N`
        // slots, and `RecordWords` promises the same slice on every call.
        // SAFETY: `i < capacity ≤ words.len()`: a cursor's index is below the capacity (the
        // lap encoding of `Layout` never produces another; `Ring::slot` relies on the same).
        unsafe { words.get_unchecked(i) }
    }

    /// The record word for a span at `head` (before the flags).
    #[inline(always)]
    fn expected(&self, head: usize) -> usize {
        // The lap bits of the cursor moved above the 2 flag bits; `check` keeps the tag's part.
        ((head & !self.mask) << 2) & self.check
    }

    /// Stores the record of `[head, head + len)` (len ≥ 1), scrubbing interior words first in a
    /// scrub lap (module docs, lap safety). Always inlined: at chunk 1 it is one compare and
    /// one store, and every extra call pushes registers into a store buffer that is already
    /// waiting for the record line (a profile of the sole writer put half its time there).
    #[inline(always)]
    fn write_record(&self, layout: &Layout, head: usize, len: usize, skipped: bool) {
        if self.needs_scrub(layout, head, len) {
            self.scrub_interior(layout, head, len);
        }
        let record =
            self.expected(head) | ((len - 1) << 2) | if skipped { SKIP } else { 0 } | VALID;
        // Release: the span's slot writes (and the scrubs before it) happen before any reader
        // or walker that acquires this record.
        self.word(layout, head).store(record, Ordering::Release);
    }

    /// Whether the span `[head, head + len)` has interior words in a scrub lap (its slots lie
    /// in the lap of its head and, if it wraps, of its last slot).
    #[inline(always)]
    fn needs_scrub(&self, layout: &Layout, head: usize, len: usize) -> bool {
        len > 1
            && (head & self.scrub_bits == 0 || layout.advance(head, len - 1) & self.scrub_bits == 0)
    }

    /// The scrub of [`write_record`](Self::write_record): zeroes the interior words of
    /// `[head, head + len)` that lie in a scrub lap (once every `S` laps).
    #[cold]
    #[inline(never)]
    fn scrub_interior(&self, layout: &Layout, head: usize, len: usize) {
        let words = self.records.as_ref();
        let i = layout.index(head);
        let first = len.min(layout.capacity() - i);
        if head & self.scrub_bits == 0 {
            for w in &words[i + 1..i + first] {
                // Relaxed: ordered before readers by the Release record store that follows.
                w.store(0, Ordering::Relaxed);
            }
        }
        if len > first && layout.advance(head, first) & self.scrub_bits == 0 {
            for w in &words[..len - first] {
                // Relaxed: as above.
                w.store(0, Ordering::Relaxed);
            }
        }
    }
}

impl<B: crate::record_words::RecordWords> sealed::Sealed for MultiProducer<B> {}

impl<B: crate::record_words::RecordWords> ClaimMode for MultiProducer<B> {
    const MULTI: bool = true;
    type Multi = Self;
    #[inline]
    fn multi(&self) -> Option<&Self> {
        Some(self)
    }
    fn take_writer(&self, writers: &AtomicUsize) -> bool {
        crate::writers::attach_first(writers)
    }
    fn release_writer(&self) {
        // Nothing: the writers count alone says whether a first writer may attach.
    }
}

impl<B: crate::record_words::RecordWords> MultiClaim for MultiProducer<B> {
    #[inline]
    fn claim(&self) -> &Sequence {
        &self.claim
    }

    #[inline]
    fn publish(&self, layout: &Layout, start: usize, reserved: usize, count: usize) {
        if reserved == 0 {
            return; // a zero-slot claim moved nothing
        }
        let count = count.min(reserved);
        if count < reserved {
            let end = layout.advance(start, reserved);
            let kept_end = layout.advance(start, count);
            // Release: the next claimant of the given-back slots overwrites what we wrote there;
            // its claim CAS acquires this value (or a later RMW in its release sequence), so our
            // writes happen before its writes (ThreadSanitizer found the race when this was
            // Relaxed). Failure: nothing was given back, nothing to order.
            let gave_back = self
                .claim
                .compare_exchange(end, kept_end, Ordering::Release, Ordering::Relaxed)
                .is_ok();
            if !gave_back {
                // A later claim exists: the tail becomes a hole. Written before the data record,
                // so a reader that passes the data finds the hole's record already there.
                self.write_record(layout, kept_end, reserved - count, true);
            }
        }
        if count > 0 {
            self.write_record(layout, start, count, false);
        }
    }

    #[inline(always)]
    fn publish_sole_fast(&self, layout: &Layout, start: usize, count: usize) -> Option<usize> {
        if count == 0 || self.needs_scrub(layout, start, count) {
            return None;
        }
        Some(self.publish_sole(layout, start, count))
    }

    #[inline(always)]
    fn publish_sole(&self, layout: &Layout, start: usize, count: usize) -> usize {
        if count == 0 {
            return start; // nothing claimed moved: the cache claims the same slots next
        }
        self.write_record(layout, start, count, false);
        let end = layout.advance(start, count);
        // Relaxed: only this writer moves the cursor while it holds the cache (writers
        // module); everyone who reads it later is ordered after this store by a seal
        // (Release), a clone (its AcqRel CAS on the writers word) or our drop (AcqRel).
        self.claim.store(end, Ordering::Relaxed);
        end
    }

    #[inline(always)]
    fn publish_one(&self, layout: &Layout, start: usize) {
        // One slot has no interior word, so no scrub (`needs_scrub` is false for `len = 1`);
        // the length field is 0 (one slot).
        let record = self.expected(start) | VALID;
        // Release: the slot write happens before any reader or walker that acquires this
        // record (as in `write_record`).
        self.word(layout, start).store(record, Ordering::Release);
    }

    #[inline(always)]
    fn publish_sole_one(&self, layout: &Layout, start: usize) {
        self.publish_one(layout, start);
        // The fast path's count stops short of the lap's last slot (`SpLocal::fast_room`), so
        // the index of `start` is below `capacity − 1` and adding one carries into no lap bit.
        let end = start.wrapping_add(1);
        debug_assert_eq!(end, layout.advance(start, 1));
        // Relaxed: as in `publish_sole` (only this writer moves the cursor while it holds
        // the cache).
        self.claim.store(end, Ordering::Relaxed);
    }

    #[inline(always)]
    fn data_run(&self, layout: &Layout, front: usize, want: usize) -> (usize, usize, bool) {
        let cap = layout.capacity();
        // At least `capacity` words (checked at construction): after this one check the
        // loop's `i < cap` bounds every index.
        let words = &self.records.as_ref()[..cap];
        // Every head in `front`'s lap expects the same tag: `expected` depends only on the
        // lap bits.
        let expect = self.expected(front) | VALID;
        let mut i = layout.index(front);
        let mut got = 0;
        let mut stopped = false;
        while got < want && i < cap {
            // Acquire: as in `record` (the span's data is visible once the record is accepted).
            let w = words[i].load(Ordering::Acquire);
            if w == expect {
                // A one-slot data record of this lap. A record word has no bits outside its
                // tag, length and flag fields (`write_record`), so equality is exactly
                // `record`'s test with length 1 and no skip. This branch keeps the next index
                // independent of the loaded word: the loads of a run of one-item spans overlap
                // instead of waiting for each other (the general step's `i += len` makes every
                // load wait for the one before).
                got += 1;
                i += 1;
                continue;
            }
            if (w ^ expect) & self.check != 0 {
                stopped = true; // not this lap's record: unpublished (or never claimed yet)
                break;
            }
            if w & SKIP != 0 {
                break; // a hole: the caller's general walk handles it
            }
            let len = ((w >> 2) & self.mask) + 1;
            got += len;
            i += len; // past `cap` only for a span that wraps: then the run ends
        }
        // `got` ≤ capacity: the accepted records are published spans this reader has not
        // consumed, and writers never get more than a capacity ahead of a reader.
        (got, layout.advance(front, got), stopped)
    }

    #[inline(always)]
    fn record(&self, layout: &Layout, at: usize) -> Option<(usize, bool)> {
        // Acquire: pairs with the Release record store; the span's data (and the scrubs before
        // it) are visible once we accept the record.
        let w = self.word(layout, at).load(Ordering::Acquire);
        if (w ^ (self.expected(at) | VALID)) & self.check != 0 {
            return None; // not this lap's record: unpublished (or never claimed yet)
        }
        Some((((w >> 2) & self.mask) + 1, w & SKIP != 0))
    }

    fn walk_hint(&self, layout: &Layout, hint: &Sequence) -> usize {
        // Acquire: the hint's walker acquired every record before it (and released them with
        // its CAS); the lap-safety argument needs those writes ordered before our loads.
        let h = hint.load(Ordering::Acquire);
        let cap = layout.capacity();
        // At least `capacity` words (checked at construction): `i < cap` bounds every index.
        let words = &self.records.as_ref()[..cap];
        let mut p = h;
        let mut walked = 0;
        loop {
            // First a run of one-slot data records in `p`'s lap, found by equality (as in
            // `data_run`: exactly `record`'s test for length 1, no skip), so the index steps by
            // one and the loads overlap. Acquire on every word, as in `record`.
            let expect = self.expected(p) | VALID;
            let first = layout.index(p);
            let mut i = first;
            while i < cap && words[i].load(Ordering::Acquire) == expect {
                i += 1;
            }
            let mut step = i - first; // ≤ capacity − index(p): stays in the lap
            if step == 0 {
                // Anything else: a longer span, a skip, or the end of what is published.
                match self.record(layout, p) {
                    Some((len, _)) => step = len,
                    None => break,
                }
            }
            walked += step;
            if walked > cap {
                // Only a stale walk gets here (a genuine one stops at the claim cursor, at most
                // one capacity past the hint): discard it.
                return hint.load(Ordering::Acquire);
            }
            p = layout.advance(p, step);
        }
        if p == h {
            return h;
        }
        // Release: attachers and scans that acquire the hint see every record we walked (and so
        // the data they announce). Failure (Acquire, as the load): another walker moved it on;
        // ours may be stale, keep theirs.
        match hint.compare_exchange(h, p, Ordering::Release, Ordering::Acquire) {
            Ok(_) => p,
            Err(actual) => actual,
        }
    }
}

/// A writer's private claim state (single-producer, or the multi-producer writer that holds
/// the sole-writer cache).
///
/// The limit, and for a single-producer writer its next cursor. The multi-producer cache
/// holder keeps no cursor here: its claim cursor is the shared one only it stores and no reader
/// polls, so loading it back hits its own store and a publish stores nothing here. The
/// single-producer writer's shared cursor is the published cursor, which every caught-up
/// reader polls: loading it back would load a line the reader keeps taking, so it keeps a
/// private copy (module docs, step 3).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct SpLocal {
    /// The cursor the writer may claim up to: a known lower bound of every reader cursor plus
    /// one capacity. Only ever an under-estimate of the real limit.
    pub(crate) limit: usize,
    /// The next cursor to claim: single-producer, the published cursor, kept here so the fast
    /// claim never loads the line readers poll (the slow claim, once per refill of `room`,
    /// starts from the published cursor itself, which also puts right a copy that a one-item
    /// push left behind when it unwound after its publish); the multi-producer cache holder, its claim cursor
    /// (which only it moves), kept here so the fast claim loads nothing the last publish
    /// stored. Unused by a multi-producer writer that claims by CAS (the cache resets it).
    pub(crate) next: usize,
    /// Slots free from the claim cursor up to `limit` (single-producer: from `next`; the
    /// multi-producer cache holder: from the shared claim cursor, reset to 0 when it takes the
    /// cache), kept as a count so the claim is one compare (no lap arithmetic) and a publish
    /// one subtraction. Only ever an under-estimate. A single-producer writer's count also
    /// stops short of the lap's last slot ([`fast_room`](Self::fast_room)), so a claim it
    /// grants never wraps and a one-item publish is `next + 1`.
    ///
    /// The multi-producer cache holder trusts `limit` only while this is not 0: a writer that
    /// takes the cache anew sets it to 0, and so does a one-item push on a copy of this state
    /// on the handle before it starts (`Writer::push_cold_on_copy`; `try_push_cold_on_copy`
    /// on both claim modes), in case it unwinds after taking the cache or after its publish;
    /// `Writer::claim_cached` then starts from the claim cursor and rescans, a
    /// single-producer slow claim from the published cursor.
    /// (A flag would cost the handle a word, and an embedded interrupt closure that owns a
    /// writer has none to spare.)
    pub(crate) room: usize,
}

impl SpLocal {
    /// Slots free from `claim` up to the limit (0 if the limit is behind).
    #[inline(always)]
    pub(crate) fn free(&self, layout: &Layout, claim: usize) -> usize {
        layout.distance(claim, self.limit).max(0) as usize
    }

    /// The single-producer fast-path count at `next` with `free` slots free: `free`, but never
    /// the lap's last slot, so every claim of `n ≤` this count ends at `next + n` with no lap
    /// arithmetic (the index stays below the capacity: no gap to skip). The last slot of each
    /// lap is claimed through the slow path, once per lap.
    ///
    /// ```text
    /// capacity 6, next at index 3, 10 free → 2 (indices 3 and 4; index 5 is the lap's last)
    /// ```
    #[inline(always)]
    pub(crate) fn fast_room(layout: &Layout, next: usize, free: usize) -> usize {
        // `index < capacity` for every cursor (the lap encoding), so no underflow.
        free.min(layout.capacity() - 1 - layout.index(next))
    }

    /// The limit for a reader minimum `min`.
    #[inline]
    pub(crate) fn limit_for(layout: &Layout, min: usize) -> usize {
        layout.advance(min, layout.capacity())
    }
}
