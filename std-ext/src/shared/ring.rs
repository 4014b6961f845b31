//! [`SharedRing`]: the ring, in a segment that several processes map.
//!
//! The ring itself is the in-process one, [`GenericRing`], written once into the segment's
//! state block by the creator: its protocol state is atomics and plain numbers in a `repr(C)`
//! layout, its waits are [`FutexWait::shared`] words, and its memory is a
//! [`RelativeStorage`] that finds the double-mapped data at a fixed distance (each process
//! maps the control pages and the data in one reservation). So every process runs the same
//! claim, publish, read and close code as threads of one process do, through the same
//! [`Writer`] and [`Reader`] handles, spans included.
//!
//! Roles: a process that maps the ring as a writer can write and read; one that maps it as a
//! reader has the data, the header and the other reader pages read-only, so a stray write
//! faults in that process instead of corrupting the stream.
//!
//! Not yet: recovery of a process that dies holding the writer or a reader slot (the writer
//! flag and the slot stay taken until the segment is recreated), fixed-width cursors for a
//! 32-bit process next to a 64-bit one, multi-producer rings, and untethered readers.

use core::alloc::Layout;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use spanring_core::parts::{GenericRing, ReaderRegistry};
use spanring_core::{AttachError, Reader, Ring, SingleProducer, Writer};

use super::error::SharedError;
use super::item::SharedItem;
use super::layout::ClaimMode;
use super::relative::RelativeStorage;
use super::segment::Segment;
use super::spec::SegmentSpec;
use super::view::{Role, SegmentMapping};
use crate::FutexWait;

/// The ring type inside a [`SharedRing`]: handles borrow it (`Writer<&SharedRingCore<T, N>>`).
pub type SharedRingCore<T, const READERS: usize> =
    GenericRing<RelativeStorage<T>, SingleProducer, FutexWait, ReaderRegistry<READERS>>;

/// A single-producer broadcast ring in shared memory: one writer and up to `READERS` readers,
/// in any processes that map it.
///
/// The creator makes it ([`create`](Self::create): an anonymous, sealed memfd to hand to
/// children; [`create_named`](Self::create_named): a POSIX shared memory name for unrelated
/// processes) and maps it as the writer; other processes attach with
/// [`from_fd`](Self::from_fd) or [`open`](Self::open) in a [`Role`]. Then
/// [`writer`](Self::writer) and [`reader`](Self::reader) give the usual handles.
///
/// ```
/// use std::os::fd::AsFd;
/// use spanring_std::shared::{Role, SharedRing};
/// let ring = SharedRing::<u64>::create(4096)?;
/// // Normally in another process, given the descriptor (e.g. inherited across fork):
/// let fd = ring.as_fd().try_clone_to_owned().unwrap();
/// let other = SharedRing::<u64>::from_fd(fd, Role::Reader { slot: 0 })?;
/// let mut reader = other.reader().unwrap();
///
/// let mut writer = ring.writer()?;
/// writer.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
/// assert_eq!(reader.try_read(8).unwrap().as_slice(), [1, 2, 3]);
/// # Ok::<(), spanring_std::shared::SharedError>(())
/// ```
pub struct SharedRing<T: SharedItem + Send, const READERS: usize = 4> {
    mapping: SegmentMapping<T>,
    segment: Segment<T>,
}

impl<T: SharedItem + Send, const READERS: usize> core::fmt::Debug for SharedRing<T, READERS> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedRing")
            .field("role", &self.mapping.role())
            .field("ring", self.ring())
            .finish()
    }
}

// SAFETY: the mapping and the descriptor are owned resources usable from any thread; the ring
// behind them is atomics, plain numbers and `T: Send` items, shared under its protocol.
unsafe impl<T: SharedItem + Send, const READERS: usize> Send for SharedRing<T, READERS> {}
// SAFETY: as for `Send`: `&SharedRing` hands out `&SharedRingCore`, which is `Sync` for
// `T: Send` like every ring.
unsafe impl<T: SharedItem + Send, const READERS: usize> Sync for SharedRing<T, READERS> {}

impl<T: SharedItem + Send, const READERS: usize> SharedRing<T, READERS> {
    /// What the segment must hold: `T`, single producer, `READERS` slots, the ring's layout.
    fn spec(capacity: Option<usize>) -> SegmentSpec<T> {
        let spec = SegmentSpec::new(
            capacity.unwrap_or(1),
            READERS as u32,
            ClaimMode::SingleProducer,
            Layout::new::<SharedRingCore<T, READERS>>(),
        );
        match capacity {
            Some(_) => spec,
            None => spec.any_capacity(),
        }
    }

