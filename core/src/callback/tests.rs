//! Unit tests: every set / call / reset / take / drop path, with and without panics, counting
//! drops. Run under Miri (Stacked and Tree Borrows) as well.

use crate::sync::{AtomicUsize, Ordering};
use std::boxed::Box;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Arc;
use std::thread;

use super::*;

/// Counts its own drops in a shared cell.
struct Tracked(Rc<Cell<usize>>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

/// Counts its drop, then panics.
struct PanicOnDrop(Rc<Cell<usize>>);

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
        panic!("PanicOnDrop");
    }
}

fn counter() -> Rc<Cell<usize>> {
    Rc::new(Cell::new(0))
}

#[test]
fn new_and_default_are_empty() {
    let mut slot: CallbackSlot<()> = CallbackSlot::default();
    assert!(slot.is_empty());
    assert_eq!(slot.kind(), None);
    assert_eq!(slot.call(()), Err(CallError::Empty));
    assert_eq!(slot.call_shared(()), Err(CallError::Empty));
    assert_eq!(slot.call_once(()), Err(CallError::Empty));
    slot.reset();
    assert!(slot.is_empty());
}

#[test]
fn call_mut_keeps_state_between_calls() {
    let mut slot: CallbackSlot<ByValue<u32>, u32> = CallbackSlot::new();
    let mut total = 0;
    slot.set(move |x| {
        total += x;
        total
    });
    assert_eq!(slot.kind(), Some(CallbackKind::Mut));
    assert_eq!(slot.call(1), Ok(1));
    assert_eq!(slot.call(2), Ok(3));
    assert_eq!(slot.call_shared(5), Err(CallError::NotShared));
    assert_eq!(slot.call(4), Ok(7));
}

#[test]
fn drop_of_slot_drops_callback_once() {
    let drops = counter();
    {
        let mut slot: CallbackSlot<()> = CallbackSlot::new();
        let t = Tracked(drops.clone());
        slot.set(move |_| {
            let _ = &t;
        });
        slot.call(()).unwrap();
        slot.call(()).unwrap();
        assert_eq!(drops.get(), 0);
    }
    assert_eq!(drops.get(), 1);
}

#[test]
fn set_over_existing_drops_old_once_and_reuses_storage() {
    let old = counter();
    let new = counter();
    let mut slot: CallbackSlot<(), usize> = CallbackSlot::new();
    let t = Tracked(old.clone());
    slot.set(move |_| {
        let _ = &t;
        1
    });
    // A bigger closure into the same storage (3 words + the Rc).
    let t = Tracked(new.clone());
    let big = [10usize, 20, 30];
    slot.set(move |_| {
        let _ = &t;
        big.iter().sum()
    });
    assert_eq!(old.get(), 1);
    assert_eq!(new.get(), 0);
    assert_eq!(slot.call(()), Ok(60));
    // A zero-sized one.
    slot.set(|_| 7);
    assert_eq!(new.get(), 1);
    assert_eq!(slot.call(()), Ok(7));
    drop(slot);
    assert_eq!((old.get(), new.get()), (1, 1));
}

#[test]
fn reset_drops_once_and_is_idempotent() {
    let drops = counter();
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    slot.set_fn(move |_| {
        let _ = &t;
    });
    slot.reset();
    assert_eq!(drops.get(), 1);
    assert!(slot.is_empty());
    slot.reset();
    drop(slot);
    assert_eq!(drops.get(), 1);
}

