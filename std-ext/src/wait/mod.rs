//! Thread-based [`WaitStrategy`](spanring_core::WaitStrategy)s: spin-then-yield
//! ([`YieldWait`]), spin-yield-sleep ([`SleepWait`]), parking ([`BlockingWait`]: a futex on
//! Linux, [`CondvarWait`] elsewhere) and spin-yield-park ([`HybridWait`], the owned buffers'
//! default). All of them also implement [`WaitTimeout`](spanring_core::WaitTimeout).
//!
//! Which one: `BusySpin` (core) for dedicated cores and the lowest latency; [`YieldWait`] when
//! threads share cores but latency still matters; [`SleepWait`] for background consumers that
//! may lag by tens of microseconds and should use almost no CPU while idle; [`BlockingWait`]
//! when threads may idle for long and must cost nothing then, at the price of a syscall on the
//! wake-up path when somebody actually sleeps; [`HybridWait`] (the owned buffers' default) when
//! a stream is sometimes busy and sometimes idle: it yields for up to 50 µs before parking, so
//! a busy stream runs as with [`YieldWait`] and an idle one sleeps as with [`BlockingWait`].

#[cfg(all(any(target_os = "linux", target_os = "android"), not(spanring_loom)))]
mod asymmetric_fence;
mod condvar;
mod deadline;
#[cfg(all(any(target_os = "linux", target_os = "android"), not(spanring_loom)))]
mod futex;
mod hybrid;
mod sleep_wait;
mod yield_wait;

pub use condvar::CondvarWait;
#[cfg(all(any(target_os = "linux", target_os = "android"), not(spanring_loom)))]
pub use futex::FutexWait;
pub use hybrid::HybridWait;
pub use sleep_wait::SleepWait;
pub use yield_wait::YieldWait;

/// The parking wait strategy: [`FutexWait`] on Linux/Android, [`CondvarWait`] elsewhere (and
/// under the loom model checker).
///
/// Use it when a thread may wait for long: it spins briefly, then sleeps in the kernel until
/// `notify_all`, which costs (inlined) a compiler fence, two loads and a branch when nobody sleeps
/// ([`FutexWait`] on a kernel with `membarrier(2)`; the waiter going to sleep pays for the
/// fence instead) or a SeqCst fence and a load ([`CondvarWait`]).
///
/// Why the futex on Linux: on the ping-pong benchmark (`std-ext/benches/wait.rs`, 2 shared cores,
/// load average 4–5 from other jobs, no spinning) the futex matched or beat the condvar (round
/// trips/s over four runs: futex 218k/415k/340k/373k, condvar 226k/358k/331k/257k). It has no
/// mutex, so `ready()` never runs under a lock and a notifier never blocks behind a waiter; a
/// wake is one `FUTEX_WAKE` syscall instead of a lock, unlock and condvar signal. And its
/// no-waiter `notify_all` needs no hardware fence (the waiter pays with `membarrier(2)` when it
/// goes to sleep): a ring with it runs the one-item path 1.6× faster on one thread than with a
/// fence per notify, and 1.6–8× faster with threads on two cores (`FutexWait` docs).
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
/// use spanring_std::BlockingWait;
/// use spanring_std::core_api::WaitStrategy;
///
/// let flag = Arc::new(AtomicBool::new(false));
/// let wait = Arc::new(BlockingWait::new());
/// let (f, w) = (flag.clone(), wait.clone());
/// let t = std::thread::spawn(move || {
///     f.store(true, Ordering::Release); // make the condition true...
///     w.notify_all(); // ...then wake whoever waits for it
/// });
/// wait.wait_until(&mut || flag.load(Ordering::Acquire));
/// t.join().unwrap();
/// ```
#[cfg(all(any(target_os = "linux", target_os = "android"), not(spanring_loom)))]
pub type BlockingWait = FutexWait;

/// The parking wait strategy: [`CondvarWait`] on this platform (a futex on Linux).
///
/// ```
/// use spanring_std::BlockingWait;
/// use spanring_std::core_api::WaitStrategy;
/// BlockingWait::new().wait_until(&mut || true);
/// ```
#[cfg(not(all(any(target_os = "linux", target_os = "android"), not(spanring_loom))))]
pub type BlockingWait = CondvarWait;

/// Default number of spin-hint checks every strategy makes before yielding or parking.
pub(crate) const DEFAULT_SPINS: u32 = 64;

/// Checks `ready` up to `spins` times with a CPU pause hint between checks.
pub(crate) fn spin_phase(ready: &mut dyn FnMut() -> bool, spins: u32) -> bool {
    for _ in 0..spins {
        if ready() {
            return true;
        }
        crate::sync::spin_loop();
    }
    false
}

/// A thread counted in a strategy's `waiters`; leaving (even by a panic in `ready`) uncounts it,
/// so a panicking waiter cannot leave every later `notify_all` on the slow path.
pub(crate) struct Registration<'a>(&'a crate::sync::AtomicUsize);

impl<'a> Registration<'a> {
    /// Counts the calling thread in `waiters`. Relaxed: the caller orders this increment before
    /// its final `ready()` check with a SeqCst fence (see the futex/condvar module docs).
    pub(crate) fn new(waiters: &'a crate::sync::AtomicUsize) -> Self {
        waiters.fetch_add(1, crate::sync::Ordering::Relaxed);
        Self(waiters)
    }
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        // Relaxed: leaving needs no ordering; a stale non-zero count only costs a notifier one
        // needless wake-up call.
        self.0.fetch_sub(1, crate::sync::Ordering::Relaxed);
    }
}
