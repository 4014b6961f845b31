//! [`ReadSpan`]: published items shown to one reader, consumed when dropped.

use core::ops::Deref;

use crate::reader::Reader;
use crate::readers::ReaderRegistry;
use crate::ring::RingCore;
use crate::ring_ref::RingPtr;
use crate::span_iter::SpanIter;
use crate::span_iter::SpanIterMut;
use crate::span_release::SpanRelease;
use crate::storage::DoubleMappedStorage;
use crate::two_slices;

/// Published items shown to a [`Reader`]. Dropping the span consumes all of them;
/// [`consume`](Self::consume) consumes only the first `k` (the rest is shown again by the
/// next read). Over double-mapped storage the span dereferences to one `&[T]`; over plain
/// memory a span crossing the end comes as two slices ([`as_slices`](Self::as_slices)).
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// let mut w = ring.writer().unwrap();
/// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
/// let span = r.try_read(3).unwrap();
/// assert_eq!(span.iter().sum::<u8>(), 6);
/// span.consume(1); // only the first
/// assert_eq!(r.try_read(3).unwrap().to_array::<2>(), Some([2, 3]));
/// ```
#[must_use = "a span consumes its items when dropped: read them first (or `consume(0)` to leave them)"]
pub struct ReadSpan<'r, R>
where
    R: Deref,
    R::Target: RingCore,
{
    reader: &'r mut Reader<R>,
    len: usize,
    done: bool,
    release: SpanRelease,
}

impl<'r, R: RingPtr> ReadSpan<'r, R> {
    #[inline]
    pub(crate) fn new(reader: &'r mut Reader<R>, len: usize) -> Self {
        Self {
            reader,
            len,
            done: false,
            release: SpanRelease::All,
        }
    }

    /// What dropping this span without [`consume`](Self::consume) does: consume every item
    /// ([`SpanRelease::All`], the default), none, so the next read shows them again
    /// ([`SpanRelease::Nothing`]: a peek), or, as a bug, none and a panic in debug builds
    /// ([`SpanRelease::Explicit`]).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage, SpanRelease};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// ring.writer().unwrap().try_push(5).unwrap();
    /// let peek = r.try_read(4).unwrap().on_drop(SpanRelease::Nothing);
    /// assert_eq!(peek[0], 5);
    /// drop(peek); // consumed nothing
    /// assert_eq!(r.try_pop(), Ok(5));
    /// ```
    #[inline]
    pub fn on_drop(mut self, release: SpanRelease) -> Self {
        self.release = release;
        self
    }

    /// Number of items shown.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(2).unwrap().copy_from_slice(&[1, 2]);
    /// assert_eq!(r.try_read(4).unwrap().len(), 2); // at most 4: what is published
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` if no items are shown.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// assert!(r.try_read(0).unwrap().is_empty()); // a read of nothing
    /// w.try_push(1).unwrap();
    /// assert!(!r.try_read(1).unwrap().is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cursor (stream position) of the first item.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(10).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// assert_eq!(r.try_read(1).unwrap().start(), 10);
    /// assert_eq!(r.try_read(2).unwrap().start(), 11); // after the consumed one
    /// ```
    #[inline]
    pub fn start(&self) -> usize {
        self.reader.pos.cursor
    }

    /// The items as one slice: double-mapped memory only, where a span is always contiguous
    /// (the same as `&*span`). Over other memory a span may wrap: use
    /// [`as_slices`](Self::as_slices), and the compiler says so.
    ///
    /// ```compile_fail
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// ring.writer().unwrap().try_push(1).unwrap();
    /// let span = r.try_read(1).unwrap();
    /// let _ = span.as_slice(); // error: `SliceStorage<'_, u8>` is not double-mapped
    /// ```
    #[inline]
    pub fn as_slice(&self) -> &[R::Item]
    where
        R::Storage: DoubleMappedStorage,
    {
        self.as_slices().0
    }

    /// The items as two slices, in order; the second is empty unless the span crosses the end
    /// of plain (not double-mapped) memory.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(3).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]); // slots 3, 0, 1
    /// let span = r.try_read(3).unwrap();
    /// assert_eq!(span.as_slices(), (&[1][..], &[2, 3][..]));
    /// ```
    #[inline]
    pub fn as_slices(&self) -> (&[R::Item], &[R::Item]) {
        // Slots [cursor, cursor+len) are published (len ≤ what `poll` found below the published
        // cursor, which we acquired) and not consumed by this reader, so no writer may claim them
        // until our cursor moves past them — only in `consume`/drop, after this borrow ends.
        // SAFETY: readable for this borrow (above); writers never touch published slots, so
        // several readers sharing them is fine.
        unsafe {
            self.reader
                .ring
                .parts(self.reader.pos.cursor, self.len)
                .slices()
        }
    }

