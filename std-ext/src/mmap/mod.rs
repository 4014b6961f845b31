//! [`DoubleMapped`]: ring memory mapped twice back to back, so every span — even one that wraps
//! past the end — is one contiguous slice.

mod backing;
pub(crate) mod capacity;
mod error;
pub(crate) mod mapping;
pub(crate) mod memory_object;
mod zeroable;

use core::marker::PhantomData;
use core::ptr::NonNull;

use spanring_core::storage::DoubleMappedStorage;
use spanring_core::Storage;

pub use error::{BackingLimit, MapError, MapStep};
pub use zeroable::Zeroable;

use mapping::Region;

/// `capacity()` items of `T`, mapped twice in a row: element `i + capacity()` is the same memory
/// as element `i`, so a ring over it hands out every span as one slice, wrap or not.
///
/// # Capacity rule
///
/// Each half must be a whole number of pages (that is what `mmap` maps) *and* a whole number of
/// items (so item `capacity()` starts exactly at the second half). The requested count is
/// therefore rounded **up** to the smallest count whose byte size is a multiple of
/// `lcm(page_size, size_of::<T>())`. With 4 KiB pages:
///
/// | `T`                 | requested | `capacity()` | bytes per half |
/// |---------------------|-----------|--------------|----------------|
/// | `u8`                | 1         | 4096         | 4096           |
/// | `u32`               | 1000      | 1024         | 4096           |
/// | `u32`               | 1025      | 2048         | 8192           |
/// | `[u8; 3]`           | 1         | 4096         | 12288 (lcm)    |
/// | 24-byte struct      | 100       | 512          | 12288 (lcm)    |
/// | 4096-byte struct    | 3         | 3            | 12288          |
///
/// The page size is asked from the OS (`sysconf(_SC_PAGESIZE)`), never assumed: on a 16 KiB-page
/// system every figure above is 4× larger.
///
/// # Memory and `T`
///
/// The memory starts zeroed, so `T` must be [`Zeroable`]; `T: Copy` because the slots are never
/// dropped (unmapping simply discards them), which is right only for types without `Drop`.
///
/// # When to use it
///
/// Over [`HeapStorage`](crate::HeapStorage) when readers and writers want contiguous slices of
/// arbitrary length (DSP blocks, parsers, `write_all`), and the buffer is at least a few pages.
/// It costs two mappings (one VMA pair), a memory object, and rounding to whole pages; it needs a
/// POSIX system with `mmap`.
///
/// # Errors
///
/// Every failure is a [`MapError`]; nothing leaks on any of them.
///
/// ```
/// use spanring_std::DoubleMapped;
/// use spanring_core::Storage;
///
/// let buf = DoubleMapped::<u32>::new(1000)?;
/// let cap = buf.capacity();
/// assert!(cap >= 1000);
/// let p = buf.as_mut_ptr();
/// // SAFETY (example): p is valid for 2 * cap items and nobody else uses `buf`.
/// unsafe {
///     p.add(cap + 5).write(7); // write through the second mapping...
///     assert_eq!(p.add(5).read(), 7); // ...and read it through the first.
/// }
/// # Ok::<(), spanring_std::MapError>(())
/// ```
pub struct DoubleMapped<T> {
    /// Both halves; unmapped on drop.
    region: Region,
    /// Items per half.
    capacity: usize,
    _items: PhantomData<T>,
}

impl<T: Copy + Zeroable> DoubleMapped<T> {
    /// Maps at least `min_capacity` zeroed items twice (see the capacity rule on the type).
    ///
    /// Lazy, as `Vec::with_capacity` is: nothing is committed or touched but the two bytes the
    /// aliasing check writes; each page is found by the kernel at its first touch. A request the
    /// machine cannot back (more than physical memory, the control group's memory limit, the
    /// free space of a size-limited shared-memory file system, or, for both halves, the
    /// address-space limit) is refused up front as [`MapError::CannotBack`], never an OOM kill
    /// or a `SIGBUS` at first touch. For every page resident from the start (no page fault on
    /// the first lap), use [`new_prefaulted`](Self::new_prefaulted).
    ///
    /// # Errors
    ///
    /// [`MapError::ZeroSizedItem`], [`MapError::ZeroCapacity`], [`MapError::TooLarge`] for sizes
    /// that overflow, [`MapError::AlignmentTooLarge`], [`MapError::CannotBack`], and
    /// [`MapError::Os`] /
    /// [`MapError::WrongAddress`] / [`MapError::AliasingCheckFailed`] when the OS refuses or
    /// misbehaves.
    ///
    /// ```
    /// use spanring_std::{DoubleMapped, MapError};
    /// let buf = DoubleMapped::<u64>::new(100)?;
    /// assert!(buf.capacity() >= 100); // rounded up to whole pages
    /// assert_eq!(buf.capacity(), DoubleMapped::<u64>::rounded_capacity(100)?);
    /// assert_eq!(DoubleMapped::<u64>::new(0).unwrap_err(), MapError::ZeroCapacity);
    /// assert_eq!(DoubleMapped::<()>::new(8).unwrap_err(), MapError::ZeroSizedItem);
    /// # Ok::<(), MapError>(())
    /// ```
    pub fn new(min_capacity: usize) -> Result<Self, MapError> {
        Self::map(min_capacity, false)
    }

