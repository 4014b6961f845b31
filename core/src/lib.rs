//! # spanring-core
//!
//! Lock-free, allocation-free broadcast ring buffers for moving data between threads, or
//! between an interrupt handler and a main loop, in `#![no_std]`.
//!
//! ```
//! use spanring_core::{Ring, SliceStorage};
//!
//! let mut memory = [0u32; 64]; // any memory: a stack array, a static, a DMA region
//! let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
//! let mut reader = ring.reader().unwrap(); // sees everything published from now on
//! let mut writer = ring.writer().unwrap();
//!
//! writer.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]); // published on drop
//! let span = reader.try_read(16).unwrap(); // consumed on drop
//! assert_eq!(span.iter().sum::<u32>(), 6);
//! ```
//!
//! ## The model
//!
//! - A [`Ring`] holds `capacity` initialised slots of `T` in memory the caller provides
//!   ([`SliceStorage`], [`InlineStorage`], or `spanring-std`'s heap and double-mapped
//!   storage). Cursors are positions in an infinite stream, stored in `usize` and correct across
//!   its wrap-around, for any capacity (powers of two take a mask fast path).
//! - **Writers** reserve spans: [`Writer::try_reserve`] never waits (usable in an interrupt
//!   handler), [`Writer::reserve`] waits through the ring's [`WaitStrategy`]. A [`WriteSpan`]
//!   gives `&mut` access to exactly the reserved slots and *publishes* them when dropped, or
//!   only a prefix with [`WriteSpan::publish`]. [`SingleProducer`] rings (the default) have one
//!   unique writer and no CAS; [`MultiProducer`] rings let any number of writers (the first
//!   attached, the rest cloned from it) claim ranges with a CAS (a plain store while a writer
//!   is alone) and publish out of order through one record word a slot. One item at a time:
//!   [`Writer::try_push`] / [`Writer::push`] and [`Reader::try_pop`] / [`Reader::pop`].
//! - **Readers** are broadcast: each attached [`Reader`] sees every item published after it
//!   attached, in order, at its own pace. A [`ReadSpan`] shows at most what is published and
//!   *consumes* it when dropped (or a prefix, [`ReadSpan::consume`]). Writers wait for the
//!   slowest attached reader; readers attach and detach while the ring runs (at most
//!   `READERS`), and a dropped reader never stalls writers.
//! - Who may call what, from where: a handle (`Writer`, `Reader`) is used by one thread at a
//!   time (methods take `&mut self`) and can be sent to another thread when `T: Send + Sync`;
//!   the ring itself is shared (`&Ring`, or `Arc<Ring>` via [`Writer::attach`] /
//!   [`Reader::attach`]). In an interrupt handler use only `try_*` calls.
//! - Dropping the last writer closes the ring: readers drain what is left, then get
//!   [`ReadError::Closed`]. [`Ring::close`] closes it explicitly (writers then get
//!   [`ReserveError::Closed`]).
//!
//! ## A `static` ring on an embedded target
//!
//! No allocator, no initialisation code: [`Ring::new_inline`] is `const`.
//!
//! ```
//! use spanring_core::{InlineStorage, Ring};
//!
//! static EVENTS: Ring<InlineStorage<u32, 16>> = Ring::new_inline([0; 16]);
//!
//! // main loop
//! let mut events = EVENTS.reader().unwrap();
//! // interrupt handler (here: called directly)
//! let mut irq_writer = EVENTS.writer().unwrap();
//! if let Ok(mut span) = irq_writer.try_reserve(1) {
//!     span[0] = 0xBEEF; // never waits: a full ring drops the event instead
//! }
//! assert_eq!(events.try_read(16).unwrap()[0], 0xBEEF);
//! ```
//!
//! ## Scoped threads on std
//!
//! ```
//! use spanring_core::sync::AtomicUsize;
//! use spanring_core::{multi_words, Ring, SliceStorage};
//!
//! let mut memory = vec![0u64; 1024];
//! let mut bits: Vec<AtomicUsize> = (0..multi_words(1024)).map(|_| AtomicUsize::new(0)).collect();
//! let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut bits[..]).unwrap();
//! let readers: Vec<_> = (0..2).map(|_| ring.reader().unwrap()).collect();
//! let writers = vec![ring.writer().unwrap(); 2]; // the first writer and a clone
//! std::thread::scope(|s| {
//!     for (id, mut w) in writers.into_iter().enumerate() {
//!         s.spawn(move || {
//!             for i in 0..1000u64 {
//!                 w.reserve(1).unwrap()[0] = (id as u64) << 32 | i;
//!             }
//!         }); // the last writer dropped closes the ring
//!     }
//!     for mut r in readers {
//!         s.spawn(move || {
//!             let mut count = 0;
//!             while let Ok(span) = r.read(64) {
//!                 count += span.len();
//!             }
//!             assert_eq!(count, 2000); // every reader sees every item
//!         });
//!     }
//! });
//! ```
//!
//! ## Features and targets
//!
//! - `std` (off by default; implies `alloc`): a [`WriteSpan`] dropped during a panic publishes
//!   nothing, and [`BusySpin`] and [`Backoff`] implement [`WaitTimeout`] (they need a clock).
//!   The crate stays `#![no_std]` and allocation-free with it.
//! - `alloc` (off by default): handles may hold their ring through `Arc`, `Rc` or `Box`
//!   ([`RingRef`](parts::RingRef)); the core itself never allocates.
//! - Atomics come from `portable-atomic` through [`sync`]. On targets without CAS
//!   (thumbv6m, riscv32i) enable portable-atomic's `critical-section` feature (and provide an
//!   implementation) or its `unsafe-assume-single-core` cfg: this crate never enables either
//!   for you. No 64-bit atomics are used. See `targets.md` in the repository.
//!
//! ## Where the rest lives
//!
//! The crate root holds what a user types in the first hour: the ring, its storage, the
//! handles and spans, the errors and the common waits. The rest is in modules:
//! [`wait`] (wait strategies and their contract), [`asynch`] (futures and the waker
//! registry), [`storage`] (the caller-memory contract), [`handle`] (traits generic over
//! handles), [`iter`] (reader and span iterators), [`callback`] (the in-place callback slot),
//! [`bitset`] (the atomic bitset), [`parts`] (cursor arithmetic, padding, the reader registry:
//! the building blocks), and [`sync`] (the atomics every part uses, for record storage).
//!
//! The protocol itself is not public; in the source, the multi-producer claim is in
//! `src/protocol/multi.rs`, the single-producer claim in `src/protocol/single.rs`, reading in
//! `src/protocol/read.rs`.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(docsrs, doc(auto_cfg(hide(spanring_loom, spanring_tsan))))]
#![warn(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    rust_2018_idioms
)]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(any(test, spanring_loom, feature = "std"))]
extern crate std;

