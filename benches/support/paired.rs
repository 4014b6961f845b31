//! Interleaved pairs: a comparison measured as rounds of one repetition of each side, run back
//! to back (the order alternating per round), so both sides of every ratio saw the machine in
//! the same state. On a noisy 2-core VM whose speed changes by 2–4× between minutes, a ratio
//! of two rows measured a minute apart says more about the VM than about the code; the median
//! of per-round ratios does not.

use super::stats::{si, Rep};

/// One comparison, `rounds` pairs.
#[derive(Clone, Debug)]
pub struct Paired {
    /// Our rate per round (samples/s).
    pub ours: Vec<f64>,
    /// The peer's rate per round.
    pub peer: Vec<f64>,
}

fn rate(r: Rep) -> f64 {
    r.samples as f64 / r.elapsed.as_secs_f64().max(1e-12)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

impl Paired {
    /// Runs `rounds` pairs: even rounds ours first, odd rounds the peer first.
    pub fn measure(
        rounds: usize,
        mut ours: impl FnMut() -> Rep,
        mut peer: impl FnMut() -> Rep,
    ) -> Self {
        let mut p = Self {
            ours: Vec::with_capacity(rounds),
            peer: Vec::with_capacity(rounds),
        };
        for i in 0..rounds {
            let (a, b) = if i % 2 == 0 {
                let a = ours();
                (a, peer())
            } else {
                let b = peer();
                (ours(), b)
            };
            p.ours.push(rate(a));
            p.peer.push(rate(b));
        }
        p
    }

    /// Per-round ratios ours ÷ peer, sorted.
    pub fn ratios(&self) -> Vec<f64> {
        let mut r: Vec<f64> = self
            .ours
            .iter()
            .zip(&self.peer)
            .map(|(a, b)| a / b)
            .collect();
        r.sort_by(f64::total_cmp);
        r
    }

    /// The median of the per-round ratios: the figure a target is judged on.
    pub fn ratio(&self) -> f64 {
        median(self.ratios())
    }

    /// `ours vs peer (median rates), ratios lo–hi over n pairs`.
    pub fn detail(&self) -> String {
        let r = self.ratios();
        format!(
            "{} vs {} (pair ratios {:.2}–{:.2}, {} pairs)",
            si(median(self.ours.clone())),
            si(median(self.peer.clone())),
            r[0],
            r[r.len() - 1],
            r.len()
        )
    }
}
