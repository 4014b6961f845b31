//! Close wakes every waiter, in every form: a writer blocked on a full ring returns `Closed`
//! promptly after the close, whatever its readers do, for every waiting form (`reserve`, `push`,
//! `reserve_with`, their `_timeout` forms and their `_async` forms), single and multi producer,
//! under every wait strategy; owned handles and the dispatcher likewise. Every waiting reader
//! returns `Closed` at close once drained.
//!
//! Each case has a reader that never reads, holding the ring full. The waiting thread blocks
//! first (the test waits until its wait strategy has run the ring's check at least once, so any
//! "watch" of the holding reader is set up), then the ring closes. A case that does not return
//! within [`BOUND`] fails with its combination's name. No sleeps as synchronisation: the waiting
//! thread's progress is read from a counter the wait strategy wrapper keeps.
//!
//! Async forms are polled by hand on one thread: the first poll must be `Pending` (blocked), the
//! close must wake the waker, and the next poll must be `Ready(Err(Closed))`.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier};
use std::task::{Context, Poll, Wake};
use std::thread;
use std::time::{Duration, Instant};

use spanring::std_ext::{
    owned, BlockingWait, CondvarWait, Dispatcher, FutexWait, HeapStorage, HybridWait, SleepWait,
    YieldWait,
};
use spanring::{
    AsyncWait, Backoff, BusySpin, FillError, MultiProducer, PushError, ReadError, ReserveError,
    Ring, SingleProducer, WaitStrategy, WaitTimeout,
};

/// How long a woken thread may take to return: generous, for a loaded 2-core host and emulators.
const BOUND: Duration = Duration::from_secs(30);
/// The `_timeout` forms wait this long at most: far beyond [`BOUND`], so a `TimedOut` can only
/// mean the close was missed.
const LONG: Duration = Duration::from_secs(3600);
/// Slots of every ring here: two, as in the report that found the defect.
const SLOTS: usize = 2;

/// Checks that the wait strategies of each test id ran (`ready()` returned), per test id.
static CHECKS: [AtomicUsize; 64] = [const { AtomicUsize::new(0) }; 64];

/// A wait strategy that counts, in `CHECKS[ID]`, the ring's checks it has completed.
#[derive(Default)]
struct Counted<W, const ID: usize>(W);

impl<W: WaitStrategy, const ID: usize> WaitStrategy for Counted<W, ID> {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        self.0.wait_until(&mut || {
            let r = ready();
            // Relaxed: a progress signal for the test driver only; the wake-up itself is ordered
            // by the ring's atomics inside `ready` and the strategy's own.
            CHECKS[ID].fetch_add(1, Ordering::Relaxed);
            r
        });
    }
    fn notify_all(&self) {
        self.0.notify_all();
    }
}

impl<W: WaitTimeout, const ID: usize> WaitTimeout for Counted<W, ID> {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        self.0.wait_until_timeout(
            &mut || {
                let r = ready();
                // Relaxed: see `wait_until`.
                CHECKS[ID].fetch_add(1, Ordering::Relaxed);
                r
            },
            timeout,
        )
    }
}

/// Returns once a thread has completed a check in `Counted<_, ID>` since `before`; panics with
/// `name` after [`BOUND`].
fn until_checked(id: usize, before: usize, name: &str) {
    let deadline = Instant::now() + BOUND;
    // Relaxed: see `Counted`.
    while CHECKS[id].load(Ordering::Relaxed) == before {
        assert!(
            Instant::now() < deadline,
            "{name}: the writer never started waiting"
        );
        thread::yield_now();
    }
}

/// The waiting forms of a writer.
#[derive(Clone, Copy, Debug)]
enum Form {
    Reserve,
    Push,
    ReserveWith,
    ReserveTimeout,
    PushTimeout,
    ReserveWithTimeout,
}

const FORMS: [Form; 6] = [
    Form::Reserve,
    Form::Push,
    Form::ReserveWith,
    Form::ReserveTimeout,
    Form::PushTimeout,
    Form::ReserveWithTimeout,
];

