//! Typed errors. Each implements `Display` and `core::error::Error` (so `std::error::Error`).

use core::fmt;

/// A capacity no ring can have.
///
/// ```
/// use spanring_core::CapacityError;
/// use spanring_core::parts::Layout;
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

impl ReserveError {
    /// `true` only for [`Closed`](Self::Closed): no later call on this ring can succeed, so a
    /// loop should stop. `Full` and `TimedOut` pass (retry later); `TooLarge` is a wrong
    /// request, not the end of the ring (it is `false`: a smaller request may succeed).
    ///
    /// ```
    /// use spanring_core::ReserveError;
    /// assert!(ReserveError::Closed.is_terminal());
    /// assert!(!ReserveError::Full { free: 0 }.is_terminal());
    /// assert!(!ReserveError::TimedOut.is_terminal());
    /// ```
    #[inline]
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Closed)
    }
}

/// Why [`Writer::try_push`](crate::Writer::try_push) (or `push`, `push_timeout`) did not
/// store an item: the item comes back in every case, as with `rtrb`'s and crossbeam's push
/// errors. `Debug` shows the variant only (`Full(..)`), so `T` needs no `Debug`.
///
/// ```
/// use spanring_core::PushError;
/// let e = PushError::Full(7u8);
/// assert!(!e.is_terminal());
/// assert_eq!(e.to_string(), "ring full");
/// assert_eq!(e.into_inner(), 7);
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PushError<T> {
    /// No free slot right now (`try_push` only): the slowest reader is behind.
    Full(T),
    /// The ring is closed: no push will ever succeed again.
    Closed(T),
    /// `push_timeout` gave up.
    TimedOut(T),
}

impl<T> PushError<T> {
    /// The item that was not pushed.
    ///
    /// ```
    /// use spanring_core::PushError;
    /// assert_eq!(PushError::Closed("x").into_inner(), "x");
    /// ```
    #[inline]
    pub fn into_inner(self) -> T {
        match self {
            Self::Full(t) | Self::Closed(t) | Self::TimedOut(t) => t,
        }
    }

    /// `true` only for [`Closed`](Self::Closed) (as [`ReserveError::is_terminal`]).
    ///
    /// ```
    /// use spanring_core::PushError;
    /// assert!(PushError::Closed(1).is_terminal());
    /// assert!(!PushError::TimedOut(1).is_terminal());
    /// ```
    #[inline]
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Closed(_))
    }

    /// The reservation error this push failed with, without the item.
    ///
    /// ```
    /// use spanring_core::{PushError, ReserveError};
    /// assert_eq!(PushError::Closed(1).kind(), ReserveError::Closed);
    /// ```
    #[inline]
    pub fn kind(&self) -> ReserveError {
        match self {
            Self::Full(_) => ReserveError::Full { free: 0 },
            Self::Closed(_) => ReserveError::Closed,
            Self::TimedOut(_) => ReserveError::TimedOut,
        }
    }

    /// Maps a failed one-slot reservation to a push error carrying `item`. A one-slot request
    /// is never `TooLarge` (capacity ≥ 1).
    #[inline]
    pub(crate) fn from_reserve(e: ReserveError, item: T) -> Self {
        match e {
            ReserveError::Closed => Self::Closed(item),
            ReserveError::TimedOut => Self::TimedOut(item),
            ReserveError::Full { .. } | ReserveError::TooLarge { .. } => Self::Full(item),
        }
    }
}

impl<T> fmt::Debug for PushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full(_) => f.write_str("Full(..)"),
            Self::Closed(_) => f.write_str("Closed(..)"),
            Self::TimedOut(_) => f.write_str("TimedOut(..)"),
        }
    }
}

impl<T> fmt::Display for PushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full(_) => f.write_str("ring full"),
            Self::Closed(_) => f.write_str("ring closed"),
            Self::TimedOut(_) => f.write_str("timed out waiting for a free slot"),
        }
    }
}

