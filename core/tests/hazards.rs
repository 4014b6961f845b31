//! The failure modes of HAZARDS.md that a single thread can stage deterministically: a stalled
//! claimer, partial publication on a multi-producer ring, reading past what is published, a
//! second single-producer writer, and a dropped reader.

use spanring_core::sync::AtomicUsize;
use spanring_core::{AttachError, MultiProducer, ReadError, ReserveError, Ring, SliceStorage};

type Mp<'m, 'b> = Ring<SliceStorage<'m, u32>, MultiProducer<&'b mut [AtomicUsize]>>;

/// Record words for a ring of up to 8 slots (one word a slot).
fn bits() -> [AtomicUsize; 8] {
    Default::default()
}

/// A producer that claimed a span and stalls (preempted, or parked mid-span) holds back what
/// readers see, but nothing else: other producers keep claiming and publishing until the
/// capacity runs out, every `try_*` call returns at once, and once the stalled span is
/// published readers see everything in claim order.
#[test]
fn stalled_claimer_blocks_nobody_else() {
    let mut memory = [0u32; 8];
    let mut bits = bits();
    let ring: Mp = Ring::new_multi(SliceStorage::new(&mut memory), &mut bits[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut stalled = ring.writer().unwrap();
    let mut other = stalled.clone();

    let mut parked = stalled.try_reserve(2).unwrap(); // claimed, never finished (yet)
    parked.copy_from_slice(&[1, 2]);
    for v in [3, 4, 5] {
        other
            .try_reserve(2)
            .unwrap()
            .copy_from_slice(&[v * 10, v * 10 + 1]);
    }
    // Capacity 8 is now fully claimed: the other producer gets `Full`, without waiting.
    assert_eq!(
        other.try_reserve(1).unwrap_err(),
        ReserveError::Full { free: 0 }
    );
    // Readers see nothing past the stalled span, and do not wait for it.
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Empty);
    assert_eq!(ring.published(), 0);

    drop(parked); // the stalled producer resumes and publishes: everything becomes visible
    let span = reader.try_read(8).unwrap();
    let got: Vec<u32> = span.iter().copied().collect();
    assert_eq!(got, [1, 2, 30, 31, 40, 41, 50, 51]);
}

/// GNU Radio 4 hangs when a multi-producer span publishes fewer slots than it reserved while a
/// later claim exists. Here the unpublished tail becomes a hole that readers skip; the ring
/// keeps flowing and no reader ever sees the tail's contents.
#[test]
fn partial_publish_behind_a_later_claim_does_not_hang() {
    let mut memory = [0u32; 8];
    let mut bits = bits();
    let ring: Mp = Ring::new_multi(SliceStorage::new(&mut memory), &mut bits[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b = a.clone();

    let mut first = a.try_reserve(4).unwrap();
    first.copy_from_slice(&[1, 2, 666, 666]); // the tail is never published
    let mut second = b.try_reserve(2).unwrap();
    second.copy_from_slice(&[3, 4]);
    first.publish(2); // a later claim exists: the tail cannot be given back
    drop(second);

    let got: Vec<u32> = reader.try_read(8).unwrap().iter().copied().collect();
    assert_eq!(got, [1, 2]);
    let got: Vec<u32> = reader.try_read(8).unwrap().iter().copied().collect();
    assert_eq!(got, [3, 4], "the hole was skipped, not shown");
    assert_eq!(reader.try_read(8).unwrap_err(), ReadError::Empty);

    // The ring is not stuck: it keeps going for several laps, holes included.
    for lap in 0..10u32 {
        let mut x = a.try_reserve(3).unwrap();
        x.copy_from_slice(&[lap, 666, 666]);
        let mut y = b.try_reserve(1).unwrap();
        y.copy_from_slice(&[lap + 100]);
        x.publish(1);
        drop(y);
        let got: Vec<u32> = core::iter::from_fn(|| {
            reader
                .try_read(8)
                .ok()
                .map(|s| s.iter().copied().collect::<Vec<_>>())
        })
        .flatten()
        .collect();
        assert_eq!(got, [lap, lap + 100]);
    }
}

/// The newest claim gives its unpublished tail back: the next claim reuses the slots.
#[test]
fn partial_publish_of_the_newest_claim_gives_the_tail_back() {
    let mut memory = [0u32; 4];
    let mut bits = bits();
    let ring: Mp = Ring::new_multi(SliceStorage::new(&mut memory), &mut bits[..]).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut span = w.try_reserve(4).unwrap();
    span.copy_from_slice(&[1, 2, 3, 4]);
    span.publish(1);
    let mut next = w.try_reserve(3).unwrap();
    assert_eq!(next.start(), 1, "the tail was given back");
    next.copy_from_slice(&[5, 6, 7]);
    drop(next);
    let got: Vec<u32> = reader.try_read(8).unwrap().iter().copied().collect();
    assert_eq!(got, [1, 5, 6, 7]);
}

/// Every read returns at most what is published, whatever is asked for.
#[test]
fn reads_never_pass_the_published_cursor() {
    let mut memory = [7u32; 8];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut reader = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let span = w.try_reserve(5).unwrap();
    assert_eq!(reader.try_read(usize::MAX).unwrap_err(), ReadError::Empty);
    span.publish(2);
    assert_eq!(reader.try_read(usize::MAX).unwrap().len(), 2);
    assert_eq!(reader.available(), 0);
}

/// A second writer on a single-producer ring is refused (and the handle is not `Clone`:
/// see the `compile_fail` example on `SingleProducer`).
#[test]
fn single_producer_has_one_writer() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let _w = ring.writer().unwrap();
    assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken);
}

/// A reader that is dropped stops gating the writer at once.
#[test]
fn dropped_reader_never_stalls_the_writer() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let slow = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_reserve(4).unwrap().fill(1);
    assert!(matches!(
        w.try_reserve(1),
        Err(ReserveError::Full { free: 0 })
    ));
    drop(slow);
    assert!(w.try_reserve(4).is_ok());
}

