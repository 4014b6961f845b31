//! Unit tests of [`AtomicBitset`]: word boundaries, wrapping, counts, panics, and a randomized
//! comparison against a `[bool]` model.

// `expect(len, &[a..b])` takes a list of ranges; a one-range list is intended.
#![allow(clippy::single_range_in_vec_init)]

use super::*;
use proptest::prelude::*;
use std::vec::Vec;

const W: usize = WORD_BITS;

/// A bitset of `len` clear bits over 4 inline words (enough for `len <= 4 * W`).
fn bitset(len: usize) -> AtomicBitset<[AtomicUsize; 4]> {
    AtomicBitset::new_inline(len)
}

/// The bits as a vector, read one at a time with `test`.
fn bits<S: AsRef<[AtomicUsize]>>(b: &AtomicBitset<S>) -> Vec<bool> {
    (0..b.len()).map(|i| b.test(i)).collect()
}

/// Expected vector with exactly `ranges` (half-open) set.
fn expect(len: usize, ranges: &[core::ops::Range<usize>]) -> Vec<bool> {
    (0..len)
        .map(|i| ranges.iter().any(|r| r.contains(&i)))
        .collect()
}

#[test]
fn words_for_rounds_up() {
    assert_eq!(words_for(0), 0);
    assert_eq!(words_for(1), 1);
    assert_eq!(words_for(W), 1);
    assert_eq!(words_for(W + 1), 2);
    assert_eq!(words_for(usize::MAX), usize::MAX / W + 1);
}

#[test]
fn constructors_check_length_and_storage() {
    let words: [AtomicUsize; 2] = Default::default();
    assert_eq!(
        AtomicBitset::with_len(&words[..], 0).unwrap_err(),
        BitsetError::ZeroLength
    );
    assert_eq!(
        AtomicBitset::with_len(&words[..], 2 * W + 1).unwrap_err(),
        BitsetError::StorageTooSmall {
            needed_words: 3,
            provided_words: 2
        }
    );
    let b = AtomicBitset::with_len(&words[..], 2 * W).unwrap();
    assert_eq!(b.len(), 2 * W);
    assert!(!b.is_empty());
    // Storage with more words than needed: extra words are untouched.
    let b = AtomicBitset::with_len(&words[..], 3).unwrap();
    b.set_range(0, 3);
    assert_eq!(words[0].load(Ordering::Relaxed), 0b111);
    assert_eq!(words[1].load(Ordering::Relaxed), 0);
    // Display is informative.
    let msg = std::format!(
        "{}",
        BitsetError::StorageTooSmall {
            needed_words: 3,
            provided_words: 2
        }
    );
    assert!(msg.contains('3') && msg.contains('2'), "{msg}");
}

#[test]
#[should_panic(expected = "at least one bit")]
fn new_inline_zero_panics() {
    let _ = AtomicBitset::<[AtomicUsize; 1]>::new_inline(0);
}

#[test]
#[should_panic(expected = "too small")]
fn new_inline_too_small_panics() {
    let _ = AtomicBitset::<[AtomicUsize; 1]>::new_inline(W + 1);
}

#[test]
fn single_bits() {
    let b = bitset(100);
    b.set(0);
    b.set(W - 1);
    b.set(W);
    b.set(99);
    assert_eq!(bits(&b), expect(100, &[0..1, W - 1..W + 1, 99..100]));
    b.reset(W - 1);
    assert_eq!(bits(&b), expect(100, &[0..1, W..W + 1, 99..100]));
}

#[test]
fn range_crossing_a_word_boundary() {
    let b = bitset(3 * W);
    b.set_range(W - 4, 10); // e.g. 60..70 with 64-bit words
    assert_eq!(bits(&b), expect(3 * W, &[W - 4..W + 6]));
    b.reset_range(W - 1, 3);
    assert_eq!(bits(&b), expect(3 * W, &[W - 4..W - 1, W + 2..W + 6]));
}

#[test]
fn range_spanning_several_full_words() {
    let b = bitset(4 * W);
    b.set_range(3, 3 * W);
    assert_eq!(bits(&b), expect(4 * W, &[3..3 * W + 3]));
}

