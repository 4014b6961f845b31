//! [`Sequence`]: a cache-line-padded atomic cursor into an infinite stream, and the
//! wrap-around-correct comparisons every cursor computation goes through.
//!
//! A cursor is a position in a stream that never ends; it is stored in a `usize`, which wraps.
//! Nothing here ever compares two cursors with `<`: it compares their *wrapping difference*
//! read as a signed number, which is right as long as the two cursors are less than
//! `usize::MAX / 2` apart — in a ring they are at most a few capacities apart.

use crate::cache_padded::CachePadded;
use crate::sync::{AtomicUsize, Ordering};

/// `true` if cursor `a` comes strictly before cursor `b` in the stream, across `usize` wrap.
///
/// ```
/// use spanring_core::parts::is_before;
/// assert!(is_before(5, 6));
/// assert!(is_before(usize::MAX, 0)); // 0 is one step after usize::MAX
/// assert!(!is_before(3, 3));
/// ```
#[inline]
pub const fn is_before(a: usize, b: usize) -> bool {
    signed_distance(a, b) > 0
}

/// `true` if `a` is before or equal to `b`, across wrap.
///
/// ```
/// use spanring_core::parts::is_before_or_eq;
/// assert!(is_before_or_eq(usize::MAX - 1, usize::MAX - 1));
/// assert!(is_before_or_eq(usize::MAX - 1, 1));
/// ```
#[inline]
pub const fn is_before_or_eq(a: usize, b: usize) -> bool {
    signed_distance(a, b) >= 0
}

/// Steps from `from` to `to`, negative if `to` is behind, across wrap.
///
/// ```
/// use spanring_core::parts::signed_distance;
/// assert_eq!(signed_distance(usize::MAX - 2, 3), 6);
/// assert_eq!(signed_distance(3, usize::MAX - 2), -6);
/// ```
#[inline]
pub const fn signed_distance(from: usize, to: usize) -> isize {
    to.wrapping_sub(from) as isize
}

/// The earlier of two cursors, across wrap.
///
/// ```
/// use spanring_core::parts::earlier;
/// assert_eq!(earlier(usize::MAX, 2), usize::MAX);
/// assert_eq!(earlier(7, 9), 7);
/// ```
#[inline]
pub const fn earlier(a: usize, b: usize) -> usize {
    if is_before(b, a) {
        b
    } else {
        a
    }
}

/// A cursor shared between threads, alone on its cache line.
///
/// Every operation takes its [`Ordering`] explicitly: the caller knows what the access pairs
/// with and says so at the call site.
///
/// ```
/// use spanring_core::sync::Ordering;
/// use spanring_core::parts::Sequence;
/// let s = Sequence::new(usize::MAX);
/// assert_eq!(s.fetch_add(2, Ordering::Relaxed), usize::MAX);
/// assert_eq!(s.load(Ordering::Relaxed), 1); // wrapped
/// ```
#[derive(Debug)]
#[repr(C)]
pub struct Sequence {
    value: CachePadded<AtomicUsize>,
}

impl Sequence {
    crate::__maybe_const_fn! {
        /// A sequence starting at `value`.
        ///
        /// ```
        /// use spanring_core::sync::Ordering;
        /// use spanring_core::parts::Sequence;
        /// static CURSOR: Sequence = Sequence::new(5); // `const`
        /// assert_eq!(CURSOR.load(Ordering::Relaxed), 5);
        /// ```
        pub fn new(value: usize) -> Self {
            Self { value: CachePadded::new(AtomicUsize::new(value)) }
        }
    }

    /// Loads the cursor.
    ///
    /// ```
    /// use spanring_core::sync::Ordering;
    /// use spanring_core::parts::Sequence;
    /// let s = Sequence::new(3);
    /// assert_eq!(s.load(Ordering::Acquire), 3);
    /// ```
    #[inline]
    pub fn load(&self, order: Ordering) -> usize {
        self.value.load(order)
    }

    /// Stores the cursor.
    ///
    /// ```
    /// use spanring_core::sync::Ordering;
    /// use spanring_core::parts::Sequence;
    /// let s = Sequence::new(0);
    /// s.store(usize::MAX, Ordering::Release);
    /// assert_eq!(s.load(Ordering::Acquire), usize::MAX);
    /// ```
    #[inline]
    pub fn store(&self, value: usize, order: Ordering) {
        self.value.store(value, order);
    }

