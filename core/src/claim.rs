//! How writers claim slots: [`SingleProducer`] (a plain cursor, no CAS) and
//! [`MultiProducer`] (a CAS on a shared claim cursor, out-of-order publication tracked in an
//! [`AtomicBitset`]). Selected by type, so the single-producer ring pays nothing for the
//! multi-producer machinery.
//!
//! ## Multi-producer publication
//!
//! Each writer marks its published range in the bitset with one bulk operation, then *sweeps*:
//! it advances the public cursor over the contiguous run of marked slots that starts at it,
//! with a CAS, and repeats until the run is empty. Whoever completes the prefix advances it.
//!
//! - **Laps.** Even laps mark a slot published by *setting* its bit, odd laps by *clearing* it.
//!   A bit therefore always says "published for lap L" or "published for lap L−1", never
//!   something older, bits are never cleared after the fact, and a late writer can never erase
//!   a newer lap's mark (the bitset-lap hazard in HAZARDS.md).
//! - **Store buffering.** Writer A marks then loads the cursor, writer B marks then scans A's
//!   bits. With acquire/release alone both can miss the other's mark and both stop, leaving
//!   published slots invisible. A `SeqCst` fence between the mark and the sweep orders the two
//!   fences: the later one's loads see the earlier one's mark, so someone sweeps over both.
//! - **Bound.** The sweep never counts past the claim cursor: unclaimed (or given-back) slots
//!   hold the previous lap's mark and so read as unpublished anyway, and the bound makes that
//!   independent of how the slot was last used.
//! - **Skipped slots.** A partial publish that cannot give its tail back (a later claim exists)
//!   publishes the tail as *skipped*: a second bit per slot, set before the slot is marked
//!   published. The next claimant of a slot resets a leftover set bit before it publishes (only
//!   a load when there is none, the common case); that cannot erase a newer mark, because the
//!   slot's next lap is claimed only after every reader passed it. Readers consult the bit
//!   only for slots below the published cursor, whose bits are therefore always current. No list, no bound, nothing to wait for: a
//!   partial publish can never hang the ring (the GNU Radio 4 hang) nor wait for room.

use crate::bitset::AtomicBitset;
use crate::sync::{fence, AtomicBool, AtomicUsize, Ordering};
use crate::{Layout, Sequence};

/// Words of bitset storage a multi-producer ring of `capacity` slots needs: two bits a slot
/// (published, skipped), i.e. [`words_for`](crate::words_for)`(2 × capacity)`.
///
/// ```
/// assert_eq!(spanring_core::multi_words(32), 64 / usize::BITS as usize);
/// ```
pub const fn multi_words(capacity: usize) -> usize {
    crate::bitset::words_for(capacity.saturating_mul(2))
}

mod sealed {
    pub trait Sealed {}
}

/// The claim protocol of a ring: [`SingleProducer`] or [`MultiProducer`]. Sealed.
pub trait Producer: sealed::Sealed {
    /// `true` for [`MultiProducer`].
    const MULTI: bool;
    #[doc(hidden)]
    type Multi: MultiClaim;
    #[doc(hidden)]
    fn multi(&self) -> Option<&Self::Multi>;
    #[doc(hidden)]
    fn take_writer(&self) -> bool;
}

