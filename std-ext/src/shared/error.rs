//! [`HeaderError`] (a header that does not check out) and [`SharedError`] (creating, opening or
//! mapping a segment failed), with the step that failed ([`SharedStep`]).

use core::fmt;
use spanring_core::{AttachError, CapacityError};

use super::item::ItemIdentity;
use super::layout::{ClaimMode, LayoutError, SegmentPart, StateLayout};
use crate::MapError;

/// Why a segment's header was refused by [`validate`](super::validate).
///
/// ```
/// use spanring_std::shared::HeaderError;
/// let e = HeaderError::UnsupportedVersion { found: 9, supported: 1 };
/// assert_eq!(e.to_string(), "format version 9 is not supported (this code reads version 1)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderError {
    /// The bytes, or the object, are shorter than a header.
    Truncated {
        /// Bytes available.
        len: u64,
        /// Bytes a header needs.
        needed: u64,
    },
    /// The magic is still zero: the creator has not finished initialising the segment (or died
    /// before it did). Try again later, or give up after a bound.
    NotReady,
    /// The magic is not spanring's.
    BadMagic {
        /// The magic found.
        found: u64,
    },
    /// The segment was written by a machine of the other byte order.
    ForeignEndian,
    /// The endianness marker is neither ours nor byte-swapped: corrupt.
    BadEndianMarker {
        /// The marker found.
        found: u32,
    },
    /// Another format version.
    UnsupportedVersion {
        /// The version found.
        found: u32,
        /// The version this code reads.
        supported: u32,
    },
    /// The recorded header length is not this format's.
    HeaderLen {
        /// The length found.
        found: u32,
        /// This format's header length.
        expected: u32,
    },
    /// The reserved field is not zero.
    Reserved {
        /// The value found.
        found: u32,
    },
    /// The layout hash does not match the fields: at least one field was corrupted.
    LayoutHash {
        /// The hash stored.
        stored: u64,
        /// The hash of the stored fields.
        computed: u64,
    },
    /// The claim mode field holds no known mode.
    UnknownClaimMode {
        /// The value found.
        found: u32,
    },
    /// The segment was laid out for another page size than this process's.
    PageSize {
        /// The page size recorded.
        found: u64,
        /// This process's page size.
        expected: u64,
    },
    /// A part's end overflows 64 bits.
    PartOverflow {
        /// Which part.
        part: SegmentPart,
    },
    /// A part does not start and end on a page boundary.
    PartMisaligned {
        /// Which part.
        part: SegmentPart,
        /// Its offset.
        offset: u64,
        /// Its length.
        len: u64,
    },
    /// A part starts before the previous one ends.
    PartsOutOfOrder {
        /// Which part.
        part: SegmentPart,
        /// Its offset.
        offset: u64,
        /// Where the previous part ends.
        previous_end: u64,
    },
    /// A part ends past the recorded total size.
    PartOutOfBounds {
        /// Which part.
        part: SegmentPart,
        /// Where it ends.
        end: u64,
        /// The recorded total size.
        total: u64,
    },
    /// The recorded parameters cannot be laid out.
    Layout(LayoutError),
    /// A recorded offset or length is not what the recorded parameters lay out.
    Inconsistent {
        /// The header field.
        field: &'static str,
        /// Its value.
        stored: u64,
        /// The value the parameters give.
        derived: u64,
    },
    /// The object's real size is not the recorded total (truncated, grown, or not ours).
    ObjectSize {
        /// The object's size (`fstat`).
        object_size: u64,
        /// The size the header records.
        recorded: u64,
    },
    /// The segment, or twice its data region, does not fit in this process's address space
    /// (a 32-bit process attaching to a large segment).
    TooLargeForProcess {
        /// The segment's size.
        total: u64,
    },
    /// The segment holds another item type (size, alignment or name).
    ItemMismatch {
        /// What the attacher expects.
        expected: ItemIdentity,
        /// What the segment holds.
        found: ItemIdentity,
    },
    /// The segment's ring has another claim mode.
    ClaimMismatch {
        /// What the attacher expects.
        expected: ClaimMode,
        /// What the segment holds.
        found: ClaimMode,
    },
    /// The segment's state block has another size or alignment.
    StateMismatch {
        /// What the attacher expects.
        expected: StateLayout,
        /// What the segment holds.
        found: StateLayout,
    },
    /// The segment's ring has another capacity.
    CapacityMismatch {
        /// What the attacher expects.
        expected: u64,
        /// What the segment holds.
        found: u64,
    },
    /// The segment has another number of reader slots.
    ReaderSlotsMismatch {
        /// What the attacher expects.
        expected: u32,
        /// What the segment holds.
        found: u32,
    },
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::Truncated { len, needed } => {
                write!(f, "{len} bytes are shorter than a {needed}-byte header")
            }
            HeaderError::NotReady => f.write_str("the segment is not initialised yet"),
            HeaderError::BadMagic { found } => {
                write!(f, "not a spanring segment (magic {found:#018x})")
            }
            HeaderError::ForeignEndian => {
                f.write_str("the segment was written by a machine of the other byte order")
            }
            HeaderError::BadEndianMarker { found } => {
                write!(f, "corrupt endianness marker {found:#010x}")
            }
            HeaderError::UnsupportedVersion { found, supported } => write!(
                f,
                "format version {found} is not supported (this code reads version {supported})"
            ),
            HeaderError::HeaderLen { found, expected } => {
                write!(f, "header length {found}, expected {expected}")
            }
            HeaderError::Reserved { found } => {
                write!(f, "reserved header field is {found}, not zero")
            }
            HeaderError::LayoutHash { stored, computed } => write!(
                f,
                "layout hash {stored:#018x} does not match the fields ({computed:#018x}): corrupt header"
            ),
            HeaderError::UnknownClaimMode { found } => write!(f, "unknown claim mode {found}"),
            HeaderError::PageSize { found, expected } => write!(
                f,
                "segment laid out for {found}-byte pages, this process has {expected}-byte pages"
            ),
            HeaderError::PartOverflow { part } => write!(f, "the {part}'s end overflows"),
            HeaderError::PartMisaligned { part, offset, len } => write!(
                f,
                "the {part} ({len} bytes at {offset}) is not on page boundaries"
            ),
            HeaderError::PartsOutOfOrder {
                part,
                offset,
                previous_end,
            } => write!(
                f,
                "the {part} starts at {offset}, before the previous part ends at {previous_end}"
            ),
            HeaderError::PartOutOfBounds { part, end, total } => write!(
                f,
                "the {part} ends at {end}, past the recorded size {total}"
            ),
            HeaderError::Layout(e) => write!(f, "recorded layout is invalid: {e}"),
            HeaderError::Inconsistent {
                field,
                stored,
                derived,
            } => write!(
                f,
                "header field {field} is {stored}, the recorded parameters give {derived}"
            ),
            HeaderError::ObjectSize {
                object_size,
                recorded,
            } => write!(
                f,
                "the object has {object_size} bytes, its header records {recorded}"
            ),
            HeaderError::TooLargeForProcess { total } => write!(
                f,
                "a {total}-byte segment does not fit in this process's address space"
            ),
            HeaderError::ItemMismatch { expected, found } => write!(
                f,
                "the segment holds items of size {} align {} (type hash {:#018x}), expected size {} align {} (type hash {:#018x})",
                found.size, found.align, found.name_hash, expected.size, expected.align, expected.name_hash
            ),
            HeaderError::ClaimMismatch { expected, found } => {
                write!(f, "the segment's ring is {found}, expected {expected}")
            }
            HeaderError::StateMismatch { expected, found } => write!(
                f,
                "the segment's state block is {} bytes align {}, expected {} bytes align {}",
                found.size, found.align, expected.size, expected.align
            ),
            HeaderError::CapacityMismatch { expected, found } => write!(
                f,
                "the segment's ring holds {found} items, expected {expected}"
            ),
            HeaderError::ReaderSlotsMismatch { expected, found } => write!(
                f,
                "the segment has {found} reader slots, expected {expected}"
            ),
        }
    }
}

