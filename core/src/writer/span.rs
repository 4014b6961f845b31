//! [`WriteSpan`]: reserved slots, writable, published when dropped.

use core::ops::{Deref, DerefMut};

use crate::ring::RingCore;
use crate::ring_ref::RingPtr;
use crate::span_iter::SpanIter;
use crate::span_iter::SpanIterMut;
use crate::span_release::SpanRelease;
use crate::storage::DoubleMappedStorage;
use crate::two_slices;
use crate::writer::Writer;

/// Slots reserved by a [`Writer`]: the only way to touch them. Write them through
/// [`as_mut_slices`](Self::as_mut_slices), [`iter_mut`](Self::iter_mut),
/// [`copy_from_slice`](Self::copy_from_slice), indexing, or — over double-mapped storage —
/// as one `&mut [T]` (`DerefMut`).
///
/// **Publishing.** Dropping the span publishes every reserved slot. [`publish`](Self::publish)
/// publishes only the first `k` and releases the rest: a single-producer ring simply reuses
/// them; a multi-producer ring gives them back if this is still the newest claim, and
/// otherwise publishes them as *skipped* slots (a "hole": a per-slot skip bit, no list, no
/// bound) that readers pass without seeing, so the ring never stalls on a partial publish (the
/// GNU Radio 4 hang) and publishing never waits.
///
/// **Panics.** With the `std` feature, a span dropped while its thread is panicking publishes
/// nothing (as `publish(0)`), so half-written slots are never seen. Without `std` there is no
/// way to tell and the span publishes everything; no_std targets normally abort on panic.
///
/// Slots hold whatever value they last had (the ring's memory is always initialised): a slot
/// can carry reusable state (a buffer, a callback) that the writer updates in place.
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u32; 4];
/// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(3).build().unwrap();
/// let mut w = ring.writer().unwrap();
/// let mut r = ring.reader().unwrap();
/// let mut span = w.try_reserve(3).unwrap(); // slots 3, 0, 1: crosses the end
/// let (first, second) = span.as_mut_slices();
/// assert_eq!((first.len(), second.len()), (1, 2));
/// span.copy_from_slice(&[10, 11, 12]);
/// span.publish(2); // 12 is released, not published
/// assert_eq!(r.try_read(8).unwrap().to_array::<2>(), Some([10, 11]));
/// ```
#[must_use = "a span publishes its slots when dropped: fill it first (or `publish(0)` to give them back)"]
pub struct WriteSpan<'w, R>
where
    R: Deref,
    R::Target: RingCore,
{
    writer: &'w mut Writer<R>,
    start: usize,
    len: usize,
    done: bool,
    release: SpanRelease,
}

impl<'w, R: RingPtr> WriteSpan<'w, R> {
    #[inline]
    pub(crate) fn new(writer: &'w mut Writer<R>, start: usize, len: usize) -> Self {
        Self {
            writer,
            start,
            len,
            done: false,
            release: SpanRelease::All,
        }
    }

    /// What dropping this span without [`publish`](Self::publish) does: publish every slot
    /// ([`SpanRelease::All`], the default), none ([`SpanRelease::Nothing`]), or, as a bug,
    /// none and a panic in debug builds ([`SpanRelease::Explicit`]).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage, SpanRelease};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let span = w.try_reserve(3).unwrap().on_drop(SpanRelease::Explicit);
    /// span.publish(0); // an explicit decision: nothing
    /// assert!(r.try_pop().is_err());
    /// ```
    #[inline]
    pub fn on_drop(mut self, release: SpanRelease) -> Self {
        self.release = release;
        self
    }

    /// Number of reserved slots.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// assert_eq!(w.try_reserve(3).unwrap().len(), 3); // exactly what was asked for
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` for a zero-slot reservation.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// assert!(w.try_reserve(0).unwrap().is_empty());
    /// assert!(!w.try_reserve(1).unwrap().is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cursor of the first reserved slot (its position in the stream).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(100).build().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// assert_eq!(w.try_reserve(2).unwrap().start(), 101);
    /// ```
    #[inline]
    pub fn start(&self) -> usize {
        self.start
    }

