//! Whether the machine can back a double-mapped request, asked before anything is mapped, and
//! prefaulting for the callers who ask for it.
//!
//! A double-mapped ring is a shared memory object mapped twice. Mapping it commits nothing: the
//! kernel finds a page the first time each one is touched. So a request larger than the machine
//! could ever hold would "succeed" and end later, at some write, in an OOM kill (a memfd's
//! pages count as shared memory of whoever touches them, and the OOM killer may take other
//! processes with it) or a `SIGBUS` (a size-limited tmpfs that runs out). Prefaulting at
//! construction does the same at once. Both are refused here instead, as
//! [`MapError::CannotBack`] with the sizes: a request larger than physical memory, than the
//! control group's memory limit, than the address-space limit (both halves), or than the free
//! space of a size-limited file system holding the object. A prefaulted request must also fit
//! in the memory available now.
//!
//! These checks are made once, at construction: memory that other processes take later can
//! still run a lazily mapped ring short at first touch, as for any lazily committed memory
//! (`Vec::with_capacity` under overcommit). Prefaulting is the way to have every page at
//! construction, or a typed error.

use core::ptr::NonNull;
use std::os::fd::{AsRawFd, OwnedFd};

use super::error::{BackingLimit, MapError, MapStep};

/// Refuses `bytes` of memory object (mapped twice) that the machine cannot back; with
/// `prefault`, also what does not fit in the memory available now.
pub(crate) fn check_request(bytes: usize, prefault: bool) -> Result<(), MapError> {
    let refuse = |limit: usize, what| Err(MapError::CannotBack { bytes, limit, what });
    if let Some(physical) = physical_memory() {
        if bytes > physical {
            return refuse(physical, BackingLimit::PhysicalMemory);
        }
    }
    if let Some((limit, used)) = cgroup_memory_limit() {
        if bytes > limit {
            return refuse(limit, BackingLimit::MemoryLimit);
        }
        if prefault && bytes > limit.saturating_sub(used) {
            return refuse(limit.saturating_sub(used), BackingLimit::MemoryLimit);
        }
    }
    if let Some(limit) = address_space_limit() {
        let both = bytes.saturating_mul(2);
        if both > limit {
            return Err(MapError::CannotBack {
                bytes: both,
                limit,
                what: BackingLimit::AddressSpace,
            });
        }
    }
    if prefault {
        if let Some(available) = available_memory() {
            if bytes > available {
                return refuse(available, BackingLimit::AvailableMemory);
            }
        }
    }
    Ok(())
}

/// Refuses `bytes` in the object `fd` if its file system has a size limit with less free
/// space than that (a tmpfs `/dev/shm` mounted with `size=`, or the temporary directory). A
/// memfd lives on the kernel's internal tmpfs, which reports no limit.
pub(crate) fn check_object(fd: &OwnedFd, bytes: usize) -> Result<(), MapError> {
    let mut stat = core::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `fd` is an open descriptor we own; `stat` is writable memory for one `statvfs`,
    // which fstatvfs fills on success.
    let rc = unsafe { libc::fstatvfs(fd.as_raw_fd(), stat.as_mut_ptr()) };
    if rc != 0 {
        return Ok(()); // nothing known: the mapping decides
    }
    // SAFETY: fstatvfs returned 0, so it initialised `stat`.
    let stat = unsafe { stat.assume_init() };
    if stat.f_blocks == 0 {
        return Ok(()); // no size limit (the memfd tmpfs)
    }
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    let free = (stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64);
    let free = usize::try_from(free).unwrap_or(usize::MAX);
    if bytes > free {
        return Err(MapError::CannotBack {
            bytes,
            limit: free,
            what: BackingLimit::SharedMemory,
        });
    }
    Ok(())
}

/// An `mmap` of the address-space reservation that failed with `errno`: `ENOMEM` under a finite
/// `RLIMIT_AS` is that limit (the sizes in the error), anything else stays an OS error.
pub(crate) fn reserve_failed(errno: i32, total: usize) -> MapError {
    match address_space_limit() {
        Some(limit) if errno == libc::ENOMEM => MapError::CannotBack {
            bytes: total,
            limit,
            what: BackingLimit::AddressSpace,
        },
        _ => MapError::Os {
            step: MapStep::Reserve,
            errno,
        },
    }
}

