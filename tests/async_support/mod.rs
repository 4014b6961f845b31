//! A tiny executor for the async tests (no dependency): `block_on` with a thread-parking
//! waker, and `LocalExecutor`, a single-threaded multi-task executor that fails (instead of
//! hanging) when its tasks stop making progress — which, for tasks that only wait on each
//! other, means a lost wake-up.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// Wakes a parked thread; `notified` keeps a wake that arrives before the park.
struct ThreadWaker {
    thread: Thread,
    notified: AtomicBool,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        // Release: pairs with the Acquire swap in the parking loop.
        self.notified.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// Runs `fut` to completion on this thread, parking while it is pending. Panics if it stays
/// pending without a wake-up for `stall` (a lost wake-up, or a deadlock).
pub fn block_on_within<F: Future>(fut: F, stall: Duration) -> F::Output {
    let state = Arc::new(ThreadWaker {
        thread: thread::current(),
        notified: AtomicBool::new(false),
    });
    let waker = Waker::from(state.clone());
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        let deadline = Instant::now() + stall;
        // Acquire: pairs with the Release store in `wake_by_ref`.
        while !state.notified.swap(false, Ordering::Acquire) {
            let now = Instant::now();
            assert!(now < deadline, "block_on: no wake-up for {stall:?}");
            thread::park_timeout(deadline - now);
        }
    }
}

/// [`block_on_within`] with a 20 s stall limit.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    block_on_within(fut, Duration::from_secs(20))
}

/// One spawned task's wake-up handle: queues the task id once until it is polled.
struct TaskWaker {
    id: usize,
    queued: AtomicBool,
    queue: Arc<Mutex<VecDeque<usize>>>,
    thread: Thread,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        // AcqRel: only the first wake after a poll queues the task.
        if !self.queued.swap(true, Ordering::AcqRel) {
            self.queue.lock().unwrap().push_back(self.id);
            self.thread.unpark();
        }
    }
}

/// A single-threaded executor for tasks that may borrow from the caller's stack.
pub struct LocalExecutor<'a> {
    tasks: Vec<Option<Pin<Box<dyn Future<Output = ()> + 'a>>>>,
}

impl Default for LocalExecutor<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// What a run observed.
#[derive(Debug, Default, Clone, Copy)]
pub struct RunStats {
    /// Polls of all tasks together.
    pub polls: u64,
    /// Polls that returned `Pending`.
    pub pending: u64,
}

impl<'a> LocalExecutor<'a> {
    pub fn new() -> Self {
        Self { tasks: Vec::new() }
    }

    pub fn spawn(&mut self, fut: impl Future<Output = ()> + 'a) {
        self.tasks.push(Some(Box::pin(fut)));
    }

    /// Runs every task to completion. With only local tasks (`stall` = ZERO) it panics as soon
    /// as no task is queued while some are unfinished: nothing else could wake them, so a
    /// wake-up was lost. With other threads involved, it waits up to `stall` for a wake-up.
    pub fn run(mut self, stall: Duration) -> RunStats {
        let queue = Arc::new(Mutex::new((0..self.tasks.len()).collect::<VecDeque<_>>()));
        let wakers: Vec<Arc<TaskWaker>> = (0..self.tasks.len())
            .map(|id| {
                Arc::new(TaskWaker {
                    id,
                    queued: AtomicBool::new(true),
                    queue: queue.clone(),
                    thread: thread::current(),
                })
            })
            .collect();
        let mut left = self.tasks.len();
        let mut stats = RunStats::default();
        while left > 0 {
            let next = queue.lock().unwrap().pop_front();
            let Some(id) = next else {
                assert!(
                    !stall.is_zero(),
                    "{left} task(s) pending with no wake-up queued: a lost wake-up"
                );
                let deadline = Instant::now() + stall;
                while queue.lock().unwrap().is_empty() {
                    let now = Instant::now();
                    assert!(
                        now < deadline,
                        "{left} task(s) got no wake-up for {stall:?}"
                    );
                    thread::park_timeout(deadline - now);
                }
                continue;
            };
            // AcqRel: a wake from now on queues the task again.
            wakers[id].queued.store(false, Ordering::Release);
            let Some(task) = self.tasks[id].as_mut() else {
                continue;
            };
            let waker = Waker::from(wakers[id].clone());
            stats.polls += 1;
            match task.as_mut().poll(&mut Context::from_waker(&waker)) {
                Poll::Ready(()) => {
                    self.tasks[id] = None;
                    left -= 1;
                }
                Poll::Pending => stats.pending += 1,
            }
        }
        stats
    }
}

/// A future that returns `Pending` once (waking itself), to interleave local tasks.
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

use spanring::asynch::WakerRegistry;
use spanring::parts::RingPtr;
use spanring::{ReadError, Reader, Writer};

// The tags and the per-reader check of the threaded harness (tests/common).
#[path = "../support/tagged.rs"]
mod tagged;
pub use tagged::{tag, InOrder};

/// Writes `items` tagged items from producer `id` in spans of `chunk` through `reserve_async`.
pub async fn produce<R>(writer: &mut Writer<R>, id: usize, items: u64, chunk: usize)
where
    R: RingPtr<Item = u64>,
    R::Wait: WakerRegistry,
{
    let mut counter = 0u64;
    while counter < items {
        let n = chunk.min((items - counter) as usize);
        let mut span = writer.reserve_async(n).await.expect("reserve_async");
        for slot in span.iter_mut() {
            *slot = tag(id, counter);
            counter += 1;
        }
    }
}

/// Reads through `read_async` until the ring closes; checks ([`InOrder`]) that every
/// producer's items arrive exactly once and in order. Returns the number of items seen.
pub async fn consume<R>(reader: &mut Reader<R>, producers: usize, items: u64, chunk: usize) -> u64
where
    R: RingPtr<Item = u64>,
    R::Wait: WakerRegistry,
{
    let mut check = InOrder::new(producers);
    loop {
        let span = match reader.read_async(chunk).await {
            Ok(span) => span,
            Err(ReadError::Closed) => break,
            Err(e) => panic!("read_async: {e}"),
        };
        assert!(
            !span.is_empty() && span.len() <= chunk,
            "bad span length {}",
            span.len()
        );
        for &item in span.iter() {
            check.see(item);
        }
    }
    check.finish(items)
}
