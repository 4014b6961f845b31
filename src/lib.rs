//! # spanring
//!
//! The facade: re-exports [`spanring_core`] always and `spanring_std` under the `std` feature.
//! Everything public in the core (including [`PushError`] and [`FillError`]) is here by name.
//!
//! ```
//! use spanring::{FillError, PushError, ReadError, Ring, SliceStorage};
//! let mut memory = [0u32; 2];
//! let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
//! let mut reader = ring.reader().unwrap();
//! let mut writer = ring.writer().unwrap();
//! writer.try_push(1).unwrap();
//! writer.try_push(2).unwrap();
//! assert_eq!(writer.try_push(3), Err(PushError::Full(3))); // the item comes back
//! assert_eq!(reader.try_pop(), Ok(1));
//! assert_eq!(writer.try_reserve_with(1, |_| Err("no")), Err(FillError::Fill("no")));
//! assert_eq!(reader.try_read_all().unwrap().to_array::<1>(), Some([2]));
//! assert!(matches!(reader.try_pop(), Err(ReadError::Empty)));
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    rust_2018_idioms
)]

pub use spanring_core::*;

/// The std layer (double-mapped memory, thread-based waiting, owned buffers).
#[cfg(feature = "std")]
pub use spanring_std as std_ext;

/// README.md's code blocks run as doc-tests, so the README examples cannot go stale (with the
/// `std` feature: one of them uses the std layer).
#[cfg(all(doctest, feature = "std"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
