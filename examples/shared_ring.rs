//! A ring shared by processes: one writer process, reader processes that attach by name or
//! inherit the ring across `fork`.
//!
//! Two terminals (unrelated processes, by name):
//!
//! ```text
//! cargo run --example shared_ring -- write /spanring-demo   # creates the ring, writes
//! cargo run --example shared_ring -- read /spanring-demo    # attaches, reads, checks
//! ```
//!
//! The writer creates the ring under the name, waits for a reader to attach, writes 10^7
//! counter values (spans of up to 256, waiting for room), then closes; the reader checks that
//! it saw each value once and in order from where it attached. Start as many readers as you
//! like (up to 4 at once); kill one (Ctrl-C, `kill -9`) and the writer goes on once it notices
//! (every 100 ms by default); kill the writer and start it again: it takes the ring over.
//!
//! Without arguments (what CI runs): the fork demo. The writer creates an anonymous ring,
//! forks two reader processes that inherit it, writes, closes, and checks how each child
//! ended.

use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

use spanring::std_ext::shared::{Role, Segment, SharedRing};
use spanring::ReadError;

type Ring = SharedRing<u64, 4>;
const ITEMS: u64 = 10_000_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["write", name] => write_named(name),
        ["read", name] => {
            let ring = Ring::open(name, Role::Reader { slot: 0 }).expect("open the ring");
            let (seen, first) = read(&ring);
            println!("read {seen} items in order, from {first}");
        }
        [] => fork_demo(),
        _ => eprintln!("usage: shared_ring [write NAME | read NAME]"),
    }
}

/// Writes `ITEMS` counter values in spans, then closes the ring.
fn write(ring: &Ring) {
    let mut writer = ring.writer().expect("the writer");
    let start = Instant::now();
    let mut next = 0u64;
    while next < ITEMS {
        let n = 256.min(ITEMS - next) as usize;
        let mut span = writer.reserve(n).expect("room");
        for (i, slot) in span.as_mut_slice().iter_mut().enumerate() {
            *slot = next + i as u64;
        }
        drop(span); // published
        next += n as u64;
    }
    drop(writer);
    ring.ring().close();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "wrote {ITEMS} items in {secs:.3} s ({:.1} M/s)",
        ITEMS as f64 / secs / 1e6
    );
}

/// Reads until the ring closes; checks every value follows the one before. Returns how many
/// it read and the first.
fn read(ring: &Ring) -> (u64, u64) {
    let mut reader = ring.reader().expect("a reader slot");
    let (mut seen, mut first) = (0u64, None);
    loop {
        match reader.read(4096) {
            Ok(span) => {
                for &x in span.as_slice() {
                    let want = *first.get_or_insert(x) + seen;
                    assert_eq!(x, want, "lost, repeated or reordered");
                    seen += 1;
                }
            }
            Err(ReadError::Closed) => break,
            Err(e) => panic!("read: {e}"),
        }
    }
    (seen, first.unwrap_or(0))
}

fn write_named(name: &str) {
    let ring = match Ring::create_named(name, 1 << 16) {
        Ok(ring) => ring,
        // Already there (a writer before us died): take it over.
        Err(_) => Ring::open(name, Role::Writer).expect("create or open the ring"),
    };
    println!("ring {name}: waiting for a reader (cargo run --example shared_ring -- read {name})");
    while ring.ring().reader_count() == 0 {
        std::thread::sleep(std::time::Duration::from_millis(50)); // a human starts the reader
    }
    write(&ring);
    Segment::<u64>::unlink(name).expect("remove the name");
}

fn fork_demo() {
    let ring = Ring::create(1 << 16).expect("create the ring");
    let fd = ring.as_fd().as_raw_fd();
    let mut children = Vec::new();
    let (ready_r, ready_w) = pipe();
    for _ in 0..2 {
        // SAFETY: fork has no preconditions; the child only attaches, reads and `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            // SAFETY: after fork, `fd` is this process's own copy of the ring's descriptor.
            let fd = unsafe { OwnedFd::from_raw_fd(libc::dup(fd)) };
            let ring = Ring::from_fd(fd, Role::Reader { slot: 0 }).expect("attach");
            let code = std::panic::catch_unwind(|| {
                let mut reader = ring.reader().expect("a reader slot");
                // SAFETY: writes one byte from a local to the pipe's write end.
                unsafe { libc::write(ready_w.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
                let mut expect = 0u64;
                while let Ok(span) = reader.read(4096) {
                    for &x in span.as_slice() {
                        assert_eq!(x, expect);
                        expect += 1;
                    }
                }
                i32::from(expect != ITEMS)
            })
            .unwrap_or(101);
            // SAFETY: ends the child without the parent's exit handlers.
            unsafe { libc::_exit(code) };
        }
        children.push(pid);
    }
    drop(ready_w);
    for _ in 0..children.len() {
        let mut byte = 0u8;
        // SAFETY: reads one byte into a local from the pipe's read end.
        let n = unsafe { libc::read(ready_r.as_raw_fd(), (&mut byte as *mut u8).cast(), 1) };
        assert_eq!(n, 1, "a reader process did not attach");
    }
    write(&ring);
    for pid in children {
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "a reader failed"
        );
    }
    println!("2 reader processes each read {ITEMS} items once and in order");
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid out-array of two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the kernel just returned these descriptors to us.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}
