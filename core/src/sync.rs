//! The one door through which every atomic, fence and spin hint in `spanring-core` passes.
//!
//! Normally backed by [`portable_atomic`] (real atomics where the target has them, and the
//! user-selected fallback — `critical-section` or `unsafe-assume-single-core` — where it does
//! not). Under `--cfg spanring_loom` it is backed by [`loom`](https://docs.rs/loom), so the
//! concurrency protocols can be model-checked without touching their code. The cfg is specific
//! to this crate on purpose: a bare `--cfg loom` would also switch every dependency that looks
//! at `cfg(loom)`.
//!
//! The types are re-exported publicly because [`AtomicBitset`](crate::bitset::AtomicBitset) can run
//! over caller-provided `&[AtomicUsize]` storage.
//!
//! ```
//! use spanring_core::sync::{AtomicUsize, Ordering};
//! let words = [AtomicUsize::new(0), AtomicUsize::new(0)];
//! words[0].store(1, Ordering::Relaxed);
//! assert_eq!(words[0].load(Ordering::Relaxed), 1);
//! ```

#[cfg(not(spanring_loom))]
pub use portable_atomic::{fence, AtomicBool, AtomicUsize, Ordering};

#[cfg(spanring_loom)]
pub use loom::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};

/// A hint to the CPU that we are busy-waiting (or a loom yield under the model checker, so
/// that spinning loops explore other threads instead of spinning forever).
///
/// ```
/// use spanring_core::sync::{spin_loop, AtomicBool, AtomicUsize, Ordering};
/// let (data, ready) = (AtomicUsize::new(0), AtomicBool::new(false));
/// std::thread::scope(|s| {
///     s.spawn(|| {
///         data.store(42, Ordering::Relaxed);
///         ready.store(true, Ordering::Release);
///     });
///     while !ready.load(Ordering::Acquire) {
///         spin_loop();
///     }
///     assert_eq!(data.load(Ordering::Relaxed), 42); // stored before `ready`
/// });
/// ```
#[inline]
pub fn spin_loop() {
    #[cfg(not(spanring_loom))]
    #[allow(clippy::disallowed_methods)]
    core::hint::spin_loop();
    #[cfg(spanring_loom)]
    loom::thread::yield_now();
}

/// Backs off after a lost compare-and-swap on a contended line: spins `2^step` times (at most
/// 64) and counts the step, so writers that keep colliding stop taking the line from each
/// other on every try (crossbeam's `Backoff::spin` does the same). Nothing under loom (the
/// model explores the retries without it) or Miri (which turns every pause hint into a thread
/// switch: a doc-test with two writers took over 14 minutes with the spins).
///
/// ```
/// use spanring_core::sync::contention_backoff;
/// let mut step = 0;
/// contention_backoff(&mut step); // 1 hint
/// contention_backoff(&mut step); // 2 hints
/// assert_eq!(step, 2); // the next call spins 4 times (at most 64)
/// ```
#[inline]
pub fn contention_backoff(step: &mut u32) {
    #[cfg(not(any(spanring_loom, miri)))]
    for _ in 0..1u32 << (*step).min(6) {
        #[allow(clippy::disallowed_methods)]
        core::hint::spin_loop();
    }
    *step += 1;
}

/// Creates an `AtomicUsize` in a `const` context where the backend allows it.
///
/// loom's atomics cannot be built in `const` context; portable-atomic's can. Constructors that
/// must be `const` for `static` rings are written with this macro so that the loom build still
/// compiles (as non-const functions).
#[doc(hidden)]
#[macro_export]
macro_rules! __maybe_const_fn {
    ($(#[$m:meta])* $vis:vis fn $($rest:tt)*) => {
        #[cfg(not(spanring_loom))]
        $(#[$m])* $vis const fn $($rest)*
        #[cfg(spanring_loom)]
        $(#[$m])* $vis fn $($rest)*
    };
}
