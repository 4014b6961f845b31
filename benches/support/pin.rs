//! Thread placement for the bench. On this 2-core VM a row's speed depends mostly on where the
//! scheduler puts its threads: a writer and a reader time-sliced on one core never move a
//! cache line between cores (rtrb 1P→1C batch reads: 368 M/s pinned to one core), the same
//! pair on two cores pays a transfer per line and ran 3–10× slower (32–175 M/s, depending on
//! the host's load). Unpinned, the scheduler picks one or the other per repetition, which made
//! every row bimodal and a ratio of two rows a ratio of two placements.
//!
//! The tables run unpinned (as bm_Buffer does), unless `SPANRING_BENCH_PIN` says otherwise.
//! The targets run under each of [`TARGET_PLACEMENTS`] in turn ([`set`]): `together` (every
//! worker on CPU 0: the instructions per item) and `apart` (worker `i` on CPU `i mod n`,
//! writers first, then readers, disruptor's handlers through its own `pin_at_core`: the
//! cross-core hand-off). `SPANRING_BENCH_PIN=free|together|apart` runs only that one.

use std::sync::atomic::{AtomicU8, Ordering};

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

/// The placements the targets are measured under, in order.
pub const TARGET_PLACEMENTS: [Placement; 2] = [Placement::Together, Placement::Apart];

const UNSET: u8 = u8::MAX;
static CURRENT: AtomicU8 = AtomicU8::new(UNSET);

impl Placement {
    fn code(self) -> u8 {
        match self {
            Placement::Free => 0,
            Placement::Apart => 1,
            Placement::Together => 2,
        }
    }

    fn from_code(c: u8) -> Self {
        match c {
            1 => Placement::Apart,
            2 => Placement::Together,
            _ => Placement::Free,
        }
    }

    /// The name used in tables and file names.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Free => "free",
            Placement::Apart => "apart",
            Placement::Together => "together",
        }
    }
}

/// What `SPANRING_BENCH_PIN` asks for, if anything.
pub fn requested() -> Option<Placement> {
    match std::env::var("SPANRING_BENCH_PIN").as_deref() {
        Ok("apart") => Some(Placement::Apart),
        Ok("together") => Some(Placement::Together),
        Ok("free") => Some(Placement::Free),
        _ => None,
    }
}

/// The current placement (the requested one, or free, until [`set`]).
pub fn placement() -> Placement {
    match CURRENT.load(Ordering::Relaxed) {
        UNSET => requested().unwrap_or(Placement::Free),
        c => Placement::from_code(c),
    }
}

/// Places the workers of the repetitions that follow (the main thread sets it between them;
/// workers are spawned after, so the spawn orders it before their reads).
pub fn set(p: Placement) {
    CURRENT.store(p.code(), Ordering::Relaxed);
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
