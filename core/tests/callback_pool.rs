//! `CallbackSlot` used the way a dispatcher will use it: a pool of default (empty) slots,
//! re-armed in place, handed to another thread, run with a context borrowed per call.

use std::sync::mpsc;
use std::thread;

use spanring_core::callback::ByMut;
use spanring_core::callback::CallError;
use spanring_core::callback::CallbackKind;
use spanring_core::callback::SendCallbackSlot;

/// Per-processor state that every event callback gets as `&mut`.
struct Processor {
    handled: u64,
    last: u64,
}

type Event = SendCallbackSlot<ByMut<Processor>, u64>;

#[test]
fn pool_of_slots_rearmed_and_run_on_another_thread() {
    const EVENTS: u64 = 64;
    let mut pool: [Event; 4] = Default::default();
    assert!(pool.iter().all(Event::is_empty));

    let (to_worker, inbox) = mpsc::channel::<Event>();
    let (to_owner, returned) = mpsc::channel::<Event>();
    let worker = thread::spawn(move || {
        let mut processor = Processor {
            handled: 0,
            last: 0,
        };
        for mut event in inbox {
            let value = event.call(&mut processor).unwrap();
            processor.last = value;
            event.reset();
            to_owner.send(event).unwrap();
        }
        processor
    });

    let mut free: Vec<Event> = pool.iter_mut().map(Event::take).collect();
    let mut sent = 0;
    while sent < EVENTS {
        let mut event = free.pop().unwrap_or_else(|| returned.recv().unwrap());
        assert!(event.is_empty());
        let id = sent;
        // Three words of captures: fits the default 4-word slot on 32- and 64-bit targets.
        let payload = [id as usize, id as usize * 2, id as usize * 3];
        event.set(move |p: &mut Processor| {
            p.handled += 1;
            (payload[0] + payload[1] + payload[2]) as u64
        });
        to_worker.send(event).unwrap();
        sent += 1;
    }
    drop(to_worker);
    let processor = worker.join().unwrap();
    assert_eq!(processor.handled, EVENTS);
    assert_eq!(processor.last, (EVENTS - 1) * 6);
}

#[test]
fn broadcast_fn_runs_through_shared_references_only() {
    let mut slot: SendCallbackSlot<ByMut<Processor>, u64> = SendCallbackSlot::new();
    slot.set_fn(|p: &mut Processor| {
        p.handled += 1;
        p.handled
    });
    assert_eq!(slot.kind(), Some(CallbackKind::Shared));
    let shared = &slot;
    let totals: Vec<u64> = thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(move || {
                    let mut own = Processor {
                        handled: 0,
                        last: 0,
                    };
                    for _ in 0..5 {
                        shared.call_shared(&mut own).unwrap();
                    }
                    own.handled
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(totals, vec![5, 5, 5]);

    slot.set(|p: &mut Processor| p.handled);
    assert_eq!(
        slot.call_shared(&mut Processor {
            handled: 0,
            last: 0
        }),
        Err(CallError::NotShared)
    );
}
