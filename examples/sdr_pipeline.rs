//! An SDR-style pipeline: a producer thread writes blocks of complex samples (`[f32; 2]`, I
//! and Q) into an owned double-mapped ring; two readers consume the same stream at their own
//! pace — a fast power meter that reads whatever is there, and a slow decimator that takes
//! fixed blocks. Every read span is one contiguous slice (double-mapped memory), even where
//! it wraps around the end of the ring. The writer waits for the slowest reader (no sample is
//! lost); both readers see every sample, in order, and the results are checked.
//!
//! `cargo run --example sdr_pipeline`

use spanring::std_ext::owned;
use spanring::ReadError;

/// Samples the producer writes in all.
const SAMPLES: usize = 1 << 20;
/// Samples per block the producer reserves at once.
const BLOCK: usize = 1000;
/// The decimator keeps one sample in `DECIMATE`.
const DECIMATE: usize = 8;

/// Sample `n` of a test tone: a point on the unit circle, so its power is 1.
fn sample(n: usize) -> [f32; 2] {
    let phase = n as f32 * 0.01;
    [phase.cos(), phase.sin()]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Room for at least 16 Ki samples (rounded up to whole pages of the double mapping).
    let (mut writer, mut meter) = owned::mapped::<[f32; 2]>(16 * 1024).build()?;
    // The second reader attaches now, before any sample is written, so it sees them all.
    let mut decimator = meter.subscribe()?;

    let producer = std::thread::spawn(move || -> Result<(), spanring::ReserveError> {
        let mut n = 0;
        while n < SAMPLES {
            let len = BLOCK.min(SAMPLES - n);
            // Waits while the slowest reader is a ring behind; one contiguous `&mut [[f32; 2]]`.
            let mut span = writer.reserve(len)?;
            for (k, slot) in span.iter_mut().enumerate() {
                *slot = sample(n + k);
            }
            n += len;
            // `span` drops here: the block is published to both readers.
        }
        Ok(())
        // `writer` drops here: the last writer closes the ring; readers drain, then `Closed`.
    });

    // Reader 1, fast: takes whatever is published (up to 4096 at once) and measures power.
    let meter = std::thread::spawn(move || {
        let (mut count, mut power) = (0usize, 0f64);
        loop {
            match meter.read(4096) {
                Ok(samples) => {
                    for (k, &[i, q]) in samples.iter().enumerate() {
                        assert_eq!([i, q], sample(count + k), "in order, none lost");
                        power += f64::from(i * i + q * q);
                    }
                    count += samples.len();
                } // consumed when `samples` drops
                Err(ReadError::Closed) => return (count, power / count as f64),
                Err(e) => panic!("meter: {e}"),
            }
        }
    });

    // Reader 2, slow: exactly `DECIMATE` samples at a time, keeps the first of each block.
    let decimator = std::thread::spawn(move || {
        let mut kept = Vec::with_capacity(SAMPLES / DECIMATE);
        loop {
            match decimator.read_exact(DECIMATE) {
                Ok(block) => kept.push(block[0]),
                Err(ReadError::Closed) => return kept,
                Err(e) => panic!("decimator: {e}"),
            }
        }
    });

    producer.join().expect("producer")?;
    let (count, mean_power) = meter.join().expect("meter");
    let kept = decimator.join().expect("decimator");

    assert_eq!(count, SAMPLES);
    assert!((mean_power - 1.0).abs() < 1e-3, "mean power {mean_power}");
    assert_eq!(kept.len(), SAMPLES / DECIMATE);
    assert!(kept
        .iter()
        .enumerate()
        .all(|(k, &s)| s == sample(k * DECIMATE)));
    println!(
        "sdr_pipeline: {count} samples, mean power {mean_power:.4}, {} kept after decimation by {DECIMATE}",
        kept.len()
    );
    Ok(())
}