/// How a reserve-like outcome ended, in words the test compares.
fn reserve_outcome<T>(r: Result<T, ReserveError>) -> String {
    match r {
        Ok(_) => "Ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

fn push_outcome(r: Result<(), PushError<u64>>) -> String {
    match r {
        Ok(()) => "Ok".into(),
        Err(PushError::Closed(_)) => "Closed".into(),
        Err(e) => format!("{e:?}"),
    }
}

fn fill_outcome(r: Result<usize, FillError<()>>) -> String {
    match r {
        Ok(_) => "Ok".into(),
        Err(FillError::Reserve(e)) => format!("{e:?}"),
        Err(e) => format!("{e:?}"),
    }
}

/// Runs one waiting `form` on a writer (any handle that derefs to the core writer's API).
macro_rules! run_form {
    ($w:expr, $form:expr) => {
        match $form {
            Form::Reserve => reserve_outcome($w.reserve(1).map(|s| s.len())),
            Form::Push => push_outcome($w.push(7)),
            Form::ReserveWith => fill_outcome($w.reserve_with(1, |s| {
                s[0] = 7;
                Ok(1)
            })),
            Form::ReserveTimeout => reserve_outcome($w.reserve_timeout(1, LONG).map(|s| s.len())),
            Form::PushTimeout => push_outcome($w.push_timeout(7, LONG)),
            Form::ReserveWithTimeout => fill_outcome($w.reserve_with_timeout(1, LONG, |s| {
                s[0] = 7;
                Ok(1)
            })),
        }
    };
}

/// What happens around the close while the writer waits.
#[derive(Clone, Copy, Debug)]
enum Readers {
    /// One reader that never reads holds the ring full.
    Idle,
    /// As `Idle`, and another thread attaches and detaches readers all through the close.
    IdleWithChurn,
}

/// Readers attached, then detached, in a loop until `stop`: attach and detach of other readers
/// (and reuse of their registry slots) racing the close.
fn churn<S, P, W, const N: usize>(ring: &'static Ring<S, P, W, N>, stop: &'static AtomicBool)
where
    S: spanring::Storage + Sync,
    P: spanring::ClaimMode + Sync,
    W: WaitStrategy + Sync,
    S::Item: Clone,
{
    // Relaxed: a stop flag; nothing is read on the strength of it.
    while !stop.load(Ordering::Relaxed) {
        if let Ok(mut r) = ring.reader() {
            let _ = r.try_read(1); // reads what the writer published after it attached
        }
        thread::yield_now();
    }
}

/// One blocked-writer case on a leaked ring: fills it, blocks a writer in `form`, closes, and
/// checks that the writer returns `Closed` within [`BOUND`] and that the idle reader then drains
/// the full ring and sees `Closed`.
macro_rules! blocked_writer_case {
    ($ring:expr, $id:expr, $name:expr, $form:expr, $readers:expr) => {{
        let name: String = $name;
        let ring = $ring;
        let mut idle = ring.reader().unwrap();
        let mut w = ring.writer().unwrap();
        w.try_reserve(SLOTS).unwrap().fill(1); // full: the idle reader has read nothing
        let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        let churner = match $readers {
            Readers::Idle => None,
            Readers::IdleWithChurn => Some(thread::spawn(move || churn(ring, stop))),
        };
        // Relaxed: see `Counted`.
        let before = CHECKS[$id].load(Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        let form = $form;
        thread::spawn(move || {
            let outcome = run_form!(w, form);
            let _ = tx.send(outcome);
        });
        until_checked($id, before, &name);
        ring.close();
        match rx.recv_timeout(BOUND) {
            Ok(outcome) => assert_eq!(outcome, "Closed", "{name}: the writer returned {outcome}"),
            Err(_) => panic!("{name}: the writer was not woken by close within {BOUND:?}"),
        }
        // Relaxed: see `churn`.
        stop.store(true, Ordering::Relaxed);
        if let Some(c) = churner {
            c.join().unwrap();
        }
        // Nothing lost: the idle reader still gets the full ring, then the end.
        let mut got = 0;
        loop {
            match idle.try_pop() {
                Ok(x) => {
                    assert_eq!(x, 1, "{name}: a stale or half-written item");
                    got += 1;
                }
                Err(ReadError::Closed) => break,
                Err(e) => panic!("{name}: the idle reader got {e:?} after the close"),
            }
        }
        assert_eq!(got, SLOTS, "{name}: items lost or duplicated");
    }};
}

/// Every form, single and multi producer, both reader situations, under strategy `$w`.
macro_rules! strategy_matrix {
    ($test:ident, $w:ty, $id:literal) => {
        #[test]
        fn $test() {
            for readers in [Readers::Idle, Readers::IdleWithChurn] {
                for form in FORMS {
                    let sp: &'static Ring<_, SingleProducer, Counted<$w, $id>> =
                        Box::leak(Box::new(
                            Ring::builder(HeapStorage::new(vec![0u64; SLOTS]).unwrap())
                                .wait::<Counted<$w, $id>>()
                                .build()
                                .unwrap(),
                        ));
                    let name = format!(
                        "{} / single producer / {form:?} / {readers:?}",
                        stringify!($w)
                    );
                    blocked_writer_case!(sp, $id, name, form, readers);

                    let words: [spanring::sync::AtomicUsize; 4] = Default::default();
                    let mp: &'static Ring<_, MultiProducer<_>, Counted<$w, $id>> =
                        Box::leak(Box::new(
                            Ring::builder(HeapStorage::new(vec![0u64; SLOTS]).unwrap())
                                .wait::<Counted<$w, $id>>()
                                .multi_producer(words)
                                .build()
                                .unwrap(),
                        ));
                    let name = format!(
                        "{} / multi producer / {form:?} / {readers:?}",
                        stringify!($w)
                    );
                    blocked_writer_case!(mp, $id, name, form, readers);
                }
            }
        }
    };
}

strategy_matrix!(close_wakes_writer_busy_spin, BusySpin, 0);
strategy_matrix!(close_wakes_writer_backoff, Backoff, 1);
strategy_matrix!(close_wakes_writer_yield_wait, YieldWait, 2);
strategy_matrix!(close_wakes_writer_sleep_wait, SleepWait, 3);
strategy_matrix!(close_wakes_writer_blocking_wait, BlockingWait, 4);
strategy_matrix!(close_wakes_writer_futex_wait, FutexWait, 5);
strategy_matrix!(close_wakes_writer_condvar_wait, CondvarWait, 6);
strategy_matrix!(close_wakes_writer_hybrid_wait, HybridWait, 7);

/// Owned buffers (every memory kind and producer kind, the default `HybridWait`): a writer
/// blocked behind an owned reader that never reads returns `Closed` at `ring().close()`.
macro_rules! owned_case {
    ($test:ident, $buffer:expr, $id:literal) => {
        #[test]
        fn $test() {
            for form in FORMS {
                let name = format!("owned {} / {form:?}", stringify!($test));
                let (mut w, idle) = $buffer
                    .wait::<Counted<BlockingWait, $id>>()
                    .build()
                    .unwrap();
                let cap = w.ring().capacity();
                w.try_reserve(cap).unwrap().fill(1);
                // Relaxed: see `Counted`.
                let before = CHECKS[$id].load(Ordering::Relaxed);
                let (tx, rx) = mpsc::channel();
                thread::spawn(move || {
                    let outcome = run_form!(w, form);
                    let _ = tx.send(outcome);
                });
                until_checked($id, before, &name);
                idle.ring().close();
                match rx.recv_timeout(BOUND) {
                    Ok(o) => assert_eq!(o, "Closed", "{name}: the writer returned {o}"),
                    Err(_) => panic!("{name}: the writer was not woken by close within {BOUND:?}"),
                }
                drop(idle);
            }
        }
    };
}

owned_case!(owned_portable_single, owned::portable::<u64>(SLOTS), 10);
owned_case!(
    owned_portable_multi,
    owned::portable::<u64>(SLOTS).multi_producer(),
    11
);
#[cfg(unix)]
owned_case!(owned_mapped_single, owned::mapped::<u64>(SLOTS), 12);
#[cfg(unix)]
owned_case!(
    owned_mapped_multi,
    owned::mapped::<u64>(SLOTS).multi_producer(),
    13
);

/// A waker that records that it was woken.
struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        // Relaxed: read on this thread after the close returned.
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The async forms, polled by hand: blocked first, woken by the close, then `Closed`.
macro_rules! async_case {
    ($ring:expr, $name:expr, $fut:expr, $closed:pat) => {{
        let name: String = $name;
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let waker = Arc::clone(&flag).into();
        let mut cx = Context::from_waker(&waker);
        let mut fut = pin!($fut);
        assert!(
            fut.as_mut().poll(&mut cx).is_pending(),
            "{name}: did not wait on a full ring"
        );
        $ring.close();
        // Relaxed: set by `wake` on this thread, inside `close`.
        assert!(
            flag.0.load(Ordering::Relaxed),
            "{name}: close did not wake the future"
        );
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready($closed) => {}
            Poll::Ready(other) => panic!("{name}: resolved to {other:?}"),
            Poll::Pending => panic!("{name}: still pending after the close"),
        }
    }};
}

macro_rules! async_matrix {
    ($ring:expr, $kind:literal) => {{
        for form in ["reserve_async", "push_async", "reserve_with_async"] {
            let ring = $ring;
            let _idle = ring.reader().unwrap();
            let mut w = ring.writer().unwrap();
            w.try_reserve(SLOTS).unwrap().fill(1);
            let name = format!("AsyncWait / {} / {form}", $kind);
            match form {
                "reserve_async" => async_case!(
                    ring,
                    name,
                    async { w.reserve_async(1).await.map(|s| s.len()) },
                    Err(ReserveError::Closed)
                ),
                "push_async" => async_case!(ring, name, w.push_async(7), Err(PushError::Closed(7))),
                _ => async_case!(
                    ring,
                    name,
                    w.reserve_with_async(1, |s| {
                        s[0] = 7;
                        Ok::<_, ()>(1)
                    }),
                    Err(FillError::Reserve(ReserveError::Closed))
                ),
            }
        }
    }};
}

#[test]
fn close_wakes_writer_async_wait() {
    async_matrix!(
        Ring::builder(HeapStorage::new(vec![0u64; SLOTS]).unwrap())
            .wait::<AsyncWait>()
            .build()
            .unwrap(),
        "single producer"
    );
    async_matrix!(
        Ring::builder(HeapStorage::new(vec![0u64; SLOTS]).unwrap())
            .wait::<AsyncWait>()
            .multi_producer(<[spanring::sync::AtomicUsize; 4]>::default())
            .build()
            .unwrap(),
        "multi producer"
    );
}

/// The dispatcher: a poster blocked on a full event ring, while the worker (the ring's only
/// reader) is stuck in a callback, returns `PostError` once another thread shuts the dispatcher
/// down; the callbacks posted before all run.
macro_rules! dispatcher_case {
    ($test:ident, $spawn:expr) => {
        #[test]
        fn $test() {
            let gate = Arc::new(Barrier::new(2));
            let release = Arc::new(AtomicBool::new(false));
            let (dispatcher, mut poster) = $spawn;
            let (g, rel) = (Arc::clone(&gate), Arc::clone(&release));
            // The worker takes this one and stays in it: the ring's reader stops reading.
            poster
                .post(move |n: &mut u32| {
                    *n += 1;
                    g.wait();
                    // Acquire: pairs with the Release below; the flag ends the stall.
                    while !rel.load(Ordering::Acquire) {
                        thread::yield_now();
                    }
                })
                .unwrap();
            gate.wait(); // the worker is inside the stalling callback
            let mut posted = 1;
            while poster.try_post(|n: &mut u32| *n += 1).is_ok() {
                posted += 1;
            }
            let (tx, rx) = mpsc::channel();
            let blocked = thread::spawn(move || {
                let outcome = poster.post(|n: &mut u32| *n += 1).is_err();
                let _ = tx.send(outcome);
            });
            // The poster may not have started waiting yet: the shutdown must end it either
            // way (a post racing the shutdown fails or runs; here the ring stays full, so it
            // can only fail).
            let stopper = thread::spawn(move || dispatcher.shutdown());
            match rx.recv_timeout(BOUND) {
                Ok(failed) => assert!(failed, "{}: the post succeeded", stringify!($test)),
                Err(_) => panic!(
                    "{}: the blocked poster was not woken by shutdown",
                    stringify!($test)
                ),
            }
            blocked.join().unwrap();
            // Release: pairs with the worker's Acquire load.
            release.store(true, Ordering::Release);
            let ran = stopper.join().unwrap().unwrap();
            assert_eq!(ran, posted, "{}: callbacks lost", stringify!($test));
        }
    };
}

dispatcher_case!(
    close_wakes_poster_dispatcher_multi,
    Dispatcher::spawn(4, 0u32).unwrap()
);
dispatcher_case!(
    close_wakes_poster_dispatcher_single,
    Dispatcher::spawn_single(4, 0u32).unwrap()
);

/// Readers: a reader blocked on an empty ring returns `Closed` at close once drained, in every
/// waiting read form, under every strategy. On a multi-producer ring the close alone ends the
/// stream; on a single-producer ring a writer still attached may be in the middle of a span, so
/// the stream ends when that writer has seen the close (its next call, or its drop): here the
/// writer is dropped right after the close.
macro_rules! reader_matrix {
    ($test:ident, $w:ty, $id:literal) => {
        #[test]
        fn $test() {
            for form in ["read", "pop", "read_exact", "read_timeout", "pop_timeout"] {
                for multi in [false, true] {
                    let name = format!(
                        "{} / {} / {form}",
                        stringify!($w),
                        if multi { "multi" } else { "single" }
                    );
                    let storage = HeapStorage::new(vec![0u64; SLOTS]).unwrap();
                    let builder = Ring::builder(storage).wait::<Counted<$w, $id>>();
                    if multi {
                        let ring: &'static _ = Box::leak(Box::new(
                            builder
                                .multi_producer(<[spanring::sync::AtomicUsize; 4]>::default())
                                .build()
                                .unwrap(),
                        ));
                        reader_case!(ring, $id, name, form);
                    } else {
                        let ring: &'static _ = Box::leak(Box::new(builder.build().unwrap()));
                        reader_case!(ring, $id, name, form);
                    }
                }
            }
        }
    };
}

