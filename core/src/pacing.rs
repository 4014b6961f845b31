//! [`Pacing`]: how a reader that keeps up with its writers lets them get ahead.

/// How a [`Reader`](crate::Reader) that keeps up with its writers lets them get ahead.
///
/// A reader that is faster than its writer finds one or two items each time it looks, so
/// every look pulls the writer's published cursor, and the slot line the writer is still
/// filling, over to its own core; on two cores that transfer, not the items, sets the pace of
/// both threads. With pacing, a blocking read ([`pop`](crate::Reader::pop),
/// [`read`](crate::Reader::read), their timeout forms, and the reader's iterators) whose look
/// finds fewer than [`fewer_than`](Self::fewer_than) items but at least a quarter of that
/// ([`applies`](Self::applies)), spins
/// [`spins`](Self::spins) times (a spin-loop hint each) and looks once more before it
/// returns: the writer meanwhile fills whole lines, and the reader takes them in one look. A
/// read that had to wait for its first item, `try_*` reads and async reads never pace.
///
/// **A reader starts with [`Pacing::for_items`]**: fewer than two cache lines' worth of
/// items but at least half a line's, 4 hints ([`DEFAULT_SPINS`](Self::DEFAULT_SPINS)).
/// [`Pacing::OFF`] turns it off, `Pacing::new(16, 32)` trades more latency for more
/// throughput.
///
/// What the default costs: nothing where items come apart (every read there waited, or found
/// one or two items, and neither paces); at full rate a few tens of nanoseconds of latency
/// while the stream runs faster, since the two threads stop pulling each other's lines across
/// cores every few items. With the threads on two cores it lifts a one-item loop and batch
/// reads by roughly 25–40%. `cargo bench --bench latency` measures each setting
/// against an unpaced reader and rtrb (`benches/README.md` in the repository has a recorded
/// table). The lower bound (a quarter of `fewer_than`, [`applies`](Self::applies)) keeps a
/// sparse stream from feeding on itself: where a spin hint is slow, a stream of one item every
/// ~100 ns otherwise made every look find one item and pace again, which doubled its latency.
/// Where hints are slow (Intel cores since Skylake: about 140 cycles), a paced look waits up to
/// ~150 ns. With every thread on one core pacing changes nothing, since a reader there finds
/// the writer's whole time slice at once.
///
/// ```
/// use spanring_core::{Ring, SliceStorage};
/// use spanring_core::wait::Pacing;
/// let mut memory = [0u32; 8];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// assert_eq!(r.pacing(), Pacing::for_items::<u32>()); // the default: new(32, 4)
/// r.set_pacing(Pacing::new(16, 32));
/// let mut w = ring.writer().unwrap();
/// for x in 7..12 {
///     w.try_push(x).unwrap();
/// }
/// assert_eq!(r.pop(), Ok(7)); // found 5 (4 ≤ 5 < 16): spun 32 hints, looked again, took 7
/// assert_eq!(r.pacing(), Pacing::new(16, 32));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacing {
    /// A blocking read that knows fewer items than this spins and looks again (0: never).
    pub fewer_than: u32,
    /// Spin-loop hints before that second look.
    pub spins: u32,
}

impl Pacing {
    /// No pacing: every read returns what it found at once.
    pub const OFF: Pacing = Pacing {
        fewer_than: 0,
        spins: 0,
    };

    /// Spin-loop hints of the pacing a reader starts with ([`for_items`](Self::for_items)).
    pub const DEFAULT_SPINS: u32 = 4;

    /// The pacing a reader of `T`s starts with: a read that finds fewer than two cache lines'
    /// worth of items (128 bytes: 16 `u64`s) looks once more after
    /// [`DEFAULT_SPINS`](Self::DEFAULT_SPINS) hints. Off for items over 64 bytes (a line
    /// holds at most one) and zero-sized ones, and under the loom model checker.
    ///
    /// ```
    /// use spanring_core::wait::Pacing;
    /// assert_eq!(Pacing::for_items::<u64>(), Pacing::new(16, Pacing::DEFAULT_SPINS));
    /// assert_eq!(Pacing::for_items::<u8>(), Pacing::new(128, 4));
    /// assert_eq!(Pacing::for_items::<[u8; 64]>(), Pacing::new(2, 4));
    /// assert!(!Pacing::for_items::<[u8; 100]>().applies(1)); // never paces
    /// assert!(!Pacing::for_items::<()>().applies(0));
    /// ```
    pub const fn for_items<T>() -> Self {
        let size = core::mem::size_of::<T>();
        if cfg!(spanring_loom) || size == 0 {
            return Self::OFF;
        }
        Self::new((128 / size) as u32, Self::DEFAULT_SPINS)
    }

    /// Pacing that spins `spins` hints when a blocking read knows fewer than `fewer_than`
    /// items.
    ///
    /// ```
    /// use spanring_core::wait::Pacing;
    /// assert_eq!(Pacing::new(0, 32), Pacing::OFF.with_spins(32));
    /// assert!(!Pacing::new(0, 32).applies(1)); // fewer_than 0: never
    /// assert!(Pacing::new(16, 32).applies(15));
    /// assert!(!Pacing::new(16, 32).applies(16));
    /// ```
    pub const fn new(fewer_than: u32, spins: u32) -> Self {
        Self { fewer_than, spins }
    }

    /// This pacing with `spins` hints.
    ///
    /// ```
    /// use spanring_core::wait::Pacing;
    /// assert_eq!(Pacing::new(16, 8).with_spins(32), Pacing::new(16, 32));
    /// ```
    pub const fn with_spins(self, spins: u32) -> Self {
        Self { spins, ..self }
    }

    /// Whether a read that knows `known` items paces: fewer than
    /// [`fewer_than`](Self::fewer_than), but at least a quarter of it (and at least one). A
    /// look that finds only one or two items means a writer whose items come further apart
    /// than a look takes, not one streaming: spinning would only delay them, and once the
    /// spin outlasts the gap between items, delay every item (the next is always there at the
    /// next look, which paces again).
    ///
    /// ```
    /// use spanring_core::wait::Pacing;
    /// let pacing = Pacing::new(16, 4);
    /// assert!(pacing.applies(15)); // found 15: spins, then looks again
    /// assert!(!pacing.applies(16));
    /// assert!(pacing.applies(4) && !pacing.applies(3)); // at least a quarter of 16
    /// assert!(Pacing::new(2, 4).applies(1)); // a quarter of 2 is 0: at least one
    /// assert!(!Pacing::OFF.applies(1));
    /// ```
    #[inline]
    pub const fn applies(&self, known: usize) -> bool {
        let quarter = (self.fewer_than / 4) as usize;
        known < self.fewer_than as usize && known >= if quarter == 0 { 1 } else { quarter }
    }

    /// Spins [`spins`](Self::spins) hints.
    #[inline]
    pub(crate) fn spin(&self) {
        for _ in 0..self.spins {
            crate::sync::spin_loop();
        }
    }
}
