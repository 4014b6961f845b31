//! [`Layout`]: how a cursor (a position in the infinite stream) maps onto slot indexes, for any
//! capacity, correctly across `usize` wrap-around.
//!
//! For a power-of-two capacity a cursor is a plain counter and its slot is `cursor & mask`.
//! For any other capacity `pos % capacity` would break at the `usize` wrap (the counter jumps
//! from `usize::MAX` to 0 while `usize::MAX % capacity` is not `capacity - 1`), so a cursor is
//! a *stamp*: `lap * one_lap + index`, where `one_lap` is the next power of two ≥ capacity and
//! `index < capacity`. Advancing past the last slot skips the unused `one_lap - capacity`
//! values. The lap field then wraps cleanly (it is a power-of-two counter), stamps still
//! increase monotonically (with gaps), and [`crate::sequence`]'s comparisons work on them
//! unchanged. For a power-of-two capacity the gap is zero and a stamp is a plain counter.

use crate::error::CapacityError;

/// Cursor ↔ slot arithmetic for one capacity.
///
/// ```
/// use spanring_core::parts::Layout;
/// let l = Layout::new(3).unwrap();
/// let mut s = l.normalize(usize::MAX); // a valid stamp near the top of usize
/// let mut seen = [0usize; 3];
/// for _ in 0..9 {
///     seen[l.index(s)] += 1;
///     s = l.advance(s, 1);
/// }
/// assert_eq!(seen, [3, 3, 3]); // every slot used once per lap, across the wrap
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Layout {
    capacity: usize,
    mask: usize,
    lap_shift: u32,
    gap: usize,
}

impl Layout {
    /// The layout for `capacity` slots.
    ///
    /// # Errors
    ///
    /// [`CapacityError::Zero`] for 0; [`CapacityError::TooLarge`] when the next power of two
    /// exceeds `usize::MAX / 8 + 1` (cursors need headroom for a few laps of signed distance).
    ///
    /// ```
    /// use spanring_core::CapacityError;
    /// use spanring_core::parts::Layout;
    /// assert_eq!(Layout::new(5).unwrap().capacity(), 5); // any capacity, not only powers of two
    /// assert_eq!(Layout::new(0), Err(CapacityError::Zero));
    /// assert!(matches!(Layout::new(usize::MAX), Err(CapacityError::TooLarge { .. })));
    /// ```
    pub const fn new(capacity: usize) -> Result<Self, CapacityError> {
        if capacity == 0 {
            return Err(CapacityError::Zero);
        }
        let max = 1usize << (usize::BITS - 3);
        if capacity > max {
            return Err(CapacityError::TooLarge { capacity, max });
        }
        let one_lap = capacity.next_power_of_two();
        Ok(Self {
            capacity,
            mask: one_lap - 1,
            lap_shift: one_lap.trailing_zeros(),
            gap: one_lap - capacity,
        })
    }

    /// Number of slots.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 12];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// assert_eq!(ring.layout().capacity(), 12);
    /// ```
    #[inline]
    pub const fn capacity(&self) -> usize {
        self.capacity
    }

    /// The slot a cursor refers to.
    ///
    /// ```
    /// use spanring_core::parts::Layout;
    /// assert_eq!(Layout::new(4).unwrap().index(6), 2); // a power of two: 6 % 4
    /// let l = Layout::new(3).unwrap(); // a lap is 4 stamps, the 4th unused
    /// assert_eq!(l.index(5), 1); // lap 1, slot 1
    /// assert_eq!(l.index(l.advance(2, 1)), 0); // after the last slot comes slot 0
    /// ```
    #[inline]
    pub const fn index(&self, cursor: usize) -> usize {
        cursor & self.mask
    }

    /// The cursor `n` positions after `cursor` (`n <= capacity`).
    ///
    /// ```
    /// use spanring_core::parts::Layout;
    /// let l = Layout::new(3).unwrap();
    /// assert_eq!(l.advance(0, 2), 2);
    /// assert_eq!(l.advance(1, 2), 4); // past the lap's last slot: skips the unused stamp 3
    /// assert_eq!(l.advance(usize::MAX - 1, 1), 0); // and across the usize wrap
    /// ```
    #[inline]
    pub const fn advance(&self, cursor: usize, n: usize) -> usize {
        debug_assert!(n <= self.capacity);
        let skip = if (cursor & self.mask) + n >= self.capacity {
            self.gap
        } else {
            0
        };
        cursor.wrapping_add(n).wrapping_add(skip)
    }

