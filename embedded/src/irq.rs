//! The timer interrupt's side of the harness: what it runs ([`on_tick`]), how many times it
//! ran ([`ticks`]), and whether it landed inside a section of the main loop ([`READS`],
//! [`WRITES`]).
//!
//! The work is kept in a [`SendCallbackSlot`] from spanring-core, so every case also runs the
//! callback slot from an interrupt handler.
//!
//! Single-core reasoning used throughout: the interrupt handler runs to completion before the
//! main loop continues, and does not preempt itself (one priority). So the main loop never sees
//! a handler half-way, and the handler sees the main loop stopped at some instruction.

use core::cell::UnsafeCell;
use core::sync::atomic::compiler_fence;

use spanring_core::callback::SendCallbackSlot;
use spanring_core::sync::{AtomicBool, AtomicUsize, Ordering};

/// The interrupt's work: any `FnMut() + Send` whose captures fit in 6 words (a `Writer` is 3).
type Work = SendCallbackSlot<(), (), 6>;

struct Handler {
    /// Whether the handler may use `work`; cleared by the main loop before it touches `work`.
    installed: AtomicBool,
    work: UnsafeCell<Work>,
}

// SAFETY: `work` is accessed by the main loop only while `installed` is false (and the handler
// then leaves it alone), and by the handler only while it is true; the handler never preempts
// itself. The closure in it is `Send` (a `SendCallbackSlot` accepts nothing else).
unsafe impl Sync for Handler {}

static HANDLER: Handler = Handler {
    installed: AtomicBool::new(false),
    work: UnsafeCell::new(Work::new()),
};

static TICKS: AtomicUsize = AtomicUsize::new(0);

/// Makes `work` what the timer interrupt runs from now on (replacing and dropping the previous
/// work). Main loop only.
pub fn on_tick<F: FnMut() + Send + 'static>(mut work: F) {
    // Relaxed + compiler fence: a single core, so the handler observes the main loop's
    // accesses in program order; the fence keeps the compiler from moving the slot's
    // accesses above the store.
    HANDLER.installed.store(false, Ordering::Relaxed);
    compiler_fence(Ordering::SeqCst);
    // SAFETY: `installed` is false, so a handler that runs from here on does not touch
    // `work`, and one that read `true` earlier has already completed (single core, runs to
    // completion). We are the only context accessing it.
    unsafe { (*HANDLER.work.get()).set(move |()| work()) };
    compiler_fence(Ordering::SeqCst);
    HANDLER.installed.store(true, Ordering::Relaxed);
}

/// The timer interrupt runs nothing from now on; the work installed is dropped. Main loop only.
pub fn clear_tick() {
    // Relaxed + fence: as in `on_tick`.
    HANDLER.installed.store(false, Ordering::Relaxed);
    compiler_fence(Ordering::SeqCst);
    // SAFETY: as in `on_tick`.
    unsafe { (*HANDLER.work.get()).reset() };
}

/// Timer interrupts so far.
pub fn ticks() -> usize {
    // Relaxed: a statistic; written only by the handler.
    TICKS.load(Ordering::Relaxed)
}

/// The body of the board's timer interrupt handler. Not reentrant: call it only from that
/// handler.
pub fn tick() {
    // Load + store rather than fetch_add: the handler is the only writer, and Armv6-M has no
    // RMW instructions. Relaxed: statistics.
    TICKS.store(
        TICKS.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
    READS.saw();
    WRITES.saw();
    // Relaxed + fence: see `on_tick`.
    if HANDLER.installed.load(Ordering::Relaxed) {
        compiler_fence(Ordering::SeqCst);
        // SAFETY: `installed` was true, so the main loop is not inside `on_tick`/`clear_tick`
        // past their store (it cannot run while we do), and we do not preempt ourselves: this
        // is the only reference to `work` now.
        let work = unsafe { &mut *HANDLER.work.get() };
        // Err only if empty, which `installed` rules out.
        let _ = work.call(());
    }
}

/// A kind of main-loop section (a read, a reservation) the interrupt may land in.
pub struct Watched {
    active: AtomicBool,
    hits: AtomicUsize,
}

/// Main-loop reads: from `try_read` until the span is consumed.
pub static READS: Watched = Watched::new();
/// Main-loop writes: from `try_reserve` until the span is published.
pub static WRITES: Watched = Watched::new();

impl Watched {
    const fn new() -> Self {
        Self {
            active: AtomicBool::new(false),
            hits: AtomicUsize::new(0),
        }
    }

    /// Runs `f` as one section of this kind and tells whether the interrupt ran during it.
    pub fn during<R>(&self, f: impl FnOnce() -> R) -> (R, bool) {
        // Relaxed + compiler fences: single core (see the module docs); the fences keep the
        // section's memory accesses between the two flag stores.
        let before = self.hits.load(Ordering::Relaxed);
        self.active.store(true, Ordering::Relaxed);
        compiler_fence(Ordering::SeqCst);
        let r = f();
        compiler_fence(Ordering::SeqCst);
        self.active.store(false, Ordering::Relaxed);
        (r, self.hits.load(Ordering::Relaxed) != before)
    }

    fn saw(&self) {
        // Relaxed: see `during`; load + store: the handler is the only writer of `hits`.
        if self.active.load(Ordering::Relaxed) {
            let hits = self.hits.load(Ordering::Relaxed);
            self.hits.store(hits.wrapping_add(1), Ordering::Relaxed);
        }
    }
}

/// Main-loop count of sections of one kind, and how many of them the interrupt preempted.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sections {
    /// Sections run.
    pub total: u32,
    /// Of those, sections during which the interrupt ran.
    pub preempted: u32,
}

impl Sections {
    /// Runs `f` as a section of `kind` if it does something: `f` returns whether it did (a
    /// read that found nothing is not counted).
    pub fn run(&mut self, kind: &Watched, f: impl FnOnce() -> bool) {
        let (did, preempted) = kind.during(f);
        if did {
            self.total += 1;
            self.preempted += u32::from(preempted);
        }
    }
}

/// A statistic that only the interrupt handler writes (load + store: Armv6-M and RV32I have
/// no RMW instructions, and nothing else writes it, so no increment is lost).
pub struct IrqCount(AtomicUsize);

impl IrqCount {
    /// Zero.
    pub const fn new() -> Self {
        Self(AtomicUsize::new(0))
    }

    /// Adds one. Interrupt handler only.
    pub fn bump(&self) {
        // Relaxed: a statistic, read by the main loop after the timer is stopped.
        self.0
            .store(self.0.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// The count.
    pub fn get(&self) -> usize {
        // Relaxed: as in `bump`.
        self.0.load(Ordering::Relaxed)
    }
}

impl Default for IrqCount {
    fn default() -> Self {
        Self::new()
    }
}
