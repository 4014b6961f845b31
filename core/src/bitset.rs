//! [`AtomicBitset`]: a fixed-length set of bits shared between threads, marked and queried a
//! range at a time.
//!
//! The multi-producer ring uses it to record which slots have been published out of order: a
//! writer marks its range, then counts how far the run of marked slots reaches from the public
//! cursor. To avoid ever clearing bits (a late clear can erase the next lap's mark), the mark
//! alternates with the lap: even laps *set* their bits, odd laps *clear* them, and the run is
//! counted with [`count_ones_from`](AtomicBitset::count_ones_from) or
//! [`count_zeros_from`](AtomicBitset::count_zeros_from) accordingly.
//!
//! The memory-ordering contract is documented on [`AtomicBitset`].

mod error;
mod masks;
#[cfg(test)]
mod tests;

pub use error::BitsetError;

use crate::sync::{AtomicUsize, Ordering};
use core::fmt;
use masks::{WordMasks, WORD_BITS};

/// Number of `usize` words needed to hold `bits` bits (`bits / usize::BITS`, rounded up).
///
/// Usable in const context, e.g. to size inline storage:
///
/// ```
/// use spanring_core::sync::AtomicUsize;
/// use spanring_core::bitset::words_for;
/// use spanring_core::bitset::AtomicBitset;
///
/// assert_eq!(words_for(0), 0);
/// assert_eq!(words_for(1), 1);
/// assert_eq!(words_for(usize::BITS as usize), 1);
/// assert_eq!(words_for(usize::BITS as usize + 1), 2);
///
/// let published: AtomicBitset<[AtomicUsize; words_for(100)]> = AtomicBitset::new_inline(100);
/// assert_eq!(published.len(), 100);
/// ```
#[must_use]
pub const fn words_for(bits: usize) -> usize {
    bits.div_ceil(WORD_BITS)
}