/// Too many readers, too large a reservation, capacity 0: typed errors.
#[test]
fn bad_input_gets_typed_errors() {
    let mut empty: [u8; 0] = [];
    assert!(Ring::new(SliceStorage::new(&mut empty)).is_err());
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let readers: Vec<_> = (0..4).map(|_| ring.reader().unwrap()).collect();
    assert_eq!(
        ring.reader().unwrap_err(),
        AttachError::TooManyReaders { max: 4 }
    );
    drop(readers);
    let mut w = ring.writer().unwrap();
    assert_eq!(
        w.try_reserve(5).unwrap_err(),
        ReserveError::TooLarge {
            requested: 5,
            capacity: 4
        }
    );
    assert_eq!(
        w.reserve(5).unwrap_err(),
        ReserveError::TooLarge {
            requested: 5,
            capacity: 4
        }
    );
    let mut r = ring.reader().unwrap();
    assert_eq!(
        r.read_exact(5).unwrap_err(),
        ReadError::TooLarge {
            requested: 5,
            capacity: 4
        }
    );
    let mut bits: [AtomicUsize; 8] = Default::default();
    let mut big = [0u8; 9];
    assert_eq!(
        Ring::new_multi(SliceStorage::new(&mut big), &mut bits[..]).unwrap_err(),
        spanring_core::CapacityError::BitsetTooSmall {
            needed: 9,
            available: 8
        }
    );
}

/// A span dropped during a panic (with `std`) publishes nothing; the ring stays usable.
#[test]
#[cfg(feature = "std")]
fn span_dropped_while_panicking_publishes_nothing() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut span = w.try_reserve(2).unwrap();
        span[0] = 9;
        panic!("half written");
    }));
    assert!(result.is_err());
    assert_eq!(r.try_read(4).unwrap_err(), ReadError::Empty);
    w.try_reserve(1).unwrap().fill(5);
    assert_eq!(r.try_read(4).unwrap().to_array::<1>(), Some([5]));
}

