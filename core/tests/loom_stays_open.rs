//! Loom models of a ring across the life of its writers: one that stays open when its last
//! writer leaves (`Ring::stays_open`), and one reopened after a close (`Ring::reopen`):
//! the last writer's drop racing a close (the stream still ends, exactly once sealed, nothing
//! lost), and a writer attaching again after the previous one left (it continues the stream).
//!
//! Run: `RUSTFLAGS="--cfg spanring_loom" cargo test -p spanring-core --features __loom --release --test loom_stays_open`
#![cfg(spanring_loom)]

use loom::sync::Arc;
use loom::thread;
use spanring_core::sync::AtomicUsize;
use spanring_core::{
    BusySpin, InlineStorage, MultiProducer, ReadError, Reader, Ring, SingleProducer, Writer,
};

type Sp = Ring<InlineStorage<usize, 2>, SingleProducer, BusySpin, 1>;
type Mp = Ring<InlineStorage<usize, 2>, MultiProducer<[AtomicUsize; 2]>, BusySpin, 1>;

fn sp() -> Arc<Sp> {
    Arc::new(
        Ring::builder(InlineStorage::new([0; 2]))
            .readers::<1>()
            .stays_open()
            .build()
            .unwrap(),
    )
}

fn mp() -> Arc<Mp> {
    let words: [AtomicUsize; 2] = core::array::from_fn(|_| AtomicUsize::new(0));
    Arc::new(
        Ring::builder(InlineStorage::new([0; 2]))
            .readers::<1>()
            .multi_producer(words)
            .stays_open()
            .build()
            .unwrap(),
    )
}

/// Reads until `Closed`, yielding while empty.
macro_rules! drain {
    ($reader:expr) => {{
        let mut got = Vec::new();
        loop {
            match $reader.try_pop() {
                Ok(x) => got.push(x),
                Err(ReadError::Empty) => thread::yield_now(),
                Err(ReadError::Closed) => break got,
                Err(e) => panic!("{e}"),
            }
        }
    }};
}

/// The last writer leaves while another thread closes: the reader still gets `Closed` (a
/// reader that waited for ever would be a livelock here), after exactly what was pushed.
macro_rules! last_writer_leaves_racing_close {
    ($name:ident, $ring:expr) => {
        #[test]
        fn $name() {
            loom::model(|| {
                let ring = $ring;
                let mut reader = Reader::attach(ring.clone()).unwrap();
                let r2 = ring.clone();
                let w = thread::spawn(move || match Writer::attach(r2) {
                    Ok(mut w) => w.try_push(1).is_ok(),
                    Err(_) => false, // the close came first
                });
                ring.close();
                let pushed = w.join().unwrap();
                let got = drain!(reader);
                assert_eq!(got, if pushed { vec![1] } else { vec![] });
            });
        }
    };
}

last_writer_leaves_racing_close!(sp_last_writer_leaves_racing_close, sp());
last_writer_leaves_racing_close!(mp_last_writer_leaves_racing_close, mp());

/// A writer pushes and leaves; a second writer, on another thread, tries to attach while the
/// first may still be there (refused, `WriterTaken`, or handed out if the first is gone), and
/// otherwise attaches once told the first is gone: either way it goes on from where the first
/// stopped, so the reader sees both items in order, and the ring is still open.
macro_rules! writer_attaches_again {
    ($name:ident, $ring:expr) => {
        #[test]
        fn $name() {
            loom::model(|| {
                let ring = $ring;
                let mut reader = Reader::attach(ring.clone()).unwrap();
                let mut first = Writer::attach(ring.clone()).unwrap();
                let (gone, gone_rx) = loom::sync::mpsc::channel::<()>();
                let r2 = ring.clone();
                let second = thread::spawn(move || {
                    match Writer::attach(r2.clone()) {
                        Ok(mut w) => {
                            let pushed = w.try_push(2).is_ok();
                            gone_rx.recv().unwrap(); // (loom wants every message received)
                            pushed
                        }
                        Err(_) => {
                            gone_rx.recv().unwrap();
                            Writer::attach(r2).unwrap().try_push(2).is_ok()
                        }
                    }
                });
                first.try_push(1).unwrap();
                drop(first);
                gone.send(()).unwrap();
                assert!(second.join().unwrap());
                assert!(!ring.is_closed());
                ring.close();
                assert_eq!(drain!(reader), [1, 2]);
            });
        }
    };
}

writer_attaches_again!(sp_writer_attaches_again, sp());
writer_attaches_again!(mp_writer_attaches_again, mp());

/// `reopen` racing a writer that attaches: the writer gets the ring only once it is open
/// again (never a half-reset one), and afterwards the ring works: closed again by that
/// writer's drop, reopened, a new stream flows.
macro_rules! reopen_races_attach {
    ($name:ident, $ring:expr) => {
        #[test]
        fn $name() {
            loom::model(|| {
                let ring = $ring;
                drop(Writer::attach(ring.clone()).unwrap()); // ...and the ring closes
                let (r1, r2) = (ring.clone(), ring.clone());
                let opener = thread::spawn(move || r1.reopen().is_ok());
                let writer = thread::spawn(move || match Writer::attach(r2) {
                    Ok(mut w) => {
                        w.try_push(1).unwrap();
                        true
                    }
                    Err(_) => false,
                });
                let reopened = opener.join().unwrap();
                let wrote = writer.join().unwrap();
                assert!(reopened || !wrote, "a writer attached to a closed ring");
                // Whatever happened, the ring ends up usable once reopened.
                if ring.is_closed() {
                    ring.reopen().unwrap();
                }
                let mut r = Reader::attach(ring.clone()).unwrap();
                let mut w = Writer::attach(ring.clone()).unwrap();
                w.try_push(2).unwrap();
                assert_eq!(r.try_pop(), Ok(2));
            });
        }
    };
}

fn sp_closing() -> Arc<Sp> {
    Arc::new(
        Ring::builder(InlineStorage::new([0; 2]))
            .readers::<1>()
            .build()
            .unwrap(),
    )
}

fn mp_closing() -> Arc<Mp> {
    let words: [AtomicUsize; 2] = core::array::from_fn(|_| AtomicUsize::new(0));
    Arc::new(
        Ring::builder(InlineStorage::new([0; 2]))
            .readers::<1>()
            .multi_producer(words)
            .build()
            .unwrap(),
    )
}

reopen_races_attach!(sp_reopen_races_attach, sp_closing());
reopen_races_attach!(mp_reopen_races_attach, mp_closing());
