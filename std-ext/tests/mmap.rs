//! Behaviour of `DoubleMapped`: aliasing, contiguous wrap-around spans, the capacity rule,
//! errors without panics or leaks, and unmapping on drop.
#![cfg(unix)]

use spanring_core::storage::DoubleMappedStorage;
use spanring_core::Storage;
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
    // Representable but far beyond any machine: refused before anything is mapped, with the
    // sizes. (On 32-bit targets the OS refuses the address space instead.)
    let huge = DoubleMapped::<u8>::new(HUGE);
    match huge {
        Err(MapError::CannotBack { bytes, limit, .. }) => assert!(bytes >= HUGE && limit < bytes),
        Err(_) if usize::BITS < 64 => {}
        other => panic!("expected CannotBack, got {other:?}"),
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

/// Pages of `bytes` at `base` that are resident now (mincore).
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    target_arch = "x86_64"
))]
fn resident_pages(base: *mut u8, bytes: usize) -> usize {
    let pages = bytes / page_size();
    let mut resident = vec![0u8; pages];
    // SAFETY: `base` is the page-aligned start of a live mapping `bytes` long; `resident` has
    // one byte per page, as mincore writes.
    let rc = unsafe { libc::mincore(base.cast(), bytes, resident.as_mut_ptr().cast()) };
    assert_eq!(rc, 0, "mincore: {}", std::io::Error::last_os_error());
    resident.iter().filter(|&&r| r & 1 != 0).count()
}

/// Minor page faults of this thread so far.
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    target_arch = "x86_64"
))]
fn thread_faults() -> i64 {
    let mut usage = core::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage writes one `rusage` to a valid pointer.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) };
    assert_eq!(rc, 0);
    // SAFETY: getrusage returned 0, so it initialised `usage`.
    unsafe { usage.assume_init() }.ru_minflt
}

/// Writes one byte in every page of the first half (a ring's first lap) and returns the minor
/// page faults that took.
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    target_arch = "x86_64"
))]
fn first_lap_faults(buf: &DoubleMapped<u8>) -> i64 {
    let before = thread_faults();
    let p = buf.as_mut_ptr();
    for offset in (0..buf.capacity()).step_by(page_size()) {
        // SAFETY: `offset < capacity`: inside the first half; nothing else uses `buf`.
        unsafe { p.add(offset).write_volatile(1) };
    }
    thread_faults() - before
}

/// `new` is lazy: a 1 GiB ring leaves its memory unresident (under 64 MiB of it) until it is
/// written, as `Vec::with_capacity` would; its first lap then faults its pages in.
///
/// Natively on x86_64 only: CI runs the aarch64 and i686 builds under qemu-user, whose mmap and
/// mincore emulation says nothing about the host's pages.
#[test]
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    target_arch = "x86_64"
))]
#[cfg_attr(miri, ignore)] // mmap is a foreign call Miri cannot run
fn new_is_lazy_until_written() {
    let started = std::time::Instant::now();
    let big = DoubleMapped::<u8>::new(1 << 30).unwrap();
    let bytes = 2 * big.capacity();
    let resident = resident_pages(big.as_mut_ptr(), bytes) * page_size();
    assert!(
        resident < 64 << 20,
        "{resident} bytes resident after new(1 GiB), in {:?}",
        started.elapsed()
    );
    drop(big);
    // The faults are there to be seen: a lazily mapped ring's first lap takes one per page
    // (so the prefaulted test below would catch prefaulting that did nothing).
    let small = DoubleMapped::<u8>::new(16 << 20).unwrap();
    let pages = (small.capacity() / page_size()) as i64;
    let faults = first_lap_faults(&small);
    assert!(faults >= pages / 2, "{faults} faults for {pages} pages");
}

/// `new_prefaulted` has both halves resident at once, and the first lap takes no page fault.
#[test]
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    target_arch = "x86_64"
))]
// Not under Miri (mmap is a foreign call it cannot run) nor ThreadSanitizer (its shadow
// memory is mapped on first write, which faults on every page).
#[cfg_attr(any(miri, spanring_tsan), ignore)]
fn prefaulted_first_lap_takes_no_page_faults() {
    let buf = DoubleMapped::<u8>::new_prefaulted(16 << 20).unwrap();
    let bytes = 2 * buf.capacity();
    let pages = bytes / page_size();
    assert_eq!(
        resident_pages(buf.as_mut_ptr(), bytes),
        pages,
        "not all resident"
    );
    let faults = first_lap_faults(&buf);
    assert!(
        faults < (pages / 2 / 16) as i64,
        "{faults} faults in the first lap"
    );
    // And through the owned builder.
    let (mut w, mut r) = spanring_std::owned::mapped::<u64>(1 << 16)
        .prefault()
        .build()
        .unwrap();
    w.try_push(5).unwrap();
    assert_eq!(r.try_pop(), Ok(5));
}

/// Requests no machine here can back are typed errors with the sizes, lazy or prefaulted:
/// never an OOM kill (which 2^40..2^50-byte requests got when construction populated the pages).
#[test]
#[cfg(target_pointer_width = "64")]
#[cfg_attr(miri, ignore)]
fn requests_beyond_the_machine_are_typed_errors() {
    for shift in [40, 44, 47, 50] {
        for prefault in [false, true] {
            let got = if prefault {
                DoubleMapped::<u8>::new_prefaulted(1 << shift)
            } else {
                DoubleMapped::<u8>::new(1 << shift)
            };
            match got {
                Err(MapError::CannotBack { bytes, limit, what }) => {
                    assert!(
                        bytes >= 1 << shift && limit < bytes,
                        "{what}: {bytes} > {limit}"
                    );
                    let text = got.unwrap_err().to_string();
                    assert!(text.contains(&bytes.to_string()), "{text}");
                }
                other => panic!("2^{shift} (prefault {prefault}): {other:?}"),
            }
        }
    }
}
