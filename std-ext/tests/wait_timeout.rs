//! `wait_until_timeout`: gives up only after the timeout and after one last check, and returns
//! `true` as soon as the condition holds.

use spanring_core::sync::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use spanring_core::WaitTimeout;
#[cfg(target_os = "linux")]
use spanring_std::FutexWait;
use spanring_std::{BlockingWait, CondvarWait, HybridWait, SleepWait, YieldWait};

const TIMEOUT: Duration = Duration::from_millis(20);

fn times_out<W: WaitTimeout>(wait: &W) {
    let start = Instant::now();
    let mut last_check = start;
    let mut checks = 0u64;
    let got = wait.wait_until_timeout(
        &mut || {
            checks += 1;
            last_check = Instant::now();
            false
        },
        TIMEOUT,
    );
    assert!(!got, "a never-true condition reported ready");
    assert!(
        start.elapsed() >= TIMEOUT,
        "gave up after {:?} < {TIMEOUT:?}",
        start.elapsed()
    );
    assert!(
        last_check - start >= TIMEOUT,
        "no check at/after the deadline"
    );
    assert!(checks >= 2);
}

fn true_at_once<W: WaitTimeout>(wait: &W) {
    assert!(wait.wait_until_timeout(&mut || true, Duration::ZERO));
    assert!(wait.wait_until_timeout(&mut || true, Duration::MAX));
}

fn woken_before_timeout<W: WaitTimeout + Send + Sync + 'static>(wait: W) {
    let flag = Arc::new(AtomicBool::new(false));
    let wait = Arc::new(wait);
    let (f, w) = (flag.clone(), wait.clone());
    let t = thread::spawn(move || {
        f.store(true, Ordering::Release);
        w.notify_all();
    });
    // Generous timeout: the result must be true whatever the scheduling.
    assert!(wait.wait_until_timeout(
        &mut || flag.load(Ordering::Acquire),
        Duration::from_secs(60)
    ));
    t.join().unwrap();
}

#[test]
#[cfg(target_os = "linux")]
fn futex() {
    times_out(&FutexWait::with_spins(0));
    times_out(&FutexWait::new());
    true_at_once(&FutexWait::new());
    woken_before_timeout(FutexWait::with_spins(0));
}

#[test]
fn condvar() {
    times_out(&CondvarWait::with_spins(0));
    true_at_once(&CondvarWait::new());
    woken_before_timeout(CondvarWait::with_spins(0));
}

#[test]
fn blocking_yield_sleep() {
    times_out(&BlockingWait::new());
    times_out(&YieldWait::new());
    times_out(&SleepWait::new());
    true_at_once(&YieldWait::new());
    true_at_once(&SleepWait::new());
    woken_before_timeout(SleepWait::new());
}

#[test]
fn hybrid() {
    times_out(&HybridWait::new());
    times_out(&HybridWait::with_phases(0, Duration::ZERO));
    // A yield phase longer than the timeout: the timeout still ends it.
    times_out(&HybridWait::with_phases(0, Duration::from_secs(60)));
    true_at_once(&HybridWait::new());
    woken_before_timeout(HybridWait::new());
    woken_before_timeout(HybridWait::with_phases(0, Duration::ZERO));
}
