//! [`MapError`]: every way building a [`DoubleMapped`](super::DoubleMapped) can fail.

use core::fmt;

/// The step of building a double mapping that failed (carried by [`MapError::Os`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MapStep {
    /// `sysconf(_SC_PAGESIZE)` failed or returned something that is not a power of two.
    PageSize,
    /// Creating the shared memory object. All fallbacks failed (`memfd_create` on Linux, then
    /// `shm_open` + `shm_unlink`, then an unlinked file in `std::env::temp_dir()`); the errno is
    /// the one of the last attempt.
    CreateMemoryObject,
    /// `ftruncate` of the memory object to one half's length.
    Resize,
    /// The anonymous `PROT_NONE` reservation of twice the length.
    Reserve,
    /// Mapping the memory object over the first half of the reservation (`MAP_FIXED`).
    MapFirstHalf,
    /// Mapping the memory object over the second half of the reservation (`MAP_FIXED`).
    MapSecondHalf,
    /// Committing and prefaulting the pages (only when asked for:
    /// [`DoubleMapped::new_prefaulted`](super::DoubleMapped::new_prefaulted)).
    Prefault,
    /// Changing the access of part of a mapping (`mprotect`), for a shared segment's reader.
    Protect,
    /// Mapping part of a shared segment once (its header, protocol state and reader slots).
    MapControl,
}

impl fmt::Display for MapStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MapStep::PageSize => "querying the page size",
            MapStep::CreateMemoryObject => "creating the shared memory object",
            MapStep::Resize => "resizing the shared memory object",
            MapStep::Reserve => "reserving twice the length of address space",
            MapStep::MapFirstHalf => "mapping the first half",
            MapStep::MapSecondHalf => "mapping the second half",
            MapStep::Prefault => "prefaulting the pages",
            MapStep::Protect => "changing the access of a mapping",
            MapStep::MapControl => "mapping the control pages of a shared segment",
        })
    }
}

/// Why a [`DoubleMapped`](super::DoubleMapped) could not be built. Nothing leaks on any of them:
/// every file descriptor and mapping made before the failure is released.
///
/// ```
/// use spanring_std::{DoubleMapped, MapError};
/// let err = DoubleMapped::<u64>::new(usize::MAX).unwrap_err();
/// assert!(matches!(err, MapError::TooLarge { .. }));
/// println!("{err}"); // "cannot map 18446744073709551615 items of 8 bytes: size overflows"
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MapError {
    /// The item type has size zero: there is nothing to map (use a counter instead).
    ZeroSizedItem,
    /// Zero items were requested; a ring needs at least one slot.
    ZeroCapacity,
    /// The item type's alignment is larger than the page size, which is all `mmap` guarantees.
    AlignmentTooLarge {
        /// `align_of::<T>()`.
        align: usize,
        /// The OS page size.
        page_size: usize,
    },
    /// The rounded size overflows `usize`, or twice it exceeds `isize::MAX`.
    TooLarge {
        /// The requested item count.
        requested: usize,
        /// `size_of::<T>()`.
        item_size: usize,
    },
    /// An OS call failed.
    Os {
        /// What was being done.
        step: MapStep,
        /// The OS error number (`errno`).
        errno: i32,
    },
    /// A `MAP_FIXED` mapping came back at an address other than the one asked for.
    WrongAddress {
        /// Which half.
        step: MapStep,
    },
    /// The mapping was built but a byte written through one half did not appear through the
    /// other: the OS did not give us two views of the same memory.
    AliasingCheckFailed,
    /// The machine cannot back the request: `bytes` (the memory object, or for
    /// [`BackingLimit::AddressSpace`] the address space of both halves) exceed `limit` bytes of
    /// what `what` names. Checked before anything is mapped, so a request that could only end
    /// in an OOM kill or a `SIGBUS` at first touch is refused instead.
    CannotBack {
        /// Bytes the request needs.
        bytes: usize,
        /// What the limit allows (saturated at `usize::MAX`).
        limit: usize,
        /// Which limit.
        what: BackingLimit,
    },
}

