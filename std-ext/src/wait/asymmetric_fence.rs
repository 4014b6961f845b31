//! The store-buffering fence pair of [`FutexWait`](super::FutexWait), split unevenly: the
//! notifier, which runs after every publish and every consume, pays a compiler fence; the
//! waiter, which runs only on its way to sleep, pays for both sides with `membarrier(2)`.
//!
//! # Why it is enough
//!
//! The pair orders two store→load sequences against each other (the Dekker or store-buffering
//! pattern): the notifier stores the data that makes `ready()` true, then loads the futex word;
//! the waiter sets the sleepers flag in the word (an RMW), then calls `ready()`. With a SeqCst
//! fence on both sides, one of the two loads sees the other side's store.
//!
//! `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` returns only after every thread of the process
//! has run a full memory barrier at some point P between the call's start and its return (by
//! an interrupt on the CPUs that run one of them; a thread that is not running passes one when
//! it is switched out and in). Take P in the notifier's instruction stream:
//! - its data store comes before P: the barrier at P makes it visible before the membarrier
//!   returns, so the waiter's `ready()`, which runs after the return, sees it and does not sleep;
//! - its data store comes after P: then so does its load of the futex word (program order, and
//!   the compiler fence keeps the compiler from hoisting it), and the barrier at P keeps the CPU
//!   from performing it before P. The flag was in the word before the call started (the
//!   waiter's own RMW completed, or its load saw an earlier waiter's RMW: coherence then puts
//!   that RMW before anything that follows the load), so the load sees the flag (or a newer
//!   word, see `futex.rs`) and wakes.
//!
//! This is the argument Linux's userspace RCU and folly's `asymmetricHeavyBarrier` rest on.
//!
//! # When it is not available
//!
//! The mode is decided once per process, by the first notify or sleep that asks: it registers
//! the process for expedited membarriers (Linux 4.14 and later). If the kernel, a seccomp
//! filter or an emulator refuses, the mode is [`SYMMETRIC`] for good: SeqCst fences on both
//! sides, as before. On Android, whose app sandbox may kill a process for a syscall outside its
//! list, the kernel is never asked. A notifier that has not seen the mode yet fences, so a
//! waiter may sleep with membarrier while an early notifier fences: that is stronger, not
//! weaker. Under Miri (no such syscall) both sides fence. The futex module is not built under
//! loom, whose models of the pattern use [`CondvarWait`](super::CondvarWait) with symmetric
//! fences.
//!
//! # Cost
//!
//! Measured here (2 cores, x86_64; alternated runs of the binaries before and after):
//! - one thread (`cargo bench --bench calls`): `push`/`pop` on a `BlockingWait` core ring
//!   6.4–6.6 ns per item with a SeqCst fence per notify, 3.9–4.0 ns with this pair (an owned
//!   buffer: 6.1–6.3 → 4.0; a `YieldWait` ring, which notifies nobody: 3.4);
//! - threads on two cores (the `buffer` bench's target loops with `BlockingWait` instead of
//!   `YieldWait`, 3 alternated runs): SP item at a time 98–135 → 326–329 M items/s, broadcast
//!   1P→2C item reads 18–59 → 68–95 M/s, 1P→4C batch reads 12.4 → 99–106 M/s, MP 2P→1C 42–49
//!   → 59–72 M/s; on one core 5–55% faster.
//!
//! The price is paid by waiters: one `membarrier` per sleep (0.4 µs here with one thread; more
//! with threads on other CPUs, each of which is interrupted once).
//! [`FutexWait::with_symmetric_fences`](super::FutexWait::with_symmetric_fences) keeps the
//! old trade: a fence per notify and no interrupts.

use core::sync::atomic::AtomicU8;

use crate::sync::{fence, Ordering};

/// Not decided yet: notifiers fence, the next notifier or waiter decides.
const UNDECIDED: u8 = 0;
/// The process is registered for expedited membarriers: notifiers need only a compiler fence.
const ASYMMETRIC: u8 = 1;
/// Registration failed: SeqCst fences on both sides.
pub(crate) const SYMMETRIC: u8 = 2;

