//! [`SpanIter`] and [`SpanIterMut`]: a span's items in stream order, across the end of the
//! storage.
//!
//! A span is at most two slices (the part up to the storage's end, then the part from its
//! start). `a.iter().chain(b)` walks them, but its `next` tests which half it is in on every
//! item. These iterators keep the current half in one slice iterator and move the second half
//! into it once, when the first runs out, so a `for` loop over a span runs the plain slice
//! loop on each half. `fold` (and so `for_each`, `sum`, ...) runs the two halves as two loops.

use core::iter::FusedIterator;
use core::mem;
use core::slice;

/// One span iterator type: `$name` walks `$half`s (a slice iterator over items of type
/// `$item`), built from two slices of type `$slice` with `$walk`. Both types below are this
/// one definition: they differ only in shared or mutable access.
macro_rules! span_iter {
    ($(#[$attr:meta])* $name:ident, $half:ident, $item:ty, $slice:ty, $walk:ident) => {
        $(#[$attr])*
        pub struct $name<'a, T> {
            /// The half being walked.
            current: slice::$half<'a, T>,
            /// The half after it (empty once moved into `current`).
            rest: slice::$half<'a, T>,
        }

        impl<'a, T> $name<'a, T> {
            /// Walks `first`, then `second`.
            #[inline]
            pub(crate) fn new(first: $slice, second: $slice) -> Self {
                Self {
                    current: first.$walk(),
                    rest: second.$walk(),
                }
            }

            /// The second half becomes the current one; its first item.
            #[cold]
            fn next_half(&mut self) -> Option<$item> {
                self.current = mem::take(&mut self.rest);
                self.current.next()
            }
        }

        impl<'a, T> Iterator for $name<'a, T> {
            type Item = $item;

            #[inline]
            fn next(&mut self) -> Option<$item> {
                match self.current.next() {
                    Some(x) => Some(x),
                    None => self.next_half(),
                }
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                let n = self.len();
                (n, Some(n))
            }

            #[inline]
            fn fold<B, F: FnMut(B, $item) -> B>(self, init: B, mut f: F) -> B {
                let acc = self.current.fold(init, &mut f);
                self.rest.fold(acc, f)
            }
        }

        impl<'a, T> DoubleEndedIterator for $name<'a, T> {
            #[inline]
            fn next_back(&mut self) -> Option<$item> {
                match self.rest.next_back() {
                    Some(x) => Some(x),
                    None => self.current.next_back(),
                }
            }
        }

        impl<T> ExactSizeIterator for $name<'_, T> {
            #[inline]
            fn len(&self) -> usize {
                self.current.len() + self.rest.len()
            }
        }

        impl<T> FusedIterator for $name<'_, T> {}
    };
}

span_iter!(
    /// The items of a read or write span, in stream order.
    ///
    /// A span is at most two slices (the part up to the storage's end, then the part from its
    /// start). `a.iter().chain(b)` would test which half it is in on every item; this iterator
    /// keeps the current half in one slice iterator and moves the second half into it once, so a
    /// `for` loop over a span runs the plain slice loop on each half, and `fold` (so `for_each`,
    /// `sum`, ...) runs the two halves as two loops.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u32; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(2).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_reserve(4).unwrap().copy_from_slice(&[1, 2, 3, 4]); // crosses the end
    /// let span = r.try_read(4).unwrap();
    /// let mut it = span.iter();
    /// assert_eq!(it.len(), 4);
    /// assert_eq!(it.next_back(), Some(&4));
    /// assert_eq!(it.copied().collect::<Vec<_>>(), [1, 2, 3]);
    /// ```
    #[derive(Debug)]
    SpanIter,
    Iter,
    &'a T,
    &'a [T],
    iter
);

// By hand: a derive would ask for `T: Clone`, which copying two slice iterators never needs.
impl<T> Clone for SpanIter<'_, T> {
    fn clone(&self) -> Self {
        Self {
            current: self.current.clone(),
            rest: self.rest.clone(),
        }
    }
}

span_iter!(
    /// The items of a span, mutably, in stream order (the mutable [`SpanIter`]).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u32; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(3).build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut span = w.try_reserve(3).unwrap(); // crosses the end
    /// let mut it = span.iter_mut();
    /// assert_eq!(it.len(), 3);
    /// *it.next_back().unwrap() = 30;
    /// for (i, slot) in it.enumerate() {
    ///     *slot = i as u32 * 10;
    /// }
    /// drop(span);
    /// assert_eq!(r.try_read(3).unwrap().to_array::<3>(), Some([0, 10, 30]));
    /// ```
    #[derive(Debug)]
    SpanIterMut,
    IterMut,
    &'a mut T,
    &'a mut [T],
    iter_mut
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_halves_in_order_from_either_end() {
        let (a, b) = ([1, 2, 3], [4, 5]);
        let mut it = SpanIter::new(&a, &b);
        assert_eq!(it.len(), 5);
        assert_eq!(it.next(), Some(&1));
        assert_eq!(it.next_back(), Some(&5));
        assert_eq!(it.size_hint(), (3, Some(3)));
        let rest: [i32; 3] = [
            *it.next().unwrap(),
            *it.next().unwrap(),
            *it.next().unwrap(),
        ];
        assert_eq!(rest, [2, 3, 4]);
        assert_eq!((it.next(), it.next_back(), it.len()), (None, None, 0));
        // Taken from the back past the middle, then from the front.
        let mut it = SpanIter::new(&a, &b);
        let back: [i32; 3] = [
            *it.next_back().unwrap(),
            *it.next_back().unwrap(),
            *it.next_back().unwrap(),
        ];
        assert_eq!(back, [5, 4, 3]);
        assert_eq!(
            (it.next(), it.next(), it.next()),
            (Some(&1), Some(&2), None)
        );
        // fold visits both halves, in order; an empty first half goes straight to the second.
        let mut seen = [0; 5];
        let n = SpanIter::new(&a, &b).fold(0, |i, &x| {
            seen[i] = x;
            i + 1
        });
        assert_eq!((n, seen), (5, [1, 2, 3, 4, 5]));
        assert_eq!(SpanIter::new(&[], &b).next(), Some(&4));
        assert_eq!(SpanIter::<i32>::new(&[], &[]).next(), None);
        // Cloning never needs `T: Clone`.
        struct NotClone(u8);
        let (c, d) = ([NotClone(1)], [NotClone(2)]);
        let it = SpanIter::new(&c, &d);
        assert_eq!(it.clone().map(|x| x.0).sum::<u8>(), 3);
        assert_eq!(it.len(), 2);
    }

    #[test]
    fn mutable_halves_in_order() {
        let (mut a, mut b) = ([0; 2], [0; 2]);
        let mut it = SpanIterMut::new(&mut a, &mut b);
        *it.next_back().unwrap() = 9;
        assert_eq!(it.len(), 3);
        for (i, x) in it.enumerate() {
            *x = i + 1;
        }
        assert_eq!((a, b), ([1, 2], [3, 9]));
        let n = SpanIterMut::new(&mut a, &mut b).fold(0, |n, x| {
            *x *= 10;
            n + 1
        });
        assert_eq!((n, a, b), (4, [10, 20], [30, 90]));
    }
}
