//! [`AsyncWait`]: a wait strategy whose waiters are futures, and the [`WakerRegistry`] trait
//! the ring's futures use to register with it.

use core::task::Waker;

use super::waker_cell::WakerCell;
use crate::sync::{AtomicUsize, Ordering};
use crate::wait::WaitStrategy;

/// A claimed waker cell of a [`WakerRegistry`]: held by one pending future from its first
/// `Pending` until it completes or is dropped, then given back with
/// [`WakerRegistry::release`]. Not `Clone`, so a future cannot hand its cell to another.
#[derive(Debug, PartialEq, Eq)]
pub struct WakerCellId(usize);

impl WakerCellId {
    /// The id of cell `index` — for implementors of [`WakerRegistry`]. A forged id can only
    /// disturb the wake-ups of the cell's real owner (a logic error), never memory safety.
    ///
    /// ```
    /// use spanring_core::asynch::WakerCellId;
    /// let id = WakerCellId::new(3);
    /// assert_eq!(id, WakerCellId::new(3));
    /// assert_ne!(id, WakerCellId::new(4));
    /// ```
    pub fn new(index: usize) -> Self {
        Self(index)
    }

    /// The cell's index.
    ///
    /// ```
    /// use spanring_core::asynch::WakerCellId;
    /// assert_eq!(WakerCellId::new(5).index(), 5);
    /// ```
    pub fn index(&self) -> usize {
        self.0
    }
}

/// A [`WaitStrategy`] that futures can register wakers with; the ring's
/// [`ReserveFuture`](crate::asynch::ReserveFuture) and [`ReadFuture`](crate::asynch::ReadFuture) exist for
/// rings whose `W` implements it.
///
/// Contract (register-then-check): a future calls [`register`](Self::register), then checks
/// its condition one last time before returning `Pending`. For any `notify_all` called after a
/// store that makes the condition true, either that check sees the store, or `notify_all`
/// wakes the registered waker. An implementation that cannot register (e.g. no free cell)
/// must wake the waker itself, so the future is polled again.
pub trait WakerRegistry: WaitStrategy {
    /// Claims a cell for one future, or `None` if all are taken (the future then wakes
    /// itself on every `Pending`, i.e. the executor polls it in a loop).
    fn claim_cell(&self) -> Option<WakerCellId>;
    /// Registers `waker` in `cell` (replacing the previous one), or wakes it at once if that
    /// is not possible right now. Ordered before the caller's subsequent check (see the trait
    /// docs).
    fn register(&self, cell: &WakerCellId, waker: &Waker);
    /// Gives `cell` back (the future completed or was dropped).
    fn release(&self, cell: WakerCellId);
}

/// A no_std wait strategy for async code: futures register their wakers in one of `CELLS`
/// cells and `notify_all` wakes them. Build a ring with it to get
/// [`Writer::reserve_async`](crate::Writer::reserve_async) and
/// [`Reader::read_async`](crate::Reader::read_async).
///
/// - Several futures can wait at once (several producers of a multi-producer ring, several
///   broadcast readers): each pending future holds its own cell. When all cells are taken, a
///   further future falls back to waking itself on every poll (it keeps working, but the
///   executor polls it in a loop until a cell frees): size `CELLS` for the number of tasks
///   that may wait on one side of one ring at once. The ring has two instances (writers wait
///   on one, readers on the other).
/// - `notify_all` costs one uncontended atomic read-modify-write while no future waits (a
///   plain load is not enough: the caller's store and the load would form the
///   store-buffering pattern and could both miss the waiter, see the source). It never waits
///   or spins, so it may run in an interrupt handler.
/// - The blocking [`WaitStrategy::wait_until`] just spins (with a CPU hint): a thread using
///   the blocking calls on such a ring burns its core while it waits.
///
/// ```
/// use spanring_core::{AsyncWait, InlineStorage, Ring};
/// let ring = Ring::builder(InlineStorage::new([0u32; 16])).wait::<AsyncWait>().build().unwrap();
/// let mut writer = ring.writer().unwrap();
/// let mut reader = ring.reader().unwrap();
/// let reserve = writer.reserve_async(4); // a future; `.await` it in async code
/// # drop(reserve);
/// # drop(reader.read_async(4));
/// ```
pub struct AsyncWait<const CELLS: usize = 8> {
    /// Occupied cells. Also the synchronisation point of register-then-check: waiters and
    /// notifiers both make an AcqRel read-modify-write on it (see `register`/`notify_all`).
    active: AtomicUsize,
    cells: [WakerCell; CELLS],
}