/// The process-wide mode ([`UNDECIDED`] until the first notify or sleep decides it; then
/// fixed).
#[allow(clippy::disallowed_types)] // a process-wide flag, not part of any protocol loom models
static MODE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// Whether the asymmetric pair is in force (deciding the mode if nobody has): a notifier may
/// then use a compiler fence, because every waiter runs [`heavy`]. Never changes from `true`
/// back to `false`.
#[inline]
pub(crate) fn available() -> bool {
    #[cfg(not(miri))]
    {
        // Relaxed: the mode is decided once; a stale `UNDECIDED` goes to `decide`, whose RMW
        // reads the decision.
        let mode = match MODE.load(Ordering::Relaxed) {
            UNDECIDED => decide(),
            mode => mode,
        };
        mode == ASYMMETRIC
    }
    #[cfg(miri)]
    false
}

/// The waiter's half: after setting the sleepers flag, before the last `ready()` check.
/// Returns `false` if the membarrier failed after registration succeeded (which Linux does not
/// do): the waiter must then not trust a wake-up to come and sleeps with a short timeout.
#[inline]
pub(crate) fn heavy() -> bool {
    fence(Ordering::SeqCst);
    #[cfg(not(miri))]
    {
        let mode = match MODE.load(Ordering::Relaxed) {
            UNDECIDED => decide(),
            mode => mode,
        };
        if mode == ASYMMETRIC {
            return membarrier(libc_membarrier::PRIVATE_EXPEDITED) == 0;
        }
    }
    true
}

/// The mode in force now (for tests: which half a notifier runs).
#[cfg(test)]
pub(crate) fn mode() -> u8 {
    MODE.load(Ordering::Relaxed)
}

/// Registers the process for expedited private membarriers; stores and returns the mode.
#[cfg(not(miri))]
#[cold]
fn decide() -> u8 {
    // Android's seccomp policy for apps may answer a syscall outside its list with SIGSYS
    // instead of an error: never ask there.
    if cfg!(target_os = "android") {
        return match MODE.compare_exchange(
            UNDECIDED,
            SYMMETRIC,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => SYMMETRIC,
            Err(decided) => decided,
        };
    }
    let supported = membarrier(libc_membarrier::QUERY);
    let mode = if supported >= 0
        && supported & libc_membarrier::PRIVATE_EXPEDITED as libc::c_long != 0
        && membarrier(libc_membarrier::REGISTER_PRIVATE_EXPEDITED) == 0
    {
        ASYMMETRIC
    } else {
        SYMMETRIC
    };
    // Relaxed: a notifier that reads the mode late fences (stronger). The first decision
    // stands: registration is per process, so once one caller succeeded every membarrier
    // works, and a caller that failed while another succeeded adopts the success; a failure
    // that won (the kernel refused) makes everyone fence. Never changed after that, so no
    // waiter fences plainly while a notifier relies on membarrier.
    match MODE.compare_exchange(UNDECIDED, mode, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => mode,
        Err(decided) => decided,
    }
}

/// `membarrier(cmd, 0)`: the result (or -1 on error).
#[cfg(not(miri))]
fn membarrier(cmd: libc::c_int) -> libc::c_long {
    // SAFETY: membarrier takes two integers and touches no user memory; every command used
    // here is defined since Linux 4.14, and an older kernel (or a filter) answers with an
    // error, which the callers handle.
    unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_uint) }
}

/// The `membarrier(2)` commands used here (`linux/membarrier.h`; not all of them are in the
/// `libc` crate).
#[cfg(not(miri))]
mod libc_membarrier {
    pub(super) const QUERY: libc::c_int = 0;
    pub(super) const PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    pub(super) const REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_is_decided_once() {
        assert!(heavy());
        let first = mode();
        assert_ne!(first, UNDECIDED);
        assert!(heavy());
        assert_eq!(mode(), first);
        assert_eq!(available(), first == ASYMMETRIC);
    }