    /// The reserved slots as two slices, in order; the second is empty unless the span
    /// crosses the end of plain (not double-mapped) memory.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(2).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(3).unwrap(); // slots 2, 3, 0
    /// let (first, second) = span.as_mut_slices();
    /// first.copy_from_slice(&[1, 2]);
    /// second[0] = 3;
    /// drop(span);
    /// assert_eq!(r.try_read(3).unwrap().to_array::<3>(), Some([1, 2, 3]));
    /// ```
    #[inline]
    pub fn as_mut_slices(&mut self) -> (&mut [R::Item], &mut [R::Item]) {
        // The claim protocol gave this span exclusive use of slots [start, start+len): no reader
        // can see them (not yet published), no other writer can claim them (the claim cursor, or
        // the unique single-producer writer).
        // SAFETY: exclusive (above), and `&mut self` keeps any other reference from existing.
        unsafe { self.writer.ring.parts(self.start, self.len).slices_mut() }
    }

    /// The reserved slots as two shared slices.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [5u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(2).unwrap();
    /// span[1] = 6;
    /// assert_eq!(span.as_slices(), (&[5, 6][..], &[][..])); // slots keep their last values
    /// ```
    #[inline]
    pub fn as_slices(&self) -> (&[R::Item], &[R::Item]) {
        // SAFETY: as in `as_mut_slices`; shared access through `&self`.
        unsafe { self.writer.ring.parts(self.start, self.len).slices() }
    }

    /// The reserved slots as one slice: double-mapped memory only, where a span is always
    /// contiguous (the same as `&*span`). Over other memory a span may wrap: use
    /// [`as_slices`](Self::as_slices), and the compiler says so.
    ///
    /// ```compile_fail
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let span = w.try_reserve(2).unwrap();
    /// let _ = span.as_slice(); // error: `SliceStorage<'_, u8>` is not double-mapped
    /// ```
    #[inline]
    pub fn as_slice(&self) -> &[R::Item]
    where
        R::Storage: DoubleMappedStorage,
    {
        self.as_slices().0
    }

    /// The reserved slots as one mutable slice: double-mapped memory only (see
    /// [`as_slice`](Self::as_slice)).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [R::Item]
    where
        R::Storage: DoubleMappedStorage,
    {
        self.as_mut_slices().0
    }

    /// The `i`th reserved slot.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(2).unwrap();
    /// *span.get_mut(1).unwrap() = 9;
    /// assert!(span.get_mut(2).is_none()); // past the span
    /// drop(span);
    /// assert_eq!(r.try_read(2).unwrap().to_array::<2>(), Some([0, 9]));
    /// ```
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut R::Item> {
        let (a, b) = self.as_mut_slices();
        two_slices::get_mut(a, b, i)
    }

