//! [`SegmentMapping`]: one process's view of a segment, with the access its role needs.
//!
//! | part | writer | reader in slot `s` |
//! |---|---|---|
//! | header | read-write | read-only |
//! | state block | read-write | read-write (wake-up flags, registration) |
//! | reader slot `s` | read-write | read-write (its cursor) |
//! | other reader slots | read-write (to reclaim a dead reader's slot) | read-only |
//! | data, double-mapped | read-write | read-only |
//!
//! So a reader's stray write into the data, the header or another reader's cursor faults in
//! the reader (`SIGSEGV`) instead of corrupting what everyone else reads. The control pages
//! (header, state, slots) are mapped first and their parts get their access with `mprotect`;
//! the data region is mapped twice right after them, in the same reservation
//! (`map_lead_and_twice`, the same code as [`DoubleMapped`](crate::DoubleMapped)), so the
//! distance from the state block to the data is the same in every process.

use core::marker::PhantomData;
use core::ptr::NonNull;
use std::os::fd::BorrowedFd;

use super::error::SharedError;
use super::layout::{Extent, SegmentLayout};
use crate::mmap::mapping::{self, Access, Region};

/// The role a mapping is made for.
///
/// ```
/// use spanring_std::shared::Role;
/// assert_ne!(Role::Writer, Role::Reader { slot: 0 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Everything read-write.
    Writer,
    /// Data, header and other slots read-only; the state block and slot `slot` read-write.
    Reader {
        /// The reader slot this process owns.
        slot: u32,
    },
}

/// A segment mapped into this process: the control pages and the double-mapped data.
/// Unmapped on drop; independent of the [`Segment`](super::Segment) it came from.
///
/// The pointers it hands out are valid as long as the mapping lives. What is stored behind
/// them is shared with other processes: access the state and cursors only through atomics, and
/// items only as the ring's protocol allows.
///
/// ```
/// use core::alloc::Layout;
/// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
/// let spec = SegmentSpec::<u64>::new(512, 1, ClaimMode::SingleProducer, Layout::new::<u64>());
/// let segment = Segment::create(&spec)?;
/// let writer = segment.map_writer()?;
/// let reader = segment.map_reader(0)?;
/// let cap = writer.capacity();
/// // SAFETY (example): items 1 and cap + 1 are inside both data mappings; nothing else
/// // accesses them.
/// unsafe {
///     writer.data_mut().unwrap().as_ptr().add(cap + 1).write(42); // through the second half
///     assert_eq!(reader.data().as_ptr().add(1).read(), 42);       // seen in the first
/// }
/// # Ok::<(), spanring_std::shared::SharedError>(())
/// ```
pub struct SegmentMapping<T> {
    /// Header, state block and reader slots (`control_len` bytes), then both halves of the
    /// data region, in one reservation: the distance from the state block to the data is the
    /// same in every process.
    region: Region,
    control_len: usize,
    layout: SegmentLayout,
    role: Role,
    capacity: usize,
    _item: PhantomData<fn() -> T>,
}

impl<T> core::fmt::Debug for SegmentMapping<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SegmentMapping")
            .field("role", &self.role)
            .field("region", &self.region)
            .field("control_len", &self.control_len)
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

// SAFETY: a mapping is address ranges it owns; unmapping or using the pointers from another
// thread is as sound as from this one (access to the memory behind them is the caller's
// unsafe business either way).
unsafe impl<T> Send for SegmentMapping<T> {}
// SAFETY: `&SegmentMapping` only hands out raw pointers.
unsafe impl<T> Sync for SegmentMapping<T> {}

/// `u64` → `usize`, or `TooLarge` for the segment.
fn fit(value: u64, layout: &SegmentLayout) -> Result<usize, SharedError> {
    usize::try_from(value).map_err(|_| SharedError::TooLarge {
        bytes: layout.total,
    })
}