    /// The store-buffering litmus test on the pair itself, the way the futex uses it: thread X
    /// stores `a`, runs the notifier's fence (a compiler fence if [`available`]), loads `b`; thread Y sets `b` with an RMW, runs `heavy`, loads
    /// `a`. Both loads seeing 0 is the forbidden outcome (a notifier missing the sleeper while
    /// the sleeper misses the data). Returns how often it was seen. Each round uses fresh cache
    /// lines and Y starts a round-dependent few cycles late, so the two sweep across each
    /// other. Without a barrier in `heavy` this finds the outcome within a few thousand rounds
    /// on x86_64 (the notifier's store waits in its store buffer while its load passes it).
    fn forbidden_outcomes(rounds: usize) -> usize {
        use std::sync::atomic::AtomicUsize;

        #[repr(align(128))]
        #[derive(Default)]
        struct Line(AtomicUsize);

        const BATCH: usize = 1024;
        let go = Line::default();
        let done = Line::default();
        let light = available();
        let mut forbidden = 0;
        for batch in 0..rounds.div_ceil(BATCH) {
            let a: Vec<Line> = (0..BATCH).map(|_| Line::default()).collect();
            let b: Vec<Line> = (0..BATCH).map(|_| Line::default()).collect();
            let seen_by_x: Vec<Line> = (0..BATCH).map(|_| Line::default()).collect();
            let mut seen_by_y = [0usize; BATCH];
            std::thread::scope(|s| {
                s.spawn(|| {
                    for i in 0..BATCH {
                        let round = batch * BATCH + i + 1;
                        // Acquire/Release on go/done: only the rounds' start and end; the
                        // litmus accesses themselves are Relaxed.
                        while go.0.load(Ordering::Acquire) < round {
                            std::hint::spin_loop();
                        }
                        a[i].0.store(1, Ordering::Relaxed);
                        if light {
                            core::sync::atomic::compiler_fence(Ordering::SeqCst);
                        } else {
                            fence(Ordering::SeqCst);
                        }
                        seen_by_x[i]
                            .0
                            .store(b[i].0.load(Ordering::Relaxed), Ordering::Relaxed);
                        done.0.store(round, Ordering::Release);
                    }
                });
                for (i, seen) in seen_by_y.iter_mut().enumerate() {
                    let round = batch * BATCH + i + 1;
                    go.0.store(round, Ordering::Release);
                    for k in 0..(round * 13) % 97 {
                        std::hint::black_box(k);
                    }
                    b[i].0.fetch_or(1, Ordering::Relaxed);
                    assert!(heavy());
                    *seen = a[i].0.load(Ordering::Relaxed);
                    while done.0.load(Ordering::Acquire) < round {
                        std::hint::spin_loop();
                    }
                }
            });
            forbidden += (0..BATCH)
                .filter(|&i| seen_by_x[i].0.load(Ordering::Relaxed) == 0 && seen_by_y[i] == 0)
                .count();
        }
        forbidden
    }

    #[test]
    #[cfg(not(miri))]
    fn the_pair_forbids_the_store_buffering_outcome() {
        assert_eq!(forbidden_outcomes(50_000), 0);
    }

    /// Where the kernel offers expedited private membarriers, registration must succeed and
    /// the cheap notifier be in use, or the speed-up silently disappears.
    #[test]
    #[cfg(not(miri))]
    fn a_kernel_that_offers_membarrier_gets_the_asymmetric_pair() {
        assert!(heavy());
        let offered = membarrier(libc_membarrier::QUERY);
        if cfg!(target_os = "android") {
            assert_eq!(mode(), SYMMETRIC, "Android never asks");
        } else if offered >= 0 && offered & libc_membarrier::PRIVATE_EXPEDITED as libc::c_long != 0
        {
            assert_eq!(mode(), ASYMMETRIC, "registration failed although offered");
        } else {
            assert_eq!(mode(), SYMMETRIC);
        }
    }
}
