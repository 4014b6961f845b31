//! # spanring
//!
//! The facade: re-exports [`spanring_core`] always and `spanring_std` under the `std` feature.
#![no_std]
#![warn(missing_docs)]

pub use spanring_core::*;

/// The std layer (double-mapped memory, thread-based waiting, owned buffers).
#[cfg(feature = "std")]
pub use spanring_std as std_ext;

/// README.md's code blocks run as doc-tests, so the README example cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
