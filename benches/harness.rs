//! A second harness for issue 13's single-producer rows, independent of `buffer.rs`'s
//! machinery (no `Scenario`, `Paired`, `Rep` or peer module): the loops a new user writes, each
//! spelled out here in full, so that a ratio the main bench reports cannot be an artefact of the
//! way it drives the rings.
//!
//! One writer thread, one reader thread, [`ITEMS`] `u64`s through a ring of each size in
//! [`SLOTS`], every item checked in order by the reader. Every loop waits the same way when it finds no
//! room or no item: [`YieldWait::new()`] (64 checks with a spin hint, then a yield per check),
//! ours through the ring's wait strategy, the peers' through the same type called by hand. Each
//! comparison alternates ours and the peer's run [`PAIRS`] times and reports the median of the
//! pair ratios, with their range, under three placements: `together` (both threads on CPU 0),
//! `apart` (one thread per CPU) and `free` (the scheduler decides).
//!
//! Our readers keep their default [`Pacing`](spanring::wait::Pacing) (`Pacing::for_items`).
//!
//! `cargo bench --bench harness` (`-- --quick` for a short run).

mod standalone;

use standalone::{patiently, patiently_get, Place};

use std::sync::Barrier;
use std::time::Instant;

use spanring::std_ext::YieldWait;
use spanring::{Ring, SliceStorage};

/// Items per run (full mode).
const ITEMS: u64 = 10_000_000;
/// Ring slots, the same for every ring in a table: a small ring (where one core's threads
/// take turns every few thousand items, so the switches weigh on every loop alike) and the
/// size GNU Radio's bm_Buffer (and `buffer.rs`) uses for chunk 1, rounded to a power of two.
const SLOTS: [usize; 2] = [4096, 65536];
/// Interleaved pairs per comparison (full mode).
const PAIRS: usize = 7;

/// Checks that the reader gets `0, 1, 2, …` and all of them.
struct InOrder {
    next: u64,
}

impl InOrder {
    fn new() -> Self {
        Self { next: 0 }
    }

    #[inline(always)]
    fn check(&mut self, x: u64) {
        assert_eq!(x, self.next, "item lost, repeated or reordered");
        self.next += 1;
    }

    fn done(&self, items: u64, what: &str) {
        assert_eq!(
            self.next, items,
            "{what}: the reader got {} of {items} items",
            self.next
        );
    }
}

/// Runs `write` and `read` on two threads placed by `place`; returns millions of items per
/// second, timed from a common start to the later finish.
fn run(place: Place, items: u64, write: impl FnOnce() + Send, read: impl FnOnce() + Send) -> f64 {
    let start = Barrier::new(2);
    let (a, b) = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            place.pin(0);
            start.wait();
            let t = Instant::now();
            write();
            (t, Instant::now())
        });
        let reader = s.spawn(|| {
            place.pin(1);
            start.wait();
            let t = Instant::now();
            read();
            (t, Instant::now())
        });
        (writer.join().unwrap(), reader.join().unwrap())
    });
    let secs = (a.1.max(b.1) - a.0.min(b.0)).as_secs_f64();
    items as f64 / secs / 1e6
}

/// One measured pair of loops: `$tx`/`$rx` are the writer and reader handles `$make` returns,
/// each moved into a local of its own thread's closure (so the loop, not a capture, owns it);
/// `$write` runs once per item `$i`, `$read` runs with `$seen` checking every item, and the
/// reader must have seen all `$items` at the end (`$what` names the loop if not).
macro_rules! pair {
    (
        $place:expr, $items:expr, $what:literal,
        ($tx:ident, $rx:ident) = $make:expr,
        write($i:ident) $write:block,
        read($seen:ident) $read:block $(,)?
    ) => {{
        let items: u64 = $items;
        let (tx, rx) = $make;
        run(
            $place,
            items,
            move || {
                #[allow(unused_mut)]
                let mut $tx = tx;
                for $i in 0..items $write
                // Dropped here: for our rings the last writer closes the ring, which ends
                // the loops that read until `Closed`.
            },
            move || {
                #[allow(unused_mut)]
                let mut $rx = rx;
                let mut $seen = InOrder::new();
                $read
                $seen.done(items, $what);
            },
        )
    }};
}

