//! [`Holes`]: ranges a multi-producer writer claimed, could not give back, and did not fill.
//!
//! A multi-producer span published with fewer slots than it reserved gives the rest back when
//! it is still the newest claim. When a later claim exists the slots cannot be returned, and
//! leaving them unpublished would stall the public cursor for ever (the GNU Radio 4 hang in
//! HAZARDS.md). So they are *published as a hole*: recorded here first, then marked like any
//! published slots so the cursor moves on. Readers that reach a hole skip it without ever
//! seeing its slots as data. A hole is forgotten once every reader is past it.
//!
//! Holes are rare (partial publish under contention, or a span dropped during a panic), so
//! the registry is a small spin-locked list; the hot path only reads an atomic count.

use crate::sequence::{is_before, is_before_or_eq};
use crate::sync::{AtomicUsize, Ordering};

/// Most holes outstanding at once; a writer that would exceed it waits for readers to pass the
/// oldest ones.
pub const MAX_HOLES: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hole {
    pub(crate) start: usize,
    /// One past the last skipped cursor.
    pub(crate) end: usize,
}

/// Internal (reachable only through the sealed producer trait).
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Holes {
    count: AtomicUsize,
    list: spin::Mutex<heapless::Vec<Hole, MAX_HOLES>>,
}

/// What a reader at `cursor` with `available` published items may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HoleCheck {
    /// Read up to this many items (stops before the next hole).
    Read(usize),
    /// The reader is at a hole: skip to this cursor.
    SkipTo(usize),
}

impl Holes {
    /// True if any hole may exist (a cheap check for the read path).
    #[inline]
    pub(crate) fn any(&self) -> bool {
        // Acquire: pairs with the Release increment in `try_push`, which happens before the
        // hole's slots are marked published; a reader that acquired a published cursor
        // covering the hole therefore sees the count (and, under the lock, the entry).
        self.count.load(Ordering::Acquire) != 0
    }

    /// Records a hole; `false` if the list is full.
    pub(crate) fn try_push(&self, hole: Hole) -> bool {
        let mut list = self.list.lock();
        if list.push(hole).is_err() {
            return false;
        }
        // Release: see `any`.
        self.count.fetch_add(1, Ordering::Release);
        true
    }

    /// Forgets holes every reader is past (`min` is a lower bound of all reader cursors).
    pub(crate) fn forget_before(&self, min: usize) {
        if !self.any() {
            return;
        }
        let mut list = self.list.lock();
        let before = list.len();
        list.retain(|h| is_before(min, h.end));
        let removed = before - list.len();
        if removed > 0 {
            // Relaxed: only makes the fast check cheaper; the list under the lock is the truth.
            self.count.fetch_sub(removed, Ordering::Relaxed);
        }
    }

    /// Limits a read at `cursor` of `available` items (distances via `distance`).
    pub(crate) fn check(
        &self,
        cursor: usize,
        available: usize,
        distance: impl Fn(usize, usize) -> isize,
    ) -> HoleCheck {
        let list = self.list.lock();
        let mut limit = available;
        for h in list.iter() {
            if is_before_or_eq(h.start, cursor) && is_before(cursor, h.end) {
                return HoleCheck::SkipTo(h.end);
            }
            let ahead = distance(cursor, h.start);
            if ahead > 0 && (ahead as usize) < limit {
                limit = ahead as usize;
            }
        }
        HoleCheck::Read(limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_limit_and_skip() {
        let holes = Holes::default();
        assert!(!holes.any());
        assert!(holes.try_push(Hole {
            start: usize::MAX - 1,
            end: 2
        }));
        let d = |a: usize, b: usize| b.wrapping_sub(a) as isize;
        assert_eq!(holes.check(usize::MAX - 5, 10, d), HoleCheck::Read(4));
        assert_eq!(holes.check(usize::MAX, 10, d), HoleCheck::SkipTo(2));
        assert_eq!(holes.check(2, 10, d), HoleCheck::Read(10));
        holes.forget_before(1);
        assert!(holes.any());
        holes.forget_before(2);
        assert!(!holes.any());
    }

    #[test]
    fn full_list_refuses() {
        let holes = Holes::default();
        for i in 0..MAX_HOLES {
            assert!(holes.try_push(Hole {
                start: i * 10,
                end: i * 10 + 1
            }));
        }
        assert!(!holes.try_push(Hole {
            start: 500,
            end: 501
        }));
    }
}
