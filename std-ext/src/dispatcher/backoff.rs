//! [`Backoff`]: how dispatcher threads wait a short while before parking.

/// Empty checks with a spin hint before yielding.
const SPINS: u32 = 64;
/// `yield_now` calls before giving up (the caller then parks).
const YIELDS: u32 = 8;

/// A short spin-then-yield phase run before a blocking call that would park.
///
/// Parking is cheap for the parked thread but not for the one that wakes it: the ring's
/// parking strategy makes every publish (or consume) on the other side a `FUTEX_WAKE` syscall
/// until the sleeper is running again. Between a worker and its posters, gaps are usually far
/// shorter than a park/wake round trip, so both sides first wait here. Yielding (rather than
/// spinning longer) also hands the core to the thread being waited for when threads outnumber
/// cores.
pub(crate) struct Backoff {
    attempt: u32,
}

impl Backoff {
    /// A fresh phase.
    pub(crate) fn new() -> Self {
        Self { attempt: 0 }
    }

    /// Waits a little (a spin hint, later a `yield_now`); `false` once the phase is over and
    /// the caller should park instead.
    pub(crate) fn snooze(&mut self) -> bool {
        if self.attempt >= SPINS + YIELDS {
            return false;
        }
        if self.attempt < SPINS {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
        self.attempt += 1;
        true
    }
}
