//! # spanring-core
//!
//! Lock-free, allocation-free broadcast ring buffers for moving data between threads, or
//! between an interrupt handler and a main loop, in `#![no_std]`.
//!
//! (Crate-level examples and the model are in the ring module docs; see [`Ring`].)
#![no_std]
#![cfg_attr(docsrs, feature(doc_auto_cfg))]
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(any(test, spanring_loom, feature = "std"))]
extern crate std;

pub mod sync;

pub mod sequence;

mod cache_padded;
mod claim;
mod error;
mod holes;
mod layout;
mod read_span;
mod reader;
mod readers;
mod ring;
mod storage;
mod wait;
mod write_span;
mod writer;

pub use cache_padded::CachePadded;
pub use claim::{MultiProducer, Producer, SingleProducer};
pub use error::{AttachError, CapacityError, ReadError, ReserveError};
pub use holes::MAX_HOLES;
pub use layout::Layout;
pub use read_span::ReadSpan;
pub use reader::Reader;
pub use readers::ReaderRegistry;
pub use ring::{Ring, RingCore};
pub use sequence::Sequence;
pub use storage::{DoubleMappedStorage, InlineStorage, SliceStorage, Storage};
pub use wait::{Backoff, BusySpin, WaitStrategy, WaitTimeout};
pub use write_span::WriteSpan;
pub use writer::Writer;

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

mod bitset;
pub use bitset::{words_for, AtomicBitset, BitsetError};

mod callback;
pub use callback::{
    ByMut, ByRef, ByValue, CallError, CallbackArgs, CallbackKind, CallbackSlot, Local,
    SendCallbackSlot, Sendable, ThreadPolicy,
};