    /// Iterates over the reserved slots in order, shared.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [7u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let span = w.try_reserve(2).unwrap();
    /// assert_eq!(span.iter().copied().sum::<u8>(), 14); // slots keep their last values
    /// ```
    #[inline]
    pub fn iter(&self) -> SpanIter<'_, R::Item> {
        let (a, b) = self.as_slices();
        SpanIter::new(a, b)
    }

    /// Iterates over the reserved slots in order.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(3).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(3).unwrap(); // crosses the end
    /// span.iter_mut().zip(1..).for_each(|(slot, i)| *slot = i);
    /// drop(span);
    /// assert_eq!(r.try_read(3).unwrap().to_array::<3>(), Some([1, 2, 3]));
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> SpanIterMut<'_, R::Item> {
        let (a, b) = self.as_mut_slices();
        SpanIterMut::new(a, b)
    }

    /// Copies `src` into the span.
    ///
    /// # Panics
    ///
    /// If `src.len() != self.len()` (as `slice::copy_from_slice`).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(3).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(2).unwrap().copy_from_slice(&[4, 5]); // slots 3, 0
    /// assert_eq!(r.try_read(2).unwrap().to_array::<2>(), Some([4, 5]));
    /// ```
    #[inline]
    pub fn copy_from_slice(&mut self, src: &[R::Item])
    where
        R::Item: Copy,
    {
        let (a, b) = self.as_mut_slices();
        two_slices::write_from(a, b, src, <[R::Item]>::copy_from_slice);
    }

    /// Clones `src` into the span (the `Clone` form of
    /// [`copy_from_slice`](Self::copy_from_slice)).
    ///
    /// # Panics
    ///
    /// If `src.len() != self.len()` (as `slice::clone_from_slice`).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory: [Vec<u8>; 2] = Default::default();
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(2).unwrap().clone_from_slice(&[vec![1], vec![2, 3]]);
    /// assert_eq!(r.try_read(2).unwrap()[1], [2, 3]);
    /// ```
    #[inline]
    pub fn clone_from_slice(&mut self, src: &[R::Item])
    where
        R::Item: Clone,
    {
        let (a, b) = self.as_mut_slices();
        two_slices::write_from(a, b, src, <[R::Item]>::clone_from_slice);
    }

    /// Sets every reserved slot to `value`.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().fill(7);
    /// assert_eq!(r.try_read(4).unwrap().to_array::<3>(), Some([7, 7, 7]));
    /// ```
    #[inline]
    pub fn fill(&mut self, value: R::Item)
    where
        R::Item: Clone,
    {
        let (a, b) = self.as_mut_slices();
        a.fill(value.clone());
        b.fill(value);
    }

    /// Writes items from `items` into the slots in order until either runs out, then publishes
    /// exactly the slots written (as rtrb's `fill_from_iter`); returns that count. Slots left
    /// over are released unpublished, and items left over stay in the iterator (pass
    /// `&mut iter` to keep them). A panic in the iterator or in dropping a slot's old item
    /// follows the span's drop rule (with `std`, nothing is published).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u32; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut source = 10..13;
    /// assert_eq!(w.try_reserve(2).unwrap().fill_from_iter(&mut source), 2);
    /// assert_eq!(w.try_reserve(2).unwrap().fill_from_iter(&mut source), 1); // ran out
    /// assert_eq!(r.try_read_all().unwrap().iter().copied().collect::<Vec<_>>(), [10, 11, 12]);
    /// ```
    #[inline]
    pub fn fill_from_iter<I: IntoIterator<Item = R::Item>>(mut self, items: I) -> usize {
        let mut items = items.into_iter();
        let mut written = 0;
        let (a, b) = self.as_mut_slices();
        for part in [a, b] {
            let len = part.len();
            // `zip` takes from the slots first, so no item is pulled that has no slot.
            let mut here = 0;
            for (slot, item) in part.iter_mut().zip(items.by_ref()) {
                *slot = item;
                here += 1;
            }
            written += here;
            if here < len {
                break;
            }
        }
        self.publish(written);
        written
    }

    /// Stores `item` in the first slot and publishes exactly that one (the one-item calls).
    #[inline(always)]
    pub(crate) fn put_first(mut self, item: R::Item) {
        // A non-empty span's first part holds its first slot.
        self.as_mut_slices().0[0] = item;
        self.publish(1);
    }

    /// Publishes the first `count` slots (clamped to the span length) and releases the rest.
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(3).unwrap();
    /// span.copy_from_slice(&[1, 2, 3]);
    /// span.publish(2); // the third slot is released unpublished
    /// assert_eq!(r.try_read(4).unwrap().to_array::<2>(), Some([1, 2]));
    /// assert_eq!(r.try_read(4).unwrap_err(), ReadError::Empty);
    /// ```
    #[inline]
    pub fn publish(mut self, count: usize) {
        self.end(count.min(self.len));
    }
}

