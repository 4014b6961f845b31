//! What several of core's threaded tests share.

use spanring_core::WaitStrategy;

/// Items per writer thread: small enough that Miri (which checks every access for data races
/// and undefined behaviour) finishes in seconds.
pub const ITEMS: u32 = if cfg!(miri) { 60 } else { 20_000 };

/// Yields between checks (core has no thread to yield to; std-ext has `YieldWait`): the
/// machines running these tests have few cores, and the tests have more threads.
#[derive(Default)]
pub struct Yield;

impl WaitStrategy for Yield {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        while !ready() {
            std::thread::yield_now();
        }
    }
    fn notify_all(&self) {}
}
