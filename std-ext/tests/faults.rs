//! Faults a user of a trusted queue expects to be survivable: a writer or reader thread that
//! panics while holding a span, a writer that disappears mid-span (its span leaked, as if the
//! thread were killed), readers coming and going while the ring closes, and double-mapped
//! memory under memory pressure.

use std::thread;

use spanring_core::{ReadError, ReserveError};
use spanring_std::owned;
use spanring_std::owned::BuildError;
use spanring_std::{DoubleMapped, MapError};

/// A writer thread panics half-way through filling a span: that span publishes nothing (its
/// half-written slots are never seen), its handle drops during the unwind, and the other
/// writer's items all arrive, then `Closed`.
#[test]
fn writer_panicking_with_a_span_publishes_nothing() {
    let (w, mut r) = owned::portable::<u64>(64).multi_producer().build().unwrap();
    let mut healthy = w.clone();
    let doomed = thread::spawn(move || {
        let mut w = w;
        w.try_reserve(1).unwrap()[0] = 1; // published
        let mut span = w.try_reserve(4).unwrap();
        span[0] = 666;
        panic!("writer dies holding a span");
    });
    assert!(doomed.join().is_err());
    healthy.try_reserve(2).unwrap().copy_from_slice(&[2, 3]);
    drop(healthy);
    let mut got = Vec::new();
    loop {
        match r.try_read(64) {
            Ok(span) => got.extend(span.iter().copied()),
            Err(ReadError::Closed) => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(got, [1, 2, 3], "the dead writer's span must not be seen");
}

/// A reader thread panics while holding a read span: its handle detaches during the unwind,
/// so the writer is not stalled by it, and the other reader still sees everything.
#[test]
fn reader_panicking_with_a_span_does_not_stall_the_writer() {
    let (mut w, r) = owned::portable::<u64>(4).build().unwrap();
    let mut survivor = r.subscribe().unwrap();
    w.try_reserve(4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
    let doomed = thread::spawn(move || {
        let mut r = r;
        let _span = r.try_read(2).unwrap();
        panic!("reader dies holding a span");
    });
    assert!(doomed.join().is_err());
    assert_eq!(survivor.try_read(4).unwrap().len(), 4);
    // Only the survivor gates the writer now: the whole ring is free again.
    assert_eq!(w.try_reserve(4).map(|s| s.len()), Ok(4));
}

/// A writer that vanishes mid-span (the span leaked: a thread killed without unwinding): other
/// writers keep claiming until the ring is full, every `try_*` call returns at once, readers
/// never see the unpublished slots or anything after them, and — because the vanished span was
/// claimed before the close — readers never report `Closed` past it (documented: a claimed
/// span is never silently dropped).
#[test]
fn writer_vanishing_mid_span_blocks_only_what_follows_it() {
    let (w, mut r) = owned::portable::<u64>(8).multi_producer().build().unwrap();
    let mut other = w.clone();
    other.try_reserve(1).unwrap()[0] = 1;
    let vanished = thread::spawn(move || {
        let mut w = w;
        let span = w.try_reserve(2).unwrap();
        std::mem::forget(span);
        std::mem::forget(w); // the thread is gone; its handle never drops
    });
    vanished.join().unwrap();
    // Others keep claiming until capacity runs out (8 − 1 − 2 = 5 slots).
    other.try_reserve(5).unwrap().fill(7);
    assert!(matches!(
        other.try_reserve(1),
        Err(ReserveError::Full { free: 0 })
    ));
    assert_eq!(r.try_read(8).unwrap().to_array::<1>(), Some([1]));
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
    r.ring().close();
    assert_eq!(other.try_reserve(1).unwrap_err(), ReserveError::Closed);
    // Still `Empty`, not `Closed`: the vanished span was claimed before the close.
    assert_eq!(r.try_read(8).unwrap_err(), ReadError::Empty);
}

/// Readers attach and detach in a loop while writers publish and the ring closes: every
/// reader sees a gap-free run of the stream from where it attached, and a reader attached
/// after the close gets what is left, then `Closed`.
#[test]
fn readers_attaching_and_detaching_during_close() {
    const ITEMS: u64 = if cfg!(miri) { 100 } else { 20_000 };
    let (mut w, r) = owned::portable::<u64>(64).multi_producer().build().unwrap();
    let churn = {
        let mut base = r.subscribe().unwrap();
        thread::spawn(move || {
            let mut attaches = 0u64;
            let mut base_next = 0u64;
            loop {
                // The base reader keeps up (it gates the writer) and checks the whole stream.
                match base.try_read(64) {
                    Ok(span) => {
                        for &v in span.iter() {
                            assert_eq!(v, base_next, "the churn thread's base reader lost items");
                            base_next += 1;
                        }
                    }
                    Err(ReadError::Empty) => {}
                    Err(ReadError::Closed) => {
                        assert_eq!(base_next, ITEMS);
                        return attaches;
                    }
                    Err(e) => panic!("{e}"),
                }
                let Ok(mut fresh) = base.subscribe() else {
                    continue; // all reader slots busy for a moment
                };
                attaches += 1;
                let mut last: Option<u64> = None;
                for _ in 0..3 {
                    match fresh.try_read(8) {
                        Ok(span) => {
                            for &v in span.iter() {
                                if let Some(prev) = last {
                                    assert_eq!(v, prev + 1, "a reader saw a gap");
                                }
                                last = Some(v);
                            }
                        }
                        Err(ReadError::Empty) => thread::yield_now(),
                        Err(ReadError::Closed) => break, // the base reader finishes the check
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        })
    };
    let mut main_reader = r;
    let mut next_expected = 0u64;
    for i in 0..ITEMS {
        loop {
            match w.try_reserve(1) {
                Ok(mut span) => {
                    span[0] = i;
                    break;
                }
                Err(ReserveError::Full { .. }) => {
                    // Drain the main reader to make room.
                    if let Ok(span) = main_reader.try_read(64) {
                        for &v in span.iter() {
                            assert_eq!(v, next_expected);
                            next_expected += 1;
                        }
                    }
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
    main_reader.ring().close();
    drop(w);
    let attaches = churn.join().unwrap();
    assert!(attaches > 0);
    loop {
        match main_reader.try_read(64) {
            Ok(span) => {
                for &v in span.iter() {
                    assert_eq!(v, next_expected);
                    next_expected += 1;
                }
            }
            Err(ReadError::Closed) => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(next_expected, ITEMS, "the main reader lost items");
}

/// Double-mapped memory under memory pressure: in a child process whose address space is
/// limited (RLIMIT_AS), a mapping that does not fit is a typed error, not a crash; the owned
/// builder passes it on as `BuildError::Map`. The test re-runs its own binary as the child.
/// Not under ThreadSanitizer, whose shadow memory cannot live within such a limit, and only on
/// x86_64: the cross runs start binaries through a loader or qemu, which a re-executed child
/// would not get.
#[test]
#[cfg_attr(any(miri, spanring_tsan, not(target_arch = "x86_64")), ignore)]
fn mmap_under_memory_pressure_is_a_typed_error() {
    const CHILD: &str = "SPANRING_FAULTS_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let limit: libc::rlimit = libc::rlimit {
            rlim_cur: 256 << 20,
            rlim_max: 256 << 20,
        };
        // SAFETY: setrlimit with a valid pointer to an initialised struct; it only lowers this
        // (child) process's own address-space limit.
        let rc = unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
        assert_eq!(rc, 0, "setrlimit failed");
        // 512 MiB, mapped twice: far beyond the 256 MiB limit.
        let err = DoubleMapped::<u8>::new(512 << 20).unwrap_err();
        let want = MapError::CannotBack {
            bytes: 1 << 30, // both halves
            limit: 256 << 20,
            what: spanring_std::BackingLimit::AddressSpace,
        };
        assert_eq!(err, want);
        assert_eq!(
            DoubleMapped::<u8>::new_prefaulted(512 << 20).unwrap_err(),
            want
        );
        let built = owned::mapped::<u8>(512 << 20).build();
        assert!(matches!(built, Err(BuildError::Map(e)) if e == want));
        // Under the limit but too big once the process's own mappings count: the reservation
        // fails with ENOMEM, reported against the same limit.
        match DoubleMapped::<u8>::new(120 << 20) {
            Ok(_) | Err(MapError::CannotBack { .. }) => {}
            Err(e) => panic!("{e:?}"),
        }
        // A small ring still works under the same limit.
        let (mut w, mut r) = owned::mapped::<u8>(4096).build().unwrap();
        w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
        assert_eq!(r.try_read(8).unwrap().len(), 3);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "mmap_under_memory_pressure_is_a_typed_error",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}

/// A memory control group of its own for a child process, limited to `limit` bytes: the
/// directory, or `None` where this process may not make one (no cgroup fs, no permission).
fn limited_cgroup(limit: usize) -> Option<std::path::PathBuf> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut candidates = Vec::new();
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "memory") {
            candidates.push((
                std::path::Path::new("/sys/fs/cgroup/memory").join(path),
                "memory.limit_in_bytes",
            ));
        } else if controllers.is_empty() {
            candidates.push((
                std::path::Path::new("/sys/fs/cgroup").join(path),
                "memory.max",
            ));
        }
    }
    for (parent, file) in candidates {
        let dir = parent.join(format!("spanring-test-{}", std::process::id()));
        if std::fs::create_dir(&dir).is_err() {
            continue;
        }
        if std::fs::write(dir.join(file), limit.to_string()).is_ok() {
            return Some(dir);
        }
        let _ = std::fs::remove_dir(&dir);
    }
    None
}

/// Double-mapped memory under a memory limit (a control group of 256 MiB): a ring larger than
/// the limit is a typed error naming it, lazy or prefaulted, and a prefaulted ring that does
/// not fit in what the group has left is too; before those checks, the prefaulted request was
/// an OOM kill of the child. Skipped (with a note) where no control group can be made.
#[test]
#[cfg_attr(any(miri, spanring_tsan, not(target_arch = "x86_64")), ignore)]
fn mmap_under_a_memory_limit_is_a_typed_error() {
    const CHILD: &str = "SPANRING_CGROUP_CHILD";
    const LIMIT: usize = 256 << 20;
    if let Some(dir) = std::env::var_os(CHILD) {
        let dir = std::path::PathBuf::from(dir);
        std::fs::write(dir.join("cgroup.procs"), std::process::id().to_string())
            .expect("joining the test's control group");
        let lazy = DoubleMapped::<u8>::new(512 << 20).unwrap_err();
        assert!(
            matches!(lazy, MapError::CannotBack { bytes, limit, what: spanring_std::BackingLimit::MemoryLimit }
                if bytes == 512 << 20 && limit == LIMIT),
            "{lazy:?}"
        );
        let prefaulted = DoubleMapped::<u8>::new_prefaulted(300 << 20).unwrap_err();
        assert!(
            matches!(
                prefaulted,
                MapError::CannotBack {
                    what: spanring_std::BackingLimit::MemoryLimit,
                    ..
                }
            ),
            "{prefaulted:?}"
        );
        // Within the limit: lazy and prefaulted rings work.
        let lazy = DoubleMapped::<u8>::new(128 << 20).unwrap();
        drop(lazy);
        let (mut w, mut r) = owned::mapped::<u8>(16 << 20).prefault().build().unwrap();
        w.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
        assert_eq!(r.try_read(8).unwrap().len(), 3);
        return;
    }
    let Some(dir) = limited_cgroup(LIMIT) else {
        eprintln!("note: no memory control group could be made here; test skipped");
        return;
    };
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "mmap_under_a_memory_limit_is_a_typed_error",
            "--nocapture",
        ])
        .env(CHILD, &dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir(&dir);
    assert!(
        out.status.success(),
        "child failed ({:?}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}
