//! An idle reader on an owned buffer with the default wait ([`HybridWait`]) costs (almost) no
//! CPU: blocked for a second, it uses well under 10 % of a core (measured here: well under
//! 1 %; the bound is generous because CI machines are loaded, and this is not a benchmark).
//!
//! [`HybridWait`]: spanring_std::HybridWait
#![cfg(unix)]

use std::time::{Duration, Instant};

use spanring_std::core_api::ReadError;
use spanring_std::owned;

/// How long the reader stays idle.
const IDLE: Duration = Duration::from_secs(1);
/// The most CPU time it may use meanwhile, as a fraction of the wall time.
const MAX_SHARE: f64 = 0.10;

/// CPU time the calling thread has used so far.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec on this stack frame; clock_gettime only writes
    // it. CLOCK_THREAD_CPUTIME_ID is defined on every unix this crate builds for.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn assert_idle(what: &str, cpu: Duration, wall: Duration) {
    let share = cpu.as_secs_f64() / wall.as_secs_f64();
    println!(
        "{what}: {cpu:?} CPU over {wall:?} ({:.3} % of a core)",
        share * 100.0
    );
    assert!(
        share < MAX_SHARE,
        "{what}: an idle reader used {cpu:?} of CPU over {wall:?}"
    );
}

#[test]
fn a_reader_waiting_with_a_timeout_sleeps() {
    let (writer, mut reader) = owned::portable::<u64>(64).build().unwrap();
    let idle = std::thread::spawn(move || {
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        assert_eq!(reader.pop_timeout(IDLE), Err(ReadError::TimedOut));
        (thread_cpu_time() - cpu, wall.elapsed())
    });
    let (cpu, wall) = idle.join().unwrap();
    drop(writer);
    assert!(wall >= IDLE);
    assert_idle("pop_timeout", cpu, wall);
}

#[test]
fn a_reader_blocked_until_close_sleeps() {
    let (writer, mut reader) = owned::portable::<u64>(64).build().unwrap();
    let idle = std::thread::spawn(move || {
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        // Woken by the close below, whenever it comes: the sleep only makes the idle period.
        assert_eq!(reader.pop(), Err(ReadError::Closed));
        (thread_cpu_time() - cpu, wall.elapsed())
    });
    std::thread::sleep(IDLE);
    drop(writer); // the last writer closes the ring and wakes the reader
    let (cpu, wall) = idle.join().unwrap();
    assert_idle("pop until close", cpu, wall);
}
