//! [`Pacing`]: a reader's opt-in trade of a little latency for throughput.

/// How a [`Reader`](crate::Reader) that keeps up with its writers lets them get ahead.
///
/// A reader that is faster than its writer finds one or two items each time it looks, so
/// every look pulls the writer's published cursor, and the slot line the writer is still
/// filling, over to its own core; on two cores that transfer, not the items, sets the pace of
/// both threads. With pacing, a blocking read ([`pop`](crate::Reader::pop),
/// [`read`](crate::Reader::read), their timeout forms, and the reader's iterators) that finds
/// fewer than [`fewer_than`](Self::fewer_than) items known published spins
/// [`spins`](Self::spins) times (a spin-loop hint each) and looks once more before it
/// returns: the writer meanwhile fills whole lines, and the reader takes them in one look.
///
/// The cost is latency: an item found while the reader keeps up is returned up to `spins`
/// hints later (on x86 a hint is 10–140 cycles, depending on the CPU). Off by default
/// ([`Pacing::OFF`]); `try_*` reads and async reads never pace. Measured with the buffer
/// bench's orientation rows on the 2-core test machine (2026-12-07, 11 interleaved pairs):
/// with one thread per core, `Pacing::new(16, 32)` took the one-item loop from 0.87× rtrb's to
/// 1.53× and broadcast 1 → 2 item reads from 0.87× to 1.36× disruptor's (1 → 4: 0.78× →
/// 0.99×); with every thread on one core it changed nothing (1.84× against 1.87×), since a
/// reader there finds the writer's whole time slice at once.
///
/// ```
/// use spanring_core::{Pacing, Ring, SliceStorage};
/// let mut memory = [0u32; 8];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// r.set_pacing(Pacing::new(16, 32));
/// let mut w = ring.writer().unwrap();
/// w.try_push(7).unwrap();
/// assert_eq!(r.pop(), Ok(7)); // found 1 < 16 known: spun 32 hints, looked again, returned it
/// assert_eq!(r.pacing(), Pacing::new(16, 32));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pacing {
    /// A blocking read that knows fewer items than this spins and looks again (0: never).
    pub fewer_than: u32,
    /// Spin-loop hints before that second look.
    pub spins: u32,
}

impl Pacing {
    /// No pacing: every read returns what it found at once (the default).
    pub const OFF: Pacing = Pacing {
        fewer_than: 0,
        spins: 0,
    };

    /// Pacing that spins `spins` hints when a blocking read knows fewer than `fewer_than`
    /// items.
    ///
    /// ```
    /// use spanring_core::Pacing;
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
    /// use spanring_core::Pacing;
    /// assert_eq!(Pacing::new(16, 8).with_spins(32), Pacing::new(16, 32));
    /// ```
    pub const fn with_spins(self, spins: u32) -> Self {
        Self { spins, ..self }
    }

    /// Whether a read that knows `known` items paces.
    #[inline]
    pub const fn applies(&self, known: usize) -> bool {
        known < self.fewer_than as usize
    }

    /// Spins [`spins`](Self::spins) hints.
    #[inline]
    pub(crate) fn spin(&self) {
        for _ in 0..self.spins {
            crate::sync::spin_loop();
        }
    }
}
