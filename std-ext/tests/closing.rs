//! Closing an owned buffer wakes whoever is blocked on the other side, in every variant
//! ({single, multi} producer × {portable, double-mapped}):
//! - a writer blocked in `reserve` on a full ring returns `ReserveError::Closed` when the last
//!   reader handle is dropped (from another thread);
//! - a reader blocked in `read` on an empty ring returns `ReadError::Closed` when the last
//!   writer is dropped.
//!
//! No sleeps: the test waits until the blocked thread is inside the wait strategy (a wrapper
//! counts threads in `wait_until`), and a watchdog fails the test after 20 s instead of hanging.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use spanring_core::sync::{AtomicUsize, Ordering};
use spanring_core::{ReadError, ReserveError, WaitStrategy, WaitTimeout};
use spanring_std::owned::{self, Buffer};
use spanring_std::BlockingWait;

const LIMIT: Duration = Duration::from_secs(20);

/// Threads inside `wait_until` of a [`Watched`] strategy, per test id.
static WAITING: [AtomicUsize; 16] = [const { AtomicUsize::new(0) }; 16];

/// [`BlockingWait`] that counts the threads waiting in it, in `WAITING[ID]`.
#[derive(Default)]
struct Watched<const ID: usize>(BlockingWait);

impl<const ID: usize> WaitStrategy for Watched<ID> {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        // Relaxed: only a progress signal for the test driver; the wake-up itself is ordered by
        // the ring's own atomics inside `ready`.
        WAITING[ID].fetch_add(1, Ordering::Relaxed);
        self.0.wait_until(ready);
        // Relaxed: as above.
        WAITING[ID].fetch_sub(1, Ordering::Relaxed);
    }
    fn notify_all(&self) {
        self.0.notify_all();
    }
}

impl<const ID: usize> WaitTimeout for Watched<ID> {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        // Relaxed: see `wait_until`.
        WAITING[ID].fetch_add(1, Ordering::Relaxed);
        let ready = self.0.wait_until_timeout(ready, timeout);
        // Relaxed: see `wait_until`.
        WAITING[ID].fetch_sub(1, Ordering::Relaxed);
        ready
    }
}

/// Returns once a thread is waiting in `Watched<ID>`; panics after [`LIMIT`].
fn until_someone_waits<const ID: usize>() {
    let deadline = Instant::now() + LIMIT;
    // Relaxed: see `Watched`.
    while WAITING[ID].load(Ordering::Relaxed) == 0 {
        assert!(
            Instant::now() < deadline,
            "the thread never started waiting"
        );
        thread::yield_now();
    }
}

/// Writer blocked on a full ring; every reader handle dropped from another thread.
macro_rules! blocked_writer_sees_closed {
    ($name:ident, $id:literal, $buffer:expr) => {
        #[test]
        fn $name() {
            let buffer: Buffer<_, _, Watched<$id>> = $buffer.wait();
            let (mut w, r) = buffer.build().unwrap();
            let other = r.subscribe().unwrap();
            let cap = w.ring().capacity();
            w.try_reserve(cap).unwrap().fill(1); // full: nobody has read
            let (tx, rx) = mpsc::channel();
            let writer = thread::spawn(move || {
                let outcome = w.reserve(1).map(|span| span.len());
                tx.send(outcome).unwrap();
            });
            until_someone_waits::<$id>();
            drop(other); // not the last handle: the ring stays open
            thread::spawn(move || drop(r)).join().unwrap(); // the last one, elsewhere
            let outcome = rx
                .recv_timeout(LIMIT)
                .expect("watchdog: the blocked writer was not woken by the close");
            assert_eq!(outcome, Err(ReserveError::Closed));
            writer.join().unwrap();
        }
    };
}

/// Reader blocked on an empty ring; every writer dropped from another thread.
macro_rules! blocked_reader_sees_closed {
    ($name:ident, $id:literal, $buffer:expr) => {
        #[test]
        fn $name() {
            let buffer: Buffer<_, _, Watched<$id>> = $buffer.wait();
            let (mut w, mut r) = buffer.build().unwrap();
            w.try_reserve(2).unwrap().fill(5);
            let (tx, rx) = mpsc::channel();
            let reader = thread::spawn(move || {
                let first = r.read(8).map(|s| s.len());
                let second = r.read(8).map(|s| s.len()); // blocks: nothing more yet
                tx.send((first, second)).unwrap();
            });
            until_someone_waits::<$id>();
            thread::spawn(move || drop(w)).join().unwrap();
            let outcome = rx
                .recv_timeout(LIMIT)
                .expect("watchdog: the blocked reader was not woken by the close");
            assert_eq!(outcome, (Ok(2), Err(ReadError::Closed)));
            reader.join().unwrap();
        }
    };
}