    /// As [`new`](Self::new), and every page committed and mapped in both halves before this
    /// returns, so the first lap of a ring over it takes no page fault (a fault costs about a
    /// microsecond, a few hundred items' time on a fast ring). The cost: the whole ring is
    /// resident from the start (twice its size in page tables' reach, once in memory), and
    /// construction touches every page (about 0.3 s per GiB). A request that does not fit in
    /// the memory available now is refused ([`MapError::CannotBack`]) instead of risking an
    /// OOM kill; on Linux the pages are allocated with `fallocate`, so a full file system is
    /// an error here, not a `SIGBUS` later.
    ///
    /// # Errors
    ///
    /// Those of [`new`](Self::new), [`MapError::CannotBack`] with
    /// [`BackingLimit::AvailableMemory`], and [`MapError::Os`] at [`MapStep::Prefault`].
    ///
    /// ```
    /// use spanring_std::DoubleMapped;
    /// let buf = DoubleMapped::<u64>::new_prefaulted(1 << 16)?; // 512 KiB, resident now
    /// assert!(buf.capacity() >= 1 << 16);
    /// # Ok::<(), spanring_std::MapError>(())
    /// ```
    pub fn new_prefaulted(min_capacity: usize) -> Result<Self, MapError> {
        Self::map(min_capacity, true)
    }

    fn map(min_capacity: usize, prefault: bool) -> Result<Self, MapError> {
        let page_size = mapping::page_size()?;
        if core::mem::align_of::<T>() > page_size {
            return Err(MapError::AlignmentTooLarge {
                align: core::mem::align_of::<T>(),
                page_size,
            });
        }
        let rounded = capacity::round_capacity(min_capacity, core::mem::size_of::<T>(), page_size)?;
        backing::check_request(rounded.bytes, prefault)?;
        let memory = memory_object::create(rounded.bytes)?;
        let region = mapping::map_twice(&memory, rounded.bytes)?;
        if prefault {
            backing::prefault(&memory, region.base(), rounded.bytes, page_size)?;
        }
        // `memory` is closed here: the two mappings keep the object alive until `region` drops.
        Ok(Self {
            region,
            capacity: rounded.items,
            _items: PhantomData,
        })
    }

    /// The capacity that [`new`](Self::new) would round `min_capacity` to on this system,
    /// without mapping anything.
    ///
    /// ```
    /// use spanring_std::DoubleMapped;
    /// let page = DoubleMapped::<u8>::rounded_capacity(1).unwrap();
    /// assert!(page.is_power_of_two()); // one page of bytes
    /// assert_eq!(DoubleMapped::<[u8; 3]>::rounded_capacity(1).unwrap(), page); // 3 pages
    /// ```
    ///
    /// # Errors
    ///
    /// The size errors of [`new`](Self::new).
    pub fn rounded_capacity(min_capacity: usize) -> Result<usize, MapError> {
        let page_size = mapping::page_size()?;
        capacity::round_capacity(min_capacity, core::mem::size_of::<T>(), page_size)
            .map(|rounded| rounded.items)
    }
}

impl<T> DoubleMapped<T> {
    /// Items per half: element `i + capacity()` aliases element `i`.
    ///
    /// ```
    /// use spanring_std::DoubleMapped;
    /// use spanring_core::Storage;
    /// let mut buf = DoubleMapped::<u32>::new(1000)?;
    /// let cap = buf.capacity();
    /// assert_eq!(buf.as_mut_slice().len(), cap); // one half
    /// buf.as_mut_slice()[3] = 9;
    /// // SAFETY (example): the pointer is valid for 2 * cap items and nobody else uses `buf`.
    /// assert_eq!(unsafe { buf.as_mut_ptr().add(cap + 3).read() }, 9);
    /// # Ok::<(), spanring_std::MapError>(())
    /// ```
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The first half as a slice (exclusive access through `&mut self`).
    ///
    /// ```
    /// let mut buf = spanring_std::DoubleMapped::<u16>::new(10).unwrap();
    /// assert!(buf.as_mut_slice().iter().all(|&x| x == 0));
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: the first half holds `capacity` initialised (zeroed or since written,
        // `T: Zeroable` at construction) and aligned items; `&mut self` excludes every other
        // access for the slice's lifetime.
        unsafe { core::slice::from_raw_parts_mut(self.base().as_ptr(), self.capacity) }
    }

    fn base(&self) -> NonNull<T> {
        self.region.base().cast()
    }
}

impl<T> core::fmt::Debug for DoubleMapped<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DoubleMapped")
            .field("base", &self.base())
            .field("capacity", &self.capacity)
            .finish()
    }
}

// `base` is fixed for the value's life (the region never moves, even if the struct does),
// page-aligned (≥ align_of::<T>(), checked in `new`), valid for 2 * capacity initialised items
// (zeroed memory, `T: Zeroable`); element `i + capacity` is the same memory as element `i` (two
// MAP_SHARED mappings of one object, verified in `map_twice`); `capacity` is fixed and non-zero.
// SAFETY: the contract holds (above); the memory is private to this value (the object is
// anonymous/unlinked, its descriptor closed) and reachable from any thread.
unsafe impl<T> Storage for DoubleMapped<T> {
    type Item = T;
    const DOUBLE_MAPPED: bool = true;
    fn as_mut_ptr(&self) -> *mut T {
        self.base().as_ptr()
    }
    fn capacity(&self) -> usize {
        self.capacity
    }
}

// SAFETY: the `Storage` impl above guarantees the double mapping (`DOUBLE_MAPPED == true`).
unsafe impl<T> DoubleMappedStorage for DoubleMapped<T> {}

// SAFETY: owning the region is owning `capacity` `T`s; sending them needs `T: Send`.
unsafe impl<T: Send> Send for DoubleMapped<T> {}
// `&DoubleMapped` exposes only the pointer; a ring over it moves items between threads and lets
// broadcast readers on several threads hold `&T` to the same item at once; `&mut T` access is
// arbitrated by the ring's cursors.
// SAFETY: hence `T: Send` (items move) + `T: Sync` (shared `&T`), as core's `SliceStorage`.
unsafe impl<T: Send + Sync> Sync for DoubleMapped<T> {}
