//! The one door for synchronisation primitives in `spanring-std`, mirroring core's `sync`
//! module: real std types normally, [`loom`](https://docs.rs/loom) ones under
//! `--cfg spanring_loom` so the wait protocols can be model-checked unchanged.
//!
//! Atomics and fences come from `spanring_core::sync` (which switches to loom under the same
//! cfg). The one exception is the futex word, a real `AtomicU32` whose address goes to the
//! kernel; it lives in `wait/futex.rs`, which is not compiled under loom.

pub(crate) use spanring_core::sync::{fence, spin_loop, AtomicUsize, Ordering};

#[cfg(not(spanring_loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};

#[cfg(spanring_loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};

/// Gives up the rest of the time slice (a loom scheduling point under the model checker).
pub(crate) fn yield_now() {
    #[cfg(not(spanring_loom))]
    std::thread::yield_now();
    #[cfg(spanring_loom)]
    loom::thread::yield_now();
}
