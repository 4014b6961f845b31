//! The one-item calls (`try_push`/`push`/`push_timeout`, `try_pop`/`pop`/`pop_timeout`) on
//! both claim kinds: items in order across the wrap, Full and Closed give the item back,
//! broadcast (every reader gets a clone), timeouts, and a threaded run of `push`/`pop`.

use core::time::Duration;

use spanring_core::sync::AtomicUsize;
use spanring_core::{
    multi_words, PushError, ReadError, Ring, SliceStorage, WaitStrategy, WaitTimeout,
};

fn bits(cap: usize) -> Vec<AtomicUsize> {
    (0..multi_words(cap)).map(|_| AtomicUsize::new(0)).collect()
}

/// Spins (yielding) for `wait_until`; `wait_until_timeout` checks once and gives up, so a
/// timeout test is deterministic without sleeping.
#[derive(Default)]
struct CheckOnce;

impl WaitStrategy for CheckOnce {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        while !ready() {
            std::thread::yield_now();
        }
    }
    fn notify_all(&self) {}
}

impl WaitTimeout for CheckOnce {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, _: Duration) -> bool {
        ready()
    }
}

#[test]
fn sp_push_pop_in_order_across_the_wrap() {
    let mut memory = [0u32; 3];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .start_at(usize::MAX - 4)
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    for i in 0..20u32 {
        w.try_push(i).unwrap();
        if i % 2 == 1 {
            assert_eq!(r.try_pop(), Ok(i - 1));
            assert_eq!(r.try_pop(), Ok(i));
        }
    }
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
}

#[test]
fn mp_push_pop_in_order() {
    let mut memory = [0u32; 4];
    let mut b = bits(4);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w1 = ring.writer().unwrap();
    let mut w2 = w1.clone();
    for i in 0..10u32 {
        w1.try_push(2 * i).unwrap();
        w2.push(2 * i + 1).unwrap();
        assert_eq!(r.pop(), Ok(2 * i));
        assert_eq!(r.try_pop(), Ok(2 * i + 1));
    }
}

#[test]
fn full_gives_the_item_back() {
    let mut memory = [0u8; 2];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_push(1).unwrap();
    w.try_push(2).unwrap();
    let e = w.try_push(3).unwrap_err();
    assert_eq!(e, PushError::Full(3));
    assert!(!e.is_terminal());
    assert_eq!(e.into_inner(), 3);
    assert_eq!(r.try_pop(), Ok(1));
    w.try_push(3).unwrap(); // room again
    assert_eq!(r.try_pop(), Ok(2));
    assert_eq!(r.try_pop(), Ok(3));
}

#[test]
fn mp_full_gives_the_item_back() {
    let mut memory = [0u8; 1];
    let mut b = bits(1);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let _r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_push(1).unwrap();
    assert_eq!(w.try_push(2), Err(PushError::Full(2)));
}

#[test]
fn closed_gives_the_item_back_and_is_terminal() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_push(1).unwrap();
    ring.close();
    let e = w.try_push(2).unwrap_err();
    assert_eq!(e, PushError::Closed(2));
    assert!(e.is_terminal());
    assert_eq!(w.push(3), Err(PushError::Closed(3)));
    assert_eq!(r.pop(), Ok(1)); // drained first
    let e = r.pop().unwrap_err();
    assert_eq!(e, ReadError::Closed);
    assert!(e.is_terminal());
}

#[test]
fn mp_closed_gives_the_item_back() {
    let mut memory = [0u8; 4];
    let mut b = bits(4);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    ring.close();
    assert_eq!(w.try_push(5), Err(PushError::Closed(5)));
    assert_eq!(r.try_pop(), Err(ReadError::Closed));
}

#[test]
fn every_reader_gets_a_clone() {
    let mut memory: [Option<std::rc::Rc<u8>>; 2] = [None, None];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut a = ring.reader().unwrap();
    let mut b = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let item = std::rc::Rc::new(9);
    w.try_push(Some(item.clone())).unwrap();
    let from_a = a.try_pop().unwrap().unwrap();
    let from_b = b.try_pop().unwrap().unwrap();
    assert_eq!((*from_a, *from_b), (9, 9));
    // The slot, `item`, and the two clones.
    assert_eq!(std::rc::Rc::strong_count(&item), 4);
}

#[test]
fn timeouts_give_up_and_give_the_item_back() {
    let mut memory = [0u8; 1];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CheckOnce>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    let t = Duration::from_millis(1);
    assert_eq!(r.pop_timeout(t), Err(ReadError::TimedOut));
    w.push_timeout(1, t).unwrap();
    let e = w.push_timeout(2, t).unwrap_err();
    assert_eq!(e, PushError::TimedOut(2));
    assert!(!e.is_terminal());
    assert_eq!(r.pop_timeout(t), Ok(1));
    w.push_timeout(2, t).unwrap();
    assert_eq!(r.pop_timeout(t), Ok(2));
}