impl<const CELLS: usize> AsyncWait<CELLS> {
    crate::__maybe_const_fn! {
        /// A strategy with no waker registered (`const`, so it can live in a `static`).
        ///
        /// ```
        /// use spanring_core::AsyncWait;
        /// static WAIT: AsyncWait<4> = AsyncWait::new();
        /// assert_eq!(WAIT.registered(), 0);
        /// assert_eq!(WAIT.occupied_cells(), 0);
        /// ```
        pub fn new() -> Self {
            Self {
                active: AtomicUsize::new(0),
                cells: {
                    #[cfg(not(spanring_loom))]
                    {
                        [const { WakerCell::new() }; CELLS]
                    }
                    #[cfg(spanring_loom)]
                    {
                        core::array::from_fn(|_| WakerCell::new())
                    }
                },
            }
        }
    }

    /// Cells claimed by pending futures right now (a snapshot): 0 once every future has
    /// completed or been dropped.
    ///
    /// ```
    /// use spanring_core::AsyncWait;
    /// use spanring_core::asynch::WakerRegistry;
    /// let wait = AsyncWait::<2>::new();
    /// let cell = wait.claim_cell().unwrap(); // what a future does at its first `Pending`
    /// assert_eq!(wait.registered(), 1);
    /// wait.release(cell); // what it does when it completes or is dropped
    /// assert_eq!(wait.registered(), 0);
    /// ```
    pub fn registered(&self) -> usize {
        // Relaxed: a snapshot for diagnostics and tests.
        self.active.load(Ordering::Relaxed)
    }

    /// Cells whose state says occupied (a snapshot; agrees with [`registered`](Self::registered)
    /// when nothing is in flight).
    ///
    /// ```
    /// use spanring_core::AsyncWait;
    /// use spanring_core::asynch::WakerRegistry;
    /// let wait = AsyncWait::<2>::new();
    /// let (a, b) = (wait.claim_cell().unwrap(), wait.claim_cell().unwrap());
    /// assert_eq!((wait.occupied_cells(), wait.registered()), (2, 2));
    /// assert!(wait.claim_cell().is_none()); // all taken
    /// wait.release(a);
    /// wait.release(b);
    /// assert_eq!(wait.occupied_cells(), 0);
    /// ```
    pub fn occupied_cells(&self) -> usize {
        self.cells.iter().filter(|c| c.is_occupied()).count()
    }

    fn freed(&self) {
        // Release: part of the RMW chain on `active` (see `notify_all`); nothing to publish.
        self.active.fetch_sub(1, Ordering::Release);
    }
}

impl<const CELLS: usize> Default for AsyncWait<CELLS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const CELLS: usize> core::fmt::Debug for AsyncWait<CELLS> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncWait")
            .field("cells", &CELLS)
            .field("registered", &self.registered())
            .finish()
    }
}

impl<const CELLS: usize> WaitStrategy for AsyncWait<CELLS> {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        while !ready() {
            crate::sync::spin_loop();
        }
    }

    fn notify_all(&self) {
        // AcqRel read-modify-write, not a load. The caller has just stored the condition; a
        // waiter has stored its registration and then makes an AcqRel RMW on `active` before
        // its final check. RMWs on one location are totally ordered and each reads the latest
        // value: if ours comes first, the waiter's RMW acquires ours (release sequence) and its
        // check sees the caller's store; if the waiter's comes first, ours reads a count > 0
        // and acquires its registration. With a plain load both sides could miss each other
        // (store buffering). Uncontended while nobody waits: the line stays in our cache.
        if self.active.fetch_add(0, Ordering::AcqRel) == 0 {
            return;
        }
        for cell in &self.cells {
            if cell.wake() {
                self.freed();
            }
        }
    }
}

impl<const CELLS: usize> WakerRegistry for AsyncWait<CELLS> {
    fn claim_cell(&self) -> Option<WakerCellId> {
        let index = self.cells.iter().position(WakerCell::try_claim)?;
        // Relaxed: a count; the AcqRel RMW in `register` orders the registration.
        self.active.fetch_add(1, Ordering::Relaxed);
        Some(WakerCellId(index))
    }

    fn register(&self, cell: &WakerCellId, waker: &Waker) {
        match self.cells.get(cell.0) {
            Some(c) => c.register(waker),
            None => waker.wake_by_ref(),
        }
        // AcqRel: the waiter's half of the handshake described in `notify_all`: orders the
        // registration above before the caller's final check, against the notifier's RMW.
        self.active.fetch_add(0, Ordering::AcqRel);
    }

    fn release(&self, cell: WakerCellId) {
        if self.cells.get(cell.0).is_some_and(WakerCell::release) {
            self.freed();
        }
    }
}
