//! Creating the anonymous shared memory object that gets mapped twice, with fallbacks for
//! kernels and containers that lack the best option.

use std::os::fd::{FromRawFd, OwnedFd};
// A plain std atomic on purpose: this counter only makes names unique, takes part in no
// protocol worth model-checking, and must be a `static` (loom atomics cannot be).
#[allow(clippy::disallowed_types)]
use std::sync::atomic::{AtomicU32, Ordering};

use super::error::{errno_of, MapError, MapStep};

/// Creates an unnamed memory object of `len` bytes, zero-filled, and returns its descriptor.
///
/// Tries, in order: `memfd_create` (Linux/Android ≥ 3.17: no name in any filesystem, not subject to
/// `/dev/shm` limits), `shm_open` with a unique name immediately `shm_unlink`ed (other POSIX
/// systems), and an unlinked, freshly created file in `std::env::temp_dir()` (containers where
/// `/dev/shm` is missing or tiny). The returned `OwnedFd` closes itself on every path.
pub(crate) fn create(len: usize) -> Result<OwnedFd, MapError> {
    let fd = open_any()?;
    super::backing::check_object(&fd, len)?;
    let Ok(len) = libc::off_t::try_from(len) else {
        return Err(MapError::Os {
            step: MapStep::Resize,
            errno: libc::EFBIG,
        });
    };
    // SAFETY: `fd` is an open descriptor we own; ftruncate only changes the object's size.
    if unsafe { libc::ftruncate(std::os::fd::AsRawFd::as_raw_fd(&fd), len) } != 0 {
        return Err(MapError::last_os_error(MapStep::Resize));
        // `fd` is dropped (closed) here.
    }
    Ok(fd)
}

fn open_any() -> Result<OwnedFd, MapError> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Ok(fd) = memfd() {
        return Ok(fd);
    }
    if let Ok(fd) = shm() {
        return Ok(fd);
    }
    temp_file().map_err(|errno| MapError::Os {
        step: MapStep::CreateMemoryObject,
        errno,
    })
}

/// `memfd_create` through the raw syscall, so that an old libc without the wrapper still works.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn memfd() -> Result<OwnedFd, i32> {
    memfd_with(libc::MFD_CLOEXEC)
}

/// `memfd_create("spanring", flags)` through the raw syscall; the errno on failure.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn memfd_with(flags: libc::c_uint) -> Result<OwnedFd, i32> {
    let name = c"spanring";
    // SAFETY: `name` is a valid NUL-terminated string; the syscall only reads it and the flags
    // and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_memfd_create, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(errno_of(&std::io::Error::last_os_error()));
    }
    let fd = i32::try_from(fd).map_err(|_| libc::EBADF)?;
    // SAFETY: the kernel just returned this descriptor to us; nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A process-wide counter that makes object and file names unique (with the pid).
#[allow(clippy::disallowed_types)]
static NAME_COUNTER: AtomicU32 = AtomicU32::new(0);

fn unique_name(prefix: &str) -> String {
    // Relaxed: only uniqueness of the returned value matters, which any RMW gives.
    let n = NAME_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}spanring-{}-{n}", std::process::id())
}

/// `shm_open` + immediate `shm_unlink`: the object lives on only through the descriptor.
fn shm() -> Result<OwnedFd, i32> {
    let mut last = libc::EEXIST;
    for _ in 0..8 {
        let name = std::ffi::CString::new(unique_name("/")).map_err(|_| libc::EINVAL)?;
        // SAFETY: `name` is NUL-terminated; O_EXCL makes sure we never open someone else's object.
        let fd = unsafe {
            libc::shm_open(
                name.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                0o600 as libc::mode_t,
            )
        };
        if fd < 0 {
            last = errno_of(&std::io::Error::last_os_error());
            if last == libc::EEXIST {
                continue;
            }
            return Err(last);
        }
        // SAFETY: shm_open just returned this descriptor; we are its only owner.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: `name` is the NUL-terminated name we created above; unlinking only removes the
        // name, the open descriptor keeps the object alive.
        unsafe { libc::shm_unlink(name.as_ptr()) };
        return Ok(owned);
    }
    Err(last)
}

/// A new file in the temp directory, removed right away.
fn temp_file() -> Result<OwnedFd, i32> {
    let mut last = libc::EEXIST;
    for _ in 0..8 {
        let path = std::env::temp_dir().join(unique_name("."));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => {
                // Best effort: if removing fails the file merely stays visible (and we still
                // work); there is nothing better to do with that error.
                let _ = std::fs::remove_file(&path);
                return Ok(OwnedFd::from(file));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                last = errno_of(&e);
                return Err(last);
            }
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// Each fallback on its own must give memory that double-maps (the aliasing check runs
    /// inside `map_twice`).
    fn maps_twice(fd: OwnedFd) {
        let len = crate::mmap::mapping::page_size().unwrap();
        assert_eq!(
            // SAFETY: `fd` is an open descriptor we own.
            unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) },
            0
        );
        assert!(crate::mmap::mapping::map_twice(&fd, len).is_ok());
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn every_fallback_double_maps() {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        maps_twice(memfd().unwrap());
        // shm_open may be unavailable in some sandboxes (no /dev/shm); then it must fail cleanly.
        if let Ok(fd) = shm() {
            maps_twice(fd);
        }
        // The last resort must work wherever the temp dir is writable.
        maps_twice(temp_file().unwrap());
    }
}