/// A fixed number of bits in atomic words, marked and queried a range at a time.
///
/// The storage is either inline (`S = [AtomicUsize; W]`, see
/// [`new_inline`](Self::new_inline), usable in a `static`) or borrowed from the caller
/// (`S = &[AtomicUsize]`, see [`with_len`](Self::with_len)). The length in bits is fixed at
/// construction, is at least 1, and need not be a multiple of the word size; bits of the last
/// word beyond the length are never read or written.
///
/// Intended use (the multi-producer ring): record which slots were published out of order. A
/// writer marks its range, then counts how far the run of marked slots reaches from the public
/// cursor. Bits are never cleared after use (a late clear could erase the next lap's mark);
/// instead the meaning of a mark alternates with the lap: even laps *set* their bits, odd laps
/// *clear* them, and the run is counted with [`count_ones_from`](Self::count_ones_from) or
/// [`count_zeros_from`](Self::count_zeros_from) accordingly.
///
/// All methods take `&self` and are lock-free (one atomic operation per word touched).
///
/// # Memory ordering
///
/// No method takes an [`Ordering`]; each one has a fixed, documented ordering:
///
/// - **Marking** ([`set`](AtomicBitset::set), [`reset`](AtomicBitset::reset),
///   [`set_range`](AtomicBitset::set_range), [`reset_range`](AtomicBitset::reset_range)) is one
///   `Release` read-modify-write per word touched.
/// - **Observing** ([`test`](AtomicBitset::test), [`count_ones_from`](AtomicBitset::count_ones_from),
///   [`count_zeros_from`](AtomicBitset::count_zeros_from)) is one `Acquire` load per word read.
///
/// So whatever a thread wrote before marking a bit is visible to any thread that observes that
/// bit's new value. This holds even when another thread has modified the same word in between:
/// read-modify-writes continue a release sequence, so the `Acquire` load synchronises with every
/// `Release` mark in the word's history up to the value it read.
///
/// Marking is deliberately *not* `AcqRel`: a marker learns nothing from the previous value of the
/// word (the methods return nothing), so there is nothing for it to acquire. Anyone who acts on
/// another thread's mark observes it through `test`/`count_*`, which acquire.
///
/// What this does **not** give is sequential consistency between a mark and a later query of
/// *another* range: "A marks a, then counts b" racing "B marks b, then counts a" is the
/// store-buffering pattern, and with Release/Acquire both may miss the other's mark. A caller
/// that needs one of them to see the other (the ring's publish sweep does) must put a
/// [`fence`](crate::sync::fence)`(SeqCst)` between its mark and its query.
///
/// A multi-word query is not a snapshot: words are loaded one after another, so bits marked
/// while a count is in progress may or may not be included. Each bit that *is* counted carries
/// the visibility guarantee above.
///
/// [`Ordering`]: crate::sync::Ordering
///
/// # Panics
///
/// Out-of-range arguments are programming errors, not runtime conditions, so they panic (with
/// `assert!`, in every build) rather than return an error: an index or range start
/// `>= len()`, or a range length `> len()`. Each method lists its panics.
///
/// # Example
///
/// ```
/// use spanring_core::sync::AtomicUsize;
/// use spanring_core::bitset::words_for;
/// use spanring_core::bitset::AtomicBitset;
///
/// // Inline storage, usable in a `static`.
/// static PUBLISHED: AtomicBitset<[AtomicUsize; words_for(100)]> = AtomicBitset::new_inline(100);
///
/// PUBLISHED.set_range(10, 5); // bits 10..15
/// PUBLISHED.set_range(15, 3); // bits 15..18: the run from 10 is now 8 long
/// assert_eq!(PUBLISHED.count_ones_from(10, usize::MAX), 8);
/// assert_eq!(PUBLISHED.count_zeros_from(0, usize::MAX), 10);
///
/// // Borrowed storage.
/// let words = [AtomicUsize::new(0), AtomicUsize::new(0)];
/// let bits = AtomicBitset::with_len(&words[..], 70).unwrap();
/// bits.set(69);
/// assert!(bits.test(69));
/// ```
pub struct AtomicBitset<S = [AtomicUsize; 1]>
where
    S: AsRef<[AtomicUsize]>,
{
    words: S,
    len: usize,
}

/// `W` zeroed atomic words: a `const` array repeat where the backend allows it.
#[cfg(not(spanring_loom))]
const fn zeroed_words<const W: usize>() -> [AtomicUsize; W] {
    [const { AtomicUsize::new(0) }; W]
}

/// `W` zeroed atomic words (loom's atomics cannot be built in const context).
#[cfg(spanring_loom)]
fn zeroed_words<const W: usize>() -> [AtomicUsize; W] {
    core::array::from_fn(|_| AtomicUsize::new(0))
}

impl<const W: usize> AtomicBitset<[AtomicUsize; W]> {
    crate::__maybe_const_fn! {
        /// A bitset of `len_bits` clear bits stored inline in `W` words.
        ///
        /// `const`, so it can initialise a `static` (except under the loom model checker,
        /// whose atomics are not const-constructible).
        ///
        /// # Panics
        ///
        /// If `len_bits` is 0 or needs more than `W` words (`words_for(len_bits) > W`). In a
        /// `static` or `const` initialiser this is a compile error. Use
        /// [`with_len`](AtomicBitset::with_len) to get a [`BitsetError`] instead.
        ///
        /// ```
        /// use spanring_core::sync::AtomicUsize;
        /// use spanring_core::bitset::words_for;
        /// use spanring_core::bitset::AtomicBitset;
        ///
        /// const BITS: usize = 100;
        /// let bits: AtomicBitset<[AtomicUsize; words_for(BITS)]> = AtomicBitset::new_inline(BITS);
        /// assert_eq!(bits.len(), BITS);
        /// assert_eq!(bits.count_zeros_from(0, usize::MAX), BITS);
        /// ```
        #[must_use]
        pub fn new_inline(len_bits: usize) -> Self {
            assert!(len_bits > 0, "an atomic bitset needs at least one bit");
            assert!(words_for(len_bits) <= W, "inline bitset storage too small for len_bits");
            Self { words: zeroed_words::<W>(), len: len_bits }
        }
    }
}