/// The multi-producer half of the protocol (internal; public only because it appears in the
/// sealed [`Producer`] trait).
#[doc(hidden)]
pub trait MultiClaim {
    fn claim(&self) -> &Sequence;
    /// Marks `[start, start + n)` as skipped (or as data) for their laps.
    fn mark_skip(&self, layout: &Layout, start: usize, n: usize, skipped: bool);
    /// Length of the run of slots from `from` (at most `limit`, all published) that are data
    /// (`skipped == false`) or skipped (`true`).
    fn skip_run(&self, layout: &Layout, from: usize, limit: usize, skipped: bool) -> usize;
    /// Sets every bit so that the slots read as "not yet published" for the lap of the cursor
    /// that will next use them, starting at `start`.
    fn init_bits(&self, layout: &Layout, start: usize);
    /// Marks `[start, start + n)` published (n ≤ capacity).
    fn mark(&self, layout: &Layout, start: usize, n: usize);
    /// Length of the run of published slots from `from`, at most `limit`.
    fn published_run(&self, layout: &Layout, from: usize, limit: usize) -> usize;
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
pub struct SingleProducer {
    taken: AtomicBool,
}

impl SingleProducer {
    crate::__maybe_const_fn! {
        /// A claim whose writer has not been taken yet.
        pub fn new() -> Self {
            Self { taken: AtomicBool::new(false) }
        }
    }
}

impl sealed::Sealed for SingleProducer {}

impl Producer for SingleProducer {
    const MULTI: bool = false;
    type Multi = NoMulti;
    #[inline]
    fn multi(&self) -> Option<&NoMulti> {
        None
    }
    fn take_writer(&self) -> bool {
        // Relaxed: only the exclusive flag matters; handing out the writer publishes nothing.
        !self.taken.swap(true, Ordering::Relaxed)
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
    fn mark_skip(&self, _: &Layout, _: usize, _: usize, _: bool) {
        match *self {}
    }
    fn skip_run(&self, _: &Layout, _: usize, _: usize, _: bool) -> usize {
        match *self {}
    }
    fn init_bits(&self, _: &Layout, _: usize) {
        match *self {}
    }
    fn mark(&self, _: &Layout, _: usize, _: usize) {
        match *self {}
    }
    fn published_run(&self, _: &Layout, _: usize, _: usize) -> usize {
        match *self {}
    }
}

/// Any number of writers (the handle is `Clone`), claiming ranges with a CAS and publishing out
/// of order through a bitset with two bits per slot (published, skipped), stored in `B`: an
/// inline `[AtomicUsize; W]` (W = [`multi_words`](crate::multi_words)`(capacity)`), a boxed
/// slice, or borrowed `&[AtomicUsize]`.
///
/// ```
/// use spanring_core::sync::AtomicUsize;
/// use spanring_core::{MultiProducer, Ring, SliceStorage};
/// let mut memory = [0u32; 100];
/// let bits: [AtomicUsize; spanring_core::multi_words(100)] = Default::default(); // 2 bits a slot
/// let ring = Ring::new_multi(SliceStorage::new(&mut memory), &bits[..]).unwrap();
/// let (a, b) = (ring.writer().unwrap(), ring.writer().unwrap());
/// # drop((a, b));
/// ```
#[derive(Debug)]
pub struct MultiProducer<B: AsRef<[AtomicUsize]>> {
    claim: Sequence,
    /// Bits `0..capacity`: published marks; bits `capacity..2 × capacity`: skip marks.
    bits: AtomicBitset<B>,
    capacity: usize,
}

impl<B: AsRef<[AtomicUsize]>> MultiProducer<B> {
    pub(crate) fn new(bits: AtomicBitset<B>, capacity: usize, start: usize) -> Self {
        Self {
            claim: Sequence::new(start),
            bits,
            capacity,
        }
    }

    /// Skip bit of a slot index: 1 = skipped, 0 = data. Marking data costs only a load in the
    /// common case: the bit is reset only if a previous lap's hole left it set. That reset is
    /// safe (no late clear can erase a newer mark): the claimant owns the slot until it
    /// publishes, and the next lap's claim of the slot happens after every reader passed it.
    #[inline]
    fn skip_part(&self, index: usize, n: usize, skipped: bool) {
        let at = self.capacity + index;
        if skipped {
            self.bits.set_range(at, n);
        } else if self.bits.count_zeros_from(at, n) < n {
            self.bits.reset_range(at, n);
        }
    }

    #[inline]
    fn skip_count(&self, index: usize, max: usize, skipped: bool) -> usize {
        let at = self.capacity + index;
        if skipped {
            self.bits.count_ones_from(at, max)
        } else {
            self.bits.count_zeros_from(at, max)
        }
    }

    #[inline]
    fn run(&self, index: usize, max: usize, odd_lap: bool) -> usize {
        // Even laps publish by setting, odd laps by clearing (module docs).
        if odd_lap {
            self.bits.count_zeros_from(index, max)
        } else {
            self.bits.count_ones_from(index, max)
        }
    }

    #[inline]
    fn mark_part(&self, index: usize, n: usize, odd_lap: bool) {
        if odd_lap {
            self.bits.reset_range(index, n);
        } else {
            self.bits.set_range(index, n);
        }
    }
}

impl<B: AsRef<[AtomicUsize]>> sealed::Sealed for MultiProducer<B> {}

impl<B: AsRef<[AtomicUsize]>> Producer for MultiProducer<B> {
    const MULTI: bool = true;
    type Multi = Self;
    #[inline]
    fn multi(&self) -> Option<&Self> {
        Some(self)
    }
    fn take_writer(&self) -> bool {
        true
    }
}

impl<B: AsRef<[AtomicUsize]>> MultiClaim for MultiProducer<B> {
    #[inline]
    fn claim(&self) -> &Sequence {
        &self.claim
    }

    #[inline]
    fn mark_skip(&self, layout: &Layout, start: usize, n: usize, skipped: bool) {
        let i = layout.index(start);
        let first = n.min(layout.capacity() - i);
        self.skip_part(i, first, skipped);
        if n > first {
            self.skip_part(0, n - first, skipped);
        }
    }

    #[inline]
    fn skip_run(&self, layout: &Layout, from: usize, limit: usize, skipped: bool) -> usize {
        let i = layout.index(from);
        let first_max = limit.min(layout.capacity() - i);
        let run = self.skip_count(i, first_max, skipped);
        if run < first_max || run == limit {
            return run;
        }
        run + self.skip_count(0, limit - run, skipped)
    }

