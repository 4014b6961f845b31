//! [`Segment`]: the memory object a cross-process ring lives in — created (a sealed memfd, or a
//! named POSIX shared memory object), opened by name, or taken over from an inherited
//! descriptor — with its header checked.
//!
//! # Creation
//!
//! The creator lays the segment out ([`SegmentLayout::compute`]), makes the object with mode
//! 0600 (owner only, never executable), sizes it, seals a memfd against shrinking and growing,
//! checks once that its data region double-maps (writing probe bytes, which is safe only
//! because nobody else can use the object yet), writes the header with the magic still zero,
//! lets the caller initialise the state block, and stores the magic **last**, with `Release`.
//! An attacher loads the magic with `Acquire` first: zero means [`HeaderError::NotReady`];
//! [`MAGIC`] means every header field and the state the creator wrote are visible to it.
//!
//! # memfd or named object
//!
//! A memfd ([`Segment::create`]) has no name: other processes get it by inheriting the
//! descriptor (fork, or exec with the close-on-exec flag cleared; see [`Segment::from_fd`]) or
//! through a Unix socket (`SCM_RIGHTS`). It is sealed with `F_SEAL_SHRINK | F_SEAL_GROW |
//! F_SEAL_SEAL`, so no process can change its size: a truncation fails with `EPERM` instead of
//! making every other process's next access to the lost pages a `SIGBUS`.
//!
//! A named object ([`Segment::create_named`], [`Segment::open`]) lets unrelated processes meet
//! by name, but **POSIX shared memory objects cannot be sealed** (seals exist only for memfds):
//! any process of the same user that opens it writable can `ftruncate` it, and every process
//! that has it mapped then gets `SIGBUS` on the pages past the new end. Use names only among
//! processes that trust each other; prefer a memfd passed over a socket otherwise. A name
//! stays until [`Segment::unlink`] (or a reboot, or systemd's `RemoveIPC=yes` when the user
//! logs out); unlinking does not affect processes that have it open or mapped.
//!
//! # What the protection is for
//!
//! Mode 0600 keeps other users out; the seals keep the size fixed; read-only mappings for
//! readers (see [`SegmentMapping`]) turn a reader's stray write into its own `SIGSEGV`
//! instead of corrupted data for everyone. A process holding a writable descriptor could still
//! map the object writable on purpose: the mappings contain bugs, not a hostile process of the
//! same user.

use core::marker::PhantomData;
use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
// A real `AtomicU64`, not the sync shim's: its address is in memory shared with other
// processes, so it must be a lock-free hardware atomic (portable-atomic's lock-based fallback,
// or loom's model, would be private to this process).
use core::sync::atomic::{AtomicU64, Ordering};

use super::error::{HeaderError, SharedError, SharedStep};
use super::header::{Header, HEADER_LEN, MAGIC};
use super::item::SharedItem;
use super::layout::SegmentLayout;
use super::spec::SegmentSpec;
use super::validate::{validate, Expected, HeaderInfo};
use super::view::{Role, SegmentMapping};
use crate::mmap::mapping::{self, Access};
use crate::MapStep;

/// A shared memory object laid out for a cross-process ring of `T`, its header checked.
///
/// Dropping it closes the descriptor; mappings made from it ([`SegmentMapping`]) stay valid.
///
/// ```
/// use core::alloc::Layout;
/// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
///
/// let spec = SegmentSpec::<u64>::new(1024, 2, ClaimMode::SingleProducer, Layout::new::<[u64; 8]>());
/// let segment = Segment::create(&spec)?;
/// assert!(segment.is_sealed());
/// assert!(segment.layout().capacity >= 1024);
///
/// // What another process does with the descriptor it inherited:
/// let again = Segment::from_fd(segment.as_fd().try_clone_to_owned().unwrap(), &spec)?;
/// assert_eq!(again.layout(), segment.layout());
/// # use std::os::fd::AsFd;
/// # Ok::<(), spanring_std::shared::SharedError>(())
/// ```
pub struct Segment<T> {
    fd: OwnedFd,
    info: HeaderInfo,
    sealed: bool,
    _item: PhantomData<fn() -> T>,
}

