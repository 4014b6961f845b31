//! Dispatcher callbacks are `FnOnce + Send` (no `Sync`), run once, and their captures are
//! dropped right after they run; `Dispatcher::fits` agrees with what `post` accepts.

use std::cell::Cell;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use spanring_std::Dispatcher;

/// Bound on a `recv_timeout` that should return at once: fails a regression instead of
/// hanging the test. Never reached when the code is right; not a synchronisation delay.
const HANG_GUARD: Duration = Duration::from_secs(60);

#[test]
fn a_captured_sender_disconnects_as_soon_as_the_last_callback_ran() {
    // Capacity above the number of posts: no later post reuses (and so drops) their slots.
    let (dispatcher, mut poster) = Dispatcher::spawn(16, ()).unwrap();
    let (tx, rx) = mpsc::channel();
    for i in 0..3u32 {
        let tx = tx.clone();
        poster.post(move |_| tx.send(i).unwrap()).unwrap();
    }
    drop(tx); // now only the callbacks hold senders
    for i in 0..3u32 {
        assert_eq!(rx.recv_timeout(HANG_GUARD), Ok(i));
    }
    // No further post, the dispatcher and the poster alive: the channel disconnects only if
    // the worker dropped each closure right after running it.
    assert_eq!(
        rx.recv_timeout(HANG_GUARD),
        Err(RecvTimeoutError::Disconnected)
    );
    assert!(!poster.is_closed());
    drop(poster);
    dispatcher.join().unwrap();
}

/// Worker context: a probe `Arc` (one reference of its own) and the probe's strong count as
/// each callback saw it when it started.
struct Probe {
    probe: Arc<()>,
    seen: Vec<usize>,
}

#[test]
fn each_callback_is_dropped_before_the_next_one_runs() {
    const EVENTS: usize = 6;
    let probe = Arc::new(());
    let ctx = Probe {
        probe: Arc::clone(&probe),
        seen: Vec::new(),
    };
    // Every clone exists before the first post, so the count only falls as closures drop.
    let clones: Vec<Arc<()>> = (0..EVENTS).map(|_| Arc::clone(&probe)).collect();
    drop(probe);
    let (dispatcher, mut poster) = Dispatcher::spawn(16, ctx).unwrap();
    for clone in clones {
        poster
            .post(move |p: &mut Probe| {
                let _keep = &clone;
                let count = Arc::strong_count(&p.probe);
                p.seen.push(count);
            })
            .unwrap();
    }
    drop(poster);
    let ctx = dispatcher.join().unwrap();
    // Callback i starts with the context's reference and the clones of callbacks i.. alive
    // (those before it were dropped right after they ran, on this same worker thread).
    let expected: Vec<usize> = (0..EVENTS).map(|i| 1 + (EVENTS - i)).collect();
    assert_eq!(ctx.seen, expected);
    assert_eq!(Arc::strong_count(&ctx.probe), 1);
}

#[test]
fn a_panicking_callback_drops_its_captures_during_the_unwind() {
    let probe = Arc::new(());
    let (dispatcher, mut poster) = Dispatcher::spawn(8, ()).unwrap();
    let held = Arc::clone(&probe);
    poster
        .post(move |_| {
            let _keep = &held;
            panic!("callback failure");
        })
        .unwrap();
    let payload = dispatcher.join().unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"callback failure"));
    // `poster` still keeps the ring (and its slots) alive: the capture was dropped by the
    // unwind out of the callback, not by freeing the ring.
    assert_eq!(Arc::strong_count(&probe), 1);
    assert!(poster.is_closed());
}

#[test]
fn closures_that_are_not_sync_or_consume_their_captures_are_accepted() {
    let (dispatcher, mut poster) = Dispatcher::spawn(4, Vec::<String>::new()).unwrap();
    for i in 0..10u32 {
        // `Cell` is `Send` but not `Sync`; `word` is moved out of the closure when it runs.
        let bump = Cell::new(i);
        let word = format!("w{i}");
        poster
            .post(move |log: &mut Vec<String>| {
                bump.set(bump.get() * 2);
                log.push(format!("{word}={}", bump.get()));
            })
            .unwrap();
        let word = format!("v{i}");
        poster
            .post(move |log: &mut Vec<String>| log.push(word))
            .unwrap();
    }
    drop(poster);
    let log = dispatcher.join().unwrap();
    let expected: Vec<String> = (0..10u32)
        .flat_map(|i| [format!("w{i}={}", i * 2), format!("v{i}")])
        .collect();
    assert_eq!(log, expected);
}

#[test]
fn single_producer_dispatcher_takes_fn_once_callbacks_too() {
    let (dispatcher, mut poster) = Dispatcher::spawn_single(2, 0u64).unwrap();
    let (tx, rx) = mpsc::channel();
    for i in 1..=100u64 {
        let tx = tx.clone();
        let owned = Box::new(i); // moved out and freed on the worker
        poster
            .post(move |sum: &mut u64| {
                *sum += *owned;
                tx.send(()).unwrap();
            })
            .unwrap();
    }
    drop(tx);
    for _ in 0..100 {
        rx.recv_timeout(HANG_GUARD).unwrap();
    }
    assert_eq!(
        rx.recv_timeout(HANG_GUARD),
        Err(RecvTimeoutError::Disconnected)
    );
    drop(poster);
    assert_eq!(dispatcher.join().unwrap(), 5050);
}

/// `Dispatcher::<u64, W>::fits` for the type of `_f`.
fn fits<const W: usize, F: FnOnce(&mut u64)>(_f: &F) -> bool {
    Dispatcher::<u64, W>::fits::<F>()
}

#[test]
fn fits_agrees_with_what_post_accepts() {
    let words = std::mem::size_of::<usize>();
    let four = [1usize; 4];
    let five = [1usize; 5];
    let takes_four = move |s: &mut u64| *s += four.iter().sum::<usize>() as u64;
    let takes_five = move |s: &mut u64| *s += five.iter().sum::<usize>() as u64;
    assert_eq!(std::mem::size_of_val(&takes_four), 4 * words);
    assert!(fits::<4, _>(&takes_four));
    assert!(!fits::<4, _>(&takes_five));
    assert!(!fits::<3, _>(&takes_four));
    assert!(fits::<5, _>(&takes_five));
    // Zero-sized closures fit even zero words.
    assert!(fits::<0, _>(&|s: &mut u64| *s += 1));

    // What `fits` accepts, `post` builds and runs.
    let (dispatcher, mut poster) = Dispatcher::<u64, 5>::spawn_sized(2, 0).unwrap();
    poster.post(takes_four).unwrap();
    poster.post(takes_five).unwrap();
    drop(poster);
    assert_eq!(dispatcher.join().unwrap(), 9);
}

// Alignment counts too: a capture aligned more than `usize` never fits, whatever `WORDS`.
#[allow(dead_code)] // only its type is used
#[repr(align(64))]
struct Aligned(u8);
const _: () = assert!(!Dispatcher::<u64, 64>::fits::<Aligned>());
const _: () = assert!(Dispatcher::<u64, 1>::fits::<fn(&mut u64)>());