impl<T> SegmentMapping<T> {
    /// Maps `fd`, laid out as `layout` (already validated or computed), for `role`.
    pub(crate) fn new(
        fd: BorrowedFd<'_>,
        layout: SegmentLayout,
        role: Role,
    ) -> Result<Self, SharedError> {
        let own_slot = match role {
            Role::Writer => None,
            Role::Reader { slot } => Some(layout.slot(slot).ok_or(SharedError::NoSuchSlot {
                slot,
                reader_slots: layout.reader_slots,
            })?),
        };
        let capacity = fit(layout.capacity, &layout)?;
        let control_len = fit(layout.data.offset, &layout)?;
        let control_access = match own_slot {
            None => Access::ReadWrite,
            Some(_) => Access::ReadOnly,
        };
        let access = match role {
            Role::Writer => Access::ReadWrite,
            Role::Reader { .. } => Access::ReadOnly,
        };
        // No probe: other processes may be using the data; the creator probed it once.
        let region = mapping::map_lead_and_twice(
            fd,
            Some((control_len, control_access)),
            fit(layout.data.offset, &layout)?,
            fit(layout.data.len, &layout)?,
            access,
            false,
        )?;
        if let Some(slot) = own_slot {
            let writable = |e: Extent| -> Result<(), SharedError> {
                region.protect(
                    fit(e.offset, &layout)?,
                    fit(e.len, &layout)?,
                    Access::ReadWrite,
                )?;
                Ok(())
            };
            writable(layout.state_block)?;
            writable(slot)?;
        }
        Ok(Self {
            region,
            control_len,
            layout,
            role,
            capacity,
            _item: PhantomData,
        })
    }

    /// The role this mapping was made for.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Role, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// assert_eq!(Segment::create(&spec)?.map_reader(0)?.role(), Role::Reader { slot: 0 });
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn role(&self) -> Role {
        self.role
    }

    /// The segment's layout.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let s = Segment::create(&spec)?;
    /// assert_eq!(s.map_writer()?.layout(), s.layout());
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn layout(&self) -> &SegmentLayout {
        &self.layout
    }

    /// Items per half of the data mapping: item `i + capacity()` is item `i`.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u32>::new(1000, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// assert_eq!(Segment::create(&spec)?.map_writer()?.capacity(), 1024);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The header's first byte (read-only for readers).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec, MAGIC};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let map = Segment::create(&spec)?.map_reader(0)?;
    /// // SAFETY (example): the header's first 8 bytes are the magic, stored before the
    /// // segment was handed out and never written again.
    /// assert_eq!(unsafe { map.header().cast::<u64>().read() }, MAGIC);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn header(&self) -> NonNull<u8> {
        self.region.base()
    }

    /// The state block's first byte (aligned to at least the declared alignment; read-write
    /// for every role).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u64>());
    /// let map = Segment::create(&spec)?.map_reader(0)?;
    /// assert_eq!(map.state().as_ptr() as usize % 8, 0);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn state(&self) -> NonNull<u8> {
        // `state_block.offset` is one page, inside the control mapping (checked in `new`).
        self.control_at(self.layout.state_block.offset)
    }

    /// The first byte of reader slot `slot`'s page (`None` past the last slot). Writable for
    /// the writer and for the reader that owns it; read-only for other readers.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 2, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let map = Segment::create(&spec)?.map_writer()?;
    /// assert!(map.slot(1).is_some());
    /// assert!(map.slot(2).is_none());
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn slot(&self, slot: u32) -> Option<NonNull<u8>> {
        let extent = self.layout.slot(slot)?;
        Some(self.control_at(extent.offset))
    }

    /// The data region, `2 × capacity()` items (the second half aliases the first). Read-only
    /// for readers: a write through it faults.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u16>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let map = Segment::create(&spec)?.map_reader(0)?;
    /// // SAFETY (example): item 0 is in the mapping, zero-initialised, written by nobody.
    /// assert_eq!(unsafe { map.data().as_ptr().read() }, 0);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn data(&self) -> NonNull<T> {
        // SAFETY: the data starts `control_len` bytes into the region (`new`).
        unsafe { self.region.base().add(self.control_len) }.cast()
    }

    /// The data region for writing: `Some` for the writer, `None` for readers.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u16>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let s = Segment::create(&spec)?;
    /// assert!(s.map_writer()?.data_mut().is_some());
    /// assert!(s.map_reader(0)?.data_mut().is_none());
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn data_mut(&self) -> Option<NonNull<T>> {
        match self.role {
            Role::Writer => Some(self.data()),
            Role::Reader { .. } => None,
        }
    }

    /// The byte at `offset` of the control mapping; `offset` is one of the layout's offsets
    /// below `data.offset`, the mapping's length.
    fn control_at(&self, offset: u64) -> NonNull<u8> {
        // The layout was validated to fit this process (`new` converted `data.offset`, which
        // is larger than every offset passed here, to usize).
        let offset = usize::try_from(offset).unwrap_or(0);
        debug_assert!(offset < self.control_len);
        // SAFETY: `offset < control.len()` (every control part starts below `data.offset`, the
        // length of the control mapping), so the result stays inside the mapping.
        unsafe { self.region.base().add(offset) }
    }
}
