//! [`InOrder`]: checks that a stream of sequence numbers arrives complete, once and in order.

/// Counts how a stream of sequence numbers `0, 1, 2, ...` deviates from the expected one.
#[derive(Debug, Default, Clone, Copy)]
pub struct InOrder {
    /// The sequence number expected next.
    pub next: u32,
    /// Items seen.
    pub items: u32,
    /// Sequence numbers skipped (seen a later one first, or never seen by [`finish`](Self::finish)).
    pub lost: u32,
    /// An item equal to the previous one.
    pub duplicated: u32,
    /// An item older than the previous one (a replay from further back).
    pub reordered: u32,
}

impl InOrder {
    /// Expecting 0 first.
    pub const fn new() -> Self {
        Self::starting_at(0)
    }

    /// Expecting `first` first (a reader attached mid-stream).
    pub const fn starting_at(first: u32) -> Self {
        Self {
            next: first,
            items: 0,
            lost: 0,
            duplicated: 0,
            reordered: 0,
        }
    }

    /// One item.
    pub fn see(&mut self, value: u32) {
        self.items += 1;
        if value == self.next {
            self.next += 1;
        } else if value > self.next {
            self.lost += value - self.next;
            self.next = value + 1;
        } else if value + 1 == self.next {
            self.duplicated += 1;
        } else {
            self.reordered += 1;
        }
    }

    /// The stream ended after `total` items: anything not seen by then was lost.
    pub fn finish(&mut self, total: u32) {
        if self.next < total {
            self.lost += total - self.next;
            self.next = total;
        }
    }

    /// Whether every item so far came once and in order.
    pub fn clean(&self) -> bool {
        self.lost == 0 && self.duplicated == 0 && self.reordered == 0
    }
}