#[test]
fn push_and_pop_wait_across_threads() {
    const ITEMS: u32 = if cfg!(miri) { 50 } else { 5_000 };
    let mut memory = [0u32; 4];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<CheckOnce>()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    std::thread::scope(|s| {
        s.spawn(move || {
            for i in 0..ITEMS {
                w.push(i).unwrap();
            }
        }); // dropping the writer closes the ring
        let mut expected = 0;
        loop {
            match r.pop() {
                Ok(v) => {
                    assert_eq!(v, expected);
                    expected += 1;
                }
                Err(e) if e.is_terminal() => break,
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(expected, ITEMS);
    });
}

#[test]
fn snapshots_take_shared_references() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    assert_eq!((r.available(), w.free()), (0, 4));
    w.try_push(1).unwrap();
    w.try_push(2).unwrap();
    let (rr, ww) = (&r, &w);
    assert_eq!((rr.available(), ww.free()), (2, 2));
    assert_eq!(r.try_pop(), Ok(1));
    assert_eq!((r.available(), w.free()), (1, 3));
}

#[test]
fn mp_snapshots_take_shared_references() {
    let mut memory = [0u8; 4];
    let mut b = bits(4);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut b[..]).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_push(1).unwrap();
    let (rr, ww) = (&r, &w);
    assert_eq!((rr.available(), ww.free()), (1, 3));
    assert_eq!(r.try_pop(), Ok(1));
    assert_eq!((r.available(), w.free()), (0, 4));
}

#[test]
fn is_terminal_only_for_closed() {
    use spanring_core::ReserveError;
    assert!(ReadError::Closed.is_terminal());
    for e in [
        ReadError::Empty,
        ReadError::TimedOut,
        ReadError::TooLarge {
            requested: 2,
            capacity: 1,
        },
    ] {
        assert!(!e.is_terminal(), "{e:?}");
    }
    assert!(ReserveError::Closed.is_terminal());
    for e in [
        ReserveError::Full { free: 0 },
        ReserveError::TimedOut,
        ReserveError::TooLarge {
            requested: 2,
            capacity: 1,
        },
    ] {
        assert!(!e.is_terminal(), "{e:?}");
    }
    assert!(PushError::Closed(()).is_terminal());
    assert!(!PushError::Full(()).is_terminal());
    assert!(!PushError::TimedOut(()).is_terminal());
}

/// An item whose `clone` panics on request.
#[derive(Debug, Default)]
struct Touchy {
    value: u32,
    panic_on_clone: bool,
}

impl Clone for Touchy {
    fn clone(&self) -> Self {
        assert!(!self.panic_on_clone, "clone of {}", self.value);
        Self {
            value: self.value,
            panic_on_clone: false,
        }
    }
}

/// The one-item fast path (`pop` of an item the reader already knows is published) keeps the
/// documented rule: a clone that panics still consumes the item.
#[test]
fn a_pop_whose_clone_panics_still_consumes_the_item() {
    let mut memory: [Touchy; 4] = Default::default();
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let mut r = ring.reader().unwrap();
    let mut w = ring.writer().unwrap();
    w.try_push(Touchy {
        value: 1,
        panic_on_clone: true,
    })
    .unwrap();
    w.try_push(Touchy {
        value: 2,
        panic_on_clone: false,
    })
    .unwrap();
    assert_eq!(r.available(), 2);
    // The reader knows nothing yet: this pop takes the slow path (through a span).
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.try_pop()));
    assert!(caught.is_err(), "the clone of item 1 panics");
    assert_eq!(r.try_pop().map(|t| t.value), Ok(2), "item 1 was consumed");
    assert_eq!(r.try_pop().map(|t| t.value), Err(ReadError::Empty));
    // Now the fast path itself: the reader knows of two items before the panicking pop.
    w.try_push(Touchy {
        value: 3,
        panic_on_clone: false,
    })
    .unwrap();
    w.try_push(Touchy {
        value: 4,
        panic_on_clone: true,
    })
    .unwrap();
    w.try_push(Touchy {
        value: 5,
        panic_on_clone: false,
    })
    .unwrap();
    assert_eq!(r.try_pop().map(|t| t.value), Ok(3)); // slow path: learns 3 are ready
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.try_pop()));
    assert!(caught.is_err(), "the clone of item 4 panics (fast path)");
    assert_eq!(r.try_pop().map(|t| t.value), Ok(5), "item 4 was consumed");
}

/// An item whose drop panics when asked to (the item a push overwrites is dropped in place);
/// its clones (what readers get) are harmless.
#[derive(Debug, Default)]
struct Grenade {
    value: u32,
    panic_on_drop: bool,
}