impl std::error::Error for HeaderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HeaderError::Layout(e) => Some(e),
            _ => None,
        }
    }
}

/// The system call of creating, opening or mapping a segment that failed (in
/// [`SharedError::Os`]).
///
/// ```
/// use spanring_std::shared::SharedStep;
/// assert_eq!(SharedStep::Seal.to_string(), "sealing the memory object");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SharedStep {
    /// `sysconf(_SC_PAGESIZE)`.
    PageSize,
    /// `memfd_create`.
    CreateMemfd,
    /// `shm_open` with `O_CREAT | O_EXCL`.
    CreateNamed,
    /// `shm_open` of an existing name.
    OpenNamed,
    /// `fchmod` to mode 0600.
    SetMode,
    /// `ftruncate` to the segment's size.
    Resize,
    /// `fcntl(F_ADD_SEALS)`.
    Seal,
    /// `fstat` of the object.
    Stat,
    /// Mapping the header to initialise or check it.
    MapHeader,
    /// `shm_unlink`.
    Unlink,
}

impl fmt::Display for SharedStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SharedStep::PageSize => "querying the page size",
            SharedStep::CreateMemfd => "creating the memfd",
            SharedStep::CreateNamed => "creating the named shared memory object",
            SharedStep::OpenNamed => "opening the named shared memory object",
            SharedStep::SetMode => "setting the object's mode to 0600",
            SharedStep::Resize => "resizing the memory object",
            SharedStep::Seal => "sealing the memory object",
            SharedStep::Stat => "reading the object's size",
            SharedStep::MapHeader => "mapping the header",
            SharedStep::Unlink => "unlinking the named object",
        })
    }
}