/// Lap tags on 32-bit: a record's lap tag can be short (a 32-bit target with a large ring),
/// and a slot that was a span head, then interior for a lap, then a head again must not take
/// the old record for the new one. With a 1-bit tag (every second lap looks the same) and
/// span boundaries that move every lap, a reader sees exactly what was published, in order,
/// across the `usize` wrap. Fails if the scrub of interior words is removed.
#[test]
fn short_lap_tags_never_accept_an_old_record() {
    let mut memory = [0u32; 3];
    let mut words: [AtomicUsize; 3] = Default::default();
    let ring: Ring<SliceStorage<'_, u32>, MultiProducer<&mut [AtomicUsize]>> =
        Ring::new_multi_with_tag_bits(
            SliceStorage::new(&mut memory),
            &mut words[..],
            usize::MAX - 7,
            1,
        )
        .unwrap();
    let mut reader = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut next = 0u32;
    let mut expect = 0u32;
    for round in 0..200usize {
        let n = [1, 2, 2, 1, 3, 1][round % 6];
        let mut span = w.try_reserve(n).unwrap();
        for k in 0..n {
            span[k] = next;
            next += 1;
        }
        drop(span);
        // Before the next span is published, nothing more is readable.
        let got: Vec<u32> = reader.try_read(3).unwrap().iter().copied().collect();
        assert_eq!(got, (expect..expect + n as u32).collect::<Vec<_>>());
        expect += n as u32;
        assert_eq!(reader.try_read(3).unwrap_err(), ReadError::Empty);
    }
}

/// A wait strategy that checks once, then panics (as a user's strategy might).
#[derive(Default)]
struct CheckOnceThenPanic;

impl spanring_core::WaitStrategy for CheckOnceThenPanic {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        if !ready() {
            panic!("wait strategy gave up");
        }
    }
    fn notify_all(&self) {}
}

/// A blocking read whose wait strategy panics after the poll passed a hole at the cursor:
/// the registry already has the reader past the hole, so the writers may reuse its slot.
/// The reader must follow (`ResyncOnUnwind` in reader.rs); left behind, it would look for
/// the old lap's record there, find the new lap's, and see nothing more (or worse, read a
/// slot being written).
#[test]
fn a_wait_strategy_panicking_after_a_hole_leaves_the_reader_in_step() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let mut memory = [0u32; 4];
    let mut words: [AtomicUsize; 4] = Default::default();
    let ring = spanring_core::Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CheckOnceThenPanic>()
        .multi_producer(&mut words[..])
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b = a.clone();
    let hole = a.try_reserve(1).unwrap(); // slot 0
    let mut held = b.try_reserve(1).unwrap(); // slot 1, published later
    hole.publish(0); // not the newest claim: slot 0 becomes a skipped hole
                     // The poll passes the hole (the registry moves to 1), finds slot 1 unpublished, and the
                     // wait strategy panics.
    assert!(catch_unwind(AssertUnwindSafe(|| r.read(1).map(|s| s.len()))).is_err());
    held[0] = 7;
    drop(held);
    // Slots 2, 3 and slot 0 of the next lap: free for the writers, since the reader is at 1.
    for x in [8, 9, 10] {
        a.try_push(x).unwrap();
    }
    for x in [7, 8, 9, 10] {
        assert_eq!(r.try_pop(), Ok(x));
    }
    assert_eq!(r.try_pop(), Err(spanring_core::ReadError::Empty));
}

std::thread_local! {
    /// Set by a test: the next `notify_all` of [`NotifyPanicsWhenArmed`] on this thread panics.
    static NOTIFY_ARMED: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// A wait strategy whose `notify_all` panics once when armed, as a user's strategy (or an
/// async executor's waker called from one) might. Busy-waits otherwise.
#[derive(Default)]
struct NotifyPanicsWhenArmed;

impl spanring_core::WaitStrategy for NotifyPanicsWhenArmed {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        while !ready() {}
    }
    fn notify_all(&self) {
        if NOTIFY_ARMED.with(|a| a.replace(false)) {
            panic!("notify_all panicked");
        }
    }
}

/// One write through `write` with the next `notify_all` armed to panic. The writer's wake-up
/// comes after its publish, so the panic must leave the writer in step with what it published:
/// left behind, its next claim would take the published slot again (overwriting an item a
/// reader has not read, while the reader may be reading it) or one slot past its readers.
fn write_with_notify_panicking(write: impl FnOnce()) {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    NOTIFY_ARMED.with(|a| a.set(true));
    let outcome = catch_unwind(AssertUnwindSafe(write));
    // Every write path wakes readers: the armed panic must have fired (else this tests
    // nothing).
    assert!(outcome.is_err(), "notify_all was not called");
    assert!(!NOTIFY_ARMED.with(|a| a.get()));
}