macro_rules! reader_case {
    ($ring:expr, $id:expr, $name:expr, $form:expr) => {{
        let name: String = $name;
        let ring = $ring;
        let mut r = ring.reader().unwrap();
        let mut w = ring.writer().unwrap();
        w.try_push(5).unwrap();
        // Relaxed: see `Counted`.
        let before = CHECKS[$id].load(Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        let form: &'static str = $form;
        thread::spawn(move || {
            let mut seen = Vec::new();
            let end = loop {
                let step = match form {
                    "read" => r.read(4).map(|s| seen.extend(s.iter().copied())),
                    "pop" => r.pop().map(|x| seen.push(x)),
                    "read_exact" => r.read_exact(1).map(|s| seen.extend(s.iter().copied())),
                    "read_timeout" => r
                        .read_timeout(4, LONG)
                        .map(|s| seen.extend(s.iter().copied())),
                    _ => r.pop_timeout(LONG).map(|x| seen.push(x)),
                };
                if let Err(e) = step {
                    break e;
                }
            };
            let _ = tx.send((seen, end));
        });
        until_checked($id, before, &name);
        ring.close();
        drop(w);
        match rx.recv_timeout(BOUND) {
            Ok((seen, end)) => {
                assert_eq!(seen, [5], "{name}: items lost or duplicated");
                assert_eq!(end, ReadError::Closed, "{name}");
            }
            Err(_) => panic!("{name}: the reader was not woken by close within {BOUND:?}"),
        }
    }};
}

reader_matrix!(close_wakes_reader_busy_spin, BusySpin, 20);
reader_matrix!(close_wakes_reader_backoff, Backoff, 21);
reader_matrix!(close_wakes_reader_yield_wait, YieldWait, 22);
reader_matrix!(close_wakes_reader_sleep_wait, SleepWait, 23);
reader_matrix!(close_wakes_reader_blocking_wait, BlockingWait, 24);
reader_matrix!(close_wakes_reader_futex_wait, FutexWait, 25);
reader_matrix!(close_wakes_reader_condvar_wait, CondvarWait, 26);
reader_matrix!(close_wakes_reader_hybrid_wait, HybridWait, 27);