impl MapError {
    /// The OS error as a [`std::io::Error`], for [`MapError::Os`].
    ///
    /// ```
    /// use spanring_std::{MapError, MapStep};
    /// let e = MapError::Os { step: MapStep::Reserve, errno: 12 };
    /// assert_eq!(e.io_error().unwrap().raw_os_error(), Some(12));
    /// ```
    pub fn io_error(&self) -> Option<std::io::Error> {
        match *self {
            MapError::Os { errno, .. } => Some(std::io::Error::from_raw_os_error(errno)),
            _ => None,
        }
    }

    /// Builds an [`MapError::Os`] from the calling thread's current `errno`.
    pub(crate) fn last_os_error(step: MapStep) -> Self {
        MapError::Os {
            step,
            errno: errno_of(&std::io::Error::last_os_error()),
        }
    }
}

/// The raw errno of an `io::Error` (EIO if it has none, which OS-originated errors always have).
pub(crate) fn errno_of(error: &std::io::Error) -> i32 {
    error.raw_os_error().unwrap_or(libc::EIO)
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapError::ZeroSizedItem => f.write_str("cannot double-map a zero-sized item type"),
            MapError::ZeroCapacity => f.write_str("cannot double-map zero items"),
            MapError::AlignmentTooLarge { align, page_size } => write!(
                f,
                "item alignment {align} exceeds the page size {page_size} that mmap guarantees"
            ),
            MapError::TooLarge {
                requested,
                item_size,
            } => write!(
                f,
                "cannot map {requested} items of {item_size} bytes: size overflows"
            ),
            MapError::Os { step, errno } => {
                write!(
                    f,
                    "{step} failed: {}",
                    std::io::Error::from_raw_os_error(*errno)
                )
            }
            MapError::WrongAddress { step } => {
                write!(
                    f,
                    "{step} failed: MAP_FIXED mapping returned another address"
                )
            }
            MapError::AliasingCheckFailed => {
                f.write_str("the two halves of the mapping do not alias the same memory")
            }
            MapError::CannotBack { bytes, limit, what } => write!(
                f,
                "cannot back {bytes} bytes of double-mapped memory: {what} allows {limit}"
            ),
        }
    }
}

impl std::error::Error for MapError {}

/// The limit a [`MapError::CannotBack`] ran into.
///
/// ```
/// use spanring_std::{BackingLimit, DoubleMapped, MapError};
/// // 2^40 bytes: more than this machine's memory (or its address-space limit).
/// # if usize::BITS == 64 {
/// match DoubleMapped::<u8>::new(1 << 40) {
///     Err(MapError::CannotBack { what, .. }) => println!("refused: {what}"),
///     Err(e) => println!("refused: {e}"),
///     Ok(big) => assert!(big.capacity() >= 1 << 40), // a machine that can back it
/// }
/// # }
/// let _ = BackingLimit::PhysicalMemory;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackingLimit {
    /// The machine's physical memory (`sysconf(_SC_PHYS_PAGES)`).
    PhysicalMemory,
    /// The memory limit of the process's control group (cgroup v2 `memory.max`, the lowest
    /// along its path).
    MemoryLimit,
    /// The free space of the file system holding the memory object (a size-limited tmpfs such
    /// as `/dev/shm`, or the temporary directory of the last fallback).
    SharedMemory,
    /// The process's address-space limit (`RLIMIT_AS`), against twice the bytes (both halves).
    AddressSpace,
    /// The memory the kernel reports available now (`MemAvailable`); prefaulting only.
    AvailableMemory,
}

impl fmt::Display for BackingLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackingLimit::PhysicalMemory => "physical memory",
            BackingLimit::MemoryLimit => "the control group's memory limit",
            BackingLimit::SharedMemory => "the shared-memory file system",
            BackingLimit::AddressSpace => "the address-space limit (RLIMIT_AS)",
            BackingLimit::AvailableMemory => "the available memory",
        })
    }
}