/// Every one-item and span write path, on both claim modes, each write with a panicking
/// `notify_all`: the fast paths (seven in a row at capacity 8), the lap's last slot (the slow
/// path), a full ring, and (multi-producer) the sole-writer cache and the shared CAS after a
/// clone. The reader must see every item once, in order, and a full ring must stay full.
/// Fails on the code before the fix (single-producer: `try_push` succeeds on the full ring in
/// round 0) and with any one of the private-state updates moved back after the publish.
#[test]
fn a_notify_panicking_after_a_publish_leaves_the_writer_in_step() {
    // A macro, not a function: only a multi-producer writer has `clone`.
    macro_rules! run {
        ($ring:expr, |$w:ident, $round:ident| $other:expr) => {{
            let mut r = $ring.reader().unwrap();
            let mut $w = $ring.writer().unwrap();
            let mut next = 0u32;
            let mut expect = 0u32;
            for $round in 0..12 {
                let _other = $other;
                // Fill the ring: pushes and one-slot spans, alternating.
                for k in 0..CAP {
                    let x = next;
                    next += 1;
                    if ($round + k) % 2 == 0 {
                        write_with_notify_panicking(|| {
                            let _ = $w.try_push(x);
                        });
                    } else {
                        write_with_notify_panicking(|| {
                            let mut s = $w.try_reserve(1).unwrap();
                            s.as_mut_slices().0[0] = x;
                        });
                    }
                }
                let round = $round;
                assert_eq!(
                    $w.try_push(99),
                    Err(spanring_core::PushError::Full(99)),
                    "round {round}"
                );
                for _ in 0..CAP {
                    assert_eq!(r.try_pop(), Ok(expect), "round {round}");
                    expect += 1;
                }
                assert_eq!(r.try_pop(), Err(ReadError::Empty), "round {round}");
            }
        }};
    }
    const CAP: usize = 8;
    let mut memory = [0u32; CAP];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<NotifyPanicsWhenArmed>()
        .build()
        .unwrap();
    run!(ring, |w, round| ());
    // Multi-producer: the sole-writer cache for six rounds, then a clone (the shared CAS).
    for clone_after in [12, 6] {
        let mut memory = [0u32; CAP];
        let mut words: [AtomicUsize; CAP] = Default::default();
        let ring = Ring::builder(SliceStorage::new(&mut memory))
            .wait::<NotifyPanicsWhenArmed>()
            .multi_producer(&mut words[..])
            .build()
            .unwrap();
        run!(ring, |w, round| (round >= clone_after).then(|| w.clone()));
    }
}

/// A blocking push whose wait strategy panics while the ring is full: the single-producer
/// push claims out of line on a copy of the writer's claim state (so a loop of pushes keeps
/// it in registers); the unwound copy is lost, and the writer must still be in step: the
/// retry after a read lands in the freed slot, every item arrives once and in order, and a
/// full ring stays full.
#[test]
fn a_wait_strategy_panicking_in_a_full_push_leaves_the_writer_in_step() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let mut memory = [0u32; 3];
    let ring = spanring_core::Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CheckOnceThenPanic>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let mut next = 0u32;
    let mut expect = 0u32;
    for round in 0..8 {
        while w.try_push(next).is_ok() {
            next += 1;
        }
        // Full: the waiting push checks once, then its strategy panics.
        assert!(catch_unwind(AssertUnwindSafe(|| w.push(next))).is_err());
        assert_eq!(w.try_push(next), Err(spanring_core::PushError::Full(next)));
        // One read frees one slot: exactly one more push fits, and the order holds.
        assert_eq!(r.try_pop(), Ok(expect), "round {round}");
        expect += 1;
        w.push(next).unwrap();
        next += 1;
        assert_eq!(w.try_push(next), Err(spanring_core::PushError::Full(next)));
        while let Ok(x) = r.try_pop() {
            assert_eq!(x, expect, "round {round}");
            expect += 1;
        }
        assert_eq!(expect, next, "round {round}");
    }
}