// Loom is an optional dependency (so that users' lockfiles do not list it): the cfg alone
// would fail later with an unresolved `loom`.
#[cfg(all(spanring_loom, not(feature = "__loom")))]
compile_error!("`--cfg spanring_loom` needs the `__loom` feature: run the models with ci/loom.sh");

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod sync;

mod sequence;

mod builder;
mod cache_padded;
mod claim;
mod error;
mod fill;
pub mod handle;
mod inline_ring;
mod internal;
mod layout;
mod pacing;
mod protocol;
mod reader;
mod reader_iter;
mod readers;
mod record_words;
mod ring;
mod ring_ref;
mod span_iter;
mod span_release;
pub mod storage;
mod two_slices;
pub mod wait;
mod writer;
mod writers;

// The names of the first hour: the ring, its storage, the handles and spans, the errors and
// the common waits. Everything else lives in a named module below.
pub use asynch::AsyncWait;
pub use claim::{multi_words, ClaimMode, MultiProducer, SingleProducer};
pub use error::{
    AttachError, CapacityError, FillError, PushError, ReadError, ReopenError, ReserveError,
};
pub use reader::ReadSpan;
pub use reader::Reader;
pub use ring::Ring;
pub use span_release::SpanRelease;
pub use storage::{InlineStorage, SliceStorage, Storage};
pub use wait::{Backoff, BusySpin, WaitStrategy, WaitTimeout};
pub use writer::WriteSpan;
pub use writer::Writer;

/// Iterators: over a reader's items ([`IntoIter`](iter::IntoIter) from `for x in reader`,
/// [`Iter`](iter::Iter) from `for x in &mut reader`, [`TryIter`](iter::TryIter) from
/// `reader.try_iter()`) and over a span's items ([`SpanIter`](iter::SpanIter),
/// [`SpanIterMut`](iter::SpanIterMut)).
///
/// ```
/// use spanring_core::iter::TryIter;
/// use spanring_core::{InlineStorage, Ring};
/// let ring = Ring::new(InlineStorage::new([0u8; 4])).unwrap();
/// let mut r = ring.reader().unwrap();
/// ring.writer().unwrap().try_push(1).unwrap();
/// let items: TryIter<'_, _> = r.try_iter();
/// assert_eq!(items.collect::<Vec<_>>(), [1]);
/// ```
pub mod iter {
    pub use crate::reader_iter::{IntoIter, Iter, TryIter};
    pub use crate::span_iter::{SpanIter, SpanIterMut};
}

/// The building blocks the ring is made of, for code that builds on them: cursor arithmetic
/// ([`Layout`](parts::Layout)), the padded atomic cursor ([`Sequence`](parts::Sequence),
/// [`CachePadded`](parts::CachePadded)), the reader registry, the record storage of a
/// multi-producer ring ([`RecordWords`](parts::RecordWords)), and the traits handles are
/// generic over ([`RingCore`](parts::RingCore), [`RingRef`](parts::RingRef)).
///
/// ```
/// use spanring_core::parts::CachePadded;
/// let padded = CachePadded::new(7u32);
/// assert_eq!(*padded, 7);
/// ```
pub mod parts {
    pub use crate::builder::BuildClaimMode;
    pub use crate::builder::RingBuilder;
    pub use crate::cache_padded::CachePadded;
    pub use crate::layout::Layout;
    pub use crate::readers::{ReaderRegistry, Registry};
    pub use crate::record_words::RecordWords;
    pub use crate::ring::GenericRing;
    pub use crate::ring::RingCore;
    pub use crate::ring_ref::{RingPtr, RingRef};
    pub use crate::sequence::{earlier, is_before, is_before_or_eq, signed_distance, Sequence};
}

/// Whether the current thread is unwinding from a panic (always `false` without `std`, where
/// there is no way to ask; no_std targets normally abort on panic).
#[inline]
pub(crate) fn panicking() -> bool {
    #[cfg(feature = "std")]
    {
        std::thread::panicking()
    }
    #[cfg(not(feature = "std"))]
    {
        false
    }
}

pub mod bitset;

pub mod callback;

pub mod asynch;