impl<T: SharedItem> Segment<T> {
    /// Creates a sealed memfd segment for `spec`, with a zeroed state block.
    ///
    /// # Errors
    ///
    /// [`SharedError::Layout`] for parameters that cannot be laid out, [`SharedError::TooLarge`]
    /// for a size this process cannot map, [`SharedError::Os`] when a system call fails (at
    /// [`SharedStep::CreateMemfd`], [`SetMode`](SharedStep::SetMode),
    /// [`Resize`](SharedStep::Resize), [`Seal`](SharedStep::Seal)), [`SharedError::Map`] when
    /// mapping fails.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<f32>::new(1000, 1, ClaimMode::MultiProducer, Layout::new::<u64>());
    /// let segment = Segment::create(&spec)?;
    /// assert_eq!(segment.layout().capacity, 1024); // whole 4 KiB pages of f32
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create(spec: &SegmentSpec<T>) -> Result<Self, SharedError> {
        Self::create_with(spec, |_| {})
    }

    /// As [`create`](Self::create), and `init` initialises the state block (zeroed, of the
    /// declared size) before the segment becomes ready: no attacher sees the state before
    /// `init` returns.
    ///
    /// # Errors
    ///
    /// Those of [`create`](Self::create).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(4096, 1, ClaimMode::SingleProducer, Layout::new::<u32>());
    /// let segment = Segment::create_with(&spec, |state| state.copy_from_slice(&7u32.to_ne_bytes()))?;
    /// let map = segment.map_writer()?;
    /// // SAFETY (example): the state block holds 4 initialised, 4-aligned bytes.
    /// assert_eq!(unsafe { map.state().cast::<u32>().read() }, 7);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create_with(
        spec: &SegmentSpec<T>,
        init: impl FnOnce(&mut [u8]),
    ) -> Result<Self, SharedError> {
        let layout = plan(spec)?;
        let fd = memfd()?;
        set_owner_only(&fd)?;
        resize(&fd, layout.total)?;
        seal(&fd)?;
        let info = initialise(&fd, &layout, init)?;
        Ok(Self {
            fd,
            info,
            sealed: true,
            _item: PhantomData,
        })
    }

    /// Creates a named POSIX shared memory segment (`shm_open` with `O_CREAT | O_EXCL`, mode
    /// 0600) for processes that are not related by fork. Fails if the name exists. Named
    /// objects cannot be sealed: see the module docs for what that means. On any error (or a
    /// panic in `init`) after the object was created, the name is unlinked again.
    ///
    /// `name` is `/` followed by 1 to 254 bytes, none of them `/` or NUL.
    ///
    /// # Errors
    ///
    /// Those of [`create`](Self::create), [`SharedError::InvalidName`], and
    /// [`SharedError::Os`] at [`SharedStep::CreateNamed`] (`EEXIST` if the name is taken).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let name = format!("/spanring-doc-{}", std::process::id());
    /// let spec = SegmentSpec::<u32>::new(1024, 1, ClaimMode::SingleProducer, Layout::new::<u64>());
    /// let created = Segment::create_named(&name, &spec)?;
    /// assert!(!created.is_sealed());
    /// let opened = Segment::open(&name, &spec)?;
    /// assert_eq!(opened.layout(), created.layout());
    /// Segment::<u32>::unlink(&name)?;
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create_named(name: &str, spec: &SegmentSpec<T>) -> Result<Self, SharedError> {
        Self::create_named_with(name, spec, |_| {})
    }

    /// As [`create_named`](Self::create_named), with `init` for the state block (see
    /// [`create_with`](Self::create_with)).
    ///
    /// # Errors
    ///
    /// Those of [`create_named`](Self::create_named).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let name = format!("/spanring-doc-init-{}", std::process::id());
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let s = Segment::create_named_with(&name, &spec, |state| state[0] = 1)?;
    /// Segment::<u8>::unlink(&name)?;
    /// # drop(s);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create_named_with(
        name: &str,
        spec: &SegmentSpec<T>,
        init: impl FnOnce(&mut [u8]),
    ) -> Result<Self, SharedError> {
        let layout = plan(spec)?;
        let c_name = shm_name(name)?;
        // SAFETY: `c_name` is NUL-terminated; O_EXCL makes this a new object (never someone
        // else's); the call returns a new descriptor or -1.
        let raw = unsafe {
            libc::shm_open(
                c_name.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                0o600 as libc::mode_t,
            )
        };
        if raw < 0 {
            return Err(SharedError::last_os_error(SharedStep::CreateNamed));
        }
        // SAFETY: shm_open just returned this descriptor; nobody else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // From here on, an error (or a panic in `init`) removes the name we created (and only
        // it: O_EXCL), so no half-made object stays behind under it.
        let name_guard = UnlinkOnDrop(Some(c_name));
        set_owner_only(&fd)?;
        resize(&fd, layout.total)?;
        let info = initialise(&fd, &layout, init)?;
        name_guard.keep();
        Ok(Self {
            fd,
            info,
            sealed: false,
            _item: PhantomData,
        })
    }

    /// Opens the named segment `name` (read-write: readers need their cursor page and the
    /// state block writable) and checks it against `spec`.
    ///
    /// # Errors
    ///
    /// [`SharedError::InvalidName`], [`SharedError::Os`] at [`SharedStep::OpenNamed`] (`ENOENT`
    /// if there is no such name), and those of [`from_fd`](Self::from_fd).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec, SharedError};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let err = Segment::open("/spanring-no-such-segment", &spec).unwrap_err();
    /// assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);
    /// ```
    pub fn open(name: &str, spec: &SegmentSpec<T>) -> Result<Self, SharedError> {
        let c_name = shm_name(name)?;
        // SAFETY: `c_name` is NUL-terminated; without O_CREAT the call only opens an existing
        // object and returns a new descriptor or -1.
        let raw = unsafe { libc::shm_open(c_name.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC, 0) };
        if raw < 0 {
            return Err(SharedError::last_os_error(SharedStep::OpenNamed));
        }
        // SAFETY: shm_open just returned this descriptor; nobody else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        Self::from_fd(fd, spec)
    }

    /// Takes over a descriptor of a segment (opened read-write) and checks it against `spec`.
    ///
    /// The usual source is a descriptor inherited from the creator:
    /// - **after `fork`** the child has every descriptor of the parent at the same number:
    ///   `segment.as_fd().try_clone_to_owned()` before forking, or the raw number
    ///   (`as_raw_fd`) and `OwnedFd::from_raw_fd` in the child;
    /// - **across `exec`** the memfd is created close-on-exec, so the parent clears the flag on
    ///   a duplicate for the child only (e.g. `dup2` onto a known number in
    ///   `std::os::unix::process::CommandExt::pre_exec`, which clears close-on-exec), passes
    ///   the number in an argument or environment variable, and the child calls
    ///   `OwnedFd::from_raw_fd(number)` (its contract: the number is that descriptor and
    ///   owned by nobody else) and then `from_fd`;
    /// - **over a Unix socket** with `SCM_RIGHTS` for unrelated processes.
    ///
    /// # Errors
    ///
    /// [`SharedError::Os`] at [`SharedStep::Stat`]; [`SharedError::Header`] with
    /// [`HeaderError::NotReady`] for an object that is empty or whose magic is not stored yet
    /// (its creator has not finished), [`HeaderError::Truncated`] for an object smaller than a
    /// header, and every other [`HeaderError`] of [`validate`]; [`SharedError::Layout`] if
    /// `spec`'s capacity cannot be rounded; [`SharedError::Map`] when mapping fails.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use std::os::fd::AsFd;
    /// use spanring_std::shared::{ClaimMode, HeaderError, Segment, SegmentSpec, SharedError};
    /// let spec = SegmentSpec::<u16>::new(2048, 1, ClaimMode::SingleProducer, Layout::new::<u64>());
    /// let segment = Segment::create(&spec)?;
    /// let fd = segment.as_fd().try_clone_to_owned().unwrap();
    /// let wrong = SegmentSpec::<u16>::new(2048, 1, ClaimMode::MultiProducer, Layout::new::<u64>());
    /// assert!(matches!(Segment::from_fd(fd, &wrong),
    ///     Err(SharedError::Header(HeaderError::ClaimMismatch { .. }))));
    /// # Ok::<(), SharedError>(())
    /// ```
    pub fn from_fd(fd: OwnedFd, spec: &SegmentSpec<T>) -> Result<Self, SharedError> {
        let object_size = object_size(&fd)?;
        if object_size == 0 {
            // A named object between `shm_open` and `ftruncate` of its creator.
            return Err(HeaderError::NotReady.into());
        }
        if object_size < HEADER_LEN as u64 {
            return Err(HeaderError::Truncated {
                len: object_size,
                needed: HEADER_LEN as u64,
            }
            .into());
        }
        let page_size = mapping::page_size()?;
        let page = page_size as u64;
        let capacity = if spec.check_capacity {
            let rounded =
                SegmentLayout::round_capacity(spec.capacity as u64, spec.item.size, page)?;
            Some(rounded)
        } else {
            None
        };
        let expected = Expected {
            item: spec.item,
            claim: spec.claim,
            state: spec.state,
            capacity,
            reader_slots: spec.check_reader_slots.then_some(spec.reader_slots),
            page_size: page,
            object_size,
        };
        let bytes = read_header(&fd, page_size)?;
        let info = validate(&bytes, &expected)?;
        let sealed = is_sealed(&fd);
        Ok(Self {
            fd,
            info,
            sealed,
            _item: PhantomData,
        })
    }

    /// Removes the name of a named segment (`shm_unlink`). Processes that have it open or
    /// mapped keep it; it is freed when the last of them lets go.
    ///
    /// # Errors
    ///
    /// [`SharedError::InvalidName`], [`SharedError::Os`] at [`SharedStep::Unlink`].
    ///
    /// ```
    /// use spanring_std::shared::Segment;
    /// assert!(Segment::<u8>::unlink("/spanring-never-created").is_err());
    /// ```
    pub fn unlink(name: &str) -> Result<(), SharedError> {
        let c_name = shm_name(name)?;
        // SAFETY: `c_name` is NUL-terminated; shm_unlink only removes a name.
        if unsafe { libc::shm_unlink(c_name.as_ptr()) } != 0 {
            return Err(SharedError::last_os_error(SharedStep::Unlink));
        }
        Ok(())
    }
}

