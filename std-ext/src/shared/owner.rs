//! Who holds a shared ring's writer and each reader slot, and whether that process still
//! lives: what lets a ring shared by processes outlive a process killed while it held a handle.
//!
//! An owner is a token, `(start time << 32) | pid`, from `/proc/<pid>/task/<pid>/stat`: a pid
//! alone is reused after the process ends, the pair is not (within the start time's 32 bits of
//! clock ticks, over a year at 100 Hz). 0 means nobody, or not known. A token is *dead* only when
//! the kernel proves it: no `/proc/<pid>`, a zombie, or another start time under that pid (the
//! pid was reused). A stopped (`SIGSTOP`), slow or swapped-out process is alive, so it is never
//! repaired, and anything that cannot be read counts as alive too: a wrong "alive" only keeps
//! a slot taken; a wrong "dead" would hand a live process's slot to another.
//!
//! Processes must share one pid namespace (containers that share the ring but not the
//! namespace see other pids: their slots are then never reclaimed, which is safe).

use std::time::Duration;

// Real atomics: they live in memory shared by processes (the loom shim's cannot).
#[allow(clippy::disallowed_types)]
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use spanring_core::parts::CachePadded;

/// How often a writer waiting for room looks for dead readers, unless set otherwise.
pub(crate) const DEFAULT_LIVENESS: Duration = Duration::from_millis(100);

/// The owner records of a shared ring: its writer and each of its `READERS` reader slots (the
/// registry's slot numbers), and how often waiting writers check them.
#[repr(C)]
#[allow(clippy::disallowed_types)]
pub(crate) struct Owners<const READERS: usize> {
    pub(crate) writer: CachePadded<AtomicU64>,
    pub(crate) readers: [CachePadded<AtomicU64>; READERS],
    /// Milliseconds between checks (at least 1).
    pub(crate) liveness_ms: AtomicU32,
}

#[allow(clippy::disallowed_types)]
impl<const READERS: usize> Owners<READERS> {
    /// No owners; checks every [`DEFAULT_LIVENESS`].
    pub(crate) fn new() -> Self {
        Self {
            writer: CachePadded::new(AtomicU64::new(0)),
            readers: core::array::from_fn(|_| CachePadded::new(AtomicU64::new(0))),
            liveness_ms: AtomicU32::new(DEFAULT_LIVENESS.as_millis() as u32),
        }
    }

    /// The check period.
    pub(crate) fn liveness(&self) -> Duration {
        // Relaxed: a setting; any value seen is a valid one.
        Duration::from_millis(u64::from(self.liveness_ms.load(Ordering::Relaxed).max(1)))
    }
}

/// Marks a record as ours (after the handle was taken), or clears it (before the handle is
/// released): the order that never shows a live handle under a dead owner's token.
#[allow(clippy::disallowed_types)]
pub(crate) fn claim(record: &AtomicU64, token: u64) {
    // Release: a process that acquires the token and finds it dead also sees the slot taken.
    record.store(token, Ordering::Release);
}

/// Clears the record if it is still `token` (a reclaimer may have cleared it already).
#[allow(clippy::disallowed_types)]
pub(crate) fn release(record: &AtomicU64, token: u64) {
    // Release: pairs with the reclaimer's Acquire; failure: someone else owns it now, or a
    // reclaimer took it (we are then reported dead, which we are not: cannot happen, but
    // leaving another's token alone is right either way).
    let _ = record.compare_exchange(token, 0, Ordering::Release, Ordering::Relaxed);
}

/// Takes the record from its owner if that owner is dead: `true` means the caller alone now
/// repairs what the dead owner held.
#[allow(clippy::disallowed_types)]
pub(crate) fn take_from_dead(record: &AtomicU64) -> bool {
    // Acquire: pairs with `claim`'s Release (the handle was taken before the token).
    let token = record.load(Ordering::Acquire);
    token != 0
        && is_dead(token)
        // AcqRel: one reclaimer wins; it sees everything the dead owner's claim published.
        && record
            .compare_exchange(token, 0, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
}

/// This process's token (0 if `/proc` cannot tell its start time).
pub(crate) fn this_process() -> u64 {
    let pid = std::process::id();
    start_time(pid).map_or(0, |start| token_of(pid, start))
}

fn token_of(pid: u32, start: u64) -> u64 {
    ((start & 0xFFFF_FFFF) << 32) | u64::from(pid)
}

/// Whether the process behind `token` has provably ended.
pub(crate) fn is_dead(token: u64) -> bool {
    let pid = (token & 0xFFFF_FFFF) as u32;
    if pid == 0 {
        return false;
    }
    match std::fs::read_to_string(stat_path(pid)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(_) => false, // cannot tell: alive
        Ok(stat) => match parse_stat(&stat) {
            None => false,
            Some((state, start)) => matches!(state, 'Z' | 'X') || token_of(pid, start) != token,
        },
    }
}

/// The start time of process `pid`, in clock ticks after boot.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(stat_path(pid)).ok()?;
    parse_stat(&stat).map(|(_, start)| start)
}

/// Where process `pid`'s stat line is read, by its owner and by every checker alike: the
/// main thread's (the same state and start time as the process's), because user-mode
/// emulators (qemu-user) answer `/proc/self/stat` and `/proc/<own pid>/stat` with a synthetic
/// line of their own, whose start time would not match what other processes read.
fn stat_path(pid: u32) -> String {
    format!("/proc/{pid}/task/{pid}/stat")
}

/// `(state, starttime)` from a `/proc/<pid>/stat` line: the fields after the command name
/// (which is in parentheses and may contain spaces or parentheses, hence the last `)`); the
/// state is field 3, the start time field 22.
fn parse_stat(stat: &str) -> Option<(char, u64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let start = fields.nth(22 - 4)?.parse().ok()?;
    Some((state, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_with_odd_command_names() {
        let line = "42 (a) b (c)) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(parse_stat(line), Some(('S', 987_654)));
        assert_eq!(parse_stat("42 (x) Z"), None);
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    #[cfg_attr(miri, ignore)] // reads /proc
    fn this_process_is_alive_and_a_wrong_start_time_is_dead() {
        let me = this_process();
        assert_ne!(me, 0);
        assert!(!is_dead(me));
        assert!(
            is_dead(me ^ (1 << 32)),
            "another start time under our pid: reused"
        );
        assert!(!is_dead(0));
    }
}
