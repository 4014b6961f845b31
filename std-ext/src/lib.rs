//! # spanring-std
//!
//! The std layer of spanring: double-mapped memory, thread-based waiting, owned buffers.
//!
//! - Memory: [`DoubleMapped`] (POSIX: every span contiguous, see its capacity rule) and
//!   [`HeapStorage`] (portable owned slots). Both implement core's `Storage`.
//! - Waiting: [`YieldWait`], [`SleepWait`], [`BlockingWait`] (parks threads; on Linux a futex,
//!   [`FutexWait`], elsewhere [`CondvarWait`]) and [`HybridWait`] (spins, yields up to 50 µs,
//!   then parks: the owned buffers' default). All implement core's `WaitStrategy` and
//!   `WaitTimeout`.
//! - Owned buffers: [`owned`] builds a ring over memory it allocates (or maps) itself, behind
//!   an `Arc`, and hands out `'static`, `Send` handles ([`OwnedWriter`], [`OwnedReader`]) for
//!   `std::thread::spawn`; the buffer closes when every writer, or every reader handle, is gone.
//!
//! ```
//! use std::time::Duration;
//! use spanring_std::{BlockingWait, DoubleMapped};
//! use spanring_std::core_api::{Storage, WaitStrategy, WaitTimeout};
//!
//! let memory = DoubleMapped::<f32>::new(4096)?;
//! assert!(memory.capacity() >= 4096);
//!
//! let wait = BlockingWait::new();
//! wait.notify_all(); // nobody waits: no syscall
//! assert!(!wait.wait_until_timeout(&mut || false, Duration::from_millis(1)));
//! # Ok::<(), spanring_std::MapError>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(docsrs, doc(auto_cfg(hide(spanring_loom, spanring_tsan))))]
#![warn(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    rust_2018_idioms
)]
#![deny(unsafe_op_in_unsafe_fn)]

pub use spanring_core as core_api;

mod heap;
#[cfg(unix)]
mod mmap;
pub mod owned;
#[cfg(all(target_os = "linux", target_has_atomic = "64", not(spanring_loom)))]
pub mod shared;
mod sync;
mod wait;

pub use heap::{EmptyStorage, HeapStorage};
#[cfg(unix)]
pub use mmap::{BackingLimit, DoubleMapped, MapError, MapStep, Zeroable};
pub use owned::{OwnedMultiProducer, OwnedReader, OwnedWriter, Subscriber};
#[cfg(all(any(target_os = "linux", target_os = "android"), not(spanring_loom)))]
pub use wait::FutexWait;
pub use wait::{BlockingWait, CondvarWait, HybridWait, SleepWait, YieldWait};

// Thread-safety of the public types, checked at compile time.
static_assertions::assert_impl_all!(HeapStorage<u8>: Send, Sync);
static_assertions::assert_not_impl_any!(HeapStorage<std::rc::Rc<u8>>: Send, Sync);
// Readers on several threads hold `&T` to one item at once: `Sync` needs `T: Sync`.
static_assertions::assert_impl_all!(HeapStorage<std::cell::Cell<u8>>: Send);
static_assertions::assert_not_impl_any!(HeapStorage<std::cell::Cell<u8>>: Sync);
#[cfg(unix)]
static_assertions::assert_impl_all!(DoubleMapped<u8>: Send, Sync);
#[cfg(unix)]
static_assertions::assert_not_impl_any!(DoubleMapped<*const u8>: Send, Sync);
#[cfg(unix)]
static_assertions::assert_not_impl_any!(DoubleMapped<std::cell::Cell<u8>>: Sync);
// Owned handles move into `std::thread::spawn` threads; not for items that are not `Sync`.
static_assertions::assert_impl_all!(OwnedWriter<HeapStorage<u8>>: Send);
static_assertions::assert_impl_all!(OwnedReader<HeapStorage<u8>>: Send);
static_assertions::assert_impl_all!(OwnedWriter<HeapStorage<u8>, owned::OwnedMultiProducer>: Send, Clone);
static_assertions::assert_not_impl_any!(OwnedWriter<HeapStorage<u8>>: Clone);
static_assertions::assert_not_impl_any!(OwnedWriter<HeapStorage<std::cell::Cell<u8>>>: Send);
#[cfg(unix)]
static_assertions::assert_impl_all!(OwnedWriter<DoubleMapped<u8>, owned::OwnedMultiProducer>: Send);
static_assertions::assert_impl_all!(BlockingWait: Send, Sync);
static_assertions::assert_impl_all!(CondvarWait: Send, Sync);
static_assertions::assert_impl_all!(HybridWait: Send, Sync);
mod dispatcher;
pub use dispatcher::{Dispatcher, PostError, Poster, PosterKind, SpawnError, TryPostError};
static_assertions::assert_impl_all!(owned::Subscriber<HeapStorage<u8>>: Send, Sync, Clone);
