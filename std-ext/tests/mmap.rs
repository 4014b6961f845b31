//! Behaviour of `DoubleMapped`: aliasing, contiguous wrap-around spans, the capacity rule,
//! errors without panics or leaks, and unmapping on drop.
#![cfg(unix)]

use spanring_core::{DoubleMappedStorage, Storage};
use spanring_std::{DoubleMapped, MapError, Zeroable};

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).expect("page size")
}

fn assert_double_mapped<S: DoubleMappedStorage>(_: &S) {}

#[test]
#[cfg_attr(miri, ignore)] // mmap is a foreign call Miri cannot run
fn second_half_aliases_first_both_ways() {
    let buf = DoubleMapped::<u32>::new(1000).unwrap();
    assert_double_mapped(&buf);
    const { assert!(<DoubleMapped<u32> as Storage>::DOUBLE_MAPPED) };
    let cap = buf.capacity();
    let p = buf.as_mut_ptr();
    for i in [0, 1, cap / 2, cap - 1] {
        let marker = u32::try_from(i).unwrap() + 1;
        // SAFETY: i < cap and i + cap < 2 * cap: both in the mapping; we are its only user.
        unsafe {
            p.add(i + cap).write(marker);
            assert_eq!(
                p.add(i).read(),
                marker,
                "write at {} not seen at {i}",
                i + cap
            );
            p.add(i).write(!marker);
            assert_eq!(
                p.add(i + cap).read(),
                !marker,
                "write at {i} not seen at {}",
                i + cap
            );
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn a_span_across_the_wrap_point_is_contiguous() {
    let buf = DoubleMapped::<u64>::new(1).unwrap();
    let cap = buf.capacity();
    let p = buf.as_mut_ptr();
    // SAFETY: items cap-2 .. cap+2 lie inside the 2 * cap mapping; nobody else uses it.
    let span = unsafe { std::slice::from_raw_parts_mut(p.add(cap - 2), 4) };
    span.copy_from_slice(&[10, 11, 12, 13]);
    // SAFETY: indices < cap are in the first half.
    let read = |i: usize| unsafe { p.add(i).read() };
    assert_eq!(
        [read(cap - 2), read(cap - 1), read(0), read(1)],
        [10, 11, 12, 13]
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn memory_starts_zeroed() {
    let mut buf = DoubleMapped::<f64>::new(10).unwrap();
    assert!(buf.as_mut_slice().iter().all(|&x| x == 0.0));
}

#[derive(Clone, Copy)]
#[repr(C)]
struct Page([u8; 4096]);
// SAFETY: an array of bytes; all zeros is valid.
unsafe impl Zeroable for Page {}

#[test]
#[cfg_attr(miri, ignore)]
fn capacity_rounds_up_to_the_lcm_of_page_and_item_size() {
    let page = page_size();
    let bytes_of = |items: usize, size: usize| items * size;

    let b = DoubleMapped::<u8>::new(1).unwrap();
    assert_eq!(b.capacity(), page);
    assert_eq!(
        DoubleMapped::<u8>::new(page + 1).unwrap().capacity(),
        2 * page
    );

    let w = DoubleMapped::<u32>::new(1).unwrap();
    assert_eq!(bytes_of(w.capacity(), 4), page);

    // size 3: lcm(page, 3) = 3 * page (page sizes are powers of two).
    let t = DoubleMapped::<[u8; 3]>::new(1).unwrap();
    assert_eq!(bytes_of(t.capacity(), 3), 3 * page);
    assert_eq!(t.capacity(), page);
    assert_eq!(
        DoubleMapped::<[u8; 3]>::new(page + 1).unwrap().capacity(),
        2 * page
    );

    // A 4096-byte item: lcm(page, 4096) = max(page, 4096) for power-of-two pages.
    let big = DoubleMapped::<Page>::new(3).unwrap();
    let unit = page.max(4096) / 4096;
    assert_eq!(big.capacity(), 3_usize.div_ceil(unit) * unit);
    assert_eq!(bytes_of(big.capacity(), 4096) % page, 0);

    // rounded_capacity predicts new() without mapping.
    assert_eq!(
        DoubleMapped::<[u8; 3]>::rounded_capacity(1).unwrap(),
        t.capacity()
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn wrap_aliasing_holds_for_odd_item_sizes() {
    let buf = DoubleMapped::<[u8; 3]>::new(1).unwrap();
    let cap = buf.capacity();
    let p = buf.as_mut_ptr();
    // SAFETY: cap - 1 and 2 * cap - 1 are inside the mapping.
    unsafe {
        p.add(2 * cap - 1).write([1, 2, 3]);
        assert_eq!(p.add(cap - 1).read(), [1, 2, 3]);
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn absurd_sizes_are_errors_not_panics() {
    assert!(matches!(
        DoubleMapped::<u8>::new(usize::MAX),
        Err(MapError::TooLarge { .. })
    ));
    assert!(matches!(
        DoubleMapped::<u64>::new(usize::MAX / 8),
        Err(MapError::TooLarge { .. })
    ));
    assert!(matches!(
        DoubleMapped::<[u8; 1 << 20]>::new(usize::MAX / 4),
        Err(MapError::TooLarge { .. })
    ));
    assert_eq!(
        DoubleMapped::<u8>::new(0).unwrap_err(),
        MapError::ZeroCapacity
    );
    assert_eq!(
        DoubleMapped::<()>::new(16).unwrap_err(),
        MapError::ZeroSizedItem
    );
    // Representable but far beyond any address space: the OS refuses, we get a typed error.
    // (On 32-bit targets the largest such size is refused before the OS is asked.)
    let huge = DoubleMapped::<u8>::new(HUGE);
    match huge {
        Err(MapError::Os { .. }) => {}
        Err(_) if usize::BITS < 64 => {}
        other => panic!("expected an OS error, got {other:?}"),
    }
    let err = DoubleMapped::<u8>::new(HUGE).unwrap_err();
    assert!(!err.to_string().is_empty());
    let _: &dyn std::error::Error = &err;
}

/// A size no address space can map twice: 2^60 bytes on 64-bit targets, half the address
/// space on 32-bit ones.
const HUGE: usize = match 1usize.checked_shl(60) {
    Some(bytes) => bytes,
    None => usize::MAX / 2,
};

#[test]
#[cfg_attr(miri, ignore)]
fn failures_and_drops_leak_nothing() {
    // 10_000 create/drop cycles would exhaust the default 1024 fds or 65530 maps if either leaked.
    for i in 0..10_000 {
        let buf = DoubleMapped::<u8>::new(1).unwrap();
        // SAFETY: index 0 and capacity are in the mapping.
        unsafe { buf.as_mut_ptr().add(buf.capacity()).write(i as u8) };
        drop(buf);
        if i % 100 == 0 {
            // Failing paths (resize refused for an enormous object) must release too.
            assert!(DoubleMapped::<u8>::new(HUGE).is_err());
        }
    }
    let open_fds = std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(open_fds < 200, "{open_fds} fds open: leaked?");
}

#[test]
#[cfg_attr(miri, ignore)]
fn double_mapped_moves_between_threads() {
    let buf = DoubleMapped::<u16>::new(1).unwrap();
    let cap = std::thread::spawn(move || buf.capacity()).join().unwrap();
    assert!(cap > 0);
}

/// Both halves are resident right after `new` (`MAP_POPULATE`): the first lap of a new ring
/// takes no page faults on the hot path. Without it only the pages the aliasing check touched
/// (first and last) would be in memory.
///
/// Checked natively on x86_64 only: CI runs the aarch64 and i686 builds under qemu-user, whose
/// mmap emulation does not pass `MAP_POPULATE` on to the host for fixed mappings (the test
/// failed there with every untouched page missing), so residency there says nothing about the
/// flag.
#[test]
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    target_arch = "x86_64"
))]
#[cfg_attr(miri, ignore)] // mmap is a foreign call Miri cannot run
fn both_halves_are_resident_after_new() {
    let page = page_size();
    let buf = DoubleMapped::<u64>::new(64 * page / 8).unwrap();
    let bytes = 2 * buf.capacity() * core::mem::size_of::<u64>();
    let pages = bytes / page;
    assert!(pages >= 128, "{pages} pages");
    let mut resident = vec![0u8; pages];
    // SAFETY: `as_mut_ptr()` is the page-aligned start of the mapping of both halves, `bytes`
    // long; `resident` has one byte per page, as mincore writes.
    let rc = unsafe { libc::mincore(buf.as_mut_ptr().cast(), bytes, resident.as_mut_ptr().cast()) };
    assert_eq!(rc, 0, "mincore: {}", std::io::Error::last_os_error());
    let missing: Vec<usize> = (0..pages).filter(|&i| resident[i] & 1 == 0).collect();
    assert!(missing.is_empty(), "pages not resident: {missing:?}");
}
