//! Splitting a bit range into one `(word index, mask)` pair per word it touches.

/// Bits per storage word.
pub(super) const WORD_BITS: usize = usize::BITS as usize;

/// The mask with bits `lo..hi` set, for `lo < hi <= WORD_BITS`.
#[inline]
pub(super) const fn mask(lo: usize, hi: usize) -> usize {
    debug_assert!(lo < hi && hi <= WORD_BITS);
    // `hi - lo` is in 1..=WORD_BITS, so the shift amount is in 0..WORD_BITS (never overflows).
    (usize::MAX >> (WORD_BITS - (hi - lo))) << lo
}

/// Iterator over the words covering the non-empty bit range `start..end`, yielding each word
/// index once together with the mask of the range's bits in that word.
pub(super) struct WordMasks {
    /// Next bit to cover.
    next: usize,
    /// One past the last bit.
    end: usize,
}

impl WordMasks {
    /// The words of `start..end` (empty when `start >= end`).
    #[inline]
    pub(super) const fn new(start: usize, end: usize) -> Self {
        Self { next: start, end }
    }
}

impl Iterator for WordMasks {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.next >= self.end {
            return None;
        }
        let word = self.next / WORD_BITS;
        let lo = self.next % WORD_BITS;
        // Bits of this word still in range: up to the word's end or the range's end.
        let hi = if self.end - self.next >= WORD_BITS - lo {
            WORD_BITS
        } else {
            lo + (self.end - self.next)
        };
        self.next += hi - lo;
        Some((word, mask(lo, hi)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    #[test]
    fn masks_cover_exactly_the_range() {
        assert_eq!(mask(0, 1), 1);
        assert_eq!(mask(0, WORD_BITS), usize::MAX);
        assert_eq!(mask(WORD_BITS - 1, WORD_BITS), 1 << (WORD_BITS - 1));
        assert_eq!(mask(3, 6), 0b11_1000);
        let w = WORD_BITS;
        let got: Vec<_> = WordMasks::new(w - 4, w + 6).collect();
        assert_eq!(got, [(0, mask(w - 4, w)), (1, mask(0, 6))]);
        let got: Vec<_> = WordMasks::new(0, 3 * w).collect();
        assert_eq!(got, [(0, usize::MAX), (1, usize::MAX), (2, usize::MAX)]);
        assert_eq!(WordMasks::new(5, 5).count(), 0);
    }
}
