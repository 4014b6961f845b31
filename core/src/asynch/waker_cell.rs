//! [`WakerCell`]: one waker slot shared by its owning future and any number of notifiers,
//! guarded by a four-bit atomic state machine in which nobody ever spins.
//!
//! # States
//!
//! `state` holds four bits:
//! - `OCCUPIED`: the cell belongs to one pending future (claimed with a CAS from 0);
//! - `REGISTERING`: the owner holds the waker slot (storing a waker, or freeing the cell);
//! - `WAKING`: a notifier holds the waker slot (taking the waker out) — or, next to
//!   `REGISTERING`/`RELEASED`, a wake-up left for the slot's holder to deal with;
//! - `RELEASED`: the owner gave the cell up (the future completed or was dropped).
//!
//! The waker slot is only touched by whoever *acquired* a lock bit: the owner by a CAS from
//! exactly `OCCUPIED` (no other bit), a notifier by a `fetch_or(WAKING)` whose previous value
//! had no lock bit. Whoever finds the slot held does not wait:
//! - a notifier that finds the owner registering leaves `WAKING` set; the owner sees it when
//!   unlocking and wakes its own waker (no wake-up is lost);
//! - an owner that finds a notifier holding the slot wakes its own waker at once (the future
//!   is polled again and registers again);
//! - an owner that releases while a notifier holds the slot sets `RELEASED` and leaves the
//!   freeing to that notifier, which sees the bit when unlocking.
//!
//! No side ever spins, so a notifier running in an interrupt handler can never deadlock with
//! the thread it interrupted.
//!
//! Every change of `state` is a read-modify-write (unlocking uses `swap`, not `store`), so all
//! changes form one chain in which each reads the one before. (A plain store would be correct
//! under the C++ memory model too, but loom models a plain store racing with another thread's
//! RMW more loosely than the model, and reports an execution in which a notifier's `fetch_or`
//! survives the owner's later unlocking store.)

use core::task::Waker;

use crate::sync::{AtomicUsize, Ordering};

const OCCUPIED: usize = 1;
const REGISTERING: usize = 2;
const WAKING: usize = 4;
const RELEASED: usize = 8;
const LOCKS: usize = REGISTERING | WAKING | RELEASED;

/// The slot itself: `core`'s `UnsafeCell`, or loom's under the model checker so that loom
/// also checks that the state machine really makes slot accesses exclusive.
#[cfg(not(spanring_loom))]
struct Slot(core::cell::UnsafeCell<Option<Waker>>);

#[cfg(spanring_loom)]
struct Slot(loom::cell::UnsafeCell<Option<Waker>>);

impl Slot {
    crate::__maybe_const_fn! {
        fn new() -> Self {
            #[cfg(not(spanring_loom))]
            {
                Self(core::cell::UnsafeCell::new(None))
            }
            #[cfg(spanring_loom)]
            {
                Self(loom::cell::UnsafeCell::new(None))
            }
        }
    }

    /// Runs `f` on the slot.
    ///
    /// # Safety
    ///
    /// The caller holds a lock bit of the cell (see the module docs): no other access to the
    /// slot can run at the same time.
    #[inline]
    unsafe fn with_mut<T>(&self, f: impl FnOnce(&mut Option<Waker>) -> T) -> T {
        #[cfg(not(spanring_loom))]
        {
            // SAFETY: the caller guarantees exclusive access (see `# Safety`).
            f(unsafe { &mut *self.0.get() })
        }
        #[cfg(spanring_loom)]
        {
            // SAFETY: as above; loom additionally checks the exclusivity.
            self.0.with_mut(|p| f(unsafe { &mut *p }))
        }
    }
}

/// One waker slot with its state machine (see the module docs).
pub(crate) struct WakerCell {
    state: AtomicUsize,
    slot: Slot,
}

// SAFETY: the slot holds a `Waker`, which is `Send + Sync`; every access to it is made exclusive
// by the lock bits of `state` (module docs), and the lock bits are taken with Acquire and given
// back with Release, so each holder sees the previous holder's writes.
unsafe impl Sync for WakerCell {}
// SAFETY: a `Waker` may move between threads; the cell owns nothing else.
unsafe impl Send for WakerCell {}

impl WakerCell {
    crate::__maybe_const_fn! {
        /// A free cell.
        pub(crate) fn new() -> Self {
            Self {
                state: AtomicUsize::new(0),
                slot: Slot::new(),
            }
        }
    }

