//! The writers word: how many writer handles a ring has, and on a multi-producer ring the two
//! close flags that let a writer that is alone claim with a plain store instead of a CAS.
//!
//! ```text
//!  top bit        CLOSED         a multi-producer close decided (set once, by one CAS)
//!  next bit       SEAL_DEFERRED  that close found exactly one writer: that writer seals
//!  the rest       COUNT          live writer handles
//! ```
//!
//! ## One writer claims alone (multi-producer rings)
//!
//! With several writers a claim is a CAS on the claim cursor. A `lock cmpxchg` drains the
//! store buffer, where the previous item's record store is still waiting for the record line a
//! caught-up reader keeps pulling back; a profile put 70% of a lone writer's time on it
//! (see [`claim`](crate::claim), "Where the time went"). A writer that loads this word
//! (`Acquire`) and finds exactly [`SOLO`] (one writer, no flag) claims with a load and a plain
//! store instead. That is sound because nothing else can move the claim cursor meanwhile:
//!
//! - **No second writer can appear during the claim.** [`Writer::attach`](crate::Writer::attach)
//!   on a multi-producer ring hands out a writer only while COUNT is 0 (a CAS); further writers
//!   come from `Writer::clone`, which takes `&self` and so cannot overlap the same handle's
//!   claim (`&mut self`). Its increment is sequenced in the owner's program order before the
//!   clone exists, so the owner's next claim sees COUNT = 2 and uses the CAS.
//! - **A writer that left is ordered before us.** A dropped writer's claims and give-backs
//!   happen before its `AcqRel` decrement; our `Acquire` load reads it (or a later value of the
//!   word), so our load of the claim cursor is not older than its last claim.
//! - **A give-back CAS** (a partial publish) comes from our own handle, in program order.
//! - **Close.** A close cannot order itself against a plain store, so when its CAS on this word
//!   finds COUNT = 1 it also sets SEAL_DEFERRED and does not seal: the one writer seals on its
//!   next publish, claim, clone or drop (it then has no span in flight), exactly as a
//!   single-producer writer does. With COUNT ≠ 1 no writer is on the plain-store path (a
//!   writer loaded the word as SOLO only before the close's CAS in the word's modification
//!   order, and then the CAS read COUNT = 1 as well, or a clone in between made the owner's
//!   span finish first), so the close seals at once, ordered against every claim by its RMW
//!   on the claim cursor.
//!
//! Loom models: `loom_close::sole_writer_claim_races_close`,
//! `loom_close::clone_claim_drop_then_sole_claim`.

use crate::sync::{AtomicUsize, Ordering};

/// A multi-producer close was decided.
pub(crate) const CLOSED: usize = 1 << (usize::BITS - 1);
/// The close found one writer, which seals it (module docs).
pub(crate) const SEAL_DEFERRED: usize = 1 << (usize::BITS - 2);
/// The live writer count.
pub(crate) const COUNT: usize = SEAL_DEFERRED - 1;
/// The word of a multi-producer ring whose one writer may claim with a plain store.
pub(crate) const SOLO: usize = 1;

/// Counts the first writer of a multi-producer ring; `false` if a writer is alive (more
/// writers come from `clone`).
pub(crate) fn attach_first(writers: &AtomicUsize) -> bool {
    // Relaxed: validated by the CAS.
    let mut word = writers.load(Ordering::Relaxed);
    loop {
        if word & COUNT != 0 {
            return false;
        }
        // Acquire: the last writer's claims (before its AcqRel decrement) are visible to ours;
        // a close already decided is visible too (our claims then fail).
        match writers.compare_exchange_weak(word, word + 1, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(actual) => word = actual,
        }
    }
}

/// Counts a clone of a live writer; returns whether a close is waiting for a seal (the clone's
/// owner holds no span now, so the caller may seal).
pub(crate) fn add_clone(writers: &AtomicUsize) -> bool {
    // AcqRel: Release so that a close whose CAS reads this count (≥ 2, sealing at once) sees
    // the owner's earlier claims and publications; Acquire to read the flags reliably.
    writers.fetch_add(1, Ordering::AcqRel) & SEAL_DEFERRED != 0
}

/// Uncounts a writer; `true` if it was the last.
pub(crate) fn last_writer_gone(writers: &AtomicUsize) -> bool {
    // AcqRel: the last decrement must see every other writer's publications before closing,
    // and a later sole writer must see this one's claims (module docs).
    writers.fetch_sub(1, Ordering::AcqRel) & COUNT == 1
}

/// Decides a multi-producer close: `None` if one was decided already, else whether sealing is
/// deferred to the one writer.
pub(crate) fn close_multi(writers: &AtomicUsize) -> Option<bool> {
    // Relaxed: validated by the CAS.
    let mut word = writers.load(Ordering::Relaxed);
    loop {
        if word & CLOSED != 0 {
            return None;
        }
        let deferred = word & COUNT == 1;
        let flags = CLOSED | if deferred { SEAL_DEFERRED } else { 0 };
        // AcqRel: Acquire so that a count of ≥ 2 made by a clone brings the owner's earlier
        // claims with it; Release so a writer that reads CLOSED sees what came before.
        match writers.compare_exchange_weak(word, word | flags, Ordering::AcqRel, Ordering::Relaxed)
        {
            Ok(_) => return Some(deferred),
            Err(actual) => word = actual,
        }
    }
}
