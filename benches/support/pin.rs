//! Thread placement for the bench. On this 2-core VM a row's speed depends mostly on where the
//! scheduler puts its threads: a writer and a reader time-sliced on one core never move a
//! cache line between cores (rtrb 1P→1C batch reads: 368 M/s pinned to one core), the same
//! pair on two cores pays a transfer per line and runs ~10× slower (32–35 M/s). Unpinned, the
//! scheduler picks one or the other per repetition, which made every row bimodal.
//!
//! `SPANRING_BENCH_PIN=apart`: worker `i` runs on CPU `i mod n` (writers first, then readers;
//! disruptor's handlers through its own `pin_at_core`), so 1P→1C is always two cores.
//! `SPANRING_BENCH_PIN=together`: every worker on CPU 0. Unset: the scheduler decides (the
//! default, as bm_Buffer runs).

use std::sync::OnceLock;

/// Where workers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The scheduler decides.
    Free,
    /// Worker `i` on CPU `i mod n`.
    Apart,
    /// Every worker on CPU 0.
    Together,
}

/// The placement from `SPANRING_BENCH_PIN` (read once).
pub fn placement() -> Placement {
    static P: OnceLock<Placement> = OnceLock::new();
    *P.get_or_init(|| match std::env::var("SPANRING_BENCH_PIN").as_deref() {
        Ok("apart") => Placement::Apart,
        Ok("together") => Placement::Together,
        _ => Placement::Free,
    })
}

/// The CPU worker `i` runs on under the current placement (`None`: not pinned).
pub fn cpu_for(worker: usize) -> Option<usize> {
    let cores = core_affinity::get_core_ids()?;
    match placement() {
        Placement::Free => None,
        Placement::Apart => Some(cores[worker % cores.len()].id),
        Placement::Together => Some(cores[0].id),
    }
}

/// Pins the calling thread as worker `i` (no-op when unpinned or unsupported).
pub fn pin(worker: usize) {
    if let Some(id) = cpu_for(worker) {
        core_affinity::set_for_current(core_affinity::CoreId { id });
    }
}
