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

#[cfg(any(test, spanring_loom))]
extern crate std;

pub mod sync;

mod cache_padded;
mod storage;
mod wait;

pub use cache_padded::CachePadded;
pub use storage::{InlineStorage, Storage};
pub use wait::{Backoff, BusySpin, WaitStrategy, WaitTimeout};

mod bitset;
pub use bitset::{words_for, AtomicBitset, BitsetError};
