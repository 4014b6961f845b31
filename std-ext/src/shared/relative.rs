//! [`RelativeStorage`]: ring memory found at a fixed distance from the storage value itself.
//!
//! A ring that lives in a shared mapping cannot hold a pointer to its data: every process maps
//! the segment at another address. But each process maps the control pages and the
//! double-mapped data in one reservation ([`SegmentMapping`](super::SegmentMapping)), so the
//! distance from any byte of the state block to the data is the same everywhere. This storage
//! keeps that distance and adds it to its own address.

use core::marker::PhantomData;

use spanring_core::storage::DoubleMappedStorage;
use spanring_core::Storage;

/// Ring memory at `offset` bytes from this value's own address: `capacity` items, mapped twice
/// back to back. Made by [`SharedRing`](super::SharedRing) inside the segment's state block;
/// there is nothing to construct by hand.
///
/// ```
/// use spanring_std::shared::SharedRing;
/// use spanring_std::core_api::Storage;
/// let ring = SharedRing::<u64>::create(1024)?;
/// let storage = ring.ring().storage();
/// assert_eq!(storage.capacity(), 1024);
/// # Ok::<(), spanring_std::shared::SharedError>(())
/// ```
#[repr(C)]
pub struct RelativeStorage<T> {
    offset: i64,
    capacity: u64,
    _item: PhantomData<T>,
}

impl<T> core::fmt::Debug for RelativeStorage<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RelativeStorage")
            .field("offset", &self.offset)
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl<T> RelativeStorage<T> {
    /// Storage whose data starts `offset` bytes after (or before) the address the value will
    /// have when it is used.
    ///
    /// # Safety
    ///
    /// The value must only be used (its [`Storage`] methods called) at an address from which
    /// `offset` bytes lead to `capacity` items that are mapped twice back to back, valid and
    /// initialised for as long as it is used.
    pub(crate) unsafe fn new(offset: i64, capacity: u64) -> Self {
        Self {
            offset,
            capacity,
            _item: PhantomData,
        }
    }
}

// SAFETY: `new`'s contract: from wherever the value is used, `offset` leads to `capacity`
// initialised items mapped twice back to back, which is what `Storage` and
// `DoubleMappedStorage` ask for.
unsafe impl<T> Storage for RelativeStorage<T> {
    type Item = T;
    const DOUBLE_MAPPED: bool = true;

    #[inline]
    fn as_mut_ptr(&self) -> *mut T {
        // `wrapping_offset`: pointer arithmetic that is defined for any distance; the result
        // points into the data mapping (`new`'s contract), which is a different allocation
        // from the one this value lives in.
        (self as *const Self)
            .cast::<u8>()
            .wrapping_offset(self.offset as isize)
            .cast::<T>()
            .cast_mut()
    }

    #[inline]
    fn capacity(&self) -> usize {
        // `new`'s caller made it from a capacity this process mapped, so it fits a usize.
        self.capacity as usize
    }
}

// SAFETY: as above: the items are mapped twice back to back.
unsafe impl<T> DoubleMappedStorage for RelativeStorage<T> {}

// SAFETY: the storage is an offset and a count; the items it leads to are shared under the
// ring's protocol, which needs `T: Send` to hand them between threads (or processes).
unsafe impl<T: Send> Send for RelativeStorage<T> {}
// SAFETY: as for `Send`: `&RelativeStorage` only computes an address.
unsafe impl<T: Send> Sync for RelativeStorage<T> {}