    fn init_bits(&self, layout: &Layout, start: usize) {
        // Slots from `start`'s index to the end are next used in `start`'s lap, the ones
        // before it in the following lap. "Not published for lap L" is the mark of lap L−1.
        let cap = layout.capacity();
        let i = layout.index(start);
        let odd = layout.odd_lap(start);
        // Unpublished for an even lap = clear, for an odd lap = set.
        let fill = |from: usize, n: usize, odd_lap: bool| {
            if odd_lap {
                self.bits.set_range(from, n);
            } else {
                self.bits.reset_range(from, n);
            }
        };
        fill(i, cap - i, odd);
        fill(0, i, !odd);
    }

    #[inline]
    fn mark(&self, layout: &Layout, start: usize, n: usize) {
        let i = layout.index(start);
        let odd = layout.odd_lap(start);
        let first = n.min(layout.capacity() - i);
        self.mark_part(i, first, odd);
        if n > first {
            self.mark_part(0, n - first, !odd);
        }
    }

    #[inline]
    fn published_run(&self, layout: &Layout, from: usize, limit: usize) -> usize {
        let i = layout.index(from);
        let odd = layout.odd_lap(from);
        let first_max = limit.min(layout.capacity() - i);
        let run = self.run(i, first_max, odd);
        if run < first_max || run == limit {
            return run;
        }
        run + self.run(0, limit - run, !odd)
    }
}

/// Multi-producer publication of `[start, start + count)` out of `reserved` claimed slots:
/// gives back or marks as skipped (a hole) what is not published, marks, then sweeps. Returns nothing:
/// whoever completes the contiguous prefix advances `published`.
pub(crate) fn publish_multi<M: MultiClaim>(
    m: &M,
    layout: &Layout,
    published: &Sequence,
    start: usize,
    reserved: usize,
    count: usize,
) {
    let mut to_mark = count;
    if count < reserved {
        let end = layout.advance(start, reserved);
        let kept_end = layout.advance(start, count);
        // Release: the next claimant of the given-back slots overwrites what we wrote there;
        // its claim CAS acquires this value (or a later RMW in its release sequence), so our
        // writes happen before its writes (ThreadSanitizer found the race when this was
        // Relaxed). Failure: nothing was given back, nothing to order.
        let gave_back = m
            .claim()
            .compare_exchange(end, kept_end, Ordering::Release, Ordering::Relaxed)
            .is_ok();
        if !gave_back {
            // A later claim exists: the tail is published as skipped slots. The skip marks are
            // Release RMWs sequenced before the publish marks below, so a reader that acquires
            // a published cursor covering them sees them.
            m.mark_skip(layout, kept_end, reserved - count, true);
            to_mark = reserved;
        }
    }
    if to_mark == 0 {
        return;
    }
    if count > 0 {
        // A leftover skip bit from this slot's previous lap is cleared (a load when none).
        m.mark_skip(layout, start, count, false);
    }
    m.mark(layout, start, to_mark);
    // SeqCst fence: the store-buffering hazard (module docs). Our mark is ordered before the
    // loads of the sweep, against every other publisher's fence.
    fence(Ordering::SeqCst);
    sweep(m, layout, published, start);
}

/// Advances `published` over the run of marked slots, as far as it goes, starting from the
/// guess `hint` (the publisher's own start: in the common case it is the published cursor, so
/// the first CAS succeeds without loading the contended cursor line first).
pub(crate) fn sweep<M: MultiClaim>(m: &M, layout: &Layout, published: &Sequence, hint: usize) {
    let mut p = hint;
    // Whether `p` is a value the cursor really had (read or written by us), not just the guess.
    let mut fresh = false;
    loop {
        // Acquire: bounds the count; ordered after our fence. Claim ≥ published always, and our
        // own claim ends after `hint`, so the bound is non-negative for both kinds of `p`.
        let c = m.claim().load(Ordering::Acquire);
        let limit = layout.distance(p, c);
        let run = if limit > 0 {
            m.published_run(layout, p, limit as usize)
        } else {
            0
        };
        if run == 0 {
            if fresh {
                return; // nothing marked at the real cursor: its owner will sweep
            }
            // Acquire: only the guess was empty (a later lap already reused our slots, or
            // someone swept past them); look at the real cursor once.
            p = published.load(Ordering::Acquire);
            fresh = true;
            continue;
        }
        // AcqRel: Release publishes every slot in the run to readers, which acquire
        // `published`; the slot writers' data reached us through the Acquire bit loads.
        // On failure someone else moved the cursor: continue from the value it has.
        let next = layout.advance(p, run);
        p = match published.compare_exchange(p, next, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => next,
            Err(actual) => actual,
        };
        fresh = true;
    }
}

/// Single-owner reference count of writer handles (multi-producer rings count clones so the
/// ring closes when the last one is dropped).
pub(crate) fn last_writer_gone(writers: &AtomicUsize) -> bool {
    // AcqRel: the last decrement must see every other writer's publications before closing.
    writers.fetch_sub(1, Ordering::AcqRel) == 1
}