impl<T> Segment<T> {
    /// Where everything lies in the segment.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 3, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// assert_eq!(Segment::create(&spec)?.layout().reader_slots, 3);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn layout(&self) -> &SegmentLayout {
        &self.info.layout
    }

    /// What the header check found (version, layout hash, layout).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec, FORMAT_VERSION};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// assert_eq!(Segment::create(&spec)?.info().version, FORMAT_VERSION);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn info(&self) -> &HeaderInfo {
        &self.info
    }

    /// Whether the object is sealed against shrinking and growing (a memfd: yes; a named
    /// object: never).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// assert!(Segment::create(&spec)?.is_sealed());
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn is_sealed(&self) -> bool {
        self.sealed
    }

    /// The descriptor, to pass to another process.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use std::os::fd::AsRawFd;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let fd = Segment::create(&spec)?.into_fd();
    /// assert!(fd.as_raw_fd() >= 0);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }

    /// Maps the whole segment read-write, for the writer (or writers) of the ring.
    ///
    /// # Errors
    ///
    /// [`SharedError::TooLarge`], [`SharedError::Map`].
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
    /// let spec = SegmentSpec::<u32>::new(1024, 1, ClaimMode::SingleProducer, Layout::new::<u64>());
    /// let map = Segment::create(&spec)?.map_writer()?;
    /// // SAFETY (example): item 3 is inside the writable data region; nothing else uses it.
    /// unsafe { map.data_mut().unwrap().as_ptr().add(3).write(5) };
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn map_writer(&self) -> Result<SegmentMapping<T>, SharedError> {
        SegmentMapping::new(self.fd.as_fd(), self.info.layout, Role::Writer)
    }

    /// Maps the segment for the reader in slot `slot`: header and other readers' slots
    /// read-only, the state block and its own slot read-write, the data read-only (still
    /// double-mapped).
    ///
    /// # Errors
    ///
    /// [`SharedError::NoSuchSlot`], [`SharedError::TooLarge`], [`SharedError::Map`].
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, Segment, SegmentSpec, SharedError};
    /// let spec = SegmentSpec::<u32>::new(1024, 2, ClaimMode::SingleProducer, Layout::new::<u64>());
    /// let segment = Segment::create(&spec)?;
    /// let map = segment.map_reader(1)?;
    /// assert!(map.data_mut().is_none());
    /// assert!(matches!(segment.map_reader(2), Err(SharedError::NoSuchSlot { .. })));
    /// # Ok::<(), SharedError>(())
    /// ```
    pub fn map_reader(&self, slot: u32) -> Result<SegmentMapping<T>, SharedError> {
        SegmentMapping::new(self.fd.as_fd(), self.info.layout, Role::Reader { slot })
    }
}

