//! Loom models of [`AsyncWait`]'s register-then-check protocol and its waker-cell state
//! machine.
//!
//! Run: `LOOM_MAX_PREEMPTIONS=2 RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-core --features __loom
//! --release --test loom_waker`
//!
//! The cells' waker slots are loom `UnsafeCell`s under this cfg, so besides the assertions
//! loom reports any slot access the state machine fails to make exclusive.
#![cfg(spanring_loom)]

use std::future::Future;
use std::pin::pin;
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use loom::sync::Arc;
use loom::thread;
use spanring_core::asynch::WakerRegistry;
use spanring_core::sync::{AtomicBool, AtomicUsize, Ordering};
use spanring_core::{AsyncWait, InlineStorage, Reader, Ring, SingleProducer, WaitStrategy, Writer};

/// A waker that records that it was woken (in a loom atomic, so loom orders it).
struct Flag {
    woken: AtomicBool,
    wakes: AtomicUsize,
}

impl Wake for Flag {
    fn wake(self: StdArc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &StdArc<Self>) {
        // Release: pairs with the Acquire load in the final assertion (after join anyway).
        self.woken.store(true, Ordering::Release);
        self.wakes.fetch_add(1, Ordering::Relaxed);
    }
}

fn test_waker() -> (StdArc<Flag>, Waker) {
    let flag = StdArc::new(Flag {
        woken: AtomicBool::new(false),
        wakes: AtomicUsize::new(0),
    });
    let waker = Waker::from(flag.clone());
    (flag, waker)
}

/// One task registers and then re-checks a condition; another sets the condition and
/// notifies. Whatever the interleaving, the check sees the condition or the waker is woken.
#[test]
fn register_then_check_loses_no_wake_up() {
    loom::model(|| {
        let wait = Arc::new(AsyncWait::<2>::new());
        let ready = Arc::new(AtomicBool::new(false));
        let (flag, waker) = test_waker();

        let notifier = {
            let (wait, ready) = (wait.clone(), ready.clone());
            thread::spawn(move || {
                // Release, as the ring publishes its cursor.
                ready.store(true, Ordering::Release);
                wait.notify_all();
            })
        };

        let cell = wait.claim_cell().expect("a free cell");
        wait.register(&cell, &waker);
        // Acquire, as the ring loads its cursor.
        let seen = ready.load(Ordering::Acquire);
        notifier.join().unwrap();
        assert!(
            seen || flag.woken.load(Ordering::Acquire),
            "lost wake-up: the check missed the store and nobody woke the waker"
        );
        wait.release(cell);
        assert_eq!(wait.registered(), 0);
        assert_eq!(wait.occupied_cells(), 0);
    });
}

/// A notifier races with the owner re-registering a new waker and then releasing the cell
/// (the freeing may be delegated to the notifier). The cell ends up free either way, the
/// waker slots are never accessed concurrently (loom's UnsafeCell), and a wake that arrives
/// during the re-registration reaches one of the two wakers.
#[test]
fn notify_races_reregister_and_release() {
    loom::model(|| {
        let wait = Arc::new(AsyncWait::<1>::new());
        let (first, waker1) = test_waker();
        let (second, waker2) = test_waker();
        let cell = wait.claim_cell().expect("a free cell");
        wait.register(&cell, &waker1);

        let notifier = {
            let wait = wait.clone();
            thread::spawn(move || wait.notify_all())
        };

        wait.register(&cell, &waker2);
        wait.release(cell);
        notifier.join().unwrap();
        assert_eq!(wait.registered(), 0, "cell count leaked");
        assert_eq!(wait.occupied_cells(), 0, "cell not freed");
        // The cell can be claimed again.
        let again = wait.claim_cell().expect("the cell is free again");
        wait.release(again);
        // Each waker fired at most once per wake-up path (no runaway self-waking).
        assert!(first.wakes.load(Ordering::Relaxed) <= 1);
        assert!(second.wakes.load(Ordering::Relaxed) <= 1);
    });
}

/// Two waiters and one cell: one registers, the other falls back to waking itself. Neither
/// can miss the condition.
#[test]
fn full_registry_falls_back_without_losing_wake_ups() {
    loom::model(|| {
        let wait = Arc::new(AsyncWait::<1>::new());
        let ready = Arc::new(AtomicBool::new(false));

        let waiter = {
            let (wait, ready) = (wait.clone(), ready.clone());
            thread::spawn(move || {
                let (flag, waker) = test_waker();
                let cell = wait.claim_cell();
                match &cell {
                    Some(c) => wait.register(c, &waker),
                    None => waker.wake_by_ref(), // the futures' fallback
                }
                let seen = ready.load(Ordering::Acquire);
                (seen, flag, cell)
            })
        };

        let (flag, waker) = test_waker();
        let cell = wait.claim_cell();
        match &cell {
            Some(c) => wait.register(c, &waker),
            None => waker.wake_by_ref(),
        }
        let seen = ready.load(Ordering::Acquire);

        ready.store(true, Ordering::Release);
        wait.notify_all();

        let (seen2, flag2, cell2) = waiter.join().unwrap();
        assert!(seen || flag.woken.load(Ordering::Acquire));
        assert!(seen2 || flag2.woken.load(Ordering::Acquire));
        for c in [cell, cell2].into_iter().flatten() {
            wait.release(c);
        }
        assert_eq!(wait.registered(), 0);
    });
}

type AsyncRing = Ring<InlineStorage<usize, 2>, SingleProducer, AsyncWait<2>, 1>;

/// End to end through the ring: a reader future polled while a writer publishes one item.
/// If the poll returned `Pending`, the publication woke the reader's waker, and the next poll
/// finds the item.
#[test]
fn read_future_is_woken_by_publish() {
    loom::model(|| {
        let ring: Arc<AsyncRing> = Arc::new(
            Ring::builder(InlineStorage::new([0; 2]))
                .wait::<AsyncWait<2>>()
                .readers::<1>()
                .build()
                .unwrap(),
        );
        let mut reader = Reader::attach(ring.clone()).unwrap();
        let mut writer = Writer::attach(ring.clone()).unwrap();

        let producer = thread::spawn(move || {
            writer.try_reserve(1).unwrap().fill(42);
            writer // keep the ring open until joined
        });

        let (flag, waker) = test_waker();
        let mut cx = Context::from_waker(&waker);
        // The future stays alive (registered) until the producer is joined: a future dropped
        // while pending deregisters, and then nobody needs to wake it.
        let mut read = pin!(reader.read_async(2));
        let first = match read.as_mut().poll(&mut cx) {
            Poll::Ready(Ok(span)) => Some(span.to_array::<1>()),
            Poll::Ready(Err(e)) => panic!("{e}"),
            Poll::Pending => None,
        };
        let writer = producer.join().unwrap();
        match first {
            Some(items) => assert_eq!(items, Some([42])),
            None => {
                assert!(
                    flag.woken.load(Ordering::Acquire),
                    "pending reader not woken"
                );
                match read.as_mut().poll(&mut cx) {
                    Poll::Ready(Ok(span)) => assert_eq!(span.to_array::<1>(), Some([42])),
                    Poll::Ready(Err(e)) => panic!("woken, then {e}"),
                    Poll::Pending => panic!("woken but still pending"),
                }
            }
        }
        assert_eq!(ring.data_wait().registered(), 0);
        drop(writer);
    });
}