    /// Compare-and-exchange, as [`AtomicUsize::compare_exchange`].
    ///
    /// # Errors
    ///
    /// The current value, when it was not `current`.
    ///
    /// ```
    /// use spanring_core::sync::Ordering;
    /// use spanring_core::parts::Sequence;
    /// let s = Sequence::new(10);
    /// assert_eq!(s.compare_exchange(10, 12, Ordering::AcqRel, Ordering::Relaxed), Ok(10));
    /// assert_eq!(s.compare_exchange(10, 14, Ordering::AcqRel, Ordering::Relaxed), Err(12));
    /// ```
    #[inline]
    pub fn compare_exchange(
        &self,
        current: usize,
        new: usize,
        success: Ordering,
        failure: Ordering,
    ) -> Result<usize, usize> {
        self.value.compare_exchange(current, new, success, failure)
    }

    /// Weak compare-and-exchange (may fail spuriously; for retry loops).
    ///
    /// # Errors
    ///
    /// The current value, when it was not `current` (or spuriously).
    ///
    /// ```
    /// use spanring_core::sync::Ordering::{AcqRel, Relaxed};
    /// use spanring_core::parts::Sequence;
    /// let s = Sequence::new(10);
    /// let mut current = s.load(Relaxed);
    /// while let Err(actual) = s.compare_exchange_weak(current, current + 4, AcqRel, Relaxed) {
    ///     current = actual; // moved meanwhile, or a spurious failure: retry
    /// }
    /// assert_eq!(s.load(Relaxed), 14);
    /// ```
    #[inline]
    pub fn compare_exchange_weak(
        &self,
        current: usize,
        new: usize,
        success: Ordering,
        failure: Ordering,
    ) -> Result<usize, usize> {
        self.value
            .compare_exchange_weak(current, new, success, failure)
    }

    /// The underlying atomic (for APIs such as [`ReaderRegistry`](crate::readers::ReaderRegistry) that
    /// take any `AtomicUsize` cursor).
    ///
    /// ```
    /// use spanring_core::parts::ReaderRegistry;
    /// use spanring_core::parts::Registry;
    /// use spanring_core::parts::Sequence;
    /// let published = Sequence::new(7);
    /// let readers = ReaderRegistry::<1>::new(7);
    /// let slot = readers.attach(published.as_atomic()).unwrap();
    /// assert_eq!(readers.cursor(slot), 7);
    /// ```
    #[inline]
    pub fn as_atomic(&self) -> &AtomicUsize {
        &self.value
    }

    /// Wrapping fetch-add; returns the previous value.
    ///
    /// ```
    /// use spanring_core::sync::Ordering;
    /// use spanring_core::parts::Sequence;
    /// let claim = Sequence::new(0);
    /// let first = claim.fetch_add(4, Ordering::Relaxed); // claims positions 0..4
    /// let second = claim.fetch_add(2, Ordering::Relaxed); // and 4..6
    /// assert_eq!((first, second, claim.load(Ordering::Relaxed)), (0, 4, 6));
    /// ```
    #[inline]
    pub fn fetch_add(&self, n: usize, order: Ordering) -> usize {
        self.value.fetch_add(n, order)
    }
}

static_assertions::const_assert!(
    core::mem::align_of::<Sequence>() == core::mem::align_of::<CachePadded<u8>>()
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_hold_across_wrap() {
        for k in 0..8usize {
            let a = usize::MAX - k;
            for step in 1..16usize {
                let b = a.wrapping_add(step);
                assert!(is_before(a, b), "{a} before {b}");
                assert!(!is_before(b, a));
                assert!(is_before_or_eq(a, b));
                assert_eq!(signed_distance(a, b), step as isize);
                assert_eq!(signed_distance(b, a), -(step as isize));
                assert_eq!(earlier(a, b), a);
                assert_eq!(earlier(b, a), a);
            }
        }
    }

    #[test]
    fn sequence_ops() {
        let s = Sequence::new(usize::MAX - 1);
        assert_eq!(s.fetch_add(3, Ordering::Relaxed), usize::MAX - 1);
        assert_eq!(s.load(Ordering::Relaxed), 1);
        assert_eq!(
            s.compare_exchange(0, 5, Ordering::Relaxed, Ordering::Relaxed),
            Err(1)
        );
        assert_eq!(
            s.compare_exchange(1, 5, Ordering::Relaxed, Ordering::Relaxed),
            Ok(1)
        );
        s.store(9, Ordering::Relaxed);
        assert_eq!(s.load(Ordering::Relaxed), 9);
    }
}
