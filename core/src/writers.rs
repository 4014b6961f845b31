//! The writers word: how many writer handles a ring has, and on a multi-producer ring the
//! flags that let a writer that is alone claim like a single-producer writer.
//!
//! ```text
//!  top bit        CLOSED         a multi-producer close decided (set once, by one CAS)
//!  next bit       SEAL_DEFERRED  that close found exactly one writer: that writer seals
//!  next bit       SOLE_CACHED    the one writer claims from its own cached cursor and free count
//!  the rest       COUNT          live writer handles
//! ```
//!
//! ## One writer claims alone (multi-producer rings)
//!
//! With several writers a claim is a CAS on the claim cursor. A `lock cmpxchg` drains the
//! store buffer, where the previous item's record store is still waiting for the record line a
//! caught-up reader keeps pulling back; a profile put 70% of a lone writer's time on it
//! (see [`claim`](crate::claim), "Where the time went"). Replacing the CAS by a load and a
//! plain store got a lone writer to about 0.3× the single-producer ring; what was left was
//! the call into the out-of-line claim, the recomputation of the free space from the shared
//! cached minimum on every claim, and, once per capacity, a walk of every record to move the
//! published hint. So a writer that finds the word at exactly [`SOLO`] (one writer, no flag)
//! *takes the cache*: a CAS to [`CACHED`], then it keeps its own limit
//! ([`SpLocal`](crate::claim::SpLocal), reset at the take) and from then on claims exactly as
//! a single-producer writer does: one load of this word (it stays in the writer's cache:
//! nobody writes it while one writer is alone), one load of the claim cursor (only it stores
//! that now) and one compare against its limit, inlined. Its publish stores the record, then
//! the new claim cursor (a plain store to a line no reader polls), so the shared claim cursor
//! is exact whenever no span is in flight. Its rescans of
//! the readers move the published hint straight to its claim cursor (every slot before it is
//! published or given back: its spans finish in order, and a writer that left finished its
//! spans first) instead of walking the records. That is sound because nothing else moves the
//! claim cursor meanwhile:
//!
//! - **No second writer can appear while the cache is held.** [`Writer::attach`](crate::Writer::attach)
//!   on a multi-producer ring hands out a writer only while COUNT is 0 (a CAS); further writers
//!   come from `Writer::clone`, which takes `&self` and so cannot overlap the same handle's
//!   claim or span (`&mut self`). Its CAS clears SOLE_CACHED as it increments COUNT, so the
//!   owner's next claim fails the fast-path compare and takes the CAS path, from the shared
//!   claim cursor, which is exact (no span of the owner is in flight during `clone`). The clone
//!   is sequenced after the owner's last claim in the owner's program order (or, from another
//!   thread holding `&writer`, by whatever handed that reference over), so the owner's
//!   `Relaxed` fast-path load sees the cleared flag. A later return to COUNT = 1 cannot be
//!   mistaken for the old state: only a writer's slow path sets SOLE_CACHED again, after
//!   reloading the claim cursor.
//! - **A writer that left is ordered before us.** A dropped writer's claims and give-backs
//!   happen before its `AcqRel` decrement; the `Acquire` CAS that takes the cache reads it (or
//!   a later value of the word), so our load of the claim cursor is not older than its last
//!   claim. The last writer's decrement clears SOLE_CACHED, so a writer attached later starts
//!   on the slow path.
//! - **Close.** A close cannot order itself against a claim that touches no shared memory,
//!   so when its CAS on this word finds COUNT = 1 it also sets SEAL_DEFERRED and does not
//!   seal: the one writer seals on its next publish, claim, clone or drop (it then has no span
//!   in flight, and its claim cursor is stored), exactly as a single-producer writer does.
//!   With COUNT ≠ 1 no writer holds the cache (a clone cleared it before COUNT reached 2), so
//!   the close seals at once, ordered against every claim by its RMW on the claim cursor.
//!
//! Loom models: `loom_close::sole_writer_claim_races_close`,
//! `loom_close::clone_claim_drop_then_sole_claim`, `loom_close::clone_from_a_cached_writer`.

use crate::sync::{AtomicUsize, Ordering};