    /// Takes the cell for one future; `false` if it is in use (or a notifier is passing by).
    pub(crate) fn try_claim(&self) -> bool {
        // Acquire: pairs with the Release store that freed the cell, so the previous holder's
        // last slot access happens before ours. Relaxed on failure: we touch nothing.
        self.state
            .compare_exchange(0, OCCUPIED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Stores `waker` (the owner only). When a notifier holds the slot, or passed by while we
    /// stored, `waker` is woken at once instead: the future will be polled again.
    pub(crate) fn register(&self, waker: &Waker) {
        // Acquire: pairs with the Release unlock of the previous slot holder (a notifier that
        // took the waker), so its access happens before ours. Relaxed on failure.
        if self
            .state
            .compare_exchange(
                OCCUPIED,
                OCCUPIED | REGISTERING,
                Ordering::Acquire,
                Ordering::Relaxed,
            )
            .is_err()
        {
            // A notifier holds the slot (it is waking our previous waker), or the cell is not
            // ours: either way, make sure the future is polled again.
            waker.wake_by_ref();
            return;
        }
        // SAFETY: we hold REGISTERING, taken by the CAS above from exactly `OCCUPIED`.
        let old = unsafe {
            self.slot.with_mut(|slot| match slot {
                Some(old) if old.will_wake(waker) => None,
                _ => slot.replace(waker.clone()),
            })
        };
        // Release: the slot write happens before the next holder's access (a notifier's AcqRel
        // `fetch_or`). Relaxed on failure: the failure path only stores.
        if self
            .state
            .compare_exchange(
                OCCUPIED | REGISTERING,
                OCCUPIED,
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_err()
        {
            // Only WAKING can have been added meanwhile: a notifier passed by and left the
            // wake-up to us. Unlock (clearing its bit) and wake ourselves.
            // Release: as for the CAS above.
            self.state.swap(OCCUPIED, Ordering::Release);
            waker.wake_by_ref();
        }
        drop(old); // outside the lock: a waker's drop may run arbitrary code
    }

    /// Wakes the cell's waker if it has one (a notifier; never waits). Returns `true` if this
    /// call freed the cell (its owner had released it meanwhile).
    pub(crate) fn wake(&self) -> bool {
        // Relaxed: only a cheap skip of free cells. The caller's AcqRel RMW on the registry
        // counter already ordered every completed registration before this load.
        if self.state.load(Ordering::Relaxed) & OCCUPIED == 0 {
            return false;
        }
        // AcqRel: Acquire pairs with the owner's Release unlock (we see the waker it stored);
        // Release makes our mark part of the release sequence the owner later acquires.
        let prev = self.state.fetch_or(WAKING, Ordering::AcqRel);
        if prev & LOCKS != 0 {
            // The slot is held (owner registering or releasing: it sees our bit; another
            // notifier: it is waking the same waker).
            return false;
        }
        if prev & OCCUPIED == 0 {
            // Freed since the load: we marked a free cell. Take the mark back.
            // Relaxed: we touched nothing; a claimer's Acquire CAS still synchronises with
            // the freeing store, which heads this release sequence.
            self.state.fetch_and(!WAKING, Ordering::Relaxed);
            return false;
        }
        // SAFETY: we hold WAKING: our fetch_or set it while no lock bit was set.
        let waker = unsafe { self.slot.with_mut(Option::take) };
        // AcqRel: Release orders our take before the owner's next lock (Acquire); Acquire lets
        // us see the state the owner left if it released meanwhile.
        let prev = self.state.fetch_and(!WAKING, Ordering::AcqRel);
        let freed = prev & RELEASED != 0;
        if freed {
            // The owner released while we held the slot and left the freeing to us; the
            // slot is empty (we took it). Release: pairs with the next claimer's Acquire.
            self.state.swap(0, Ordering::Release);
        }
        if let Some(waker) = waker {
            waker.wake();
        }
        freed
    }

    /// Gives the cell up (the owner only). Returns `true` if this call freed it; `false` if a
    /// notifier holds the slot and will free it when it is done (or the cell was not ours).
    pub(crate) fn release(&self) -> bool {
        // Relaxed: a first guess for the CAS loop.
        let mut current = self.state.load(Ordering::Relaxed);
        loop {
            if current & OCCUPIED == 0 || current & (REGISTERING | RELEASED) != 0 {
                return false; // not a cell we own (misuse): leave it alone
            }
            let take_lock = current & WAKING == 0;
            let next = if take_lock {
                current | RELEASED | REGISTERING
            } else {
                current | RELEASED
            };
            // Acquire: when we take the lock, pairs with the Release unlock of the last slot
            // holder. Relaxed on failure: we retry with the fresh value.
            match self.state.compare_exchange_weak(
                current,
                next,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) if take_lock => break,
                Ok(_) => return false, // the notifier holding the slot frees the cell
                Err(actual) => current = actual,
            }
        }
        // SAFETY: we hold REGISTERING, set by the CAS above while no lock bit was set.
        let old = unsafe { self.slot.with_mut(Option::take) };
        // Release: our slot access happens before the next claimer's (Acquire CAS). Clears any
        // WAKING mark left by a notifier that passed by: the future is gone, nobody to wake.
        self.state.swap(0, Ordering::Release);
        drop(old);
        true
    }

    /// Whether a future owns the cell (a snapshot).
    pub(crate) fn is_occupied(&self) -> bool {
        // Relaxed: a snapshot for diagnostics.
        self.state.load(Ordering::Relaxed) & OCCUPIED != 0
    }
}