#[test]
fn full_width_range() {
    for len in [1, 7, W, W + 1, 100, 4 * W] {
        let b = bitset(len);
        b.set_range(0, len);
        assert_eq!(b.count_ones_from(0, usize::MAX), len, "len {len}");
        b.reset_range(0, len);
        assert_eq!(b.count_zeros_from(0, usize::MAX), len, "len {len}");
        // A full-width range may also start anywhere (it then wraps).
        b.set_range(len / 2, len);
        assert_eq!(bits(&b), expect(len, &[0..len]), "len {len}");
    }
}

#[test]
fn wrapping_ranges() {
    let b = bitset(100);
    b.set_range(95, 10);
    assert_eq!(bits(&b), expect(100, &[95..100, 0..5]));
    b.reset_range(98, 4);
    assert_eq!(bits(&b), expect(100, &[95..98, 2..5]));
    // Wrap whose head ends in the word the tail starts in (merged mask, one RMW).
    let b = bitset(100);
    b.set_range(W + 2, 100 - 1); // tail W+2..100, head 0..W+1
    assert_eq!(bits(&b), expect(100, &[W + 2..100, 0..W + 1]));
    // Single-word bitset: both pieces in word 0.
    let b = bitset(10);
    b.set_range(8, 5);
    assert_eq!(bits(&b), expect(10, &[8..10, 0..3]));
    b.reset_range(9, 10);
    assert_eq!(bits(&b), expect(10, &[]));
}

#[test]
fn empty_ranges_do_nothing() {
    let b = bitset(100);
    b.set_range(0, 0);
    b.set_range(99, 0);
    assert_eq!(b.count_zeros_from(0, usize::MAX), 100);
    b.set_range(0, 100);
    b.reset_range(50, 0);
    assert_eq!(b.count_ones_from(0, usize::MAX), 100);
}

#[test]
fn non_multiple_of_word_length() {
    let b = bitset(100);
    b.set_range(0, 100);
    assert_eq!(b.count_ones_from(0, usize::MAX), 100);
    assert_eq!(b.count_ones_from(99, usize::MAX), 1);
    // Bits beyond len in the last word were never set.
    let words = &b.words;
    let last_bits = 100 - (words_for(100) - 1) * W;
    let last = words[words_for(100) - 1].load(Ordering::Relaxed);
    assert_eq!(last, masks::mask(0, last_bits));
    // Words after the last one (there are none with 32-bit words) are untouched.
    for word in &words[words_for(100)..] {
        assert_eq!(word.load(Ordering::Relaxed), 0);
    }
}

#[test]
fn counts_stop_at_max() {
    let b = bitset(100);
    b.set_range(0, 100);
    assert_eq!(b.count_ones_from(0, 0), 0);
    assert_eq!(b.count_ones_from(3, 5), 5);
    assert_eq!(b.count_ones_from(3, W), W);
    assert_eq!(b.count_zeros_from(3, 5), 0);
    b.reset_range(0, 100);
    assert_eq!(b.count_zeros_from(W - 2, 7), 7);
}

#[test]
fn counts_stop_at_the_end_without_wrapping() {
    let b = bitset(100);
    b.set_range(90, 20); // 90..100 and 0..10
    assert_eq!(b.count_ones_from(90, usize::MAX), 10);
    assert_eq!(b.count_ones_from(90, 1000), 10);
    assert_eq!(b.count_zeros_from(10, usize::MAX), 80);
}

#[test]
fn counts_stop_at_first_differing_bit_in_a_later_word() {
    let b = bitset(4 * W);
    b.set_range(5, 2 * W + 7); // 5..2W+12
    assert_eq!(b.count_ones_from(5, usize::MAX), 2 * W + 7);
    assert_eq!(b.count_ones_from(W + 1, usize::MAX), W + 11);
    assert_eq!(b.count_zeros_from(2 * W + 12, usize::MAX), 2 * W - 12);
    assert_eq!(b.count_zeros_from(0, usize::MAX), 5);
    // Run ending exactly at a word boundary.
    let b = bitset(4 * W);
    b.set_range(3, 2 * W - 3);
    assert_eq!(b.count_ones_from(3, usize::MAX), 2 * W - 3);
}

