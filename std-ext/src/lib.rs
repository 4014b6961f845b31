//! # spanring-std
//!
//! The std layer of spanring: double-mapped memory, thread-based waiting, owned buffers.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub use spanring_core as core_api;