impl Clone for Grenade {
    fn clone(&self) -> Self {
        Self {
            value: self.value,
            panic_on_drop: false,
        }
    }
}

impl Drop for Grenade {
    fn drop(&mut self) {
        if self.panic_on_drop && !std::thread::panicking() {
            self.panic_on_drop = false;
            panic!("drop of {}", self.value);
        }
    }
}

/// One of several multi-producer writers pushes into a slot whose old item panics when
/// dropped. Its claim CAS already moved the claim cursor, so the slot must be given back or
/// skipped (never left claimed and unpublished): afterwards the other writer's push arrives
/// and the reader is not stuck in front of the slot. The first panicking push takes the slow
/// path (the writers' cached minimum is stale at the lap's start), the second the inlined
/// shared-writer push (`claim_shared_fast`); both keep the guard. (Without it the reader sees
/// `Empty` where item 8 should be.) The assignment that panics leaves the new item in the
/// slot (Rust's drop-and-replace), so nothing is dropped twice.
#[test]
fn mp_push_over_an_item_whose_drop_panics_gives_the_slot_back() {
    let mut memory: [Grenade; 4] = Default::default();
    let mut words = bits(4);
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let mut r = ring.reader().unwrap();
    let mut a = ring.writer().unwrap();
    let mut b = a.clone(); // two writers: claims are CASes, not the sole writer's cache
    let grenade = |value, panic_on_drop| Grenade {
        value,
        panic_on_drop,
    };
    for value in 1..=4 {
        // Items 1 and 2 are armed: they panic when their slots are written again.
        a.try_push(grenade(value, value <= 2)).unwrap();
    }
    for value in 1..=4 {
        assert_eq!(r.try_pop().map(|g| g.value), Ok(value));
    }
    let push_panics = |w: &mut spanring_core::Writer<_>, value| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            w.try_push(grenade(value, false))
        }))
        .is_err()
    };
    assert!(push_panics(&mut a, 5), "slot 0 held armed item 1");
    a.try_push(grenade(6, false)).unwrap(); // slot 0 again: given back by the panicked push
    assert!(push_panics(&mut a, 7), "slot 1 held armed item 2");
    b.try_push(grenade(8, false)).unwrap();
    assert_eq!(r.try_pop().map(|g| g.value), Ok(6));
    assert_eq!(
        r.try_pop().map(|g| g.value),
        Ok(8),
        "a panicked push left a hole"
    );
    assert_eq!(r.try_pop().map(|g| g.value), Err(ReadError::Empty));
}

/// An item whose `clone` panics once, when its flag is set.
struct PanicsOnce(u32, &'static spanring_core::sync::AtomicBool);

impl Clone for PanicsOnce {
    fn clone(&self) -> Self {
        if self.1.swap(false, spanring_core::sync::Ordering::Relaxed) {
            panic!("clone of {} fails", self.0);
        }
        PanicsOnce(self.0, self.1)
    }
}

/// A `clone` that panics in a one-item read's slow path (the first item of a new window: after
/// a wait for `pop`, after a poll for `try_pop`; both run it on a copy of the position, out of
/// line) consumes that item, and the reader's own position follows: the next read returns the
/// next item, not the same slot again (which the writer may already be reusing).
#[test]
fn a_clone_panicking_in_pops_slow_path_leaves_the_reader_in_step() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    static ARMED: spanring_core::sync::AtomicBool = spanring_core::sync::AtomicBool::new(false);
    for try_form in [false, true] {
        let mut memory: [PanicsOnce; 2] = [PanicsOnce(0, &ARMED), PanicsOnce(0, &ARMED)];
        let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
        let mut r = ring.reader().unwrap();
        let mut w = ring.writer().unwrap();
        let one = |r: &mut spanring_core::Reader<_>| match try_form {
            false => r.pop(),
            true => r.try_pop(),
        };
        w.try_push(PanicsOnce(1, &ARMED)).ok().unwrap();
        assert_eq!(one(&mut r).unwrap().0, 1);
        // The reader knows nothing now: the next read goes through the slow path.
        w.try_push(PanicsOnce(2, &ARMED)).ok().unwrap();
        ARMED.store(true, spanring_core::sync::Ordering::Relaxed);
        assert!(catch_unwind(AssertUnwindSafe(|| one(&mut r).map(|x| x.0))).is_err());
        // Item 2 counts as consumed: both slots are free for the writer, and the reader is
        // at 3.
        w.try_push(PanicsOnce(3, &ARMED)).ok().unwrap();
        w.try_push(PanicsOnce(4, &ARMED)).ok().unwrap();
        assert_eq!(one(&mut r).unwrap().0, 3, "try form: {try_form}");
        assert_eq!(one(&mut r).unwrap().0, 4, "try form: {try_form}");
        assert_eq!(
            r.try_pop().map(|x| x.0),
            Err(spanring_core::ReadError::Empty)
        );
    }
}
