//! Real processes for the shared-memory tests: fork a child that runs a closure and leaves
//! with `_exit`, wait for it, and a pipe for "ready" handshakes (no sleeps anywhere).

#![allow(dead_code)] // each test binary uses part of it

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// How a child ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

/// A forked child that has not been waited for.
#[derive(Debug)]
pub struct Child(libc::pid_t);

/// Forks a child that runs `child` and exits with its return value (101 if it panics). The
/// child leaves with `_exit` (no atexit handlers, no test harness in the child).
pub fn spawn(child: impl FnOnce() -> i32) -> Child {
    // SAFETY: fork has no preconditions; the child runs only `child` and then `_exits`, and
    // glibc's fork leaves the allocator usable in the child.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
    if pid == 0 {
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(child)).unwrap_or(101);
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { libc::_exit(code) };
    }
    Child(pid)
}

impl Child {
    /// The child's process id.
    pub fn pid(&self) -> libc::pid_t {
        self.0
    }

    /// Waits for the child to end.
    pub fn wait(self) -> Exit {
        let mut status = 0;
        loop {
            // SAFETY: waits for our own child; `status` is a valid out-pointer.
            let rc = unsafe { libc::waitpid(self.0, &mut status, 0) };
            if rc == self.0 {
                break;
            }
            let err = std::io::Error::last_os_error();
            assert_eq!(err.raw_os_error(), Some(libc::EINTR), "waitpid: {err}");
        }
        if libc::WIFSIGNALED(status) {
            Exit::Signal(libc::WTERMSIG(status))
        } else {
            Exit::Code(libc::WEXITSTATUS(status))
        }
    }
}

/// Runs `child` in a forked process and returns how it ended.
pub fn in_child(child: impl FnOnce() -> i32) -> Exit {
    spawn(child).wait()
}

/// A pipe: `(read end, write end)`.
pub fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid out-array of two descriptors.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", std::io::Error::last_os_error());
    // SAFETY: the kernel just returned these two descriptors to us.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

/// Writes one byte to `fd` (a "ready" signal).
pub fn signal(fd: &OwnedFd) {
    let byte = 1u8;
    // SAFETY: writes one byte from a live local to an open descriptor.
    let n = unsafe { libc::write(fd.as_raw_fd(), (&byte as *const u8).cast(), 1) };
    assert_eq!(n, 1, "write: {}", std::io::Error::last_os_error());
}

/// Blocks until one byte arrives on `fd`; `false` if the other end closed first.
pub fn await_signal(fd: &OwnedFd) -> bool {
    let mut byte = 0u8;
    loop {
        // SAFETY: reads at most one byte into a live local from an open descriptor.
        let n = unsafe { libc::read(fd.as_raw_fd(), (&mut byte as *mut u8).cast(), 1) };
        if n == 1 {
            return true;
        }
        if n == 0 {
            return false;
        }
        let err = std::io::Error::last_os_error();
        assert_eq!(err.raw_os_error(), Some(libc::EINTR), "read: {err}");
    }
}