    /// The `i`th item.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(3).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(2).unwrap().copy_from_slice(&[5, 6]); // slots 3, 0
    /// let span = r.try_read(2).unwrap();
    /// assert_eq!((span.get(0), span.get(1)), (Some(&5), Some(&6)));
    /// assert_eq!(span.get(2), None);
    /// ```
    #[inline]
    pub fn get(&self, i: usize) -> Option<&R::Item> {
        let (a, b) = self.as_slices();
        two_slices::get(a, b, i)
    }

    /// Iterates over the items in order.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(2).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(4).unwrap().copy_from_slice(&[1, 2, 3, 4]); // crosses the end
    /// let span = r.try_read(4).unwrap();
    /// assert_eq!(span.iter().copied().collect::<Vec<_>>(), [1, 2, 3, 4]);
    /// ```
    #[inline]
    pub fn iter(&self) -> SpanIter<'_, R::Item> {
        let (a, b) = self.as_slices();
        SpanIter::new(a, b)
    }

    /// Copies the items into the front of `dst`; returns how many were copied
    /// (`min(len, dst.len())`).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// let mut out = [0u8; 2];
    /// assert_eq!(r.try_read(3).unwrap().copy_to_slice(&mut out), 2);
    /// assert_eq!(out, [1, 2]); // the span still consumes all 3 when dropped
    /// ```
    #[inline]
    pub fn copy_to_slice(&self, dst: &mut [R::Item]) -> usize
    where
        R::Item: Copy,
    {
        let (a, b) = self.as_slices();
        two_slices::read_into(a, b, dst, <[R::Item]>::copy_from_slice)
    }

    /// Clones the items into the front of `dst`; returns how many were cloned
    /// (`min(len, dst.len())`). The `Clone` form of [`copy_to_slice`](Self::copy_to_slice).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory: [String; 4] = Default::default();
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(2).unwrap().clone_from_slice(&["a".to_string(), "b".to_string()]);
    /// let mut out = [String::new(), String::new(), String::new()];
    /// assert_eq!(r.try_read(4).unwrap().clone_to_slice(&mut out), 2);
    /// assert_eq!(out, ["a", "b", ""]);
    /// ```
    #[inline]
    pub fn clone_to_slice(&self, dst: &mut [R::Item]) -> usize
    where
        R::Item: Clone,
    {
        let (a, b) = self.as_slices();
        two_slices::read_into(a, b, dst, <[R::Item]>::clone_from_slice)
    }

    /// The items as an array (clones), if there are exactly `K` of them.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory: [Option<&str>; 4] = [None; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(2).unwrap().copy_from_slice(&[Some("x"), None]);
    /// let span = r.try_read(4).unwrap();
    /// assert_eq!(span.to_array::<3>(), None); // wrong length
    /// assert_eq!(span.to_array::<2>(), Some([Some("x"), None]));
    /// ```
    pub fn to_array<const K: usize>(&self) -> Option<[R::Item; K]>
    where
        R::Item: Clone,
    {
        if self.len != K {
            return None;
        }
        let mut items = self.iter();
        // `len == K`: the iterator yields exactly `K` items.
        Some(core::array::from_fn(|_| {
            items.next().expect("span length checked").clone()
        }))
    }

    /// A clone of the first item; the span (of one item) is then consumed by its drop.
    #[inline(always)]
    pub(crate) fn take_first(self) -> R::Item
    where
        R::Item: Clone,
    {
        // A non-empty span's first part holds its first item.
        self.as_slices().0[0].clone()
    }

    /// Consumes the first `count` items (clamped to the span length); the rest will be shown
    /// again by the next read.
    ///
    /// ```
    /// use spanring_core::{ReadError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// r.try_read(3).unwrap().consume(2);
    /// assert_eq!(r.try_read(3).unwrap().to_array::<1>(), Some([3])); // shown again
    /// assert_eq!(r.try_read(3).unwrap_err(), ReadError::Empty);
    /// ```
    #[inline]
    pub fn consume(mut self, count: usize) {
        self.finish(count.min(self.len));
    }

    #[inline]
    fn finish(&mut self, count: usize) {
        if self.done {
            return;
        }
        self.done = true;
        if count > 0 {
            let reader = &mut *self.reader;
            reader
                .ring
                .consume_span(&mut reader.pos, count, crate::internal::INTERNAL);
        }
    }
}

