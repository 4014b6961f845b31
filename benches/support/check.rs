//! The items every verified row moves, and the check every reader runs: producer `p` writes
//! `p << 48 | counter` (counter 0, 1, 2, ... per producer); a reader accepts an item only if it
//! is the next counter of its producer, so a lost, duplicated, reordered or torn item is
//! counted as bad. Used by spanring's verify rows and by every peer row alike.

/// Bits of the item that carry the producer index.
pub const TAG_SHIFT: u32 = 48;
const SEQ_MASK: u64 = (1 << TAG_SHIFT) - 1;

/// The `seq`-th item of `producer`.
#[inline(always)]
pub fn item(producer: usize, seq: u64) -> u64 {
    (producer as u64) << TAG_SHIFT | seq
}

/// One reader's check of what it received.
#[derive(Debug, Clone, Copy, Default)]
pub struct Checker {
    next: [u64; 4],
    /// Items that were not the next counter of a known producer.
    pub bad: u64,
    /// Items received.
    pub got: u64,
}

impl Checker {
    /// Checks one received item.
    #[inline(always)]
    pub fn check(&mut self, x: u64) {
        let p = (x >> TAG_SHIFT) as usize;
        if p < self.next.len() && x & SEQ_MASK == self.next[p] {
            self.next[p] += 1;
        } else {
            self.bad += 1;
        }
        self.got += 1;
    }

    /// Panics unless exactly `expected` items arrived, all good.
    pub fn assert_complete(&self, what: &str, expected: usize) {
        assert_eq!(
            self.bad, 0,
            "{what}: {} items lost, reordered or corrupted",
            self.bad
        );
        assert_eq!(self.got, expected as u64, "{what}: wrong number of items");
    }
}