impl<R: RingPtr> Deref for WriteSpan<'_, R>
where
    R::Storage: DoubleMappedStorage,
{
    type Target = [R::Item];
    #[inline]
    fn deref(&self) -> &[R::Item] {
        self.as_slices().0
    }
}

impl<R: RingPtr> DerefMut for WriteSpan<'_, R>
where
    R::Storage: DoubleMappedStorage,
{
    #[inline]
    fn deref_mut(&mut self) -> &mut [R::Item] {
        self.as_mut_slices().0
    }
}

impl<R: RingPtr> core::ops::Index<usize> for WriteSpan<'_, R> {
    type Output = R::Item;
    #[inline]
    fn index(&self, i: usize) -> &R::Item {
        let (a, b) = self.as_slices();
        if i < a.len() {
            &a[i]
        } else {
            &b[i - a.len()]
        }
    }
}

impl<R: RingPtr> core::ops::IndexMut<usize> for WriteSpan<'_, R> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut R::Item {
        let len = self.len;
        self.get_mut(i)
            .unwrap_or_else(|| panic!("index {i} out of a span of {len}"))
    }
}

/// Iterates over the reserved slots in order, shared, as [`WriteSpan::iter`].
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [1u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut w = ring.writer().unwrap();
/// let span = w.try_reserve(3).unwrap();
/// assert_eq!((&span).into_iter().count(), 3);
/// ```
impl<'s, R: RingPtr> IntoIterator for &'s WriteSpan<'_, R>
where
    R::Item: 's,
{
    type Item = &'s R::Item;
    type IntoIter = SpanIter<'s, R::Item>;
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterates over the reserved slots in order, mutably (both halves of a span that crosses
/// the end), as [`WriteSpan::iter_mut`].
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u32; 4];
/// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(2).build().unwrap();
/// let mut r = ring.reader().unwrap();
/// let mut w = ring.writer().unwrap();
/// let mut span = w.try_reserve(4).unwrap(); // crosses the end
/// for (i, slot) in (&mut span).into_iter().enumerate() {
///     *slot = i as u32 * 10;
/// }
/// drop(span);
/// assert_eq!(r.try_read(4).unwrap().to_array::<4>(), Some([0, 10, 20, 30]));
/// ```
impl<'s, R: RingPtr> IntoIterator for &'s mut WriteSpan<'_, R>
where
    R::Item: 's,
{
    type Item = &'s mut R::Item;
    type IntoIter = SpanIterMut<'s, R::Item>;
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<R> Drop for WriteSpan<'_, R>
where
    R: Deref,
    R::Target: RingCore,
{
    #[inline(always)]
    fn drop(&mut self) {
        // During unwinding publish nothing: the slots may be half written.
        let count = if crate::panicking() {
            0
        } else {
            self.release.count_on_drop(self.len)
        };
        let explicit_missing = !self.done;
        self.end(count);
        if explicit_missing {
            self.release.check_explicit("publish");
        }
    }
}

impl<R> WriteSpan<'_, R>
where
    R: Deref,
    R::Target: RingCore,
{
    /// Publishes the first `count` slots (`count ≤ len`) once, whichever of `publish` and the
    /// drop comes first, and moves the writer's private claim state past them.
    #[inline(always)]
    fn end(&mut self, count: usize) {
        if !self.done {
            self.done = true;
            let writer = &mut *self.writer;
            writer.ring.finish_span(
                self.start,
                self.len,
                count,
                &mut writer.local,
                crate::internal::INTERNAL,
            );
        }
    }
}

impl<R> core::fmt::Debug for WriteSpan<'_, R>
where
    R: Deref,
    R::Target: RingCore,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WriteSpan")
            .field("start", &self.start)
            .field("len", &self.len)
            .finish()
    }
}