/// A reader whose attach ends in a panicking `notify_all` (the attach wakes writers waiting
/// for space): the unwinding must detach it, or its registry slot would hold every writer back
/// for good.
#[test]
fn a_notify_panicking_in_a_readers_attach_leaks_no_reader() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let mut memory = [0u32; 2];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<NotifyPanicsWhenArmed>()
        .build()
        .unwrap();
    let mut w = ring.writer().unwrap();
    NOTIFY_ARMED.with(|a| a.set(true));
    assert!(catch_unwind(AssertUnwindSafe(|| ring.reader().map(drop))).is_err());
    assert!(!NOTIFY_ARMED.with(|a| a.get()), "notify_all was not called");
    // No reader is attached: the writer is never held back.
    for x in 0..10 {
        assert_eq!(w.try_push(x), Ok(()), "push {x}");
    }
}

/// Set by [`PanicAfterReady`] when it starts waiting.
static WAITING: spanring_core::sync::AtomicBool = spanring_core::sync::AtomicBool::new(false);

/// A wait strategy that waits until `ready()` returns `true` and then panics, before it
/// returns: on a multi-producer ring that `ready()` has claimed slots.
#[derive(Default)]
struct PanicAfterReady;

impl spanring_core::WaitStrategy for PanicAfterReady {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        WAITING.store(true, spanring_core::sync::Ordering::Release);
        while !ready() {
            spanring_core::sync::spin_loop();
        }
        panic!("wait strategy panicked after ready() returned true");
    }
    fn notify_all(&self) {}
}

/// A writer of a multi-producer ring waiting with `W` over borrowed memory.
type MpWriter<'r, 'm, 'b, W> =
    spanring_core::Writer<&'r Ring<SliceStorage<'m, u32>, MultiProducer<&'b mut [AtomicUsize]>, W>>;

/// A write that waits on a full ring while a read frees one slot under it: builds a 4-slot
/// multi-producer ring of two writers `a` and `b` (so claims take the shared CAS) with wait
/// strategy `W`, fills it with 0..4, runs `write(&mut b)` on a thread of its own, waits until
/// `waiting` shows its strategy waiting (set by the strategy, never a sleep), reads item 0,
/// and hands what `write` returned to `then`, with the reader and `a`.
fn write_blocked_on_a_full_ring<W, T>(
    waiting: &spanring_core::sync::AtomicBool,
    write: impl FnOnce(&mut MpWriter<'_, '_, '_, W>) -> T + Send,
    then: impl FnOnce(
        T,
        &mut spanring_core::Reader<
            &Ring<SliceStorage<'_, u32>, MultiProducer<&mut [AtomicUsize]>, W>,
        >,
        &mut MpWriter<'_, '_, '_, W>,
    ),
) where
    W: spanring_core::WaitStrategy + Default + Sync,
    T: Send,
{
    let mut memory = [0u32; 4];
    let mut words: [AtomicUsize; 4] = Default::default();
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<W>()
        .multi_producer(&mut words[..])
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b = a.clone();
    for x in 0..4 {
        a.try_push(x).unwrap();
    }
    let outcome = std::thread::scope(|s| {
        let blocked = s.spawn(|| write(&mut b));
        while !waiting.load(spanring_core::sync::Ordering::Acquire) {
            spanring_core::sync::spin_loop();
        }
        assert_eq!(r.try_pop(), Ok(0));
        blocked.join().unwrap()
    });
    then(outcome, &mut r, &mut a);
}

/// A blocking push on a full multi-producer ring (two writers: the shared CAS) whose wait
/// strategy panics after its `ready()` claimed the slot a read freed. The claim must be
/// published as nothing while unwinding: left claimed, every reader would stop at it for
/// good, behind items the other writer publishes later. Fails before the claim guard of
/// `Writer::claim_waiting_in` (the reader finds nothing after 1, 2, 3).
#[test]
fn a_wait_strategy_panicking_after_its_claim_stops_no_reader() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    write_blocked_on_a_full_ring::<PanicAfterReady, _>(
        &WAITING,
        |b| catch_unwind(AssertUnwindSafe(|| b.push(100))).is_err(),
        |panicked, r, a| {
            assert!(panicked, "the push did not panic");
            for x in [1, 2, 3] {
                assert_eq!(r.try_pop(), Ok(x));
            }
            for x in [4, 5] {
                a.try_push(x).unwrap();
            }
            assert_eq!(
                r.try_pop(),
                Ok(4),
                "the reader stopped at the panicked claim"
            );
            assert_eq!(r.try_pop(), Ok(5));
            assert_eq!(r.try_pop(), Err(ReadError::Empty));
        },
    );
}

