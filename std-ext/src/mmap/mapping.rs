//! The virtual-memory trick: one `PROT_NONE` reservation of twice the length, then the same
//! memory object mapped over each half with `MAP_FIXED`, then a check that the halves alias.
//! Nothing is populated here: pages are committed at first touch, or up front by
//! [`prefault`](super::backing::prefault) when the caller asks.

use core::ptr::NonNull;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use super::error::{MapError, MapStep};

/// An owned range of address space, unmapped on drop (so every error path releases it).
#[derive(Debug)]
pub(crate) struct Region {
    base: NonNull<u8>,
    len: usize,
}

impl Region {
    /// The first byte.
    pub(crate) fn base(&self) -> NonNull<u8> {
        self.base
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: `base..base + len` is exactly the range this `Region` mapped and owns; no
        // reference into it outlives the owner (borrows of `DoubleMapped` end before its drop).
        let rc = unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
        // munmap of a range we mapped cannot fail short of a bug; nothing to do in release.
        debug_assert_eq!(rc, 0, "munmap failed: {}", std::io::Error::last_os_error());
    }
}

// SAFETY: a `Region` is just an owned address range; unmapping it from another thread is fine.
unsafe impl Send for Region {}
// SAFETY: `&Region` only exposes the base address.
unsafe impl Sync for Region {}

/// How a mapping of a memory object may be accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// `PROT_READ | PROT_WRITE`.
    ReadWrite,
    /// `PROT_READ` only: a store through the mapping faults (`SIGSEGV`).
    ReadOnly,
}

impl Access {
    fn prot(self) -> libc::c_int {
        match self {
            Access::ReadWrite => libc::PROT_READ | libc::PROT_WRITE,
            Access::ReadOnly => libc::PROT_READ,
        }
    }
}

/// Maps `memory` (at least `half` bytes, `half` a non-zero multiple of the page size) twice,
/// back to back, and verifies that the two halves are the same memory.
pub(crate) fn map_twice(memory: &OwnedFd, half: usize) -> Result<Region, MapError> {
    map_twice_at(memory.as_fd(), 0, half, Access::ReadWrite, true)
}

/// Maps the `half` bytes of `memory` that start at byte `offset` twice, back to back.
///
/// `offset` and `half` must be multiples of the page size, `half` non-zero, and the object at
/// least `offset + half` bytes long. With `probe` (and [`Access::ReadWrite`]) the aliasing is
/// verified by writing bytes through one half and reading them through the other (then
/// restoring them), which is right only for memory that no other process uses yet; without,
/// the aliasing rests on `MAP_FIXED` mappings of one object at the addresses asked for (both
/// checked), as it must for read-only mappings and memory that other processes may be writing.
pub(crate) fn map_twice_at(
    memory: BorrowedFd<'_>,
    offset: usize,
    half: usize,
    access: Access,
    probe: bool,
) -> Result<Region, MapError> {
    map_lead_and_twice(memory, None, offset, half, access, probe)
}

/// As [`map_twice_at`], with `lead = Some((len, access))` first mapping the object's first
/// `len` bytes (a page multiple) right before the two halves, in the same reservation: the
/// distance from any byte of the lead to the data is then the same in every process that maps
/// the object this way, so a structure in the lead can find the data by a relative offset.
/// The region covers the lead and both halves.
pub(crate) fn map_lead_and_twice(
    memory: BorrowedFd<'_>,
    lead: Option<(usize, Access)>,
    offset: usize,
    half: usize,
    access: Access,
    probe: bool,
) -> Result<Region, MapError> {
    let lead_len = lead.map_or(0, |(len, _)| len);
    let total = half
        .checked_mul(2)
        .and_then(|t| t.checked_add(lead_len))
        .ok_or(MapError::TooLarge {
            requested: half,
            item_size: 1,
        })?;
    // SAFETY: a fresh anonymous mapping at an address of the kernel's choosing touches no
    // existing memory. PROT_NONE + MAP_NORESERVE: address space only, no commit charge.
    let reserved = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            total,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | map_noreserve(),
            -1,
            0,
        )
    };
    if reserved == libc::MAP_FAILED {
        let errno = super::error::errno_of(&std::io::Error::last_os_error());
        return Err(super::backing::reserve_failed(errno, total));
    }
    let Some(base) = NonNull::new(reserved.cast::<u8>()) else {
        // Never happens for a non-MAP_FIXED mapping, but if it did we must not treat it as ours.
        return Err(MapError::WrongAddress {
            step: MapStep::Reserve,
        });
    };
    // From here on `region` unmaps the whole range on any early return.
    let region = Region { base, len: total };
    if let Some((len, lead_access)) = lead {
        map_half(memory, base, 0, len, lead_access, MapStep::MapControl)?;
    }
    // SAFETY: `lead_len + 2 × half == total`, so both halves stay inside the reservation.
    let first = unsafe { base.add(lead_len) };
    map_half(memory, first, offset, half, access, MapStep::MapFirstHalf)?;
    // SAFETY: as above.
    let second = unsafe { first.add(half) };
    map_half(memory, second, offset, half, access, MapStep::MapSecondHalf)?;
    if probe && access == Access::ReadWrite {
        verify_aliasing(first, half)?;
    }
    Ok(region)
}