    /// Creates a ring of at least `capacity` items (rounded up to whole pages) in a sealed,
    /// anonymous memfd, mapped here as the writer. Hand [`as_fd`](Self::as_fd) to the processes
    /// that should attach (across `fork`, or `exec` with the descriptor kept open).
    ///
    /// # Errors
    ///
    /// [`SharedError`] if the object cannot be created, sized, sealed or mapped.
    ///
    /// ```
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<[f32; 2]>::create(1000)?;
    /// assert_eq!(ring.ring().capacity(), 1024); // whole pages of 8-byte items
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create(capacity: usize) -> Result<Self, SharedError> {
        let spec = Self::spec(Some(capacity));
        let ring = Self::prepare(&spec)?;
        let segment = Segment::create_with(&spec, |state| Self::write_ring(state, ring))?;
        Self::map(segment, Role::Writer)
    }

    /// Creates a ring under the POSIX shared memory name `name` (`/` and 1 to 254 more bytes,
    /// mode 0600), for processes that are not related; they [`open`](Self::open) it by name.
    /// Remove the name with [`Segment::unlink`] when no new process needs it. A named object
    /// cannot be sealed (see the module docs of [`shared`](super)).
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create), and the name's (`EEXIST` if it is taken).
    ///
    /// ```
    /// use spanring_std::shared::{Role, Segment, SharedRing};
    /// let name = format!("/spanring-doc-{}", std::process::id());
    /// let ring = SharedRing::<u32>::create_named(&name, 1024)?;
    /// let other = SharedRing::<u32>::open(&name, Role::Reader { slot: 0 })?;
    /// Segment::<u32>::unlink(&name)?;
    /// let mut r = other.reader().unwrap();
    /// ring.writer()?.try_push(7).unwrap();
    /// assert_eq!(r.try_pop(), Ok(7));
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create_named(name: &str, capacity: usize) -> Result<Self, SharedError> {
        let spec = Self::spec(Some(capacity));
        let ring = Self::prepare(&spec)?;
        let segment =
            Segment::create_named_with(name, &spec, |state| Self::write_ring(state, ring))?;
        Self::map(segment, Role::Writer)
    }

    /// Attaches to the ring behind `fd` (from [`as_fd`](Self::as_fd) of the creator), checking
    /// its header against `T`, the claim mode, `READERS` and the ring's layout, and maps it
    /// for `role`.
    ///
    /// # Errors
    ///
    /// [`SharedError::Header`] if the object is not such a ring (or not initialised yet), and
    /// the mapping's errors.
    ///
    /// ```
    /// use std::os::fd::AsFd;
    /// use spanring_std::shared::{HeaderError, Role, SharedError, SharedRing};
    /// let ring = SharedRing::<u64>::create(512)?;
    /// let fd = || ring.as_fd().try_clone_to_owned().unwrap();
    /// assert!(SharedRing::<u64>::from_fd(fd(), Role::Writer).is_ok());
    /// let wrong = SharedRing::<i32>::from_fd(fd(), Role::Writer).unwrap_err();
    /// assert!(matches!(wrong, SharedError::Header(HeaderError::ItemMismatch { .. })));
    /// # Ok::<(), SharedError>(())
    /// ```
    pub fn from_fd(fd: OwnedFd, role: Role) -> Result<Self, SharedError> {
        Self::map(Segment::from_fd(fd, &Self::spec(None))?, role)
    }

    /// Attaches to the ring created under `name` by [`create_named`](Self::create_named).
    ///
    /// # Errors
    ///
    /// As [`from_fd`](Self::from_fd), and the name's (`ENOENT` if there is none).
    ///
    /// ```
    /// use spanring_std::shared::{Role, SharedRing};
    /// let err = SharedRing::<u8>::open("/spanring-no-such-ring", Role::Writer).unwrap_err();
    /// assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);
    /// ```
    pub fn open(name: &str, role: Role) -> Result<Self, SharedError> {
        Self::map(Segment::open(name, &Self::spec(None))?, role)
    }

    /// The ring, for everything the handles do not cover (`capacity`, `close`, …).
    ///
    /// ```
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<u8, 2>::create(4096)?;
    /// assert_eq!((ring.ring().capacity(), ring.ring().reader_count()), (4096, 0));
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn ring(&self) -> &SharedRingCore<T, READERS> {
        // SAFETY: the state block holds a `SharedRingCore<T, READERS>`: the creator wrote one
        // there (`make`) before it published the header, and the header check (`spec`) matched
        // the item type, claim mode, reader count and this type's size and alignment. The block
        // is aligned for it (the layout places it on a page boundary and checked the
        // alignment), writable in every role, lives as long as `self.mapping`, and is only
        // accessed through the ring's atomics by every process.
        unsafe {
            self.mapping
                .state()
                .cast::<SharedRingCore<T, READERS>>()
                .as_ref()
        }
    }

    /// The ring's writer (there is one, in all processes together).
    ///
    /// # Errors
    ///
    /// [`SharedError::ReadOnlyRole`] in a process that mapped the ring as a reader (its data
    /// mapping is read-only), and [`SharedError::Attach`] with the ring's own errors
    /// (`WriterTaken`, `Closed`).
    ///
    /// ```
    /// use std::os::fd::AsFd;
    /// use spanring_std::shared::{Role, SharedError, SharedRing};
    /// use spanring_std::core_api::AttachError;
    /// let ring = SharedRing::<u8>::create(4096)?;
    /// let _w = ring.writer()?;
    /// assert_eq!(ring.writer().unwrap_err(), SharedError::Attach(AttachError::WriterTaken));
    /// let fd = ring.as_fd().try_clone_to_owned().unwrap();
    /// let reader_side = SharedRing::<u8>::from_fd(fd, Role::Reader { slot: 0 })?;
    /// assert_eq!(reader_side.writer().unwrap_err(), SharedError::ReadOnlyRole);
    /// # Ok::<(), SharedError>(())
    /// ```
    pub fn writer(&self) -> Result<Writer<&SharedRingCore<T, READERS>>, SharedError> {
        if self.mapping.role() != Role::Writer {
            return Err(SharedError::ReadOnlyRole);
        }
        self.ring().writer().map_err(SharedError::Attach)
    }

    /// A reader, at the stream's current end.
    ///
    /// # Errors
    ///
    /// [`AttachError::TooManyReaders`] when `READERS` readers are attached (in all processes).
    ///
    /// ```
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<u16, 1>::create(4096)?;
    /// let _r = ring.reader().unwrap();
    /// assert!(ring.reader().is_err()); // one slot
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn reader(&self) -> Result<Reader<&SharedRingCore<T, READERS>>, AttachError> {
        self.ring().reader()
    }

    /// How this process mapped the ring.
    ///
    /// ```
    /// use spanring_std::shared::{Role, SharedRing};
    /// assert_eq!(SharedRing::<u8>::create(1)?.role(), Role::Writer);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn role(&self) -> Role {
        self.mapping.role()
    }

    /// The ring the creator writes into the state block of a segment laid out for `spec`.
    fn prepare(spec: &SegmentSpec<T>) -> Result<SharedRingCore<T, READERS>, SharedError> {
        let layout = super::segment::plan(spec)?;
        let capacity = layout.capacity;
        // Where the storage sits inside the ring: measured on a ring built with a dummy
        // offset (building reads only the capacity).
        // SAFETY: this storage is never used to reach items: the probe ring is dropped
        // after two address reads.
        let probe = Self::build(unsafe { RelativeStorage::new(0, capacity) })?;
        let within = (probe.storage() as *const RelativeStorage<T> as usize)
            .wrapping_sub(&probe as *const SharedRingCore<T, READERS> as usize);
        // From the storage's place in the segment to the data region (all below 2^63: the
        // layout fits this process).
        let offset = layout.data.offset as i64 - (layout.state_block.offset as i64 + within as i64);
        // SAFETY: the ring is written into the state block (`write_ring`) and used only from
        // there, in mappings that place the data `data.offset - state_block.offset` bytes
        // after the block (`SegmentMapping`), double-mapped, `capacity` items (the layout's).
        Self::build(unsafe { RelativeStorage::new(offset, capacity) })
    }

    /// Moves `ring` into `state`, the state block of a segment being created.
    fn write_ring(state: &mut [u8], ring: SharedRingCore<T, READERS>) {
        // The block was laid out from this type's `Layout` (`spec`) and starts on a page
        // boundary: a failure here is a bug in the layout, not bad input.
        assert!(
            state.len() >= core::mem::size_of::<SharedRingCore<T, READERS>>()
                && state.as_ptr() as usize % core::mem::align_of::<SharedRingCore<T, READERS>>()
                    == 0,
            "the segment's state block does not fit the ring"
        );
        // SAFETY: `state` is large enough and aligned for the ring (checked above) and ours
        // alone while the segment is created; `write` moves the ring in without reading the
        // old bytes. The ring is never dropped: it lives as long as the segment.
        unsafe {
            state
                .as_mut_ptr()
                .cast::<SharedRingCore<T, READERS>>()
                .write(ring)
        };
    }

    /// A ring over `storage` with shared futex waits, open until closed.
    fn build(storage: RelativeStorage<T>) -> Result<SharedRingCore<T, READERS>, SharedError> {
        let ring: Ring<RelativeStorage<T>, SingleProducer, FutexWait, READERS> =
            Ring::builder(storage)
                .wait::<FutexWait>()
                .readers::<READERS>()
                .stays_open()
                .build()
                .map_err(SharedError::Capacity)?;
        Ok(ring.with_wait_strategies(FutexWait::shared(), FutexWait::shared()))
    }

    /// Maps `segment` for `role`.
    fn map(segment: Segment<T>, role: Role) -> Result<Self, SharedError> {
        let mapping = match role {
            Role::Writer => segment.map_writer()?,
            Role::Reader { slot } => segment.map_reader(slot)?,
        };
        Ok(Self { mapping, segment })
    }
}

impl<T: SharedItem + Send, const READERS: usize> AsFd for SharedRing<T, READERS> {
    /// The segment's descriptor, to hand to processes that attach with
    /// [`from_fd`](SharedRing::from_fd).
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.segment.as_fd()
    }
}