impl<S: AsRef<[AtomicUsize]>> AtomicBitset<S> {
    /// A bitset of `len_bits` bits over `storage` (an array, or a borrowed slice).
    ///
    /// The bits keep whatever value the storage words hold: pass zeroed words for an all-clear
    /// bitset. Only the first [`words_for`]`(len_bits)` words are used.
    ///
    /// # Errors
    ///
    /// - [`BitsetError::ZeroLength`] if `len_bits == 0`;
    /// - [`BitsetError::StorageTooSmall`] if `storage` has fewer than `words_for(len_bits)`
    ///   words.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// use spanring_core::bitset::BitsetError;
    ///
    /// let words: [AtomicUsize; 3] = Default::default();
    /// let bits = AtomicBitset::with_len(&words[..], 130).unwrap();
    /// assert_eq!(bits.len(), 130);
    ///
    /// let err = AtomicBitset::with_len(&words[..2], 130).unwrap_err();
    /// assert!(matches!(err, BitsetError::StorageTooSmall { .. }));
    /// ```
    pub fn with_len(storage: S, len_bits: usize) -> Result<Self, BitsetError> {
        if len_bits == 0 {
            return Err(BitsetError::ZeroLength);
        }
        let needed_words = words_for(len_bits);
        let provided_words = storage.as_ref().len();
        if provided_words < needed_words {
            return Err(BitsetError::StorageTooSmall {
                needed_words,
                provided_words,
            });
        }
        Ok(Self {
            words: storage,
            len: len_bits,
        })
    }