/// Maps the `len` bytes of `memory` that start at byte `offset` once, at an address of the
/// kernel's choosing. `offset` must be a multiple of the page size, `len` non-zero.
pub(crate) fn map_once(
    memory: BorrowedFd<'_>,
    offset: usize,
    len: usize,
    access: Access,
    step: MapStep,
) -> Result<Region, MapError> {
    let offset = file_offset(offset, step)?;
    // SAFETY: a new shared mapping at an address of the kernel's choosing (no MAP_FIXED)
    // replaces no existing memory; the kernel checks the descriptor and the range.
    let got = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            len,
            access.prot(),
            libc::MAP_SHARED,
            memory.as_raw_fd(),
            offset,
        )
    };
    if got == libc::MAP_FAILED {
        return Err(MapError::last_os_error(step));
    }
    let Some(base) = NonNull::new(got.cast::<u8>()) else {
        // Never happens for a non-MAP_FIXED mapping; if it did we must not treat it as ours.
        return Err(MapError::WrongAddress { step });
    };
    Ok(Region { base, len })
}

impl Region {
    /// Changes the access of `len` bytes at byte `offset` of this region (both page-aligned,
    /// inside the region).
    pub(crate) fn protect(
        &self,
        offset: usize,
        len: usize,
        access: Access,
    ) -> Result<(), MapError> {
        if len == 0 {
            return Ok(());
        }
        let in_bounds = offset.checked_add(len).is_some_and(|end| end <= self.len);
        if !in_bounds {
            return Err(MapError::Os {
                step: MapStep::Protect,
                errno: libc::EINVAL,
            });
        }
        // SAFETY: `offset + len <= self.len` (checked above), so the range lies inside the
        // mapping this region owns; mprotect changes only its access, no memory.
        let rc =
            unsafe { libc::mprotect(self.base.as_ptr().add(offset).cast(), len, access.prot()) };
        if rc != 0 {
            return Err(MapError::last_os_error(MapStep::Protect));
        }
        Ok(())
    }
}

/// A byte offset into a memory object as `off_t` (32 bits on some 32-bit targets).
fn file_offset(offset: usize, step: MapStep) -> Result<libc::off_t, MapError> {
    libc::off_t::try_from(offset).map_err(|_| MapError::Os {
        step,
        errno: libc::EOVERFLOW,
    })
}

/// Replaces `half` bytes of our own reservation at `at` with a shared mapping of the bytes of
/// `memory` from `offset`.
fn map_half(
    memory: BorrowedFd<'_>,
    at: NonNull<u8>,
    offset: usize,
    half: usize,
    access: Access,
    step: MapStep,
) -> Result<(), MapError> {
    let offset = file_offset(offset, step)?;
    // SAFETY: `at..at + half` lies inside the reservation we own and nothing references it yet;
    // MAP_FIXED replaces exactly that range (never treating the address as a hint, the failure
    // mode of vmcircbuffer#3) and nothing outside it.
    let got = unsafe {
        libc::mmap(
            at.as_ptr().cast(),
            half,
            access.prot(),
            libc::MAP_SHARED | libc::MAP_FIXED,
            memory.as_raw_fd(),
            offset,
        )
    };
    if got == libc::MAP_FAILED {
        return Err(MapError::last_os_error(step));
    }
    if got.cast::<u8>() != at.as_ptr() {
        // The range still belongs to our reservation (or to this stray mapping, which is at
        // `at` or was not made); `Region` unmaps the whole reservation.
        return Err(MapError::WrongAddress { step });
    }
    Ok(())
}

/// Writes a byte through one half and reads it back through the other, at both ends, both
/// ways, and restores the byte that was there.
fn verify_aliasing(base: NonNull<u8>, half: usize) -> Result<(), MapError> {
    let base = base.as_ptr();
    for (offset, marker) in [(0, 0xA5u8), (half - 1, 0x5A)] {
        // SAFETY: `offset < half`, so `base + offset` and `base + half + offset` are in the two
        // readable, writable halves just mapped; no reference to them exists yet. Volatile so
        // the compiler cannot forward the written value instead of reading memory.
        let aliased = unsafe {
            let first = base.add(offset);
            let second = base.add(half + offset);
            let original = first.read_volatile();
            first.write_volatile(marker);
            let seen_in_second = second.read_volatile();
            second.write_volatile(!marker);
            let seen_in_first = first.read_volatile();
            first.write_volatile(original);
            seen_in_second == marker
                && seen_in_first == !marker
                && second.read_volatile() == original
        };
        if !aliased {
            return Err(MapError::AliasingCheckFailed);
        }
    }
    Ok(())
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn map_noreserve() -> libc::c_int {
    libc::MAP_NORESERVE
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn map_noreserve() -> libc::c_int {
    0
}

/// The OS page size, from `sysconf(_SC_PAGESIZE)` (never assumed: 16 KiB on Apple silicon,
/// 64 KiB on some aarch64 and ppc64 kernels).
pub(crate) fn page_size() -> Result<usize, MapError> {
    // SAFETY: sysconf reads a system constant and has no preconditions.
    let raw = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    match usize::try_from(raw) {
        Ok(size) if size.is_power_of_two() => Ok(size),
        _ => Err(MapError::Os {
            step: MapStep::PageSize,
            errno: libc::EINVAL,
        }),
    }
}