impl<T> core::error::Error for PushError<T> {}

/// Why [`Writer::try_reserve_with`](crate::Writer::try_reserve_with) (or `reserve_with`,
/// `reserve_with_timeout`, `reserve_with_async`) published nothing: the reservation failed, or the fill closure returned an error (then the reserved slots are
/// released unpublished and the closure's error comes back).
///
/// ```
/// use spanring_core::{FillError, ReserveError};
/// let e: FillError<&str> = FillError::Fill("bad input");
/// assert!(!e.is_terminal());
/// assert!(FillError::<()>::Reserve(ReserveError::Closed).is_terminal());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillError<E> {
    /// Reserving the slots failed (the closure was not called).
    Reserve(ReserveError),
    /// The closure returned this error; nothing was published.
    Fill(E),
}

impl<E> FillError<E> {
    /// `true` only for `Reserve(ReserveError::Closed)`.
    ///
    /// ```
    /// use spanring_core::{FillError, ReserveError};
    /// assert!(!FillError::<()>::Reserve(ReserveError::Full { free: 0 }).is_terminal());
    /// ```
    #[inline]
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Reserve(e) if e.is_terminal())
    }
}

impl<E: fmt::Display> fmt::Display for FillError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reserve(e) => e.fmt(f),
            Self::Fill(e) => write!(f, "fill failed: {e}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> core::error::Error for FillError<E> {}

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

impl ReadError {
    /// `true` only for [`Closed`](Self::Closed): the ring is closed and this reader has read
    /// everything, so no later read can return an item. `Empty` and `TimedOut` pass (retry);
    /// `TooLarge` is a wrong request (`false`).
    ///
    /// ```
    /// use spanring_core::ReadError;
    /// assert!(ReadError::Closed.is_terminal());
    /// assert!(!ReadError::Empty.is_terminal());
    /// assert!(!ReadError::TimedOut.is_terminal());
    /// ```
    #[inline]
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Closed)
    }
}

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
    /// A writer is attached already: a single-producer ring has exactly one writer, and a
    /// multi-producer ring hands out only its first writer (more come from `Writer::clone`, so
    /// a writer that is alone can claim without a CAS).
    WriterTaken,
    /// The ring is closed ([`Ring::close`](crate::Ring::close), or its last writer dropped),
    /// so a writer could claim nothing. Readers still attach (to drain). A ring with no
    /// handle left can be reopened ([`Ring::reopen`](crate::Ring::reopen)).
    Closed,
}

/// Why [`Ring::reopen`](crate::Ring::reopen) refused.
///
/// ```
/// use spanring_core::{InlineStorage, ReopenError, Ring};
/// let ring: Ring<InlineStorage<u8, 4>> = Ring::new_inline([0; 4]);
/// assert_eq!(ring.reopen(), Err(ReopenError::NotClosed));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReopenError {
    /// The ring is open: nothing to reopen.
    NotClosed,
    /// A writer or a reader is still attached: it saw (or may see) the stream end, so the
    /// ring is reopened only once every handle is gone.
    HandlesAttached,
}

impl fmt::Display for ReopenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotClosed => "the ring is not closed",
            Self::HandlesAttached => {
                "a handle is still attached: drop every writer and reader before reopening"
            }
        })
    }
}

impl core::error::Error for ReopenError {}

impl fmt::Display for AttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooManyReaders { max } => write!(f, "all {max} reader slots are taken"),
            Self::WriterTaken => f.write_str(
                "a writer is attached already: a single-producer ring has exactly one (keep \
                 it for the ring's life, or build the ring with `.multi_producer()`); on a \
                 multi-producer ring, clone the attached writer for another",
            ),
            Self::Closed => f.write_str(
                "the ring is closed (once no handle is attached, `Ring::reopen` opens it again)",
            ),
        }
    }
}

impl core::error::Error for AttachError {}