/// Set by [`TimesOutAfterReady`] when it starts waiting.
static WAITING_FOR_TIMEOUT: spanring_core::sync::AtomicBool =
    spanring_core::sync::AtomicBool::new(false);

/// A timed strategy that breaks both rules of a good one: once `ready()` returned `true` it
/// calls `ready()` again, then reports a timeout.
#[derive(Default)]
struct TimesOutAfterReady;

impl spanring_core::WaitStrategy for TimesOutAfterReady {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        while !ready() {}
    }
    fn notify_all(&self) {}
}

impl spanring_core::WaitTimeout for TimesOutAfterReady {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, _: core::time::Duration) -> bool {
        WAITING_FOR_TIMEOUT.store(true, spanring_core::sync::Ordering::Release);
        while !ready() {
            spanring_core::sync::spin_loop();
        }
        ready();
        false
    }
}

/// A timed push whose strategy asks `ready()` again after it returned `true` and then reports
/// a timeout: the claim the first `true` made is the push's (no second claim, none lost), so
/// the push succeeds and the reader sees its item in order, then the other writer's. Before
/// the claim guard of `Writer::claim_waiting_in` the push reported `TimedOut` and left its
/// claim unpublished: the reader stopped after 3.
#[test]
fn a_claim_made_by_ready_is_never_lost() {
    use std::time::Duration;
    write_blocked_on_a_full_ring::<TimesOutAfterReady, _>(
        &WAITING_FOR_TIMEOUT,
        |b| b.push_timeout(100, Duration::from_secs(1)),
        |pushed, r, a| {
            assert_eq!(pushed, Ok(()));
            for x in [1, 2, 3, 100] {
                assert_eq!(r.try_pop(), Ok(x));
            }
            a.try_push(4).unwrap();
            assert_eq!(r.try_pop(), Ok(4), "the reader stopped at a lost claim");
            assert_eq!(r.try_pop(), Err(ReadError::Empty));
        },
    );
}

/// The sole multi-producer writer's one-item push claims on a copy of its claim state
/// (`Writer::push_cold_on_copy`). Here that claim takes the sole-writer cache anew (the
/// writer's clone has gone) on a full ring, and the wait strategy panics: the handle keeps
/// its state from before the call, from an earlier cache period (room left, an old claim
/// cursor). It must not claim from it: a `try_push` on the full ring must fail, and the
/// reader must see every item once, in order. Fails with the handle's mark in
/// `push_cold_on_copy` removed (the push overwrites item 2 while the ring is full).
#[test]
fn a_push_unwinding_after_taking_the_cache_claims_nothing_stale() {
    use spanring_core::PushError;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let mut memory = [0u32; 8];
    let mut words: [AtomicUsize; 8] = Default::default();
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CheckOnceThenPanic>()
        .multi_producer(&mut words[..])
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    for x in 0..2 {
        a.try_push(x).unwrap(); // takes the cache: room left for more
    }
    let mut b = a.clone(); // ends the cache
    for x in 2..8 {
        b.try_push(x).unwrap();
    }
    drop(b); // one writer again: the next claim takes the cache anew
    assert!(catch_unwind(AssertUnwindSafe(|| a.push(8))).is_err());
    assert_eq!(
        a.try_push(8),
        Err(PushError::Full(8)),
        "claimed on a full ring"
    );
    for x in 0..8 {
        assert_eq!(r.try_pop(), Ok(x));
    }
    for x in 8..16 {
        a.try_push(x).unwrap();
    }
    for x in 8..16 {
        assert_eq!(r.try_pop(), Ok(x));
    }
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
}
