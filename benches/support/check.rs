//! The items every verified row moves, and the check every reader runs: producer `p` writes
//! `p << 48 | counter` (counter 0, 1, 2, ... per producer); a reader accepts an item only if it
//! is the next counter of its producer, so a lost, duplicated, reordered or torn item is
//! counted as bad. Used by spanring's verify rows and by every peer row alike.
//!
//! The check is cheap on purpose, so a row measures the ring rather than the harness: the item
//! the reader expects next from the producer it heard from last is kept whole in one word
//! (`expect`), and an item equal to it is one compare and one increment, with no indexed
//! load or store. Any other item (another producer's turn, or a bad one) goes through
//! [`Checker::switch`], which does the full per-producer test. Slices are checked with one
//! vectorisable pass ([`Checker::check_slice`]). Both accept exactly the items the plain
//! per-producer test accepts (`tests/bench_checker.rs` compares them on mixed streams).
//!
//! The per-producer counters live in their own allocation, and nothing ever takes the address
//! of a `Checker` field: a reader's loop then keeps `expect` and the counts in registers. (With
//! the counters inline, the out-of-line `switch` got a pointer into the checker, so every item
//! loaded and stored `expect` and `got` through the stack, a loop-carried store-to-load chain
//! of several cycles per item in every row that checks.)

/// Bits of the item that carry the producer index.
pub const TAG_SHIFT: u32 = 48;
const SEQ_MASK: u64 = (1 << TAG_SHIFT) - 1;
const PRODUCERS: usize = 4;

/// The `seq`-th item of `producer`.
#[inline(always)]
pub fn item(producer: usize, seq: u64) -> u64 {
    (producer as u64) << TAG_SHIFT | seq
}

/// One reader's check of what it received.
#[derive(Debug, Clone)]
pub struct Checker {
    /// The next item of the producer heard from last (whole: tag and counter).
    expect: u64,
    /// The next counter of every other producer (the entry of `expect`'s producer is stale
    /// until the next switch writes it back).
    next: Box<[u64; PRODUCERS]>,
    /// Items that were not the next counter of a known producer.
    pub bad: u64,
    /// Items received.
    pub got: u64,
}

impl Default for Checker {
    fn default() -> Self {
        Self {
            expect: item(0, 0),
            next: Box::new([0; PRODUCERS]),
            bad: 0,
            got: 0,
        }
    }
}

impl Checker {
    /// Checks one received item.
    #[inline(always)]
    pub fn check(&mut self, x: u64) {
        if x == self.expect {
            // The counter has 48 bits: it cannot carry into the tag within a run.
            self.expect = x + 1;
        } else {
            let (expect, bad) = Self::switch(&mut self.next, self.expect, x);
            self.expect = expect;
            self.bad += bad;
        }
        self.got += 1;
    }

    /// Checks a slice of received items, in order.
    #[inline(always)]
    pub fn check_slice(&mut self, xs: &[u64]) {
        let Some(&first) = xs.first() else { return };
        if first == self.expect {
            // One pass with no early exit, so it vectorises: any item that is not
            // `first + i` leaves a bit set.
            let off = xs
                .iter()
                .zip(first..)
                .fold(0u64, |acc, (&x, want)| acc | (x ^ want));
            if off == 0 {
                self.expect = first + xs.len() as u64;
                self.got += xs.len() as u64;
                return;
            }
        }
        for &x in xs {
            self.check(x);
        }
    }

    /// The full test, for an item that is not `expect`: writes `expect` back to its
    /// producer's entry, then tests `x` against its own producer's. Returns the new `expect`
    /// (`x + 1` if `x` was good; else unchanged) and 1 if `x` was bad. Takes values, not
    /// `&mut self`, so the caller's `expect` and counts can stay in registers.
    #[cold]
    #[inline(never)]
    fn switch(next: &mut [u64; PRODUCERS], expect: u64, x: u64) -> (u64, u64) {
        let p = (x >> TAG_SHIFT) as usize;
        if p < PRODUCERS && x & SEQ_MASK == next_of(next, expect, p) {
            next[(expect >> TAG_SHIFT) as usize] = expect & SEQ_MASK;
            (x + 1, 0)
        } else {
            (expect, 1)
        }
    }

    /// Panics unless no bad item arrived. Copies the count first, so the assertion's
    /// reference never points into the checker (see the module docs).
    #[inline(always)]
    pub fn assert_good(&self, what: &str) {
        let bad = self.bad;
        assert_eq!(bad, 0, "{what}: {bad} items lost, reordered or corrupted");
    }

    /// Panics unless exactly `expected` items arrived, all good.
    #[inline(always)]
    pub fn assert_complete(&self, what: &str, expected: usize) {
        self.assert_good(what);
        let got = self.got;
        assert_eq!(got, expected as u64, "{what}: wrong number of items");
    }
}

/// Producer `p`'s next counter: `expect`'s if `p` is its producer, else the stored one.
fn next_of(next: &[u64; PRODUCERS], expect: u64, p: usize) -> u64 {
    if p == (expect >> TAG_SHIFT) as usize {
        expect & SEQ_MASK
    } else {
        next[p]
    }
}
