//! Shared-memory segments for rings that several processes share.
//!
//! This module is the foundation of the cross-process ring: the memory object it lives in,
//! how it is laid out, how a process that attaches checks it, and how each process maps it.
//! The ring's protocol state itself is placed by the caller in the segment's state block.
//!
//! - [`Segment`] creates the object (a sealed memfd, or a named POSIX shared memory object for
//!   unrelated processes), opens it by name or takes it over from an inherited descriptor, and
//!   checks its header before anything else reads it.
//! - [`SegmentLayout`] places the parts, one pure function shared by creator and attachers:
//!   a header page, the protocol state block, one page per reader slot (its cursor), and the
//!   data region, a whole number of pages that is mapped twice back to back.
//! - [`Header`] is the `#[repr(C)]`, fixed-width, target-independent header; [`validate`]
//!   checks one as a pure function over bytes (under Miri and fuzzed in the tests), every
//!   failure a [`HeaderError`].
//! - [`SegmentMapping`] is a process's view: everything writable for the writer; for a reader
//!   only the state block and its own cursor page, the data read-only but still double-mapped.
//! - [`SharedItem`] marks the item types that may cross the process boundary (plain data),
//!   and [`ItemIdentity`] is how an attacher checks the segment holds its type.
//!
//! Why this shape: a process attaching to shared memory must not trust it (another process
//! may be older, foreign-endian, 32-bit, buggy or gone), must never see it half-initialised
//! (the creator stores the magic last, with `Release`), and must not be able to break the
//! others by accident (seals against resizing, read-only mappings for readers, owner-only
//! mode). Linux only: memfds and seals are Linux's (and Android's libc has no `shm_open`).
//!
//! ```
//! use core::alloc::Layout;
//! use std::os::fd::AsFd;
//! use spanring_std::shared::{ClaimMode, Segment, SegmentSpec};
//!
//! // The creator: 4096 `[f32; 2]` samples, 2 readers, a 256-byte protocol state.
//! let spec = SegmentSpec::<[f32; 2]>::new(4096, 2, ClaimMode::SingleProducer,
//!     Layout::from_size_align(256, 64).unwrap());
//! let segment = Segment::create(&spec)?;
//! let writer = segment.map_writer()?;
//!
//! // A reader (normally another process, given the descriptor): the same spec checks it.
//! let attached = Segment::from_fd(segment.as_fd().try_clone_to_owned().unwrap(), &spec)?;
//! let reader = attached.map_reader(0)?;
//! // SAFETY (example): item 0 is inside both mappings; nobody else accesses it.
//! unsafe {
//!     writer.data_mut().unwrap().as_ptr().write([1.0, -1.0]);
//!     assert_eq!(reader.data().as_ptr().read(), [1.0, -1.0]);
//! }
//! # Ok::<(), spanring_std::shared::SharedError>(())
//! ```

mod error;
mod header;
mod item;
mod layout;
mod owner;
mod relative;
mod ring;
mod segment;
mod spec;
mod validate;
mod view;

pub use error::{HeaderError, SharedError, SharedStep};
pub use header::{Header, ENDIAN_MARKER, FORMAT_VERSION, HEADER_LEN, MAGIC};
pub use item::{ItemIdentity, SharedItem};
pub use layout::{ClaimMode, Extent, LayoutError, SegmentLayout, SegmentPart, StateLayout};
pub use relative::RelativeStorage;
pub use ring::{SharedReader, SharedRing, SharedRingCore, SharedWait, SharedWriter};
pub use segment::Segment;
pub use spec::SegmentSpec;
pub use validate::{validate, Expected, HeaderInfo};
pub use view::{Role, SegmentMapping};

// Handles move between threads like any descriptor or mapping.
static_assertions::assert_impl_all!(Segment<u64>: Send, Sync);
static_assertions::assert_impl_all!(SegmentMapping<u64>: Send, Sync);
