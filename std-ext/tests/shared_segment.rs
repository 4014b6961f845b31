//! Shared segments across real processes (fork): attach by descriptor and by name, the header
//! read back, the seals against resizing, a reader's read-only mappings (a stray write kills
//! the writer of it with SIGSEGV and changes nothing), not-ready and corrupt objects, and
//! attach with the wrong item type, capacity, claim mode, reader slots or state layout.
//!
//! Children report through their exit status (0 = every check passed, another number names
//! the check that failed); the parent waits for them with `waitpid`, never by sleeping.
#![cfg(all(target_os = "linux", target_has_atomic = "64"))]

use core::alloc::Layout;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};

use spanring_std::shared::{
    ClaimMode, Header, HeaderError, ItemIdentity, Role, Segment, SegmentSpec, SharedError,
    HEADER_LEN,
};

/// The protocol state stand-in: 24 bytes, 8-aligned.
type State = [u64; 3];

fn spec<T: spanring_std::shared::SharedItem>(capacity: usize, slots: u32) -> SegmentSpec<T> {
    SegmentSpec::new(
        capacity,
        slots,
        ClaimMode::SingleProducer,
        Layout::new::<State>(),
    )
}

/// A name no other test (or test run) uses.
fn unique_name(tag: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    // Relaxed: only the uniqueness of the returned number matters.
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("/spanring-test-{tag}-{}-{n}", std::process::id())
}

/// Removes a named object when the test ends, passed or failed.
struct Unlink(String);
impl Drop for Unlink {
    fn drop(&mut self) {
        let _ = Segment::<u8>::unlink(&self.0);
    }
}

#[path = "support/process.rs"]
mod process;
use process::{in_child, Exit};

/// The header page's bytes as a mapping shows them.
fn header_of<T>(map: &spanring_std::shared::SegmentMapping<T>) -> Header {
    let mut bytes = [0u8; HEADER_LEN];
    // SAFETY: the header page is mapped readable, at least HEADER_LEN bytes; nobody writes it
    // after creation.
    unsafe {
        core::ptr::copy_nonoverlapping(map.header().as_ptr(), bytes.as_mut_ptr(), HEADER_LEN)
    };
    Header::from_bytes(&bytes).unwrap()
}

fn mode_of(fd: impl AsFd) -> libc::mode_t {
    let mut stat = core::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `fd` is open; `stat` is writable memory for one `stat`.
    let rc = unsafe { libc::fstat(fd.as_fd().as_raw_fd(), stat.as_mut_ptr()) };
    assert_eq!(rc, 0);
    // SAFETY: fstat returned 0.
    let mode: libc::mode_t = unsafe { stat.assume_init() }.st_mode;
    mode & 0o7777
}

/// Writes `0, 1, 2, …` into the first `n` items of a writer mapping.
fn fill(map: &spanring_std::shared::SegmentMapping<u64>, n: usize) {
    let data = map.data_mut().unwrap().as_ptr();
    for i in 0..n {
        // SAFETY: i < n <= capacity: inside the writable data mapping; this test is its only
        // writer.
        unsafe { data.add(i).write(i as u64 * 3 + 1) };
    }
}

/// The `u64` at the start of reader slot `slot`'s page.
fn slot_value<T>(map: &spanring_std::shared::SegmentMapping<T>, slot: u32) -> u64 {
    let page = map.slot(slot).unwrap().cast::<u64>().as_ptr();
    // SAFETY: every slot page is mapped readable in every role, 8-aligned.
    unsafe { page.read_volatile() }
}

