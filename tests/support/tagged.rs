//! Tagged items and the check every test reader runs on them, shared by the threaded harness
//! (`tests/common`) and the async one (`tests/async_support`), which include this file with
//! `#[path]`: producers write `producer << 40 | counter`; [`InOrder`] checks that a reader gets
//! each producer's items exactly once and in order, and never an unpublished slot.

/// A value no producer writes: seeing it means an unpublished slot was exposed.
pub const UNWRITTEN: u64 = u64::MAX;

/// Items are `producer << 40 | counter`.
pub fn tag(producer: usize, counter: u64) -> u64 {
    ((producer as u64) << 40) | counter
}

/// One reader's check of the items of `producers` producers: each [`see`](Self::see) must be
/// a published item of a known producer carrying that producer's next counter (a lost,
/// repeated or reordered item fails at once); [`finish`](Self::finish) checks that every
/// producer's last item arrived.
#[derive(Debug)]
pub struct InOrder {
    /// Per producer, the counter expected next (= items seen from it).
    next: Vec<u64>,
    /// Items seen from all producers.
    seen: u64,
}

impl InOrder {
    /// Nothing seen yet from any of `producers` producers.
    pub fn new(producers: usize) -> Self {
        Self {
            next: vec![0; producers],
            seen: 0,
        }
    }

    /// Checks one item (panics on a bad one).
    pub fn see(&mut self, item: u64) {
        assert_ne!(item, UNWRITTEN, "an unpublished slot was exposed");
        let producer = (item >> 40) as usize;
        let counter = item & ((1 << 40) - 1);
        assert!(producer < self.next.len(), "garbage item {item:#x}");
        assert_eq!(
            counter, self.next[producer],
            "producer {producer}: lost, repeated or reordered item"
        );
        self.next[producer] += 1;
        self.seen += 1;
    }

    /// Checks that every producer's `items` items arrived; returns the number of items seen.
    pub fn finish(self, items: u64) -> u64 {
        for (p, &n) in self.next.iter().enumerate() {
            assert_eq!(n, items, "producer {p}: reader saw {n} of {items} items");
        }
        self.seen
    }
}