/// `pair!` on a single-producer ring (handles named `($w, $r)`) of `$slots` `u64`s waiting
/// with `YieldWait::new()`.
macro_rules! ours {
    ($place:expr, $items:expr, $slots:expr, $what:literal, ($w:ident, $r:ident), $($loops:tt)*) => {{
        let mut memory = vec![0u64; $slots];
        let ring = Ring::builder(SliceStorage::new(&mut memory))
            .wait::<YieldWait>()
            .build()
            .unwrap();
        pair!($place, $items, $what, ($w, $r) = (ring.writer().unwrap(), ring.reader().unwrap()), $($loops)*)
    }};
}

/// Ours: `push` and `for x in reader` (the blocking one-item calls).
fn ours_push_for_in(place: Place, items: u64, slots: usize) -> f64 {
    ours!(place, items, slots, "push / for x in reader", (w, r),
    write(i) { w.push(i).unwrap(); },
    read(seen) {
        for x in r {
            seen.check(x);
        }
    })
}

/// Ours: `push` and a `while let Ok(x) = reader.pop()` loop.
fn ours_push_pop(place: Place, items: u64, slots: usize) -> f64 {
    ours!(place, items, slots, "push / pop", (w, r),
    write(i) { w.push(i).unwrap(); },
    read(seen) {
        while let Ok(x) = r.pop() {
            seen.check(x);
        }
    })
}

/// Ours: `try_push` and `try_pop`, waiting by hand as the peers' loops do.
fn ours_try_push_try_pop(place: Place, items: u64, slots: usize) -> f64 {
    ours!(place, items, slots, "try_push / try_pop", (w, r),
    write(i) { patiently(|| w.try_push(i).is_ok()); },
    read(seen) {
        for _ in 0..items {
            seen.check(patiently_get(|| r.try_pop().ok()));
        }
    })
}

/// Ours: one-slot spans, `reserve(1)` and `read(1)` (the calls the issue found 6× slower
/// than the try loop).
fn ours_reserve_read(place: Place, items: u64, slots: usize) -> f64 {
    ours!(place, items, slots, "reserve(1) / read(1)", (w, r),
    write(i) { w.reserve(1).unwrap()[0] = i; },
    read(seen) {
        while let Ok(span) = r.read(1) {
            seen.check(span[0]);
        }
    })
}

/// Ours: `push`, and the reader takes everything published at once (`read_all`).
fn ours_push_read_all(place: Place, items: u64, slots: usize) -> f64 {
    ours!(place, items, slots, "push / read_all", (w, r),
    write(i) { w.push(i).unwrap(); },
    read(seen) {
        while let Ok(span) = r.read_all() {
            for &x in &span {
                seen.check(x);
            }
        }
    })
}

/// rtrb 0.4: `push` and `pop`.
fn rtrb_push_pop(place: Place, items: u64, slots: usize) -> f64 {
    pair!(place, items, "rtrb push / pop",
    (tx, rx) = rtrb::RingBuffer::<u64>::new(slots),
    write(i) { patiently(|| tx.push(i).is_ok()); },
    read(seen) {
        for _ in 0..items {
            seen.check(patiently_get(|| rx.pop().ok()));
        }
    })
}

/// rtrb 0.4: `push`, and the reader takes everything readable at once (`read_chunk`).
fn rtrb_push_read_chunk(place: Place, items: u64, slots: usize) -> f64 {
    pair!(place, items, "rtrb push / read_chunk",
    (tx, rx) = rtrb::RingBuffer::<u64>::new(slots),
    write(i) { patiently(|| tx.push(i).is_ok()); },
    read(seen) {
        while seen.next < items {
            let k = patiently_get(|| Some(rx.slots()).filter(|&k| k > 0));
            let chunk = rx.read_chunk(k).unwrap();
            let (a, b) = chunk.as_slices();
            for &x in a.iter().chain(b) {
                seen.check(x);
            }
            chunk.commit_all();
        }
    })
}

