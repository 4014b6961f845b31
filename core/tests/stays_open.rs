//! A ring that stays open when its last writer leaves (`Ring::stays_open`): writers come and
//! go (an interrupt handler that attaches one each run), readers see one stream, and
//! `close` still ends it. The races are model-checked in `loom_stays_open.rs`.

use std::thread;

use spanring_core::sync::AtomicUsize;
use spanring_core::{
    AttachError, InlineStorage, MultiProducer, ReadError, Ring, SingleProducer, SliceStorage,
};

#[test]
fn writers_come_and_go_single_producer() {
    static RING: Ring<InlineStorage<u32, 8>> = Ring::new_inline([0; 8]).stays_open();
    let mut r = RING.reader().unwrap();
    for i in 0..100 {
        let mut w = RING.writer().unwrap();
        w.try_push(i).unwrap();
        drop(w);
        assert_eq!(r.try_pop(), Ok(i));
        assert!(!RING.is_closed());
    }
    assert_eq!(r.try_pop(), Err(ReadError::Empty));
    RING.close();
    assert_eq!(r.try_pop(), Err(ReadError::Closed));
    assert_eq!(RING.writer().unwrap_err(), AttachError::Closed);
}

#[test]
fn writers_come_and_go_multi_producer() {
    let mut memory = [0u64; 8];
    let words: [AtomicUsize; 8] = Default::default();
    let ring: Ring<_, MultiProducer<_>> = Ring::builder(SliceStorage::new(&mut memory))
        .multi_producer(words)
        .stays_open()
        .build()
        .unwrap();
    let mut r = ring.reader().unwrap();
    for i in 0..100u64 {
        let a = ring.writer().unwrap();
        let mut b = a.clone();
        b.try_push(i).unwrap();
        drop((a, b));
        assert_eq!(r.try_pop(), Ok(i));
    }
    ring.close();
    assert_eq!(r.try_pop(), Err(ReadError::Closed));
}

/// Writers on other threads, one after another, each pushing a run: one stream, in order.
#[test]
fn a_writer_per_thread_in_turn() {
    let mut memory = [0u64; 16];
    let ring: Ring<_, SingleProducer> = Ring::builder(SliceStorage::new(&mut memory))
        .stays_open()
        .build()
        .unwrap();
    let runs = if cfg!(miri) { 3 } else { 50 };
    let mut r = ring.reader().unwrap();
    thread::scope(|s| {
        s.spawn(|| {
            for run in 0..runs {
                // The previous thread's writer may still be alive: wait for it to go.
                let mut w = loop {
                    match ring.writer() {
                        Ok(w) => break w,
                        Err(AttachError::WriterTaken) => thread::yield_now(),
                        Err(e) => panic!("{e}"),
                    }
                };
                for k in 0..4u64 {
                    w.push(run * 4 + k).unwrap();
                }
            }
            ring.close();
        });
        let got: Vec<u64> = (&mut r).into_iter().collect();
        assert_eq!(got, (0..runs * 4).collect::<Vec<_>>());
    });
}

/// By default the last writer's drop closes (owned buffers rely on it).
#[test]
fn by_default_the_last_writer_closes() {
    let mut memory = [0u8; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    assert!(ring.closes_when_writers_leave());
    let mut r = ring.reader().unwrap();
    drop(ring.writer().unwrap());
    assert_eq!(r.try_pop(), Err(ReadError::Closed));
}

/// A writer refused while another is attached gets it once that one is gone.
#[test]
fn a_refused_writer_attaches_once_the_first_is_gone() {
    let mut memory = [0u64; 4];
    let ring: Ring<_, SingleProducer> = Ring::builder(SliceStorage::new(&mut memory))
        .stays_open()
        .build()
        .unwrap();
    let first = ring.writer().unwrap();
    assert_eq!(ring.writer().unwrap_err(), AttachError::WriterTaken);
    drop(first);
    let mut second = ring.writer().unwrap();
    second.try_push(1).unwrap();
}

/// A closed ring opens again once no handle is attached, single and multi producer; the new
/// stream continues at the published cursor.
#[test]
fn reopen_after_the_producer_stopped() {
    let mut memory = [0u64; 4];
    let ring: Ring<_, SingleProducer> = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    assert_eq!(ring.reopen(), Err(spanring_core::ReopenError::NotClosed));
    for run in 0..10u64 {
        let mut r = ring.reader().unwrap();
        let mut w = ring.writer().unwrap();
        w.try_push(run).unwrap();
        drop(w); // closes
        assert_eq!(r.try_pop(), Ok(run));
        assert_eq!(r.try_pop(), Err(ReadError::Closed));
        assert_eq!(
            ring.reopen(),
            Err(spanring_core::ReopenError::HandlesAttached)
        );
        drop(r);
        ring.reopen().unwrap();
        assert!(!ring.is_closed());
    }

    let mut memory = [0u64; 4];
    let words: [AtomicUsize; 4] = Default::default();
    let ring: Ring<_, MultiProducer<_>> =
        Ring::new_multi(SliceStorage::new(&mut memory), words).unwrap();
    for run in 0..10u64 {
        let mut r = ring.reader().unwrap();
        let a = ring.writer().unwrap();
        let mut b = a.clone();
        b.try_push(run).unwrap();
        ring.close();
        assert_eq!(
            ring.reopen(),
            Err(spanring_core::ReopenError::HandlesAttached)
        );
        drop((a, b));
        assert_eq!(r.try_pop(), Ok(run));
        assert_eq!(r.try_pop(), Err(ReadError::Closed));
        drop(r);
        ring.reopen().unwrap();
    }
}
