//! Repetition statistics: throughput per repetition, summarised like GNU Radio 4's benchmark
//! (aggregate ops/s = samples × repetitions / total time) plus min / median / max / mean /
//! stddev of the per-repetition rates.

use std::time::Duration;

/// One repetition: how many samples each consumer received, and how long it took.
#[derive(Clone, Copy, Debug)]
pub struct Rep {
    /// Samples per consumer (the bm_Buffer count: not multiplied by the consumer count).
    pub samples: u64,
    /// Wall time from the first worker leaving the start barrier to the last one finishing.
    pub elapsed: Duration,
    /// The watchdog closed the ring before the run finished (the rate is then partial).
    pub timed_out: bool,
}

/// Summary of a row's repetitions, all in samples per second.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Σ samples / Σ time (what bm_Buffer prints).
    pub ops: f64,
    /// Slowest repetition.
    pub min: f64,
    /// Median repetition.
    pub median: f64,
    /// Fastest repetition.
    pub max: f64,
    /// Mean of the per-repetition rates.
    pub mean: f64,
    /// Population standard deviation of the per-repetition rates.
    pub stddev: f64,
    /// Repetitions measured.
    pub reps: usize,
    /// Some repetition hit the watchdog.
    pub timed_out: bool,
}

impl Stats {
    /// Summarises `reps` (at least one).
    pub fn from_reps(reps: &[Rep]) -> Self {
        assert!(!reps.is_empty(), "no repetitions");
        let total_samples: u64 = reps.iter().map(|r| r.samples).sum();
        let total_time: f64 = reps.iter().map(|r| r.elapsed.as_secs_f64()).sum();
        let mut rates: Vec<f64> = reps
            .iter()
            .map(|r| r.samples as f64 / r.elapsed.as_secs_f64().max(1e-12))
            .collect();
        rates.sort_by(f64::total_cmp);
        let n = rates.len();
        let mean = rates.iter().sum::<f64>() / n as f64;
        let var = rates.iter().map(|r| (r - mean) * (r - mean)).sum::<f64>() / n as f64;
        let median = if n % 2 == 1 {
            rates[n / 2]
        } else {
            (rates[n / 2 - 1] + rates[n / 2]) / 2.0
        };
        Self {
            ops: total_samples as f64 / total_time.max(1e-12),
            min: rates[0],
            median,
            max: rates[n - 1],
            mean,
            stddev: var.sqrt(),
            reps: n,
            timed_out: reps.iter().any(|r| r.timed_out),
        }
    }
}

/// `x` with an SI suffix, 3 significant digits: `18.1M`, `6.70G`.
pub fn si(x: f64) -> String {
    let (v, unit) = if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    if v >= 100.0 {
        format!("{v:.0}{unit}")
    } else if v >= 10.0 {
        format!("{v:.1}{unit}")
    } else {
        format!("{v:.2}{unit}")
    }
}
