//! What the two stand-alone benches (`harness.rs`, `latency.rs`) share, and nothing of
//! `buffer.rs`'s machinery: where a worker thread runs, and the one waiting policy their
//! hand-written retry loops use.

use spanring::std_ext::YieldWait;
use spanring::WaitStrategy;

/// Where the two threads run.
// Each bench uses the placements it measures; `latency.rs` never runs `Free`.
#[allow(dead_code)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Both threads on CPU 0.
    Together,
    /// One thread per CPU.
    Apart,
    /// The scheduler decides.
    Free,
}

impl Place {
    /// The placement's name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Place::Together => "together",
            Place::Apart => "apart",
            Place::Free => "free",
        }
    }

    /// Pins the calling thread as worker `i` (0 writes, 1 reads).
    pub fn pin(self, i: usize) {
        let Some(cores) = core_affinity::get_core_ids() else {
            return;
        };
        let core = match self {
            Place::Together => cores[0],
            Place::Apart => cores[i % cores.len()],
            Place::Free => return,
        };
        core_affinity::set_for_current(core);
    }
}

/// The one waiting policy for the peers' loops and ours with `try_`: what `YieldWait::new()`
/// does for the blocking calls. Always inlined, so that no loop's speed depends on whether the
/// compiler inlines a retry helper (it declined for some and not for others: a call per item).
#[allow(dead_code)] // `latency.rs` only reads through `patiently_get`
#[inline(always)]
pub fn patiently(mut ready: impl FnMut() -> bool) {
    if !ready() {
        YieldWait::new().wait_until(&mut ready);
    }
}

/// [`patiently`] for a read: retries `attempt` until it gives an item, and returns the item,
/// so that the reader checks it outside the retry closure. (Checked inside, the checker is
/// captured by a closure the wait takes by pointer, and every item goes through memory: a
/// cost the blocking loops, which check outside any closure, do not pay.)
#[inline(always)]
pub fn patiently_get<T>(mut attempt: impl FnMut() -> Option<T>) -> T {
    if let Some(x) = attempt() {
        return x;
    }
    let mut got = None;
    YieldWait::new().wait_until(&mut || {
        got = attempt();
        got.is_some()
    });
    got.expect("the wait returns once `attempt` gave an item")
}
