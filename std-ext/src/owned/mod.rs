//! Owned buffers: the ring allocates (or maps) its own memory and lives in an `Arc`, so writer
//! and reader handles are `'static` and `Send` and can move into [`std::thread::spawn`].
//!
//! ```
//! use spanring_std::owned;
//! use spanring_std::core_api::ReadError;
//!
//! let (mut writer, mut reader) = owned::portable::<u32>(64).build()?;
//! let consumer = std::thread::spawn(move || {
//!     let mut sum = 0;
//!     loop {
//!         match reader.read(16) {
//!             Ok(items) => sum += items.iter().sum::<u32>(),
//!             Err(ReadError::Closed) => return sum, // writer gone, everything drained
//!             Err(e) => panic!("{e}"),
//!         }
//!     }
//! });
//! for i in 0..1000 {
//!     writer.reserve(1)?.fill(i); // waits (parks) while the reader is behind
//! }
//! drop(writer); // the last writer closes the ring
//! assert_eq!(consumer.join().unwrap(), 999 * 1000 / 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Choosing a variant
//!
//! Everything is chosen by type, through the [`Buffer`] builder:
//!
//! | call                                   | memory                                   | producers |
//! |----------------------------------------|------------------------------------------|-----------|
//! | [`portable::<T>(n)`](portable)         | [`HeapStorage`], any `T: Default`        | one       |
//! | `portable::<T>(n).multi_producer()`    | same, plus a `multi_words(n)`-word bitset  | many      |
//! | [`mapped::<T>(n)`](mapped) (unix)      | [`DoubleMapped`](crate::DoubleMapped), `T: Copy + Zeroable`, contiguous spans | one |
//! | `mapped::<T>(n).multi_producer()`      | same, plus the bitset                    | many      |
//!
//! Further knobs: [`Buffer::wait`] (default [`HybridWait`]: blocked threads spin, yield up to
//! 50 µs, then park),
//! [`Buffer::readers`] (how many readers may be attached at once, default 4) and
//! [`Buffer::start_at`] (first cursor, for wrap-around tests).
//!
//! # Handles and closing
//!
//! [`Buffer::build`] returns one [`OwnedWriter`] (the core [`Writer`] over an
//! `Arc<Ring>`; cloneable on multi-producer buffers) and one [`OwnedReader`] attached at the
//! start, so it sees every item. More readers attach while running with
//! [`OwnedReader::subscribe`]; they see the items published after they attached.
//!
//! - When **every writer handle** is dropped the ring closes: readers drain what is left and
//!   then get [`ReadError::Closed`](spanring_core::ReadError::Closed).
//! - When **every reader-side handle** ([`OwnedReader`] or [`Subscriber`]) is dropped the
//!   ring closes too: writers get
//!   [`ReserveError::Closed`](spanring_core::ReserveError::Closed) instead of writing into a
//!   buffer nobody will read, and a writer blocked in `reserve` wakes up with it. Because
//!   `build` hands out the first reader and new readers are only made from a live one, the
//!   count never starts at, or comes back from, zero: there is no "no reader yet" window.
//!   Closing is final.
//!
//! - A [`Subscriber`] ([`OwnedReader::subscriber`]) keeps the buffer open and makes readers on
//!   demand without being one: a server whose clients come and go keeps a subscriber, and the
//!   writer only ever waits for the readers attached at the time.
//! - More writers of a multi-producer buffer are clones of a live one: the ring hands out
//!   only its first writer by attaching (`writer.ring().writer()` fails with
//!   [`AttachError::WriterTaken`](spanring_core::AttachError::WriterTaken) while one is
//!   alive). Attaching after the last writer was dropped fails with
//!   [`AttachError::Closed`](spanring_core::AttachError::Closed) (the last writer closed the
//!   ring, and closing is final); keep a writer for as long as more writers may come.
//!
//! Readers borrowed from the ring itself (`writer.ring().reader()`) are not reader handles in
//! this sense: they neither keep the buffer open nor close it.

mod builder;
mod reader;
mod subscriber;

use std::sync::Arc;

use spanring_core::sync::AtomicUsize;
use spanring_core::{MultiProducer, Ring, SingleProducer, Writer};

#[cfg(doc)]
use crate::HeapStorage;
use crate::HybridWait;

#[cfg(unix)]
pub use builder::mapped;
pub use builder::{portable, Buffer, BuildError, OwnedClaimMode, OwnedStorage};
pub use reader::OwnedReader;
pub use subscriber::Subscriber;

/// The multi-producer kind of owned buffers: out-of-order publication is tracked in a heap
/// bitset of [`multi_words`](spanring_core::multi_words)`(capacity)` words.
pub type OwnedMultiProducer = MultiProducer<Box<[AtomicUsize]>>;

/// The ring inside an owned buffer, shared by all its handles.
pub type SharedRing<S, P = SingleProducer, W = HybridWait, const READERS: usize = 4> =
    Arc<Ring<S, P, W, READERS>>;

/// A writer handle of an owned buffer: core's [`Writer`] over the shared ring, with its whole
/// API (`try_reserve`, `reserve`, `reserve_timeout`, `try_reserve_with`/`reserve_with`/
/// `reserve_with_timeout`, the one-item `try_push`/`push`/`push_timeout`, `free`, and
/// `reserve_async`/`reserve_with_async`/`push_async` with an async wait strategy). `'static`, and `Send` when the
/// item type is `Send + Sync`. On a multi-producer buffer it is `Clone`; dropping the last one
/// closes the ring.
pub type OwnedWriter<S, P = SingleProducer, W = HybridWait, const READERS: usize = 4> =
    Writer<SharedRing<S, P, W, READERS>>;