impl<T> core::fmt::Debug for Segment<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Segment")
            .field("fd", &self.fd)
            .field("info", &self.info)
            .field("sealed", &self.sealed)
            .finish()
    }
}

impl<T> AsFd for Segment<T> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Unlinks a name we created when dropped, unless `keep` is called first.
struct UnlinkOnDrop(Option<CString>);

impl UnlinkOnDrop {
    fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for UnlinkOnDrop {
    fn drop(&mut self) {
        if let Some(name) = &self.0 {
            // SAFETY: `name` is NUL-terminated; this removes the name this process created.
            // Best effort: a failure leaves a name behind, and the error being returned (or
            // the panic) matters more.
            unsafe { libc::shm_unlink(name.as_ptr()) };
        }
    }
}

/// The layout for `spec` on this system.
pub(crate) fn plan<T>(spec: &SegmentSpec<T>) -> Result<SegmentLayout, SharedError> {
    let page = mapping::page_size()? as u64;
    let capacity = SegmentLayout::round_capacity(spec.capacity as u64, spec.item.size, page)?;
    let layout = SegmentLayout::compute(
        spec.item,
        capacity,
        spec.reader_slots,
        spec.claim,
        spec.state,
        page,
    )?;
    // This process maps the object and both halves of its data region.
    let fits = usize::try_from(layout.total).is_ok_and(|t| t <= isize::MAX as usize)
        && layout
            .data
            .len
            .checked_mul(2)
            .is_some_and(|both| both <= isize::MAX as u64)
        && libc::off_t::try_from(layout.total).is_ok();
    if !fits {
        return Err(SharedError::TooLarge {
            bytes: layout.total,
        });
    }
    Ok(layout)
}

/// A new memfd that can be sealed, close-on-exec, and never executable where the kernel knows
/// `MFD_NOEXEC_SEAL` (Linux 6.3; older kernels refuse the flag with `EINVAL`, then the mode
/// set by `set_owner_only` is what keeps the exec bits off).
fn memfd() -> Result<OwnedFd, SharedError> {
    let flags = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
    match crate::mmap::memory_object::memfd_with(flags | libc::MFD_NOEXEC_SEAL) {
        Ok(fd) => Ok(fd),
        Err(libc::EINVAL) => {
            crate::mmap::memory_object::memfd_with(flags).map_err(|errno| SharedError::Os {
                step: SharedStep::CreateMemfd,
                errno,
            })
        }
        Err(errno) => Err(SharedError::Os {
            step: SharedStep::CreateMemfd,
            errno,
        }),
    }
}

/// Mode 0600: read and write for the owner, nothing for anyone else, never executable.
fn set_owner_only(fd: &OwnedFd) -> Result<(), SharedError> {
    // SAFETY: `fd` is an open descriptor we own; fchmod only changes its mode.
    if unsafe { libc::fchmod(fd.as_raw_fd(), 0o600) } != 0 {
        return Err(SharedError::last_os_error(SharedStep::SetMode));
    }
    Ok(())
}

/// Sizes the object to `len` bytes (zero-filled).
fn resize(fd: &OwnedFd, len: u64) -> Result<(), SharedError> {
    let Ok(len_off) = libc::off_t::try_from(len) else {
        return Err(SharedError::TooLarge { bytes: len });
    };
    // SAFETY: `fd` is an open descriptor we own; ftruncate only changes the object's size.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), len_off) } != 0 {
        return Err(SharedError::last_os_error(SharedStep::Resize));
    }
    Ok(())
}

