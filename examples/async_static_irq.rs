//! A `static` ring fed from an "interrupt" and drained by an async task.
//!
//! The interrupt side is a plain thread standing in for an interrupt handler: it only ever
//! calls `try_reserve`, which never waits (when the ring is full the sample is dropped and
//! counted, as an ISR would do), and publishing wakes the async task through the ring's
//! [`AsyncWait`]. The task runs on a ten-line `block_on` (a thread-parking waker); on an
//! embedded target it would be an embassy task and the ring would be fed from a real ISR.
//!
//! Why a `OnceLock`: the run-time builder (`Ring::builder(..).build()`) validates the storage
//! and returns a `Result`, so it is not a `const fn` and cannot initialise a `static` directly
//! ([`AsyncWait::new`] and [`InlineStorage::new`] are `const`; so is [`Ring::new_inline_with`],
//! which would make a plain `static` without the once-cell). The ring is built once at
//! start-up and every user gets a `&'static Ring`; no allocation is involved (the
//! `InlineStorage` array lives inside the static). On no_std, a `static_cell`/`critical-section`
//! once-cell plays the same role.
//!
//! `cargo run --example async_static_irq`

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::Duration;

use spanring::{AsyncWait, InlineStorage, ReadError, Ring, SingleProducer};

/// 64 samples, one writer, one reader, two waker cells per side.
type SampleRing = Ring<InlineStorage<u32, 64>, SingleProducer, AsyncWait<2>, 1>;

static RING: OnceLock<SampleRing> = OnceLock::new();

fn ring() -> &'static SampleRing {
    RING.get_or_init(|| {
        Ring::builder(InlineStorage::new([0; 64]))
            .wait::<AsyncWait<2>>()
            .readers::<1>()
            .build()
            .expect("64 slots")
    })
}

/// The "interrupt handler": one sample per tick, never waits.
fn interrupt_source(samples: u32) -> u32 {
    let mut writer = ring().writer().expect("the only writer");
    let mut dropped = 0;
    for sample in 0..samples {
        match writer.try_reserve(1) {
            Ok(mut span) => span[0] = sample, // published when `span` drops
            Err(_) => dropped += 1,           // full: an ISR drops, it never blocks
        }
        if sample % 32 == 31 {
            thread::sleep(Duration::from_micros(200)); // until the next burst of "interrupts"
        }
    }
    dropped
    // `writer` drops here: the ring closes and the task finishes after draining.
}

/// The async side: drains whatever is published, in spans of up to 16.
async fn drain() -> (u64, u64) {
    let mut reader = ring().reader().expect("a reader slot");
    let (mut count, mut last_plus_one) = (0u64, 0u64);
    loop {
        match reader.read_async(16).await {
            Ok(samples) => {
                for &s in samples.iter() {
                    assert!(u64::from(s) >= last_plus_one, "samples arrive in order");
                    last_plus_one = u64::from(s) + 1;
                    count += 1;
                }
            }
            Err(ReadError::Closed) => return (count, last_plus_one),
            Err(e) => panic!("{e}"),
        }
    }
}

/// Wakes the thread that runs `block_on`.
struct Unpark {
    thread: Thread,
    woken: AtomicBool,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.woken.store(true, Ordering::Release); // Release: pairs with the swap below
        self.thread.unpark();
    }
}

/// Runs a future to completion on this thread, parking while it is pending.
fn block_on<F: Future>(fut: F) -> F::Output {
    let unpark = Arc::new(Unpark {
        thread: thread::current(),
        woken: AtomicBool::new(false),
    });
    let waker = Waker::from(unpark.clone());
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        // Acquire: pairs with the Release store in `wake`.
        while !unpark.woken.swap(false, Ordering::Acquire) {
            thread::park();
        }
    }
}

fn main() {
    const SAMPLES: u32 = 10_000;
    // The reader attaches first (inside `drain`, before the first await), so start the task's
    // thread first and the "interrupts" once it has attached.
    let task = thread::spawn(|| block_on(drain()));
    while ring().reader_count() == 0 {
        thread::yield_now();
    }
    let dropped = thread::spawn(|| interrupt_source(SAMPLES)).join().unwrap();
    let (received, _) = task.join().unwrap();
    println!("interrupt produced {SAMPLES} samples, dropped {dropped} (ring full), task received {received}");
    assert_eq!(received + u64::from(dropped), u64::from(SAMPLES));
    assert_eq!(ring().data_wait().registered(), 0);
}