/// A multi-producer close was decided.
pub(crate) const CLOSED: usize = 1 << (usize::BITS - 1);
/// The close found one writer, which seals it (module docs).
pub(crate) const SEAL_DEFERRED: usize = 1 << (usize::BITS - 2);
/// The one writer of a multi-producer ring claims from its own cache (module docs).
pub(crate) const SOLE_CACHED: usize = 1 << (usize::BITS - 3);
/// The live writer count.
pub(crate) const COUNT: usize = SOLE_CACHED - 1;
/// The word of a multi-producer ring whose one writer may take the cache.
pub(crate) const SOLO: usize = 1;
/// The word of a multi-producer ring whose one writer claims from its cache: the fast path.
pub(crate) const CACHED: usize = SOLO | SOLE_CACHED;

/// Whether a writers word lets one of several writers claim with the inlined CAS: two to
/// `COUNT` writers and no flag. One compare: a flag bit puts the word above `COUNT`; one
/// writer (`SOLO`, which takes the cache) or none wraps below 2.
#[inline(always)]
pub(crate) const fn shared_claim_allowed(word: usize) -> bool {
    word.wrapping_sub(2) <= COUNT - 2
}

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

/// The one writer of a multi-producer ring takes the cache: `true` if the word was [`SOLO`]
/// (then the caller loads the claim cursor into its cache).
pub(crate) fn take_cache(writers: &AtomicUsize) -> bool {
    // Acquire: a writer that left (AcqRel decrement, read here or through a later RMW) made
    // its claims visible to our load of the claim cursor. Failure: a clone, a close or another
    // writer changed the word; the caller re-reads it.
    writers
        .compare_exchange(SOLO, CACHED, Ordering::Acquire, Ordering::Relaxed)
        .is_ok()
}

/// Counts a clone of a live writer, ending the owner's cache; returns whether a close is
/// waiting for a seal (the clone's owner holds no span now, so the caller may seal).
pub(crate) fn add_clone(writers: &AtomicUsize) -> bool {
    // Relaxed: validated by the CAS.
    let mut word = writers.load(Ordering::Relaxed);
    loop {
        // AcqRel: Release so that a close whose CAS reads this count (≥ 2, sealing at once)
        // sees the owner's earlier claims and publications; Acquire to read the flags
        // reliably.
        match writers.compare_exchange_weak(
            word,
            (word & !SOLE_CACHED) + 1,
            Ordering::AcqRel,
            Ordering::Relaxed,
        ) {
            Ok(_) => return word & SEAL_DEFERRED != 0,
            Err(actual) => word = actual,
        }
    }
}

/// Uncounts a writer (ending the cache if it held it: it was then the only one); `true` if
/// it was the last.
pub(crate) fn last_writer_gone(writers: &AtomicUsize) -> bool {
    // Relaxed: SOLE_CACHED is set by the writer that holds the cache and cleared only by a
    // clone of it or its own drop, all ordered before this load; if it is set we are that
    // writer (no other exists), so subtracting the flag with the count is exact even while a
    // close's CAS sets its bits.
    let held = writers.load(Ordering::Relaxed) & SOLE_CACHED;
    // AcqRel: the last decrement must see every other writer's publications before closing,
    // and a later sole writer must see this one's claims (module docs).
    writers.fetch_sub(1 + held, Ordering::AcqRel) & COUNT == 1
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-compare test agrees with the two-part definition (no flag, and more than one
    /// writer) on every boundary of the word's fields.
    #[test]
    fn shared_claim_allowed_is_no_flag_and_two_or_more_writers() {
        let counts = [0, 1, 2, 3, COUNT / 2, COUNT - 1, COUNT];
        let flag_sets = [
            0,
            SOLE_CACHED,
            SEAL_DEFERRED,
            CLOSED,
            CLOSED | SEAL_DEFERRED,
            CLOSED | SEAL_DEFERRED | SOLE_CACHED,
        ];
        for flags in flag_sets {
            for count in counts {
                let word = flags | count;
                let expected = flags == 0 && count >= 2;
                assert_eq!(
                    shared_claim_allowed(word),
                    expected,
                    "word {word:#x} (flags {flags:#x}, count {count})"
                );
            }
        }
        assert!(!shared_claim_allowed(SOLO));
        assert!(!shared_claim_allowed(CACHED));
        assert!(!shared_claim_allowed(usize::MAX));
    }
}