/// The seals: no shrinking (which would `SIGBUS` other processes), no growing, no more seals.
const SEALS: libc::c_int = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;

fn seal(fd: &OwnedFd) -> Result<(), SharedError> {
    // SAFETY: `fd` is a memfd we own, created with MFD_ALLOW_SEALING; F_ADD_SEALS only adds
    // seals to it.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, SEALS) } != 0 {
        return Err(SharedError::last_os_error(SharedStep::Seal));
    }
    Ok(())
}

/// Whether `fd` carries the shrink and grow seals (false for objects that cannot be sealed).
fn is_sealed(fd: &OwnedFd) -> bool {
    // SAFETY: `fd` is an open descriptor we own; F_GET_SEALS only reads its seals (or fails
    // with EINVAL for objects other than memfds).
    let seals = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
    let needed = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW;
    seals >= 0 && seals & needed == needed
}

/// The object's size from `fstat` (a negative size, which no object has, reads as 0).
fn object_size(fd: &OwnedFd) -> Result<u64, SharedError> {
    let mut stat = core::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `fd` is an open descriptor we own; `stat` is writable memory for one `stat`,
    // which fstat fills on success.
    if unsafe { libc::fstat(fd.as_raw_fd(), stat.as_mut_ptr()) } != 0 {
        return Err(SharedError::last_os_error(SharedStep::Stat));
    }
    // SAFETY: fstat returned 0, so it initialised `stat`.
    let size = unsafe { stat.assume_init() }.st_size;
    Ok(u64::try_from(size).unwrap_or(0))
}