    /// Number of bits (fixed at construction, at least 1).
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 1]> = AtomicBitset::new_inline(5);
    /// assert_eq!(bits.len(), 5);
    /// ```
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always `false`: a bitset has at least one bit (provided for API symmetry with
    /// [`len`](Self::len)).
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 1]> = AtomicBitset::new_inline(1);
    /// assert!(!bits.is_empty());
    /// ```
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether bit `index` is set. One `Acquire` load.
    ///
    /// # Panics
    ///
    /// If `index >= len()`.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 1]> = AtomicBitset::new_inline(8);
    /// assert!(!bits.test(3));
    /// bits.set(3);
    /// assert!(bits.test(3));
    /// ```
    #[must_use]
    #[inline]
    pub fn test(&self, index: usize) -> bool {
        assert!(
            index < self.len,
            "bit index {index} out of range for bitset of {} bits",
            self.len
        );
        // Acquire: pairs with the Release mark that gave this bit its value (or any later RMW of
        // the word, which continues that release sequence), so the marker's prior writes are
        // visible once we have seen the bit.
        let word = self.words.as_ref()[index / WORD_BITS].load(Ordering::Acquire);
        (word >> (index % WORD_BITS)) & 1 == 1
    }

    /// Sets bit `index`. One `Release` `fetch_or`.
    ///
    /// # Panics
    ///
    /// If `index >= len()`.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 1]> = AtomicBitset::new_inline(8);
    /// bits.set(7);
    /// assert!(bits.test(7));
    /// ```
    #[inline]
    pub fn set(&self, index: usize) {
        self.set_range(index, 1);
    }

    /// Clears bit `index`. One `Release` `fetch_and`.
    ///
    /// # Panics
    ///
    /// If `index >= len()`.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 1]> = AtomicBitset::new_inline(8);
    /// bits.set(2);
    /// bits.reset(2);
    /// assert!(!bits.test(2));
    /// ```
    #[inline]
    pub fn reset(&self, index: usize) {
        self.reset_range(index, 1);
    }

    /// Sets the `len` bits starting at `start`, wrapping past the end back to bit 0 when
    /// `start + len > self.len()`. Each word touched gets exactly one `Release` `fetch_or`
    /// (even when a wrapping range starts and ends in the same word). `len == 0` does nothing.
    ///
    /// # Panics
    ///
    /// If `start >= self.len()` or `len > self.len()` (a range cannot cover a bit twice).
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 2]> = AtomicBitset::new_inline(100);
    /// bits.set_range(95, 10); // bits 95..100 and 0..5
    /// assert_eq!(bits.count_ones_from(95, usize::MAX), 5); // counts stop at the end
    /// assert_eq!(bits.count_ones_from(0, usize::MAX), 5);
    /// ```
    pub fn set_range(&self, start: usize, len: usize) {
        self.for_each_word(start, len, |word, mask| {
            // Release: publishes the caller's writes made before marking to whoever observes
            // these bits with an Acquire load (`test`/`count_*`). No Acquire needed: the
            // previous value is discarded.
            word.fetch_or(mask, Ordering::Release);
        });
    }

    /// Clears the `len` bits starting at `start`, wrapping like
    /// [`set_range`](Self::set_range). Each word touched gets exactly one `Release`
    /// `fetch_and`. `len == 0` does nothing.
    ///
    /// # Panics
    ///
    /// If `start >= self.len()` or `len > self.len()`.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 2]> = AtomicBitset::new_inline(100);
    /// bits.set_range(0, 100);
    /// bits.reset_range(60, 10);
    /// assert_eq!(bits.count_ones_from(0, usize::MAX), 60);
    /// assert_eq!(bits.count_zeros_from(60, usize::MAX), 10);
    /// ```
    pub fn reset_range(&self, start: usize, len: usize) {
        self.for_each_word(start, len, |word, mask| {
            // Release: same as `set_range` — on odd laps clearing *is* the publish mark, so it
            // must publish the writes made before it to the Acquire loads of `count_zeros_from`.
            word.fetch_and(!mask, Ordering::Release);
        });
    }

    /// Length of the run of **set** bits beginning at `start`, capped at `max` and at the end
    /// of the bitset: the largest `n <= min(max, len() - start)` such that bits
    /// `start..start + n` are all set. The count does **not** wrap to bit 0 (a caller wanting
    /// the wrapped run continues with `count_ones_from(0, ..)` when the first count reached the
    /// end). One `Acquire` load per word read; words are read only as far as the run goes.
    ///
    /// # Panics
    ///
    /// If `start >= len()`.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 2]> = AtomicBitset::new_inline(100);
    /// bits.set_range(60, 40);
    /// assert_eq!(bits.count_ones_from(60, usize::MAX), 40); // stops at the end
    /// assert_eq!(bits.count_ones_from(60, 7), 7); // stops at max
    /// bits.reset(75);
    /// assert_eq!(bits.count_ones_from(60, usize::MAX), 15); // stops at the first clear bit
    /// assert_eq!(bits.count_ones_from(0, usize::MAX), 0);
    /// ```
    #[must_use]
    pub fn count_ones_from(&self, start: usize, max: usize) -> usize {
        self.count_run(start, max, false)
    }

    /// Length of the run of **clear** bits beginning at `start`, capped at `max` and at the end
    /// of the bitset; the mirror of [`count_ones_from`](Self::count_ones_from), with the same
    /// ordering, no wrapping, and panics.
    ///
    /// # Panics
    ///
    /// If `start >= len()`.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::bitset::AtomicBitset;
    /// let bits: AtomicBitset<[AtomicUsize; 1]> = AtomicBitset::new_inline(20);
    /// bits.set(12);
    /// assert_eq!(bits.count_zeros_from(3, usize::MAX), 9);
    /// assert_eq!(bits.count_zeros_from(13, usize::MAX), 7);
    /// ```
    #[must_use]
    pub fn count_zeros_from(&self, start: usize, max: usize) -> usize {
        self.count_run(start, max, true)
    }

    /// Runs `op(word, mask)` once for every word the (possibly wrapping) range `start`, `len`
    /// touches, with the mask of the range's bits in that word.
    #[inline]
    fn for_each_word(&self, start: usize, len: usize, op: impl Fn(&AtomicUsize, usize)) {
        assert!(
            start < self.len,
            "range start {start} out of range for bitset of {} bits",
            self.len
        );
        assert!(
            len <= self.len,
            "range length {len} exceeds bitset of {} bits",
            self.len
        );
        if len == 0 {
            return;
        }
        let words = self.words.as_ref();
        let offset = start % WORD_BITS;
        if len <= WORD_BITS - offset && len <= self.len - start {
            // The common case (a span of a few slots): one word, one mask, no iterator.
            let mask = if len == WORD_BITS {
                usize::MAX
            } else {
                ((1usize << len) - 1) << offset
            };
            op(&words[start / WORD_BITS], mask);
            return;
        }
        // Written as a subtraction so that nothing overflows even for huge lengths.
        let to_end = self.len - start;
        if len <= to_end {
            for (index, mask) in WordMasks::new(start, start + len) {
                op(&words[index], mask);
            }
            return;
        }
        // Wrapping: the head piece is `0..head_len`, the tail piece `start..self.len`. Since
        // `len <= self.len`, `head_len <= start`, so the only word both pieces can touch is the
        // tail's first word: merge the two masks there, so that word gets one RMW too.
        let head_len = len - to_end;
        let shared = start / WORD_BITS;
        let mut shared_mask = 0;
        for (index, mask) in WordMasks::new(0, head_len) {
            if index == shared {
                shared_mask = mask;
            } else {
                op(&words[index], mask);
            }
        }
        for (index, mask) in WordMasks::new(start, self.len) {
            let mask = if index == shared {
                mask | shared_mask
            } else {
                mask
            };
            op(&words[index], mask);
        }
    }

    /// The run of bits equal to `!invert` (set bits when `invert` is false, clear bits when it
    /// is true) from `start`, capped at `max` and at the end.
    #[inline]
    fn count_run(&self, start: usize, max: usize, invert: bool) -> usize {
        assert!(
            start < self.len,
            "count start {start} out of range for bitset of {} bits",
            self.len
        );
        let limit = max.min(self.len - start);
        let words = self.words.as_ref();
        let mut count = 0;
        while count < limit {
            let bit = start + count;
            let offset = bit % WORD_BITS;
            // Acquire: pairs with the Release marks (`set*`/`reset*`) of every bit we count, so
            // each counted bit's marker's prior writes are visible to the caller.
            let word = words[bit / WORD_BITS].load(Ordering::Acquire);
            let word = if invert { !word } else { word };
            // The shift brings in zeros at the top, so the run never exceeds this word's rest.
            let run = (word >> offset).trailing_ones() as usize;
            count += run;
            if run < WORD_BITS - offset {
                break; // found a differing bit
            }
        }
        count.min(limit)
    }
}

impl<S: AsRef<[AtomicUsize]>> fmt::Debug for AtomicBitset<S> {
    /// Shows the length and the bits (`Relaxed` loads: a diagnostic snapshot, not a
    /// synchronisation point), lowest index first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Bits<'a>(&'a [AtomicUsize], usize);
        impl fmt::Debug for Bits<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for i in 0..self.1 {
                    // Relaxed: diagnostics only; nothing is read on the strength of it.
                    let word = self.0[i / WORD_BITS].load(Ordering::Relaxed);
                    f.write_str(if (word >> (i % WORD_BITS)) & 1 == 1 {
                        "1"
                    } else {
                        "0"
                    })?;
                }
                Ok(())
            }
        }
        f.debug_struct("AtomicBitset")
            .field("len", &self.len)
            .field("bits", &Bits(self.words.as_ref(), self.len))
            .finish()
    }
}