/// Whether the first `n` items read `0, 1, 2, …` as `fill` wrote them, in both halves.
fn filled(map: &spanring_std::shared::SegmentMapping<u64>, n: usize) -> bool {
    let data = map.data().as_ptr();
    let cap = map.capacity();
    (0..n).all(|i| {
        // SAFETY: i < n <= capacity: inside the data mapping, and i + cap inside its second
        // half.
        let (a, b) = unsafe {
            (
                data.add(i).read_volatile(),
                data.add(i + cap).read_volatile(),
            )
        };
        a == i as u64 * 3 + 1 && b == a
    })
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, shm_open, mmap and fork are foreign calls Miri cannot run
fn a_forked_child_attaches_by_descriptor_and_reads_what_the_creator_wrote() {
    let spec = spec::<u64>(1000, 2);
    let segment = Segment::create_with(&spec, |state| state.fill(0x5A)).unwrap();
    assert!(segment.is_sealed());
    assert_eq!(mode_of(&segment), 0o600);
    let writer = segment.map_writer().unwrap();
    fill(&writer, 100);
    let layout = *segment.layout();
    let fd_number = segment.as_fd().as_raw_fd();

    let exit = in_child(|| {
        // The child owns its copy of the descriptor (fork duplicated the table).
        // SAFETY: after fork, `fd_number` is this process's own descriptor of the segment, and
        // nothing else in the child owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(libc::dup(fd_number)) };
        let Ok(attached) = Segment::from_fd(fd, &spec) else {
            return 1;
        };
        if *attached.layout() != layout || !attached.is_sealed() {
            return 2;
        }
        let Ok(reader) = attached.map_reader(1) else {
            return 3;
        };
        if header_of(&reader) != Header::for_layout(&layout) {
            return 4;
        }
        if !filled(&reader, 100) {
            return 5;
        }
        // SAFETY: the state block holds 24 bytes the creator initialised before the magic.
        let state = unsafe { core::slice::from_raw_parts(reader.state().as_ptr(), 24) };
        if state.iter().any(|&b| b != 0x5A) {
            return 6;
        }
        // Its own cursor page is writable: the parent checks the value.
        // SAFETY: slot 1's page is this reader's, mapped read-write, 8-aligned.
        unsafe {
            reader
                .slot(1)
                .unwrap()
                .cast::<u64>()
                .as_ptr()
                .write_volatile(0xC0FFEE)
        };
        0
    });
    assert_eq!(exit, Exit::Code(0));
    // SAFETY: the child has exited; slot 1's page is mapped readable in the writer.
    let cursor = unsafe {
        writer
            .slot(1)
            .unwrap()
            .cast::<u64>()
            .as_ptr()
            .read_volatile()
    };
    assert_eq!(cursor, 0xC0FFEE);
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, shm_open, mmap and fork are foreign calls Miri cannot run
fn a_forked_child_opens_a_named_segment() {
    let name = unique_name("named");
    let _cleanup = Unlink(name.clone());
    let spec = spec::<[f32; 2]>(4096, 3);
    let segment = Segment::create_named(&name, &spec).unwrap();
    assert!(!segment.is_sealed(), "POSIX shm objects cannot be sealed");
    assert_eq!(mode_of(&segment), 0o600);
    // The name is taken: a second creation fails with EEXIST, and does not unlink the first.
    let again = Segment::create_named(&name, &spec).unwrap_err();
    assert_eq!(again.io_error().unwrap().raw_os_error(), Some(libc::EEXIST));
    let writer = segment.map_writer().unwrap();
    // SAFETY: item 7 is inside the writable data mapping; nothing else uses it yet.
    unsafe {
        writer
            .data_mut()
            .unwrap()
            .as_ptr()
            .add(7)
            .write([0.5, -0.25])
    };
    let layout = *segment.layout();

    let exit = in_child(|| {
        let Ok(opened) = Segment::open(&name, &spec) else {
            return 1;
        };
        if *opened.layout() != layout || opened.is_sealed() {
            return 2;
        }
        let Ok(reader) = opened.map_reader(2) else {
            return 3;
        };
        if header_of(&reader) != Header::for_layout(&layout) {
            return 4;
        }
        // SAFETY: item 7 is inside the readable data mapping.
        if unsafe { reader.data().as_ptr().add(7).read_volatile() } != [0.5, -0.25] {
            return 5;
        }
        // SAFETY: slot 2 is this reader's page, read-write, 8-aligned.
        unsafe {
            reader
                .slot(2)
                .unwrap()
                .cast::<u64>()
                .as_ptr()
                .write_volatile(77)
        };
        0
    });
    assert_eq!(exit, Exit::Code(0));
    assert_eq!(slot_value(&writer, 2), 77);
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, shm_open, mmap and fork are foreign calls Miri cannot run
fn resizing_the_sealed_memfd_fails_with_eperm_and_the_mapping_keeps_working() {
    let spec = spec::<u64>(512, 1);
    let segment = Segment::create(&spec).unwrap();
    let writer = segment.map_writer().unwrap();
    let reader = segment.map_reader(0).unwrap();
    let total = segment.layout().total;
    let fd = segment.as_fd().as_raw_fd();
    for len in [0, total / 2, total - 1, total + 1, total * 2] {
        // SAFETY: `fd` is the open segment descriptor; ftruncate only tries to resize it.
        let rc = unsafe { libc::ftruncate(fd, len as libc::off_t) };
        let err = std::io::Error::last_os_error();
        assert_eq!(rc, -1, "ftruncate to {len} succeeded on a sealed memfd");
        assert_eq!(err.raw_os_error(), Some(libc::EPERM), "ftruncate to {len}");
    }
    // More seals cannot be added (F_SEAL_SEAL), so nobody can lift the protection either.
    // SAFETY: fcntl on our open descriptor.
    let rc = unsafe { libc::fcntl(fd, libc::F_ADD_SEALS, libc::F_SEAL_WRITE) };
    assert_eq!(rc, -1);
    // The whole data region, up to its last item, is still there in both halves.
    let cap = writer.capacity();
    let data = writer.data_mut().unwrap().as_ptr();
    // SAFETY: items cap - 1 and 2 * cap - 1 are the last of each half, inside the mappings.
    unsafe {
        data.add(cap - 1).write(0xDEAD);
        assert_eq!(
            reader.data().as_ptr().add(2 * cap - 1).read_volatile(),
            0xDEAD
        );
    }
    assert!(Segment::from_fd(segment.as_fd().try_clone_to_owned().unwrap(), &spec).is_ok());
}

#[test]
// Not under ThreadSanitizer: its SEGV handler reports the fault and exits the child with an
// error code instead of letting it die by the signal that this test checks for.
#[cfg_attr(any(miri, spanring_tsan), ignore)]
fn a_write_through_a_readers_read_only_mappings_kills_it_and_changes_nothing() {
    let spec = spec::<u64>(512, 2);
    let segment = Segment::create(&spec).unwrap();
    let writer = segment.map_writer().unwrap();
    fill(&writer, writer.capacity());
    let reader = segment.map_reader(0).unwrap();
    assert_eq!(reader.role(), Role::Reader { slot: 0 });
    let cap = reader.capacity();
    // SAFETY: slot 1's page is mapped read-write in the writer, 8-aligned.
    unsafe { writer.slot(1).unwrap().cast::<u64>().as_ptr().write(5) };
    let header_before = header_of(&writer);

    // Each target: the data (first half, second half), the header, another reader's slot.
    let targets: [(&str, *mut u8); 4] = [
        (
            "data, first half",
            reader.data().as_ptr().wrapping_add(3).cast(),
        ),
        (
            "data, second half",
            reader.data().as_ptr().wrapping_add(cap + 3).cast(),
        ),
        ("header", reader.header().as_ptr()),
        ("another reader's slot", reader.slot(1).unwrap().as_ptr()),
    ];
    for (what, target) in targets {
        let exit = in_child(|| {
            // SAFETY: none, on purpose: `target` is inside a read-only mapping of this
            // process, and the write must fault (killing this child) before it lands.
            unsafe { target.cast::<u64>().write_volatile(0xBAD) };
            0 // reaching this means the write went through
        });
        assert_eq!(exit, Exit::Signal(libc::SIGSEGV), "write to the {what}");
    }
    assert!(filled(&writer, cap), "data changed");
    assert_eq!(header_of(&writer), header_before);
    assert_eq!(slot_value(&writer, 1), 5);
    // The control: the reader's own slot and the state block are writable.
    let exit = in_child(|| {
        // SAFETY: slot 0 and the state block are mapped read-write in this reader.
        unsafe {
            reader
                .slot(0)
                .unwrap()
                .cast::<u64>()
                .as_ptr()
                .write_volatile(1);
            reader.state().cast::<u64>().as_ptr().write_volatile(2);
        }
        0
    });
    assert_eq!(exit, Exit::Code(0));
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, shm_open, mmap and fork are foreign calls Miri cannot run
fn attaching_with_another_item_capacity_claim_mode_slots_or_state_is_a_typed_error() {
    let spec = spec::<u64>(1024, 2);
    let segment = Segment::create(&spec).unwrap();
    let attach =
        |s: &SegmentSpec<u64>| Segment::from_fd(segment.as_fd().try_clone_to_owned().unwrap(), s);
    // Same size, other type.
    let e = header_error(Segment::from_fd(
        segment.as_fd().try_clone_to_owned().unwrap(),
        &self::spec::<i64>(1024, 2),
    ));
    assert_eq!(
        e,
        HeaderError::ItemMismatch {
            expected: ItemIdentity::of::<i64>(),
            found: ItemIdentity::of::<u64>()
        }
    );
    let e = header_error(Segment::from_fd(
        segment.as_fd().try_clone_to_owned().unwrap(),
        &self::spec::<[f32; 2]>(1024, 2),
    ));
    assert!(matches!(e, HeaderError::ItemMismatch { .. }));
    let e = header_error(attach(&self::spec::<u64>(4096, 2)));
    assert_eq!(
        e,
        HeaderError::CapacityMismatch {
            expected: 4096,
            found: 1024
        }
    );
    let multi = SegmentSpec::<u64>::new(1024, 2, ClaimMode::MultiProducer, Layout::new::<State>());
    let e = header_error(attach(&multi));
    assert_eq!(
        e,
        HeaderError::ClaimMismatch {
            expected: ClaimMode::MultiProducer,
            found: ClaimMode::SingleProducer
        }
    );
    let e = header_error(attach(&self::spec::<u64>(1024, 3)));
    assert!(matches!(
        e,
        HeaderError::ReaderSlotsMismatch {
            expected: 3,
            found: 2
        }
    ));
    let other_state = SegmentSpec::<u64>::new(
        1024,
        2,
        ClaimMode::SingleProducer,
        Layout::new::<[u64; 4]>(),
    );
    assert!(matches!(
        header_error(attach(&other_state)),
        HeaderError::StateMismatch { .. }
    ));
    // A capacity that rounds to the segment's is the same capacity; "any" accepts any.
    assert!(attach(&self::spec::<u64>(1000, 2)).is_ok());
    assert!(attach(&self::spec::<u64>(1, 9).any_capacity().any_reader_slots()).is_ok());
    // Named item identities must match by name.
    let named = self::spec::<u64>(1024, 2).item_name("sequence number");
    assert!(matches!(
        header_error(attach(&named)),
        HeaderError::ItemMismatch { .. }
    ));
    // Reader slots past the last do not map.
    assert!(matches!(
        segment.map_reader(2),
        Err(SharedError::NoSuchSlot {
            slot: 2,
            reader_slots: 2
        })
    ));
}

/// The header error of a refused attach.
fn header_error<T: std::fmt::Debug>(r: Result<Segment<T>, SharedError>) -> HeaderError {
    match r {
        Err(SharedError::Header(e)) => e,
        other => panic!("expected a header error, got {other:?}"),
    }
}

/// A named object made by hand (no header, or a corrupt one), as a crashed or foreign creator
/// would leave it.
fn raw_named(name: &str, len: usize, contents: &[u8]) -> OwnedFd {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: `c` is NUL-terminated; O_EXCL creates a new object.
    let raw = unsafe {
        libc::shm_open(
            c.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
            0o600,
        )
    };
    assert!(raw >= 0, "shm_open: {}", std::io::Error::last_os_error());
    // SAFETY: shm_open just returned it.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: resizing our own new object.
    assert_eq!(unsafe { libc::ftruncate(raw, len as libc::off_t) }, 0);
    let mut file = std::fs::File::from(fd.try_clone().unwrap());
    std::io::Write::write_all(&mut file, contents).unwrap();
    fd
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, shm_open, mmap and fork are foreign calls Miri cannot run
fn unready_truncated_and_corrupt_objects_are_refused_with_typed_errors() {
    let spec = spec::<u64>(512, 1);
    let open = |name: &str| match Segment::open(name, &spec) {
        Err(SharedError::Header(e)) => e,
        other => panic!("expected a header error, got {other:?}"),
    };
    // Created but not sized yet.
    let empty = unique_name("empty");
    let _u1 = Unlink(empty.clone());
    let _fd = raw_named(&empty, 0, &[]);
    assert_eq!(open(&empty), HeaderError::NotReady);
    // Sized, magic not stored yet.
    let zeroed = unique_name("zeroed");
    let _u2 = Unlink(zeroed.clone());
    let _fd = raw_named(&zeroed, 1 << 16, &[]);
    assert_eq!(open(&zeroed), HeaderError::NotReady);
    // Smaller than a header.
    let tiny = unique_name("tiny");
    let _u3 = Unlink(tiny.clone());
    let _fd = raw_named(&tiny, 10, &[1; 10]);
    assert!(matches!(
        open(&tiny),
        HeaderError::Truncated { len: 10, .. }
    ));
    // Not ours.
    let garbage = unique_name("garbage");
    let _u4 = Unlink(garbage.clone());
    let _fd = raw_named(&garbage, 1 << 16, &[0xAB; 4096]);
    assert!(matches!(open(&garbage), HeaderError::BadMagic { .. }));
    // A real segment whose name was truncated by another process (named objects have no
    // seals): the size no longer matches the header.
    let cut = unique_name("cut");
    let _u5 = Unlink(cut.clone());
    let segment = Segment::create_named(&cut, &spec).unwrap();
    let half = segment.layout().total / 2;
    // SAFETY: resizing the object through our own descriptor (what a careless process could do).
    let rc = unsafe { libc::ftruncate(segment.as_fd().as_raw_fd(), half as libc::off_t) };
    assert_eq!(rc, 0);
    assert!(matches!(open(&cut), HeaderError::ObjectSize { .. }));
    // Bad names never reach the system.
    for bad in ["", "noslash", "/", "/a/b", "/nul\0"] {
        assert_eq!(
            Segment::open(bad, &spec).unwrap_err(),
            SharedError::InvalidName
        );
    }
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, shm_open, mmap and fork are foreign calls Miri cannot run
fn a_named_creation_that_fails_or_panics_leaves_no_name_behind() {
    let spec = spec::<u64>(512, 1);
    let name = unique_name("panic");
    let _cleanup = Unlink(name.clone());
    let panicked = std::panic::catch_unwind(|| {
        let _ = Segment::create_named_with(&name, &spec, |_| panic!("init failed"));
    });
    assert!(panicked.is_err());
    let gone = Segment::open(&name, &spec).unwrap_err();
    assert_eq!(
        gone.io_error().unwrap().kind(),
        std::io::ErrorKind::NotFound
    );
    // The name is free again.
    let segment = Segment::create_named(&name, &spec).unwrap();
    assert!(Segment::open(&name, &spec).is_ok());
    drop(segment);
}
