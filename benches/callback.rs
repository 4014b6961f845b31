//! `CallbackSlot` against `Box<dyn FnMut()>`: the four measurements from BlazingMQ's switch from
//! `bsl::function` to an in-place managed callback.
//!
//! 1. build once, call many;
//! 2. build a new callback each time, never call it;
//! 3. reset-and-call: build a new callback into the same slot and call it (the dispatcher
//!    pattern; `Box` allocates a new `Box<dyn FnMut()>` each time);
//! 4. the same as 3 with a closure capturing 4 words (the default slot's full capacity).
//!
//! Hand-written harness: each row runs `iters` operations per repetition, several repetitions,
//! and prints the median ns/op. A counting `#[global_allocator]` reports allocations per op,
//! which proves the `Box` rows really allocate (1/op) and the slot rows never do (0/op).
//! `black_box` hides the slot/box from the optimiser so every call is a real indirect call.
//!
//! `cargo bench --bench callback` (add `-- --quick` for a short run).

use std::hint::black_box;
use std::time::Instant;

use spanring::callback::CallbackSlot;
use spanring::sync::Ordering;

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{CountingAlloc, ALLOCATIONS};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// ns/op and allocations/op of `iters` runs of `op`.
fn run_once(iters: u64, op: &mut impl FnMut(u64)) -> (f64, usize) {
    // Relaxed: single-threaded statistic.
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    for i in 0..iters {
        op(i);
    }
    let elapsed = start.elapsed();
    // Relaxed: single-threaded statistic.
    let allocs = ALLOCATIONS.load(Ordering::Relaxed) - before;
    (elapsed.as_nanos() as f64 / iters as f64, allocs)
}

/// Median ns/op and allocations/op of `slot_op` and `box_op`, `iters` operations per
/// repetition. Repetitions of the two alternate, so both see the same background load on a
/// shared machine.
fn measure_pair(
    iters: u64,
    reps: usize,
    mut slot_op: impl FnMut(u64),
    mut box_op: impl FnMut(u64),
) -> (Stat, Stat) {
    // Warm-up (also faults in the allocator's pages).
    run_once(iters / 10, &mut slot_op);
    run_once(iters / 10, &mut box_op);
    let (mut slot_ns, mut box_ns) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    let (mut slot_allocs, mut box_allocs) = (0, 0);
    for _ in 0..reps {
        let (ns, allocs) = run_once(iters, &mut slot_op);
        slot_ns.push(ns);
        slot_allocs = allocs;
        let (ns, allocs) = run_once(iters, &mut box_op);
        box_ns.push(ns);
        box_allocs = allocs;
    }
    let stat = |mut ns: Vec<f64>, allocs: usize| {
        ns.sort_by(f64::total_cmp);
        Stat {
            median: ns[ns.len() / 2],
            min: ns[0],
            allocs: allocs as f64 / iters as f64,
        }
    };
    (stat(slot_ns, slot_allocs), stat(box_ns, box_allocs))
}

/// One side of one benchmark.
struct Stat {
    /// Median ns/op over the repetitions.
    median: f64,
    /// Fastest repetition's ns/op (least disturbed by other load on the machine).
    min: f64,
    /// Allocations per op in the last repetition.
    allocs: f64,
}

/// One table row: the slot result and the `Box` result for the same benchmark.
struct Row {
    name: &'static str,
    slot: Stat,
    boxed: Stat,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (iters, reps) = if quick {
        (1_000_000, 5)
    } else {
        (10_000_000, 11)
    };
    let mut rows = Vec::new();

    // (1) Build once, call many.
    {
        let mut slot: CallbackSlot<(), u64> = CallbackSlot::new();
        let mut acc = 0u64;
        slot.set(move |()| {
            acc = acc.wrapping_add(black_box(1));
            acc
        });
        let mut acc = 0u64;
        let mut boxed: Box<dyn FnMut() -> u64> = Box::new(move || {
            acc = acc.wrapping_add(black_box(1));
            acc
        });
        let (slot, boxed) = measure_pair(
            iters,
            reps,
            |_| {
                black_box(black_box(&mut slot).call(()).unwrap());
            },
            |_| {
                black_box(black_box(&mut boxed)());
            },
        );
        rows.push(Row {
            name: "1 build once, call many",
            slot,
            boxed,
        });
    }

    // (2) Build a new callback each time, no call.
    {
        let mut slot: CallbackSlot<(), u64> = CallbackSlot::new();
        let (slot, boxed) = measure_pair(
            iters,
            reps,
            |i| {
                let slot = black_box(&mut slot);
                slot.set(move |()| i.wrapping_mul(3));
            },
            |i| {
                let boxed: Box<dyn FnMut() -> u64> = Box::new(move || i.wrapping_mul(3));
                drop(black_box(boxed));
            },
        );
        rows.push(Row {
            name: "2 build new, no call",
            slot,
            boxed,
        });
    }

    // (3) Reset and call: a new small callback in the same slot, called once.
    {
        let mut slot: CallbackSlot<(), u64> = CallbackSlot::new();
        let (slot, boxed) = measure_pair(
            iters,
            reps,
            |i| {
                let slot = black_box(&mut slot);
                slot.set(move |()| i.wrapping_mul(3));
                black_box(slot.call(()).unwrap());
            },
            |i| {
                let mut boxed: Box<dyn FnMut() -> u64> =
                    black_box(Box::new(move || i.wrapping_mul(3)));
                black_box(boxed());
            },
        );
        rows.push(Row {
            name: "3 reset and call",
            slot,
            boxed,
        });
    }

    // (4) Reset and call with a closure capturing 4 words (32 bytes: the slot's capacity).
    {
        let mut slot: CallbackSlot<(), u64> = CallbackSlot::new();
        let (slot, boxed) = measure_pair(
            iters,
            reps,
            |i| {
                let words = [i, i ^ 0x55, i.rotate_left(7), !i];
                let slot = black_box(&mut slot);
                slot.set(move |()| words[0] ^ words[1].wrapping_add(words[2]) ^ words[3]);
                black_box(slot.call(()).unwrap());
            },
            |i| {
                let words = [i, i ^ 0x55, i.rotate_left(7), !i];
                let mut boxed: Box<dyn FnMut() -> u64> = black_box(Box::new(move || {
                    words[0] ^ words[1].wrapping_add(words[2]) ^ words[3]
                }));
                black_box(boxed());
            },
        );
        rows.push(Row {
            name: "4 reset and call, 4-word closure",
            slot,
            boxed,
        });
    }

    println!(
        "callback: {} ops x {} reps; ns/op as median (min){}",
        iters,
        reps,
        if quick { " (--quick)" } else { "" }
    );
    println!(
        "| {:<34} | {:>17} | {:>17} | {:>15} | {:>14} | {:>13} |",
        "benchmark",
        "CallbackSlot ns",
        "Box<dyn FnMut> ns",
        "Box/slot (min)",
        "slot allocs/op",
        "Box allocs/op"
    );
    println!(
        "|{:-<36}|{:->19}|{:->19}|{:->17}|{:->16}|{:->15}|",
        "", "", "", "", "", ""
    );
    for row in &rows {
        println!(
            "| {:<34} | {:>7.2} ({:>7.2}) | {:>7.2} ({:>7.2}) | {:>5.2}x ({:>5.2}x) | {:>14.2} | {:>13.2} |",
            row.name,
            row.slot.median,
            row.slot.min,
            row.boxed.median,
            row.boxed.min,
            row.boxed.median / row.slot.median,
            row.boxed.min / row.slot.min,
            row.slot.allocs,
            row.boxed.allocs
        );
    }
}