/// ringbuf 0.6: `try_push` and `try_pop`.
fn ringbuf_try_push_try_pop(place: Place, items: u64, slots: usize) -> f64 {
    use ringbuf::traits::{Consumer, Producer, Split};
    pair!(place, items, "ringbuf try_push / try_pop",
    (tx, rx) = ringbuf::HeapRb::<u64>::new(slots).split(),
    write(i) { patiently(|| tx.try_push(i).is_ok()); },
    read(seen) {
        for _ in 0..items {
            seen.check(patiently_get(|| rx.try_pop()));
        }
    })
}

type Loop = fn(Place, u64, usize) -> f64;

/// One comparison: ours against a reference loop, with the ratio issue 13 asks for (`None`:
/// orientation only).
struct Comparison {
    what: &'static str,
    ours: Loop,
    theirs: Loop,
    needed: Option<f64>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (items, pairs) = if quick {
        (ITEMS / 5, 3)
    } else {
        (ITEMS, PAIRS)
    };
    let comparisons = [
        Comparison {
            what: "push / for x in reader vs try_push / try_pop (blocking vs try)",
            ours: ours_push_for_in,
            theirs: ours_try_push_try_pop,
            needed: Some(0.8),
        },
        Comparison {
            what: "reserve(1) / read(1) vs try_push / try_pop (one-slot spans vs try)",
            ours: ours_reserve_read,
            theirs: ours_try_push_try_pop,
            needed: None,
        },
        Comparison {
            what: "push / for x in reader vs ringbuf try_push / try_pop",
            ours: ours_push_for_in,
            theirs: ringbuf_try_push_try_pop,
            needed: Some(1.0),
        },
        Comparison {
            what: "push / for x in reader vs rtrb push / pop",
            ours: ours_push_for_in,
            theirs: rtrb_push_pop,
            needed: Some(1.2),
        },
        Comparison {
            what: "push / pop loop vs rtrb push / pop",
            ours: ours_push_pop,
            theirs: rtrb_push_pop,
            needed: None,
        },
        Comparison {
            what: "push / read_all vs rtrb push / read_chunk (batch reads)",
            ours: ours_push_read_all,
            theirs: rtrb_push_read_chunk,
            needed: Some(1.2),
        },
    ];
    println!(
        "spanring independent harness: {items} u64 items per run, {pairs} interleaved pairs \
         per row, every item checked; waiting: YieldWait::new() for all"
    );
    for slots in SLOTS {
        println!("\n{slots} slots:\n");
        table(&comparisons, items, slots, pairs);
    }
}

/// One table: every comparison under every placement.
fn table(comparisons: &[Comparison], items: u64, slots: usize, pairs: usize) {
    println!("| placement | comparison | ours M/s | theirs M/s | ratio (median) | pair ratios | needed | met |");
    println!("|---|---|---:|---:|---:|---|---:|---|");
    for place in [Place::Together, Place::Apart, Place::Free] {
        for c in comparisons {
            let (mut ours, mut theirs, mut ratios) = (vec![], vec![], vec![]);
            for _ in 0..pairs {
                let o = (c.ours)(place, items, slots);
                let t = (c.theirs)(place, items, slots);
                ours.push(o);
                theirs.push(t);
                ratios.push(o / t);
            }
            let (lo, hi) = ratios
                .iter()
                .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
            let ratio = median(&mut ratios);
            let (needed, met) = match c.needed {
                Some(n) => (format!("≥ {n:.1}×"), if ratio >= n { "yes" } else { "no" }),
                None => ("–".to_string(), "orientation"),
            };
            println!(
                "| {} | {} | {:.0} | {:.0} | {ratio:.2}× | {lo:.2}–{hi:.2} | {needed} | {met} |",
                place.name(),
                c.what,
                median(&mut ours),
                median(&mut theirs),
            );
        }
    }
}