blocked_writer_sees_closed!(writer_single_portable, 0, owned::portable::<u64>(8));
blocked_writer_sees_closed!(
    writer_multi_portable,
    1,
    owned::portable::<u64>(8).multi_producer()
);
blocked_writer_sees_closed!(writer_single_mapped, 2, owned::mapped::<u64>(8));
blocked_writer_sees_closed!(
    writer_multi_mapped,
    3,
    owned::mapped::<u64>(8).multi_producer()
);
blocked_reader_sees_closed!(reader_single_portable, 4, owned::portable::<u64>(8));
blocked_reader_sees_closed!(
    reader_multi_portable,
    5,
    owned::portable::<u64>(8).multi_producer()
);
blocked_reader_sees_closed!(reader_single_mapped, 6, owned::mapped::<u64>(8));
blocked_reader_sees_closed!(
    reader_multi_mapped,
    7,
    owned::mapped::<u64>(8).multi_producer()
);

/// A span reserved before the last reader goes stays usable (thingbuf#100); only new
/// reservations fail.
#[test]
fn span_alive_across_close() {
    let (mut w, r) = owned::portable::<u64>(8).multi_producer().build().unwrap();
    let mut other = w.clone();
    let mut span = w.try_reserve(3).unwrap();
    drop(r);
    span.fill(7);
    assert_eq!(span.len(), 3);
    drop(span);
    assert_eq!(other.try_reserve(1).unwrap_err(), ReserveError::Closed);
    assert_eq!(w.try_reserve(1).unwrap_err(), ReserveError::Closed);
}

/// `reserve_timeout` is woken by the close too: `Closed`, not `TimedOut` after the timeout.
#[test]
fn blocked_writer_with_timeout_sees_closed() {
    let buffer: Buffer<_, _, Watched<8>> = owned::portable::<u64>(4).wait();
    let (mut w, r) = buffer.build().unwrap();
    w.try_reserve(4).unwrap().fill(0);
    let (tx, rx) = mpsc::channel();
    let writer = thread::spawn(move || {
        tx.send(w.reserve_timeout(1, LIMIT * 2).map(|s| s.len()))
            .unwrap();
    });
    until_someone_waits::<8>();
    drop(r);
    let outcome = rx.recv_timeout(LIMIT).expect("watchdog: not woken");
    assert_eq!(outcome, Err(ReserveError::Closed));
    writer.join().unwrap();
}

/// Zero-length reads on a parking ring: `read_timeout(0, _)`, `read(0)`, `read_exact(0)` and
/// `try_read(0)` return an empty span at once, whether or not items are published, and
/// `Closed` once the ring is closed and drained. (If one waited, the hour-long timeout would
/// trip the test binary's time limit in CI, naming this file.)
#[test]
fn zero_length_reads_return_at_once() {
    let (mut w, mut r) = owned::portable::<u64>(4)
        .wait::<BlockingWait>()
        .build()
        .unwrap();
    let hour = Duration::from_secs(3600);
    assert_eq!(r.read_timeout(0, hour).map(|s| s.len()), Ok(0));
    assert_eq!(r.read(0).map(|s| s.len()), Ok(0));
    assert_eq!(r.read_exact(0).map(|s| s.len()), Ok(0));
    assert_eq!(r.try_read(0).map(|s| s.len()), Ok(0));
    w.try_reserve(1).unwrap()[0] = 3;
    assert_eq!(r.read_timeout(0, hour).map(|s| s.len()), Ok(0));
    assert_eq!(w.reserve_timeout(0, hour).map(|s| s.len()), Ok(0));
    drop(w);
    assert_eq!(r.read_timeout(0, hour).map(|s| s.len()), Ok(0)); // one item left
    assert_eq!(r.read(4).map(|s| s.len()), Ok(1));
    assert_eq!(
        r.read_timeout(0, hour).map(|s| s.len()),
        Err(ReadError::Closed)
    );
    assert_eq!(r.read_exact(0).map(|s| s.len()), Err(ReadError::Closed));
}