/// A name for `shm_open`: `/`, then 1 to 254 bytes without `/` or NUL.
fn shm_name(name: &str) -> Result<CString, SharedError> {
    let rest = name.strip_prefix('/').ok_or(SharedError::InvalidName)?;
    if rest.is_empty() || rest.len() > 254 || rest.contains('/') {
        return Err(SharedError::InvalidName);
    }
    CString::new(name).map_err(|_| SharedError::InvalidName)
}

/// The creator's initialisation: probe the data region's double mapping, write the header with
/// the magic zero, run `init` on the state block, then store the magic with `Release`.
fn initialise(
    fd: &OwnedFd,
    layout: &SegmentLayout,
    init: impl FnOnce(&mut [u8]),
) -> Result<HeaderInfo, SharedError> {
    let too_large = SharedError::TooLarge {
        bytes: layout.total,
    };
    let to_usize = |v: u64| usize::try_from(v).map_err(|_| too_large);
    // The aliasing probe writes bytes through the data mapping: only now, while no other
    // process can have the segment ready, is that harmless.
    drop(mapping::map_twice_at(
        fd.as_fd(),
        to_usize(layout.data.offset)?,
        to_usize(layout.data.len)?,
        Access::ReadWrite,
        true,
    )?);
    let control_len = to_usize(layout.slots.offset)?;
    let control = mapping::map_once(
        fd.as_fd(),
        0,
        control_len,
        Access::ReadWrite,
        MapStep::MapControl,
    )?;
    let base = control.base().as_ptr();
    let mut header = Header::for_layout(layout);
    header.magic = 0;
    let bytes = header.to_bytes();
    // SAFETY: the control mapping is `control_len >= page_size >= HEADER_LEN` bytes, readable
    // and writable, and `bytes` is a separate local array: the ranges do not overlap.
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), base, HEADER_LEN) };
    let state_offset = to_usize(layout.state_block.offset)?;
    let state_size = to_usize(layout.state.size)?;
    {
        // SAFETY: the state block lies inside the control mapping (`state_offset + state_size
        // <= slots.offset == control_len`, from the layout), zero-filled (a fresh object) and
        // not referenced by anything else in this process; other processes treat the segment
        // as not ready (magic zero) and do not touch it.
        let state = unsafe { core::slice::from_raw_parts_mut(base.add(state_offset), state_size) };
        init(state);
    }
    // SAFETY: `base` is page-aligned (so aligned for u64), the magic is the header's first
    // 8 bytes inside our read-write mapping, and every access to it from any process is atomic
    // (attachers load it with `AtomicU64::load`).
    let magic = unsafe { AtomicU64::from_ptr(base.cast::<u64>()) };
    // Release: pairs with the attacher's Acquire load in `read_header`, so an attacher that
    // sees the magic also sees every header field and the state written above.
    magic.store(MAGIC, Ordering::Release);
    drop(control);
    Ok(HeaderInfo {
        version: header.version,
        layout_hash: header.layout_hash,
        layout: *layout,
    })
}

