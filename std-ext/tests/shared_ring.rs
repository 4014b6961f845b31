//! The ring shared by processes, with real processes (fork): every item a writer process
//! publishes reaches every reader process exactly once and in order, through blocking waits on
//! both sides (the writer waits for room, readers for items, across processes on shared
//! futexes), and a close wakes a reader process that waits on an empty ring. Readiness is
//! signalled through pipes; nothing sleeps.

#![cfg(all(target_os = "linux", target_has_atomic = "64"))]

use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

use spanring_std::core_api::{AttachError, ReadError};
use spanring_std::shared::{Role, SharedError, SharedRing};

#[path = "support/process.rs"]
mod process;
use process::{await_signal, pipe, signal, spawn, Exit};

/// Items per run (a tenth under ThreadSanitizer, as the other stress tests).
fn items() -> u64 {
    let scale: u64 = std::env::var("SPANRING_STRESS_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    1_000_000 / scale
}

/// One page of `u64`: the writer laps the ring thousands of times and waits for room often.
const CAPACITY: usize = 512;

type Ring = SharedRing<u64, 4>;

/// The child's own copy of the descriptor `fd` had in the parent.
fn inherited(fd: i32) -> OwnedFd {
    // SAFETY: after fork the child has its own descriptor table with `fd` open (the parent's
    // segment); `dup` gives the child a descriptor nothing else owns.
    unsafe { OwnedFd::from_raw_fd(libc::dup(fd)) }
}

/// Child body: attaches as a reader (slot `slot`), says so on `ready`, then reads with
/// blocking reads until the ring closes. Exit 0 if it saw exactly `0..n` in order.
fn read_all(fd: i32, slot: u32, ready: &OwnedFd, n: u64) -> i32 {
    let Ok(ring) = Ring::from_fd(inherited(fd), Role::Reader { slot }) else {
        return 2;
    };
    let Ok(mut reader) = ring.reader() else {
        return 3;
    };
    signal(ready);
    let mut next = 0u64;
    loop {
        match reader.read(100) {
            Ok(span) => {
                for &x in span.as_slice() {
                    if x != next {
                        return 4; // lost, repeated or reordered
                    }
                    next += 1;
                }
            }
            Err(ReadError::Closed) => break,
            Err(_) => return 5,
        }
    }
    if next == n {
        0
    } else {
        6
    }
}

/// Writes `0..n` through `writer`: spans of varying length, and single pushes.
fn write_all(ring: &Ring, n: u64) {
    let mut writer = ring.writer().unwrap();
    let mut next = 0u64;
    let mut k = 1usize;
    while next < n {
        if k % 3 == 0 {
            writer.push(next).unwrap();
            next += 1;
        } else {
            let len = (k % 97).min((n - next) as usize).max(1);
            let mut span = writer.reserve(len).unwrap();
            for (i, slot) in span.as_mut_slice().iter_mut().enumerate() {
                *slot = next + i as u64;
            }
            drop(span);
            next += len as u64;
        }
        k += 1;
    }
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, mmap and fork are foreign calls Miri cannot run
fn a_reader_process_gets_every_item_once_and_in_order() {
    let n = items();
    let ring = Ring::create(CAPACITY).unwrap();
    let fd = ring.as_fd().as_raw_fd();
    let (ready_r, ready_w) = pipe();
    let child = spawn(|| read_all(fd, 0, &ready_w, n));
    drop(ready_w);
    assert!(await_signal(&ready_r), "the reader process did not attach");
    write_all(&ring, n);
    ring.ring().close();
    assert_eq!(child.wait(), Exit::Code(0));
    // The child's reader detached when it was dropped, in the child.
    assert_eq!(ring.ring().reader_count(), 0);
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, mmap and fork are foreign calls Miri cannot run
fn two_reader_processes_each_get_every_item() {
    let n = items();
    let ring = Ring::create(CAPACITY).unwrap();
    let fd = ring.as_fd().as_raw_fd();
    let (ready_r, ready_w) = pipe();
    let a = spawn(|| read_all(fd, 0, &ready_w, n));
    let b = spawn(|| read_all(fd, 1, &ready_w, n));
    drop(ready_w);
    assert!(await_signal(&ready_r) && await_signal(&ready_r));
    write_all(&ring, n);
    ring.ring().close();
    assert_eq!((a.wait(), b.wait()), (Exit::Code(0), Exit::Code(0)));
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, mmap and fork are foreign calls Miri cannot run
fn a_writer_process_feeds_a_reader_in_the_parent() {
    let n = items();
    let ring = Ring::create(CAPACITY).unwrap();
    let mut reader = ring.reader().unwrap();
    let fd = ring.as_fd().as_raw_fd();
    let child = spawn(|| {
        let Ok(ring) = Ring::from_fd(inherited(fd), Role::Writer) else {
            return 2;
        };
        write_all(&ring, n);
        ring.ring().close();
        0
    });
    let mut next = 0u64;
    loop {
        match reader.read(100) {
            Ok(span) => {
                for &x in span.as_slice() {
                    assert_eq!(x, next, "lost, repeated or reordered");
                    next += 1;
                }
            }
            Err(ReadError::Closed) => break,
            Err(e) => panic!("read: {e}"),
        }
    }
    assert_eq!(next, n);
    assert_eq!(child.wait(), Exit::Code(0));
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, mmap and fork are foreign calls Miri cannot run
fn a_close_wakes_a_reader_process_waiting_on_an_empty_ring() {
    let ring = Ring::create(CAPACITY).unwrap();
    let fd = ring.as_fd().as_raw_fd();
    let (ready_r, ready_w) = pipe();
    let child = spawn(|| read_all(fd, 0, &ready_w, 0));
    drop(ready_w);
    assert!(await_signal(&ready_r));
    // The child is attached and reads (or is about to wait) on an empty ring; only the close
    // can end its blocking read (it checks it saw nothing).
    ring.ring().close();
    assert_eq!(child.wait(), Exit::Code(0));
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, mmap and fork are foreign calls Miri cannot run
fn a_reader_process_cannot_take_the_writer_and_the_writer_is_one_for_all_processes() {
    let ring = Ring::create(CAPACITY).unwrap();
    let _writer = ring.writer().unwrap();
    let fd = ring.as_fd().as_raw_fd();
    let exit = process::in_child(|| {
        let reader_side = Ring::from_fd(inherited(fd), Role::Reader { slot: 0 }).unwrap();
        let writer_side = Ring::from_fd(inherited(fd), Role::Writer).unwrap();
        let refused = matches!(
            reader_side.writer(),
            Err(spanring_std::shared::SharedError::ReadOnlyRole)
        );
        let taken = matches!(
            writer_side.writer(),
            Err(spanring_std::shared::SharedError::Attach(
                spanring_std::core_api::AttachError::WriterTaken
            ))
        );
        i32::from(!(refused && taken))
    });
    assert_eq!(exit, Exit::Code(0));
}

/// Sends `signal` to `child`.
fn send(child: &process::Child, signal: i32) {
    // SAFETY: signals our own child, which has not been waited for (its pid is not reused).
    let rc = unsafe { libc::kill(child.pid(), signal) };
    assert_eq!(rc, 0, "kill: {}", std::io::Error::last_os_error());
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, mmap and fork are foreign calls Miri cannot run
fn a_reader_process_killed_holding_a_span_stops_holding_the_writer_back_a_stopped_one_does_not() {
    let ring = Ring::create(CAPACITY).unwrap();
    ring.set_liveness(std::time::Duration::from_millis(5));
    let mut writer = ring.writer().unwrap();
    let fd = ring.as_fd().as_raw_fd();
    let (ready_r, ready_w) = pipe();
    let (go_r, go_w) = pipe();
    let (never_r, never_w) = pipe();
    let child = spawn(|| {
        let Ok(shared) = Ring::from_fd(inherited(fd), Role::Reader { slot: 0 }) else {
            return 2;
        };
        let Ok(mut reader) = shared.reader() else {
            return 3;
        };
        signal(&ready_w); // attached
        await_signal(&go_r); // the first item is published
        let Ok(span) = reader.read(1) else {
            return 4;
        };
        signal(&ready_w); // holding a span at the first item
        await_signal(&never_r); // until killed
        drop(span);
        0
    });
    drop((ready_w, go_r, never_r));
    assert!(await_signal(&ready_r));
    writer.push(0).unwrap();
    signal(&go_w);
    assert!(await_signal(&ready_r));
    // The reader holds slot 0: the writer can fill the rest, then waits for it.
    for i in 1..CAPACITY as u64 {
        writer.try_push(i).unwrap();
    }
    // Alive, and then stopped: never evicted, however long the writer waits.
    let wait = std::time::Duration::from_millis(50);
    assert!(writer.reserve_timeout(1, wait).is_err());
    send(&child, libc::SIGSTOP);
    assert!(writer.reserve_timeout(1, wait).is_err());
    assert_eq!(ring.ring().reader_count(), 1);
    // Killed: within a liveness period the waiting writer frees its slot and goes on.
    send(&child, libc::SIGKILL);
    for i in 0..CAPACITY as u64 {
        writer.push(CAPACITY as u64 + i).unwrap();
    }
    assert_eq!(ring.ring().reader_count(), 0);
    assert_eq!(child.wait(), Exit::Signal(libc::SIGKILL));
    drop(never_w);
}

#[test]
#[cfg_attr(miri, ignore)] // memfd, mmap and fork are foreign calls Miri cannot run
fn a_writer_process_killed_mid_span_is_taken_over_and_nothing_is_delivered_twice() {
    const PUBLISHED: u64 = 300;
    const TOTAL: u64 = 500; // fits the ring: the parent reads after writing
    let ring = Ring::create(CAPACITY).unwrap();
    let mut reader = ring.reader().unwrap();
    let fd = ring.as_fd().as_raw_fd();
    let (ready_r, ready_w) = pipe();
    let (never_r, never_w) = pipe();
    let child = spawn(|| {
        let Ok(shared) = Ring::from_fd(inherited(fd), Role::Writer) else {
            return 2;
        };
        let Ok(mut writer) = shared.writer() else {
            return 3;
        };
        for i in 0..PUBLISHED {
            if writer.push(i).is_err() {
                return 4;
            }
        }
        let Ok(mut span) = writer.reserve(100) else {
            return 5;
        };
        span.fill(u64::MAX); // written, never published
        signal(&ready_w);
        await_signal(&never_r); // until killed
        drop(span);
        0
    });
    drop((ready_w, never_r));
    assert!(await_signal(&ready_r));
    // The writer process lives (running, then stopped): its writer is not taken over.
    let taken =
        |r: Result<_, SharedError>| matches!(r, Err(SharedError::Attach(AttachError::WriterTaken)));
    assert!(taken(ring.writer().map(drop)));
    send(&child, libc::SIGSTOP);
    assert!(taken(ring.writer().map(drop)));
    send(&child, libc::SIGKILL);
    assert_eq!(child.wait(), Exit::Signal(libc::SIGKILL));
    // Dead: the next process to ask takes the writer over, at the published cursor.
    let mut writer = ring
        .writer()
        .expect("the dead writer's writer is taken over");
    for i in PUBLISHED..TOTAL {
        writer.push(i).unwrap();
    }
    drop(writer);
    ring.ring().close();
    let mut next = 0u64;
    while let Ok(span) = reader.read(64) {
        for &x in span.as_slice() {
            assert_eq!(x, next, "the dead span shown, or an item lost or repeated");
            next += 1;
        }
    }
    assert_eq!(next, TOTAL);
    drop(never_w);
}