#[test]
fn garbage_beyond_len_is_ignored() {
    let words = [AtomicUsize::new(usize::MAX), AtomicUsize::new(usize::MAX)];
    let b = AtomicBitset::with_len(&words[..], W + 3).unwrap();
    assert_eq!(b.count_ones_from(0, usize::MAX), W + 3);
    b.reset_range(0, W + 3);
    assert_eq!(b.count_zeros_from(0, usize::MAX), W + 3);
    assert_eq!(words[1].load(Ordering::Relaxed), !0b111);
}

#[test]
fn debug_shows_the_bits() {
    let b = bitset(5);
    b.set_range(1, 2);
    assert_eq!(
        std::format!("{b:?}"),
        "AtomicBitset { len: 5, bits: 01100 }"
    );
}

#[test]
#[should_panic(expected = "out of range")]
fn test_out_of_range_panics() {
    let _ = bitset(100).test(100);
}

#[test]
#[should_panic(expected = "out of range")]
fn set_out_of_range_panics() {
    bitset(100).set(100);
}

#[test]
#[should_panic(expected = "out of range")]
fn reset_out_of_range_panics() {
    bitset(100).reset(usize::MAX);
}

#[test]
#[should_panic(expected = "out of range")]
fn set_range_start_out_of_range_panics() {
    bitset(100).set_range(100, 0);
}

#[test]
#[should_panic(expected = "exceeds")]
fn set_range_too_long_panics() {
    bitset(100).set_range(0, 101);
}

#[test]
#[should_panic(expected = "exceeds")]
fn reset_range_too_long_panics() {
    bitset(100).reset_range(50, usize::MAX);
}

#[test]
#[should_panic(expected = "out of range")]
fn count_out_of_range_panics() {
    let _ = bitset(100).count_ones_from(100, 1);
}

#[test]
#[should_panic(expected = "out of range")]
fn count_zeros_out_of_range_panics() {
    let _ = bitset(100).count_zeros_from(200, 1);
}

/// One operation of the randomized test.
#[derive(Debug, Clone)]
enum Op {
    Set(usize),
    Reset(usize),
    SetRange(usize, usize),
    ResetRange(usize, usize),
}

/// Operations with raw numbers, reduced modulo the length when applied.
fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        any::<usize>().prop_map(Op::Set),
        any::<usize>().prop_map(Op::Reset),
        (any::<usize>(), any::<usize>()).prop_map(|(s, l)| Op::SetRange(s, l)),
        (any::<usize>(), any::<usize>()).prop_map(|(s, l)| Op::ResetRange(s, l)),
    ]
}

/// Model run of `value` bits from `start`, capped at `max` and the end.
fn model_run(model: &[bool], start: usize, max: usize, value: bool) -> usize {
    model[start..]
        .iter()
        .take(max)
        .take_while(|&&b| b == value)
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 256 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn matches_bool_model(
        len in 1usize..=(3 * WORD_BITS + 5),
        ops in proptest::collection::vec(op(), 1..if cfg!(miri) { 6 } else { 40 }),
        queries in proptest::collection::vec((any::<usize>(), 0usize..(4 * WORD_BITS)), 4),
    ) {
        let words: [AtomicUsize; 4] = Default::default();
        let b = AtomicBitset::with_len(&words[..], len).unwrap();
        let mut model = std::vec![false; len];
        for op in &ops {
            match *op {
                Op::Set(i) => { b.set(i % len); model[i % len] = true; }
                Op::Reset(i) => { b.reset(i % len); model[i % len] = false; }
                Op::SetRange(s, l) | Op::ResetRange(s, l) => {
                    let (s, l) = (s % len, l % (len + 1));
                    let value = matches!(op, Op::SetRange(..));
                    if value { b.set_range(s, l) } else { b.reset_range(s, l) }
                    for k in 0..l {
                        model[(s + k) % len] = value;
                    }
                }
            }
            prop_assert_eq!(bits(&b), model.clone());
        }
        for &(start, max) in &queries {
            let start = start % len;
            prop_assert_eq!(b.count_ones_from(start, max), model_run(&model, start, max, true));
            prop_assert_eq!(b.count_zeros_from(start, max), model_run(&model, start, max, false));
        }
        // Bits beyond len never change.
        for (i, word) in words.iter().enumerate().skip(words_for(len)) {
            prop_assert_eq!(word.load(Ordering::Relaxed), 0, "word {}", i);
        }
    }
}