#[test]
fn call_once_consumes_every_kind() {
    for kind in [CallbackKind::Once, CallbackKind::Mut, CallbackKind::Shared] {
        let drops = counter();
        let mut slot: CallbackSlot<ByValue<u8>, u8> = CallbackSlot::new();
        let t = Tracked(drops.clone());
        match kind {
            CallbackKind::Once => slot.set_once(move |x| {
                drop(t);
                x + 1
            }),
            CallbackKind::Mut => slot.set(move |x| {
                let _ = &t;
                x + 1
            }),
            CallbackKind::Shared => slot.set_fn(move |x| {
                let _ = &t;
                x + 1
            }),
        }
        assert_eq!(slot.kind(), Some(kind));
        assert_eq!(slot.call_once(1), Ok(2));
        assert!(slot.is_empty());
        assert_eq!(drops.get(), 1, "{kind:?}");
        assert_eq!(slot.call_once(1), Err(CallError::Empty));
        drop(slot);
        assert_eq!(drops.get(), 1, "{kind:?}");
    }
}

#[test]
fn once_only_refuses_other_calls_without_consuming() {
    let drops = counter();
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    slot.set_once(move |_| drop(t));
    assert_eq!(slot.call(()), Err(CallError::OnceOnly));
    assert_eq!(slot.call_shared(()), Err(CallError::OnceOnly));
    assert_eq!(drops.get(), 0);
    assert!(!slot.is_empty());
    slot.call_once(()).unwrap();
    assert_eq!(drops.get(), 1);
}

#[test]
fn call_once_returns_captured_value_by_move() {
    let drops = counter();
    let mut slot: CallbackSlot<(), Tracked> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    slot.set_once(move |_| t);
    let back = slot.call_once(()).unwrap();
    assert_eq!(drops.get(), 0);
    drop(slot);
    assert_eq!(drops.get(), 0);
    drop(back);
    assert_eq!(drops.get(), 1);
}

#[test]
fn take_moves_callback_out() {
    let drops = counter();
    let mut slot: CallbackSlot<(), u8> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    slot.set(move |_| {
        let _ = &t;
        5
    });
    let mut moved = slot.take();
    assert!(slot.is_empty());
    assert_eq!(moved.call(()), Ok(5));
    drop(slot);
    assert_eq!(drops.get(), 0);
    drop(moved);
    assert_eq!(drops.get(), 1);
}

#[test]
fn panic_in_call_leaves_slot_intact() {
    let drops = counter();
    let mut slot: CallbackSlot<ByValue<bool>, u32> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    let mut calls = 0;
    slot.set(move |explode| {
        let _ = &t;
        calls += 1;
        assert!(!explode, "boom");
        calls
    });
    let r = catch_unwind(AssertUnwindSafe(|| slot.call(true)));
    assert!(r.is_err());
    assert_eq!(drops.get(), 0);
    assert_eq!(slot.kind(), Some(CallbackKind::Mut));
    // The state the callback left before panicking is kept.
    assert_eq!(slot.call(false), Ok(2));
    drop(slot);
    assert_eq!(drops.get(), 1);
}

#[test]
fn panic_in_call_shared_leaves_slot_intact() {
    let drops = counter();
    let mut slot: CallbackSlot<ByValue<bool>, u8> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    slot.set_fn(move |explode| {
        let _ = &t;
        assert!(!explode, "boom");
        1
    });
    let r = catch_unwind(AssertUnwindSafe(|| slot.call_shared(true)));
    assert!(r.is_err());
    assert_eq!(slot.call_shared(false), Ok(1));
    assert_eq!(drops.get(), 0);
    drop(slot);
    assert_eq!(drops.get(), 1);
}

#[test]
fn panic_in_call_once_empties_slot_and_drops_once() {
    let drops = counter();
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    slot.set_once(move |_| {
        let _keep = t;
        panic!("boom");
    });
    let r = catch_unwind(AssertUnwindSafe(|| slot.call_once(())));
    assert!(r.is_err());
    assert!(slot.is_empty());
    assert_eq!(drops.get(), 1);
    drop(slot);
    assert_eq!(drops.get(), 1);
}

#[test]
fn panic_in_call_once_of_mut_callback_drops_captures_once() {
    let drops = counter();
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    let t = Tracked(drops.clone());
    slot.set(move |_| {
        let _ = &t;
        panic!("boom");
    });
    let r = catch_unwind(AssertUnwindSafe(|| slot.call_once(())));
    assert!(r.is_err());
    assert!(slot.is_empty());
    assert_eq!(drops.get(), 1);
    drop(slot);
    assert_eq!(drops.get(), 1);
}

