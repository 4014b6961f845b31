//! The bench's item checker (`benches/support/check.rs`) is itself tested: its fast forms must
//! accept exactly the items the plain per-producer test accepts, or every verified row and
//! every peer row would count wrong.

#[path = "../benches/support/check.rs"]
mod check;

use check::{item, Checker, TAG_SHIFT};
/// The plain per-producer test, one indexed entry per producer.
fn reference(xs: &[u64]) -> (u64, u64) {
    let mut next = [0u64; 4];
    let mut bad = 0;
    for &x in xs {
        let p = (x >> TAG_SHIFT) as usize;
        if p < 4 && x & ((1 << TAG_SHIFT) - 1) == next[p] {
            next[p] += 1;
        } else {
            bad += 1;
        }
    }
    (bad, xs.len() as u64)
}

/// A deterministic mixed stream: interleaved producers, with lost, repeated, reordered
/// and foreign items.
fn stream(seed: u64, len: usize) -> Vec<u64> {
    let mut s = seed | 1;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut next = [0u64; 4];
    let mut out = Vec::new();
    for _ in 0..len {
        let p = (rnd() % 5) as usize;
        let r = rnd() % 20;
        let x = match (p, r) {
            (4, _) => item(4, 0),                          // an unknown producer
            (_, 0) => item(p, next[p] + 1),                // one lost
            (_, 1) if next[p] > 0 => item(p, next[p] - 1), // a repeat
            _ => {
                next[p] += 1;
                item(p, next[p] - 1)
            }
        };
        out.push(x);
    }
    out
}

#[test]
fn the_fast_check_agrees_with_the_plain_one() {
    for seed in 1..200 {
        let xs = stream(seed, 300);
        let mut c = Checker::default();
        for &x in &xs {
            c.check(x);
        }
        assert_eq!((c.bad, c.got), reference(&xs), "seed {seed}");
        // The same stream as slices of varied lengths.
        let mut c = Checker::default();
        let mut rest = &xs[..];
        let mut k = 0;
        while !rest.is_empty() {
            let n = (k % 7 + 1).min(rest.len());
            c.check_slice(&rest[..n]);
            rest = &rest[n..];
            k += 1;
        }
        assert_eq!((c.bad, c.got), reference(&xs), "seed {seed}, slices");
    }
}

#[test]
fn a_clean_single_producer_stream_is_all_good_and_a_gap_is_not() {
    let xs: Vec<u64> = (0..1000).map(|i| item(0, i)).collect();
    let mut c = Checker::default();
    c.check_slice(&xs);
    c.assert_complete("clean", 1000);
    let mut gap = xs.clone();
    gap.remove(500);
    let mut c = Checker::default();
    c.check_slice(&gap);
    assert_eq!(reference(&gap), (c.bad, c.got));
    assert!(c.bad > 0);
}