/// Commits the object's pages and fills both halves' page tables, so that the first lap of a
/// ring over them takes no page fault. `base` is the start of both halves, `half` bytes each,
/// in pages of `page` bytes.
pub(crate) fn prefault(
    fd: &OwnedFd,
    base: NonNull<u8>,
    half: usize,
    page: usize,
) -> Result<(), MapError> {
    commit(fd, half)?;
    if populate(base, 2 * half) {
        return Ok(());
    }
    // No MADV_POPULATE_WRITE (an older kernel, another OS, an emulator): touch every page of
    // both halves. The pages are committed, so a touch cannot fail; the read fault maps the
    // object's existing page.
    let base = base.as_ptr();
    let mut offset = 0;
    while offset < 2 * half {
        // SAFETY: `offset < 2 * half`: inside the two readable halves; a volatile read of a
        // byte of zeroed memory no reference covers yet.
        unsafe { base.add(offset).read_volatile() };
        offset += page;
    }
    Ok(())
}

/// Allocates the object's `len` bytes now (Linux: `fallocate`), so a full file system or
/// memory limit is a typed error here rather than a `SIGBUS` later.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn commit(fd: &OwnedFd, len: usize) -> Result<(), MapError> {
    let Ok(len) = libc::off_t::try_from(len) else {
        return Err(MapError::Os {
            step: MapStep::Prefault,
            errno: libc::EFBIG,
        });
    };
    // SAFETY: `fd` is an open descriptor we own; mode 0 only allocates blocks of the object.
    if unsafe { libc::fallocate(fd.as_raw_fd(), 0, 0, len) } != 0 {
        return Err(MapError::last_os_error(MapStep::Prefault));
    }
    Ok(())
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn commit(_fd: &OwnedFd, _len: usize) -> Result<(), MapError> {
    Ok(()) // the touches in `prefault` commit the pages
}

/// `MADV_POPULATE_WRITE` (Linux 5.14) over `len` bytes at `base`: whether it worked.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn populate(base: NonNull<u8>, len: usize) -> bool {
    /// The value in Linux's uapi `mman-common.h`, the same on every architecture.
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    // SAFETY: `base..base + len` is our own shared read-write mapping; populating only faults
    // its pages in, as writes of no data would.
    unsafe { libc::madvise(base.as_ptr().cast(), len, MADV_POPULATE_WRITE) == 0 }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn populate(_base: NonNull<u8>, _len: usize) -> bool {
    false
}

/// Bytes of physical memory, if the OS says.
fn physical_memory() -> Option<usize> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: sysconf reads system constants and has no preconditions.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let (pages, size) = (u64::try_from(pages).ok()?, u64::try_from(size).ok()?);
        Some(usize::try_from(pages.saturating_mul(size)).unwrap_or(usize::MAX))
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// The process's `RLIMIT_AS` in bytes, if finite.
fn address_space_limit() -> Option<usize> {
    let mut limit = core::mem::MaybeUninit::<libc::rlimit>::uninit();
    // SAFETY: getrlimit writes one `rlimit` to a valid pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, limit.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: getrlimit returned 0, so it initialised `limit`.
    let cur = unsafe { limit.assume_init() }.rlim_cur;
    if cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(usize::try_from(cur).unwrap_or(usize::MAX))
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(usize::try_from(kib.saturating_mul(1024)).unwrap_or(usize::MAX))
}

/// The lowest memory limit along this process's control-group path, with that group's usage,
/// in bytes: cgroup v2 (`memory.max`, `memory.current`) and v1 (`memory.limit_in_bytes`,
/// `memory.usage_in_bytes`, under `/sys/fs/cgroup/memory`). `None` without a limit.
fn cgroup_memory_limit() -> Option<(usize, usize)> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut lowest: Option<(u64, u64)> = None;
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let found = if controllers.is_empty() {
            ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
                .iter()
                .filter_map(|root| lowest_along(root, path, "memory.max", "memory.current"))
                .min_by_key(|&(max, _)| max)
        } else if controllers.split(',').any(|c| c == "memory") {
            lowest_along(
                "/sys/fs/cgroup/memory",
                path,
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        } else {
            None
        };
        if let Some((max, used)) = found {
            if lowest.map_or(true, |(l, _)| max < l) {
                lowest = Some((max, used));
            }
        }
    }
    let (max, used) = lowest?;
    let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    Some((to_usize(max), to_usize(used)))
}

/// The lowest `max_file` value from the group `path` under `root` up to `root`, with the
/// `used_file` value of the same group.
fn lowest_along(root: &str, path: &str, max_file: &str, used_file: &str) -> Option<(u64, u64)> {
    let root = std::path::Path::new(root);
    let mut dir = root.join(path.trim_start_matches('/'));
    let mut lowest: Option<(u64, u64)> = None;
    loop {
        if let Some(max) = read_number(&dir.join(max_file)) {
            if lowest.map_or(true, |(l, _)| max < l) {
                lowest = Some((max, read_number(&dir.join(used_file)).unwrap_or(0)));
            }
        }
        if dir == root || !dir.pop() || !dir.starts_with(root) {
            break;
        }
    }
    lowest
}

/// A decimal number from a one-line file (`None` for "max", absent or unreadable files).
fn read_number(path: &std::path::Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}
