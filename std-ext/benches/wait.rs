//! Wait strategy benchmarks (plain `main`, no harness):
//!
//! - ping-pong: two threads hand a flag back and forth through an `AtomicUsize`, each waiting
//!   for its turn on its own strategy instance and notifying the other's (round trips per second);
//! - idle notify: `notify_all` with nobody waiting (ns per call) — the cost every publish pays.
//!
//! Run: `cargo bench -p spanring-std --bench wait`. Each figure is the median of 3 runs.

use spanring_core::sync::{AtomicUsize, Ordering};
use std::hint::black_box;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use spanring_core::{BusySpin, WaitStrategy};
#[cfg(target_os = "linux")]
use spanring_std::FutexWait;
use spanring_std::{CondvarWait, SleepWait, YieldWait};

const PING_PONG_TIME: Duration = Duration::from_millis(400);
const RUNS: usize = 3;

/// Round trips per second for one run of about `PING_PONG_TIME`.
fn ping_pong_once<W: WaitStrategy + Send + Sync + 'static>(make: &dyn Fn() -> W) -> f64 {
    let turn = Arc::new(AtomicUsize::new(0));
    let waits = Arc::new([make(), make()]);
    let stop = usize::MAX;
    let (t2, w2) = (turn.clone(), waits.clone());
    let echo = thread::spawn(move || loop {
        // Acquire/Release: the turn hand-off; pairs with the other thread's opposite op.
        w2[1].wait_until(&mut || t2.load(Ordering::Acquire) % 2 == 1);
        let n = t2.load(Ordering::Acquire);
        if n == stop {
            return;
        }
        t2.store(n + 1, Ordering::Release);
        w2[0].notify_all();
    });
    let start = Instant::now();
    let mut trips = 0u64;
    loop {
        let n = turn.load(Ordering::Acquire);
        if start.elapsed() >= PING_PONG_TIME {
            turn.store(stop, Ordering::Release); // usize::MAX is odd: the echo thread wakes and stops
            waits[1].notify_all();
            break;
        }
        turn.store(n + 1, Ordering::Release);
        waits[1].notify_all();
        waits[0].wait_until(&mut || turn.load(Ordering::Acquire) % 2 == 0);
        trips += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    echo.join().unwrap();
    trips as f64 / secs
}

fn idle_notify_once<W: WaitStrategy>(wait: &W) -> f64 {
    const CALLS: u32 = 5_000_000;
    let start = Instant::now();
    for _ in 0..CALLS {
        black_box(wait).notify_all();
    }
    start.elapsed().as_nanos() as f64 / f64::from(CALLS)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn ping_pong<W: WaitStrategy + Send + Sync + 'static>(name: &str, make: impl Fn() -> W) {
    let rate = median((0..RUNS).map(|_| ping_pong_once(&make)).collect());
    println!(
        "ping-pong   {name:<28} {:>12.0} round trips/s  ({:>8.2} µs/trip)",
        rate,
        1e6 / rate
    );
}

fn idle_notify<W: WaitStrategy>(name: &str, wait: W) {
    let ns = median((0..RUNS).map(|_| idle_notify_once(&wait)).collect());
    println!("idle notify {name:<28} {ns:>8.2} ns/op");
}

fn main() {
    println!(
        "cores: {}",
        thread::available_parallelism().map_or(0, |n| n.get())
    );
    #[cfg(target_os = "linux")]
    {
        ping_pong("FutexWait (spins=0)", || FutexWait::with_spins(0));
        ping_pong("FutexWait (default spins)", FutexWait::new);
    }
    ping_pong("CondvarWait (spins=0)", || CondvarWait::with_spins(0));
    ping_pong("CondvarWait (default spins)", CondvarWait::new);
    ping_pong("YieldWait", YieldWait::new);
    ping_pong("SleepWait", SleepWait::new);
    ping_pong("BusySpin (core)", || BusySpin);

    // Each measured twice, interleaved, so warm-up and frequency drift show up as disagreement.
    for _ in 0..2 {
        #[cfg(target_os = "linux")]
        idle_notify("FutexWait", FutexWait::new());
        idle_notify("CondvarWait", CondvarWait::new());
    }
    idle_notify("YieldWait (no-op)", YieldWait::new());
}
