//! Typed errors. Each implements `Display` and `core::error::Error` (so `std::error::Error`).

use core::fmt;

/// A capacity no ring can have.
///
/// ```
/// use spanring_core::{CapacityError, Layout};
/// assert_eq!(Layout::new(0), Err(CapacityError::Zero));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapacityError {
    /// Capacity 0.
    Zero,
    /// More slots than cursors have headroom for.
    TooLarge {
        /// What was asked for.
        capacity: usize,
        /// The largest supported capacity.
        max: usize,
    },
    /// The multi-producer record storage holds fewer words than the ring needs (one a slot,
    /// [`multi_words`](crate::multi_words)).
    BitsetTooSmall {
        /// Words needed (the capacity).
        needed: usize,
        /// Words the storage holds.
        available: usize,
    },
}

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Zero => f.write_str("ring capacity must be at least 1"),
            Self::TooLarge { capacity, max } => {
                write!(f, "ring capacity {capacity} exceeds the maximum {max}")
            }
            Self::BitsetTooSmall { needed, available } => write!(
                f,
                "multi-producer record storage holds {available} words but the ring needs {needed} (one a slot)"
            ),
        }
    }
}

impl core::error::Error for CapacityError {}

/// Why a writer could not reserve slots.
///
/// ```
/// use spanring_core::ReserveError;
/// let e = ReserveError::Full { free: 2 };
/// assert_eq!(e.to_string(), "ring full: only 2 slots free");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReserveError {
    /// Not enough free slots right now (`try_reserve` only): the slowest reader is behind.
    Full {
        /// Slots that were free.
        free: usize,
    },
    /// More slots than the ring has: no amount of waiting would help.
    TooLarge {
        /// Slots asked for.
        requested: usize,
        /// The ring's capacity.
        capacity: usize,
    },
    /// The ring was closed (explicitly, or because every reader handle of an owned buffer is
    /// gone): nothing more will be read.
    Closed,
    /// `reserve_timeout` gave up.
    TimedOut,
}

impl fmt::Display for ReserveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full { free } => write!(f, "ring full: only {free} slots free"),
            Self::TooLarge {
                requested,
                capacity,
            } => {
                write!(
                    f,
                    "cannot reserve {requested} slots in a ring of {capacity}"
                )
            }
            Self::Closed => f.write_str("ring closed"),
            Self::TimedOut => f.write_str("timed out waiting for free slots"),
        }
    }
}

impl core::error::Error for ReserveError {}

/// Why a reader got no items.
///
/// ```
/// use spanring_core::ReadError;
/// assert_eq!(ReadError::Closed.to_string(), "ring closed and drained");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Nothing published yet (`try_read` only).
    Empty,
    /// Every writer is gone (or the ring was closed) and this reader has read everything.
    Closed,
    /// `read_timeout` gave up.
    TimedOut,
    /// `read_exact` asked for more items than the ring can hold.
    TooLarge {
        /// Items asked for.
        requested: usize,
        /// The ring's capacity.
        capacity: usize,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("nothing to read"),
            Self::Closed => f.write_str("ring closed and drained"),
            Self::TimedOut => f.write_str("timed out waiting for items"),
            Self::TooLarge {
                requested,
                capacity,
            } => {
                write!(
                    f,
                    "cannot wait for {requested} items in a ring of {capacity}"
                )
            }
        }
    }
}

impl core::error::Error for ReadError {}

/// Why a handle could not be created.
///
/// ```
/// use spanring_core::AttachError;
/// assert_eq!(AttachError::TooManyReaders { max: 4 }.to_string(), "all 4 reader slots are taken");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachError {
    /// The fixed-capacity reader registry is full.
    TooManyReaders {
        /// The registry's capacity (the ring's `READERS` parameter).
        max: usize,
    },
    /// A single-producer ring has exactly one writer, and it was already taken.
    WriterTaken,
}

impl fmt::Display for AttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooManyReaders { max } => write!(f, "all {max} reader slots are taken"),
            Self::WriterTaken => f.write_str("the single-producer writer was already taken"),
        }
    }
}

impl core::error::Error for AttachError {}