/// The header's bytes as the creator published them: the magic loaded with `Acquire`, then
/// the rest copied. A zero magic returns `NotReady` without copying.
fn read_header(fd: &OwnedFd, page_size: usize) -> Result<[u8; HEADER_LEN], SharedError> {
    // Mapped read-write although only read: an atomic 8-byte load is guaranteed not to write
    // only on some targets (on i686 it may be a `cmpxchg8b`, which faults on a read-only page).
    let header = mapping::map_once(
        fd.as_fd(),
        0,
        page_size,
        Access::ReadWrite,
        MapStep::MapControl,
    )?;
    let base = header.base().as_ptr();
    // SAFETY: `base` is page-aligned (aligned for u64) and the start of a read-write mapping
    // of at least HEADER_LEN bytes of the object (its size was checked); every access to the
    // magic is atomic (the creator stores it with `AtomicU64::store`).
    let magic = unsafe { AtomicU64::from_ptr(base.cast::<u64>()) };
    // Acquire: pairs with the creator's Release store in `initialise`; everything it wrote
    // before is visible to the copy below.
    if magic.load(Ordering::Acquire) == 0 {
        return Err(HeaderError::NotReady.into());
    }
    let mut bytes = [0u8; HEADER_LEN];
    for (i, byte) in bytes.iter_mut().enumerate() {
        // SAFETY: `i < HEADER_LEN <= page_size`: inside the mapping. Volatile, byte by byte:
        // another process may write the page at any time; each byte is read exactly once,
        // and `validate` checks the copy, never the live memory.
        *byte = unsafe { base.add(i).read_volatile() };
    }
    Ok(bytes)
}