#[test]
fn panicking_destructor_in_reset_leaves_slot_empty() {
    let drops = counter();
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    let p = PanicOnDrop(drops.clone());
    slot.set(move |_| {
        let _ = &p;
    });
    let r = catch_unwind(AssertUnwindSafe(|| slot.reset()));
    assert!(r.is_err());
    assert!(slot.is_empty());
    assert_eq!(drops.get(), 1);
    drop(slot);
    assert_eq!(drops.get(), 1);
}

#[test]
fn panicking_destructor_in_set_drops_new_callback_and_leaves_slot_empty() {
    let old = counter();
    let new = counter();
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    let p = PanicOnDrop(old.clone());
    slot.set(move |_| {
        let _ = &p;
    });
    let t = Tracked(new.clone());
    let r = catch_unwind(AssertUnwindSafe(|| {
        slot.set(move |_| {
            let _ = &t;
        })
    }));
    assert!(r.is_err());
    assert!(slot.is_empty());
    assert_eq!((old.get(), new.get()), (1, 1));
    drop(slot);
    assert_eq!((old.get(), new.get()), (1, 1));
}

#[test]
fn panicking_destructor_when_slot_dropped_runs_once() {
    let drops = counter();
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    let p = PanicOnDrop(drops.clone());
    slot.set_once(move |_| drop(p));
    let r = catch_unwind(AssertUnwindSafe(move || drop(slot)));
    assert!(r.is_err());
    assert_eq!(drops.get(), 1);
}

#[test]
fn by_mut_context_gets_fresh_borrows() {
    struct Ctx {
        events: usize,
    }
    let mut slot: CallbackSlot<ByMut<Ctx>, usize> = CallbackSlot::new();
    let step = 3;
    slot.set(move |ctx| {
        ctx.events += step;
        ctx.events
    });
    let mut a = Ctx { events: 0 };
    let mut b = Ctx { events: 100 };
    assert_eq!(slot.call(&mut a), Ok(3));
    assert_eq!(slot.call(&mut b), Ok(103));
    assert_eq!(slot.call(&mut a), Ok(6));
}

#[test]
fn tuple_and_ref_families() {
    let mut slot: CallbackSlot<(ByRef<[u32]>, ByMut<u32>)> = CallbackSlot::new();
    slot.set(|(src, dst): (&[u32], &mut u32)| *dst = src.iter().sum());
    let data = [1, 2, 3];
    let mut out = 0;
    slot.call((&data, &mut out)).unwrap();
    assert_eq!(out, 6);
}

#[test]
fn shared_call_may_use_interior_mutability() {
    let mut slot: CallbackSlot<(), usize> = CallbackSlot::new();
    let hits = Cell::new(0usize);
    slot.set_fn(move |_| {
        hits.set(hits.get() + 1);
        hits.get()
    });
    let shared = &slot;
    assert_eq!(shared.call_shared(()), Ok(1));
    assert_eq!(shared.call_shared(()), Ok(2));
    assert_eq!(slot.call(()), Ok(3));
}

#[test]
fn zero_words_holds_zero_sized_closures() {
    let mut slot: CallbackSlot<ByValue<u8>, u8, 0> = CallbackSlot::new();
    slot.set(|x| x.wrapping_mul(3));
    assert_eq!(slot.call(5), Ok(15));
    assert_eq!(CallbackSlot::<(), (), 0>::CAPACITY, 0);
}

#[test]
fn full_capacity_closure_fits() {
    let words = [1usize, 2, 3, 4];
    let mut slot: CallbackSlot<(), usize> = CallbackSlot::new();
    slot.set(move |_| words.iter().sum());
    assert_eq!(slot.call(()), Ok(10));
}

