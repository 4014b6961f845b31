//! [`BitsetError`]: why an [`AtomicBitset`](crate::bitset::AtomicBitset) could not be built.

use core::fmt;

/// Why [`AtomicBitset::with_len`](crate::bitset::AtomicBitset::with_len) refused its arguments.
///
/// ```
/// use spanring_core::sync::AtomicUsize;
/// use spanring_core::bitset::AtomicBitset;
/// use spanring_core::bitset::BitsetError;
///
/// let words = [AtomicUsize::new(0)];
/// let too_many = usize::BITS as usize + 1;
/// assert_eq!(
///     AtomicBitset::with_len(&words[..], too_many).unwrap_err(),
///     BitsetError::StorageTooSmall { needed_words: 2, provided_words: 1 },
/// );
/// assert_eq!(AtomicBitset::with_len(&words[..], 0).unwrap_err(), BitsetError::ZeroLength);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BitsetError {
    /// A bitset of zero bits was requested. Every bitset holds at least one bit, so that ranges
    /// can wrap modulo the length and `start < len()` always has a solution.
    ZeroLength,
    /// The storage has fewer words than the requested length needs.
    StorageTooSmall {
        /// Words needed: [`words_for`](crate::bitset::words_for)`(len_bits)`.
        needed_words: usize,
        /// Words the storage provided.
        provided_words: usize,
    },
}

impl fmt::Display for BitsetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroLength => f.write_str("an atomic bitset needs at least one bit"),
            Self::StorageTooSmall {
                needed_words,
                provided_words,
            } => write!(
                f,
                "bitset storage too small: {needed_words} words needed, {provided_words} provided"
            ),
        }
    }
}

impl core::error::Error for BitsetError {}
