//! Loom model checks of `AtomicBitset` under concurrent range marks.
//!
//! Run: `RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-core --features __loom --release --test loom_bitset`
//!
//! Each writer writes its own data cell, then marks its range; an observer counts the run from
//! bit 0 and reads the data of every range its count covers. loom checks that (a) no mark is
//! lost when two writers share a word, (b) the observed run is always one of the prefixes the
//! writers can produce, and (c) the Release marks / Acquire counts make the data visible (a
//! missing happens-before would be reported as a causality violation on the cell).
#![cfg(spanring_loom)]

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use spanring_core::bitset::AtomicBitset;
use spanring_core::sync::AtomicUsize;

const W: usize = usize::BITS as usize;

/// A bitset plus one data cell per writer, written before the writer marks its range.
struct Shared {
    bits: AtomicBitset<[AtomicUsize; 2]>,
    data: [UnsafeCell<usize>; 2],
}

// SAFETY: each cell has exactly one writer (writer `k` writes `data[k]` once, before marking its
// range), and readers read it only after observing that range's bits through an Acquire count,
// which loom verifies happens-after the write; loom reports any access not so ordered.
unsafe impl Sync for Shared {}

impl Shared {
    fn new(len: usize) -> Arc<Self> {
        Arc::new(Self {
            bits: AtomicBitset::new_inline(len),
            data: [UnsafeCell::new(0), UnsafeCell::new(0)],
        })
    }

    /// Writer `k`: write the data, then mark `start, len` with `set_range`.
    fn write_then_set(&self, k: usize, start: usize, len: usize) {
        // SAFETY: writer `k` is the only writer of `data[k]` (see `impl Sync`).
        self.data[k].with_mut(|p| unsafe { *p = 100 + k });
        self.bits.set_range(start, len);
    }

    /// Reads `data[k]`, which must be the writer's value.
    fn read(&self, k: usize) {
        // SAFETY: called only after the caller observed writer `k`'s bits with an Acquire count,
        // so the write happened before this read (loom checks it).
        let v = self.data[k].with(|p| unsafe { *p });
        assert_eq!(v, 100 + k, "marked range's data not visible");
    }
}

/// Spawns writer `k` marking `start, len`.
fn spawn_writer(s: &Arc<Shared>, k: usize, start: usize, len: usize) -> thread::JoinHandle<()> {
    let s = s.clone();
    thread::spawn(move || s.write_then_set(k, start, len))
}

#[test]
fn disjoint_ranges_in_one_word_are_not_lost() {
    loom::model(|| {
        let s = Shared::new(8);
        let t0 = spawn_writer(&s, 0, 0, 3);
        let t1 = spawn_writer(&s, 1, 3, 3);
        let run = s.bits.count_ones_from(0, usize::MAX);
        // One word: the count is one load, so it sees neither, one, or both marks.
        assert!(matches!(run, 0 | 3 | 6), "run {run}");
        if run >= 3 {
            s.read(0);
        }
        if run == 6 {
            s.read(1);
        }
        t0.join().unwrap();
        t1.join().unwrap();
        // No mark lost: fetch_or on a shared word keeps both.
        assert_eq!(s.bits.count_ones_from(0, usize::MAX), 6);
        assert_eq!(s.bits.count_zeros_from(6, usize::MAX), 2);
    });
}

#[test]
fn ranges_crossing_a_word_boundary() {
    loom::model(|| {
        let s = Shared::new(2 * W);
        let t0 = spawn_writer(&s, 0, 0, W - 2);
        // Writer 1's range crosses from word 0 into word 1: two RMWs, word 0 first.
        let t1 = spawn_writer(&s, 1, W - 2, 4);
        let run = s.bits.count_ones_from(0, usize::MAX);
        // Possible prefixes: nothing, writer 0 only, writer 0 plus writer 1's word-0 part, all.
        assert!([0, W - 2, W, W + 2].contains(&run), "run {run}");
        if run >= W - 2 {
            s.read(0);
        }
        if run >= W {
            s.read(1); // saw writer 1's word-0 bits: its data is visible already
        }
        t0.join().unwrap();
        t1.join().unwrap();
        assert_eq!(s.bits.count_ones_from(0, usize::MAX), W + 2);
        assert_eq!(s.bits.count_zeros_from(W + 2, usize::MAX), W - 2);
    });
}

#[test]
fn set_and_reset_disjoint_ranges_in_one_word() {
    loom::model(|| {
        let bits: Arc<AtomicBitset<[AtomicUsize; 1]>> = Arc::new(AtomicBitset::new_inline(8));
        bits.set_range(3, 3); // bits 3..6 set before the race
        let t0 = {
            let bits = bits.clone();
            thread::spawn(move || bits.set_range(0, 3))
        };
        let t1 = {
            let bits = bits.clone();
            thread::spawn(move || bits.reset_range(3, 3))
        };
        // Observer: bits 0..3 and 3..6 each flip all-or-nothing (one RMW each, one load here).
        let ones = bits.count_ones_from(0, usize::MAX);
        assert!(matches!(ones, 0 | 3 | 6), "ones {ones}");
        t0.join().unwrap();
        t1.join().unwrap();
        // Neither RMW undid the other's bits.
        assert_eq!(bits.count_ones_from(0, usize::MAX), 3);
        assert_eq!(bits.count_zeros_from(3, usize::MAX), 5);
    });
}

#[test]
fn wrapping_range_against_a_neighbour() {
    loom::model(|| {
        let s = Shared::new(8);
        // Writer 0 wraps: bits 6, 7, 0, 1, all in word 0, so one merged RMW.
        let t0 = spawn_writer(&s, 0, 6, 4);
        let t1 = spawn_writer(&s, 1, 2, 4);
        let head = s.bits.count_ones_from(0, usize::MAX);
        assert!(matches!(head, 0 | 2 | 8), "head {head}");
        if head >= 2 {
            s.read(0);
        }
        if head == 8 {
            s.read(1);
        }
        t0.join().unwrap();
        t1.join().unwrap();
        assert_eq!(s.bits.count_ones_from(0, usize::MAX), 8);
    });
}