    /// Items from `from` to `to` (negative if `to` is behind), across wrap.
    ///
    /// ```
    /// use spanring_core::parts::Layout;
    /// let l = Layout::new(3).unwrap();
    /// let a = l.normalize(usize::MAX); // the last slot of a lap near the top of usize
    /// let b = l.advance(a, 3);
    /// assert_eq!(l.distance(a, b), 3); // across the lap gap and the usize wrap
    /// assert_eq!(l.distance(b, a), -3);
    /// ```
    #[inline]
    pub const fn distance(&self, from: usize, to: usize) -> isize {
        // Power-of-two capacity, or both cursors in the same lap: the plain difference.
        if self.gap == 0 || (to ^ from) & !self.mask == 0 {
            return to.wrapping_sub(from) as isize;
        }
        // Lap difference as a signed count (the low bits of both are masked off, so the
        // arithmetic shift is exact), then whole laps times capacity plus the index difference.
        let laps = ((to & !self.mask).wrapping_sub(from & !self.mask) as isize) >> self.lap_shift;
        laps.wrapping_mul(self.capacity as isize)
            .wrapping_add((to & self.mask) as isize)
            .wrapping_sub((from & self.mask) as isize)
    }

    /// The index mask (`one_lap − 1`, where `one_lap` is the next power of two ≥ capacity).
    #[inline]
    pub(crate) const fn mask(&self) -> usize {
        self.mask
    }

    /// How many times `cursor` can step by a plain `+ 1` and stay the cursor
    /// [`advance`](Self::advance) gives: unbounded (`usize::MAX`) for a power-of-two capacity,
    /// where a cursor is a plain counter; otherwise the slots before the lap's last one (the
    /// step off the last slot skips the gap).
    #[inline]
    pub(crate) const fn plain_steps(&self, cursor: usize) -> usize {
        if self.gap == 0 {
            usize::MAX
        } else {
            self.capacity - 1 - (cursor & self.mask)
        }
    }

    /// `log2(one_lap)`: the cursor bits above it count laps.
    #[inline]
    pub(crate) const fn lap_shift(&self) -> u32 {
        self.lap_shift
    }

    /// Lap parity of a cursor: flips every time the cursor passes the last slot. The
    /// multi-producer ring marks even laps published by setting bits and odd laps by clearing.
    ///
    /// ```
    /// use spanring_core::parts::Layout;
    /// let l = Layout::new(3).unwrap();
    /// let next = l.advance(2, 1); // from lap 0's last slot to lap 1
    /// assert!(!l.odd_lap(2));
    /// assert!(l.odd_lap(next));
    /// assert!(!l.odd_lap(l.advance(next, 3))); // lap 2
    /// ```
    #[inline]
    pub const fn odd_lap(&self, cursor: usize) -> bool {
        (cursor >> self.lap_shift) & 1 == 1
    }

    /// The nearest valid cursor at or before `cursor` (an index beyond the last slot is pulled
    /// back to the last slot). Every cursor of a power-of-two layout is already valid.
    ///
    /// ```
    /// use spanring_core::parts::Layout;
    /// let l = Layout::new(3).unwrap(); // stamps 4k + 3 name no slot
    /// assert_eq!(l.normalize(7), 6); // pulled back to the lap's last slot
    /// assert_eq!(l.normalize(5), 5); // already valid
    /// assert_eq!(Layout::new(4).unwrap().normalize(7), 7);
    /// ```
    #[inline]
    pub const fn normalize(&self, cursor: usize) -> usize {
        if cursor & self.mask >= self.capacity {
            (cursor & !self.mask) | (self.capacity - 1)
        } else {
            cursor
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(capacity: usize, start: usize, steps: usize) {
        let l = Layout::new(capacity).unwrap();
        let s0 = l.normalize(start);
        let mut s = s0;
        let first = l.index(s0);
        for i in 0..steps {
            assert_eq!(
                l.index(s),
                (first + i) % capacity,
                "cap {capacity} step {i}"
            );
            assert_eq!(l.distance(s0, s), i as isize);
            assert_eq!(l.distance(s, s0), -(i as isize));
            let lap_changes = (first + i) / capacity;
            assert_eq!(l.odd_lap(s) != l.odd_lap(s0), lap_changes % 2 == 1);
            s = l.advance(s, 1);
        }
        // Multi-step advance agrees with single steps.
        let mut a = s0;
        let mut b = s0;
        for n in [1, capacity, capacity / 2, 3.min(capacity), capacity] {
            a = l.advance(a, n);
            for _ in 0..n {
                b = l.advance(b, 1);
            }
            assert_eq!(a, b);
        }
    }

    #[test]
    fn every_capacity_wraps_cleanly() {
        for cap in [1usize, 2, 3, 5, 7, 8, 12, 100, 1024, 1000] {
            for k in [0usize, 1, 2, 5, 17] {
                walk(cap, usize::MAX - k, 3 * cap + 5);
                walk(cap, k, 3 * cap + 5);
            }
        }
    }

    #[test]
    fn capacity_errors() {
        assert_eq!(Layout::new(0), Err(CapacityError::Zero));
        assert!(matches!(
            Layout::new(usize::MAX),
            Err(CapacityError::TooLarge { .. })
        ));
    }
}