/// `CallbackSlot::<A, R, W>::fits` for the type of `_f`.
fn fits<const W: usize, F>(_f: &F) -> bool {
    CallbackSlot::<(), usize, W>::fits::<F>()
}

#[test]
fn fits_is_exactly_the_set_bound() {
    let words = [1usize, 2, 3, 4];
    let full = move |_: ()| words.iter().sum::<usize>();
    // Exactly `WORDS` words fit; one word less does not.
    assert!(fits::<4, _>(&full));
    assert!(!fits::<3, _>(&full));
    assert!(fits::<0, _>(&|_: ()| 0usize));
    // Over-aligned captures never fit, whatever the capacity.
    #[repr(align(32))]
    struct Aligned(u8);
    let aligned = Aligned(1);
    // (`let whole`: capture all of `aligned`, not just its field.)
    let captures_aligned = move |_: ()| {
        let whole = aligned;
        usize::from(whole.0)
    };
    assert!(!fits::<64, _>(&captures_aligned));
    assert!(!SendCallbackSlot::<(), (), 64>::fits::<Aligned>());
    // And what fits, `set` takes.
    let mut slot: CallbackSlot<(), usize> = CallbackSlot::new();
    slot.set(full);
    assert_eq!(slot.call(()), Ok(10));
}

#[test]
fn send_slot_moves_across_threads_and_drops_there() {
    let drops = Arc::new(AtomicUsize::new(0));
    struct SendTracked(Arc<AtomicUsize>);
    impl Drop for SendTracked {
        fn drop(&mut self) {
            // Relaxed: the join below orders this with the test's read.
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    let mut slot: SendCallbackSlot<ByValue<u32>, u32> = SendCallbackSlot::new();
    let t = SendTracked(drops.clone());
    slot.set(move |x| {
        let _ = &t;
        x + 1
    });
    let result = thread::spawn(move || {
        let r = slot.call(1);
        drop(slot);
        r
    })
    .join()
    .unwrap();
    assert_eq!(result, Ok(2));
    assert_eq!(drops.load(Ordering::Relaxed), 1);
}

#[test]
fn send_slot_shared_calls_run_concurrently() {
    let mut slot: SendCallbackSlot<ByRef<AtomicUsize>, usize> = SendCallbackSlot::new();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    slot.set_fn(move |hits: &AtomicUsize| {
        // Relaxed: pure counters, read after the scope joins.
        c.fetch_add(1, Ordering::Relaxed);
        hits.fetch_add(1, Ordering::Relaxed) + 1
    });
    let hits = AtomicUsize::new(0);
    let threads = if cfg!(miri) { 2 } else { 4 };
    thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                for _ in 0..10 {
                    slot.call_shared(&hits).unwrap();
                }
            });
        }
    });
    assert_eq!(hits.load(Ordering::Relaxed), threads * 10);
    assert_eq!(calls.load(Ordering::Relaxed), threads * 10);
    drop(slot);
    assert_eq!(Arc::strong_count(&calls), 1);
}

#[test]
fn boxed_return_and_heap_captures_are_not_leaked() {
    // Heap captures are fine (the slot itself never allocates); Miri's leak check covers this.
    let mut slot: CallbackSlot<(), Box<u32>> = CallbackSlot::new();
    let b = Box::new(41u32);
    slot.set(move |_| Box::new(*b + 1));
    assert_eq!(*slot.call(()).unwrap(), 42);
    slot.set_once(|_| Box::new(0));
}

#[test]
fn error_display_and_debug() {
    use std::format;
    assert_eq!(format!("{}", CallError::Empty), "callback slot is empty");
    assert!(format!("{}", CallError::NotShared).contains("set_fn"));
    assert!(format!("{}", CallError::OnceOnly).contains("call_once"));
    let mut slot: CallbackSlot<()> = CallbackSlot::new();
    slot.set(|_| ());
    assert!(format!("{slot:?}").contains("Mut"));
    let _: &dyn std::error::Error = &CallError::Empty;
}