/// Why a segment could not be created, opened or mapped. Nothing leaks on any of them: every
/// descriptor and mapping made before the failure is released (a named object that this call
/// created is unlinked again).
///
/// ```
/// use spanring_std::shared::{SharedError, SharedStep};
/// let e = SharedError::Os { step: SharedStep::Resize, errno: 1 };
/// assert!(e.to_string().starts_with("resizing the memory object failed"));
/// assert_eq!(e.io_error().unwrap().raw_os_error(), Some(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SharedError {
    /// A system call failed.
    Os {
        /// What was being done.
        step: SharedStep,
        /// The OS error number (`errno`).
        errno: i32,
    },
    /// The object's header was refused.
    Header(HeaderError),
    /// The creation parameters cannot be laid out.
    Layout(LayoutError),
    /// Mapping the object failed.
    Map(MapError),
    /// The segment does not fit this process's `usize`/`off_t` (a 32-bit process and a
    /// segment of 2 GiB or more).
    TooLarge {
        /// The segment's size.
        bytes: u64,
    },
    /// A shared-memory name must be `/` followed by 1 to 254 bytes, none of them `/` or NUL.
    InvalidName,
    /// A reader slot past the segment's last.
    NoSuchSlot {
        /// The slot asked for.
        slot: u32,
        /// The segment's reader slots.
        reader_slots: u32,
    },
    /// The process mapped the ring as a reader: it cannot take the writer (its data mapping
    /// is read-only).
    ReadOnlyRole,
    /// The ring refused the handle (writer taken, ring closed, no reader slot left).
    Attach(AttachError),
    /// The ring cannot be built over the segment's capacity.
    Capacity(CapacityError),
}

impl SharedError {
    /// The OS error as a [`std::io::Error`], for [`SharedError::Os`] (and an OS error inside
    /// [`SharedError::Map`]).
    ///
    /// ```
    /// use spanring_std::shared::SharedError;
    /// assert!(SharedError::InvalidName.io_error().is_none());
    /// ```
    pub fn io_error(&self) -> Option<std::io::Error> {
        match self {
            SharedError::Os { errno, .. } => Some(std::io::Error::from_raw_os_error(*errno)),
            SharedError::Map(e) => e.io_error(),
            _ => None,
        }
    }

    /// The error of `step` from the calling thread's `errno`.
    pub(crate) fn last_os_error(step: SharedStep) -> Self {
        SharedError::Os {
            step,
            errno: std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        }
    }
}

impl fmt::Display for SharedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SharedError::Os { step, errno } => write!(
                f,
                "{step} failed: {}",
                std::io::Error::from_raw_os_error(*errno)
            ),
            SharedError::Header(e) => write!(f, "segment refused: {e}"),
            SharedError::Layout(e) => write!(f, "cannot lay out the segment: {e}"),
            SharedError::Map(e) => write!(f, "cannot map the segment: {e}"),
            SharedError::TooLarge { bytes } => write!(
                f,
                "a {bytes}-byte segment does not fit this process's address or file offsets"
            ),
            SharedError::InvalidName => f.write_str(
                "a shared memory name is '/' and 1 to 254 more bytes, none of them '/' or NUL",
            ),
            SharedError::NoSuchSlot { slot, reader_slots } => write!(
                f,
                "reader slot {slot} does not exist (the segment has {reader_slots})"
            ),
            SharedError::ReadOnlyRole => {
                f.write_str("this process mapped the ring as a reader: it cannot write")
            }
            SharedError::Attach(e) => write!(f, "the ring refused the handle: {e}"),
            SharedError::Capacity(e) => write!(f, "no ring over this segment: {e}"),
        }
    }
}

impl std::error::Error for SharedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SharedError::Header(e) => Some(e),
            SharedError::Layout(e) => Some(e),
            SharedError::Map(e) => Some(e),
            SharedError::Attach(e) => Some(e),
            SharedError::Capacity(e) => Some(e),
            _ => None,
        }
    }
}

impl From<HeaderError> for SharedError {
    fn from(e: HeaderError) -> Self {
        SharedError::Header(e)
    }
}

impl From<LayoutError> for SharedError {
    fn from(e: LayoutError) -> Self {
        SharedError::Layout(e)
    }
}

impl From<MapError> for SharedError {
    fn from(e: MapError) -> Self {
        SharedError::Map(e)
    }
}
