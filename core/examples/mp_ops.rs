//! A deterministic single-threaded harness for counting instructions per item of the
//! multi-producer path under `valgrind --tool=callgrind` (wall-clock benchmarks are noisy on a
//! shared machine; instruction counts are not).
//!
//! `cargo build --release -p spanring-core --example mp_ops`, then
//! `valgrind --tool=callgrind target/release/examples/mp_ops <mode> <items>` for two item counts;
//! the difference of the totals divided by the difference of the counts is the cost per item
//! (setup cancels out). Modes: `mp1` (reserve 1, read 1), `mp1024` (chunks of 1024),
//! `sp1` (the single-producer ring, for reference).
use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, MultiProducer, Ring, SliceStorage};

fn mp(items: usize, chunk: usize) -> u64 {
    let cap = 4096;
    let mut memory = vec![0u64; cap];
    let mut words: Vec<AtomicUsize> = (0..multi_words(cap)).map(|_| AtomicUsize::new(0)).collect();
    let ring: Ring<_, MultiProducer<&mut [AtomicUsize]>> =
        Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut sum = 0u64;
    for i in 0..items / chunk {
        let mut span = w.try_reserve(chunk).unwrap();
        span[0] = i as u64;
        drop(span);
        let mut left = chunk;
        while left > 0 {
            let s = r.try_read(left).unwrap();
            sum = sum.wrapping_add(s[0]);
            left -= s.len();
        }
    }
    sum
}

fn sp(items: usize) -> u64 {
    let mut memory = vec![0u64; 4096];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut sum = 0u64;
    for i in 0..items {
        w.try_reserve(1).unwrap()[0] = i as u64;
        sum = sum.wrapping_add(r.try_read(1).unwrap()[0]);
    }
    sum
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "mp1".into());
    let items: usize = args.next().map_or(100_000, |s| s.parse().unwrap());
    let sum = match mode.as_str() {
        "mp1" => mp(items, 1),
        "mp1024" => mp(items, 1024),
        "sp1" => sp(items),
        other => panic!("unknown mode {other}"),
    };
    println!("{sum}");
}
