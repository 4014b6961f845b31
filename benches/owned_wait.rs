//! The plain one-item loop (`push` on one thread, `for x in reader` on another) over an owned
//! portable buffer, with the owned buffers' default wait ([`HybridWait`]) against
//! [`YieldWait`] and [`BlockingWait`] (the default before it), in alternating order, several
//! rounds; then the CPU time an idle reader uses in a second with the default wait.
//!
//! `cargo bench --bench owned_wait` (rounds: `OWNED_WAIT_ROUNDS`, default 7; items per run:
//! `OWNED_WAIT_ITEMS`, default 2·10⁶). Prints median, min and max items/s per strategy.

use std::time::{Duration, Instant};

use spanring::std_ext::{owned, BlockingWait, HybridWait, YieldWait};
use spanring::WaitStrategy;

const CAPACITY: usize = 1024;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Items per second of one run of the one-item loop with wait strategy `W`.
fn one_item_loop<W: WaitStrategy + Default + Send + Sync + 'static>(items: usize) -> f64 {
    let (mut writer, reader) = owned::portable::<u64>(CAPACITY)
        .wait::<W>()
        .build()
        .expect("buffer");
    let start = Instant::now();
    let producer = std::thread::spawn(move || {
        for i in 0..items as u64 {
            writer.push(i).expect("the reader is alive");
        }
        // Dropping the writer closes the ring: the reader's loop ends after the last item.
    });
    let mut sum = 0u64;
    let mut count = 0usize;
    for x in reader {
        sum = sum.wrapping_add(x);
        count += 1;
    }
    let elapsed = start.elapsed();
    producer.join().expect("producer");
    assert_eq!(count, items);
    assert_eq!(sum, (items as u64 - 1) * items as u64 / 2);
    items as f64 / elapsed.as_secs_f64()
}

/// CPU time the calling thread has used so far.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn thread_cpu_time() -> Duration {
    let mut ts = libc_timespec::zero();
    // SAFETY: `ts` has the layout of `struct timespec` on 64-bit Linux (two 64-bit fields) and
    // lives on this frame; clock_gettime only writes it.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0);
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// `struct timespec` of 64-bit Linux (the facade has no `libc` dependency; this bench runs on
/// the 64-bit Linux hosts the other benches run on).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[repr(C)]
struct libc_timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
impl libc_timespec {
    fn zero() -> Self {
        Self {
            tv_sec: 0,
            tv_nsec: 0,
        }
    }
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
extern "C" {
    fn clock_gettime(clock: i32, ts: *mut libc_timespec) -> i32;
}

fn report(name: &str, runs: &mut [f64]) -> f64 {
    runs.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let median = runs[runs.len() / 2];
    println!(
        "{name:<22} median {:>7.2} M items/s   min {:>7.2}   max {:>7.2}   ({} runs)",
        median / 1e6,
        runs[0] / 1e6,
        runs[runs.len() - 1] / 1e6,
        runs.len()
    );
    median
}

fn main() {
    if !cfg!(all(target_os = "linux", target_pointer_width = "64")) {
        println!("owned_wait: 64-bit Linux only");
        return;
    }
    let rounds = env_or("OWNED_WAIT_ROUNDS", 7);
    let items = env_or("OWNED_WAIT_ITEMS", 2_000_000);
    type Run = (&'static str, fn(usize) -> f64);
    let strategies: [Run; 3] = [
        ("HybridWait (default)", one_item_loop::<HybridWait>),
        ("YieldWait", one_item_loop::<YieldWait>),
        ("BlockingWait", one_item_loop::<BlockingWait>),
    ];
    let mut results: Vec<Vec<f64>> = vec![Vec::new(); strategies.len()];
    // Warm-up (page faults, the membarrier registration), not counted.
    for (_, run) in &strategies {
        run(items / 10);
    }
    for round in 0..rounds {
        // Alternating order: each strategy runs first, second and third in turn.
        for k in 0..strategies.len() {
            let i = (round + k) % strategies.len();
            results[i].push((strategies[i].1)(items));
        }
    }
    // Per-round ratios (the runs of one round are neighbours in time, so they share the
    // machine's load): steadier than a ratio of medians on a shared machine.
    let ratio = |other: usize| -> (f64, f64, f64) {
        let mut r: Vec<f64> = (0..rounds)
            .map(|k| results[0][k] / results[other][k])
            .collect();
        r.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
        (r[r.len() / 2], r[0], r[r.len() - 1])
    };
    let (vs_yield, vs_blocking) = (ratio(1), ratio(2));
    println!("one-item loop, owned portable u64 buffer of {CAPACITY}, {items} items per run:");
    let medians: Vec<f64> = strategies
        .iter()
        .zip(&mut results)
        .map(|((name, _), runs)| report(name, runs))
        .collect();
    println!(
        "default / YieldWait (medians): {:.3}; default / BlockingWait: {:.3}",
        medians[0] / medians[1],
        medians[0] / medians[2]
    );
    for (name, (median, min, max)) in [("YieldWait", vs_yield), ("BlockingWait", vs_blocking)] {
        println!("default / {name}, per round: median {median:.3}, min {min:.3}, max {max:.3}");
    }

    // An idle reader with the default wait, blocked for a second.
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    idle_reader();
}

/// Prints the CPU time an idle reader with the default wait uses while blocked for a second.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn idle_reader() {
    let (writer, mut reader) = owned::portable::<u64>(64).build().expect("buffer");
    let idle = std::thread::spawn(move || {
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        let _ = reader.pop_timeout(Duration::from_secs(1));
        (thread_cpu_time() - cpu, wall.elapsed())
    });
    let (cpu, wall) = idle.join().expect("idle reader");
    drop(writer);
    println!(
        "idle reader, default wait: {cpu:?} CPU over {wall:?} = {:.4} % of a core",
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64()
    );
}