/// Exclusive access for the *only* reader of a ring (`READERS = 1`): no other reader can be
/// attached while this span's reader is, so nobody else can hold a reference to its items.
impl<R: RingPtr<Readers = ReaderRegistry<1>>> ReadSpan<'_, R>
where
    R::Item: Send,
{
    /// The items as two mutable slices, in order (the second is empty unless the span crosses
    /// the end of plain memory). Only on a ring with `READERS = 1`, whose one reader may
    /// treat published items as its own until it consumes them: take a value out, run a
    /// one-shot callback stored in a slot, clear it in place.
    ///
    /// Changes stay in the slots: items this span does not consume are shown again, as
    /// changed, by the next read; consumed ones are overwritten by the writer that reuses the
    /// slot (which drops what is left in it, for types with drop glue).
    ///
    /// `R::Item: Send` because the writer's thread built the item and the reader's thread now
    /// mutates it (and may move parts of it out).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [None::<u32>; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).readers::<1>().build().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// w.try_reserve(2).unwrap().copy_from_slice(&[Some(1), Some(2)]);
    /// let mut span = r.try_read(2).unwrap();
    /// let (first, _) = span.as_mut_slices();
    /// let taken: Vec<u32> = first.iter_mut().filter_map(Option::take).collect();
    /// assert_eq!(taken, [1, 2]);
    /// span.consume(1); // the second item stays, now `None`
    /// assert_eq!(r.try_read(1).unwrap()[0], None);
    /// ```
    ///
    /// A ring with more than one reader slot (here the default, 4) does not offer it — its
    /// other readers may be looking at the same items:
    ///
    /// ```compile_fail,E0599
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u32; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// w.try_reserve(1).unwrap()[0] = 7;
    /// let mut span = r.try_read(1).unwrap();
    /// span.as_mut_slices().0[0] = 8;
    /// ```
    #[inline]
    pub fn as_mut_slices(&mut self) -> (&mut [R::Item], &mut [R::Item]) {
        // Slots [cursor, cursor+len) are published and not consumed by this reader, so no
        // writer may claim them until our cursor moves past them (as in `as_slices`). The ring
        // has one reader slot and this span's reader holds it (the span borrows the reader, so
        // it stays attached), so no other reader — hence no other reference — can reach them;
        // a reader attaching later starts at the published cursor, past them anyway.
        // SAFETY: exclusive (above) for as long as `&mut self` borrows the span, which also
        // keeps `as_slices` from handing out shared references meanwhile.
        unsafe {
            self.reader
                .ring
                .parts(self.reader.pos.cursor, self.len)
                .slices_mut()
        }
    }

    /// Iterates mutably over the items in order; see [`as_mut_slices`](Self::as_mut_slices).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u32; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).readers::<1>().build().unwrap();
    /// let (mut w, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    /// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
    /// let mut span = r.try_read(3).unwrap();
    /// span.iter_mut().for_each(|x| *x *= 10);
    /// assert_eq!(span.to_array::<3>(), Some([10, 20, 30]));
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> SpanIterMut<'_, R::Item> {
        let (a, b) = self.as_mut_slices();
        SpanIterMut::new(a, b)
    }
}

impl<R: RingPtr> Deref for ReadSpan<'_, R>
where
    R::Storage: DoubleMappedStorage,
{
    type Target = [R::Item];
    #[inline]
    fn deref(&self) -> &[R::Item] {
        self.as_slices().0
    }
}

impl<R: RingPtr> core::ops::Index<usize> for ReadSpan<'_, R> {
    type Output = R::Item;
    #[inline]
    fn index(&self, i: usize) -> &R::Item {
        let len = self.len;
        self.get(i)
            .unwrap_or_else(|| panic!("index {i} out of a span of {len}"))
    }
}

/// Iterates over the items in order (both halves of a span that crosses the end), as
/// [`ReadSpan::iter`].
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(3).build().unwrap();
/// let mut r = ring.reader().unwrap();
/// let mut w = ring.writer().unwrap();
/// w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]); // crosses the end
/// let mut sum = 0;
/// for item in &r.try_read(4).unwrap() {
///     sum += item;
/// }
/// assert_eq!(sum, 6);
/// ```
impl<'s, R: RingPtr> IntoIterator for &'s ReadSpan<'_, R>
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

impl<R> Drop for ReadSpan<'_, R>
where
    R: Deref,
    R::Target: RingCore,
{
    #[inline]
    fn drop(&mut self) {
        if !self.done {
            self.done = true;
            let count = self.release.count_on_drop(self.len);
            if count > 0 {
                self.reader.ring.consume_span(
                    &mut self.reader.pos,
                    count,
                    crate::internal::INTERNAL,
                );
            }
            self.release.check_explicit("consume");
        }
    }
}

impl<R> core::fmt::Debug for ReadSpan<'_, R>
where
    R: Deref,
    R::Target: RingCore,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReadSpan")
            .field("start", &self.reader.pos.cursor)
            .field("len", &self.len)
            .finish()
    }
}
