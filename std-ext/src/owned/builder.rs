//! [`Buffer`]: the builder that allocates an owned buffer and hands out its first handles.

use core::fmt;
use core::marker::PhantomData;
use std::sync::Arc;

use spanring_core::sync::AtomicUsize;
use spanring_core::{
    multi_words, AttachError, CapacityError, ClaimMode, Ring, SingleProducer, Storage,
    WaitStrategy, Writer,
};

use super::{OwnedMultiProducer, OwnedReader, OwnedWriter};
#[cfg(unix)]
use crate::{DoubleMapped, MapError, Zeroable};
use crate::{HeapStorage, HybridWait};

/// What an owned buffer is made of, chosen by type: memory `S`, producer kind `P`, wait
/// strategy `W` and reader capacity `READERS`. Start with [`portable`] or [`mapped`], adjust
/// with the methods below, finish with [`build`](Self::build). Nothing is allocated before
/// `build`.
///
/// ```
/// use spanring_std::{owned, YieldWait};
/// let (writer, reader) = owned::portable::<u64>(100)
///     .multi_producer()
///     .wait::<YieldWait>()
///     .readers::<8>()
///     .build()?;
/// let second_writer = writer.clone(); // multi-producer writers are Clone
/// assert_eq!(reader.ring().capacity(), 100);
/// # drop((second_writer, writer));
/// # Ok::<(), owned::BuildError>(())
/// ```
#[must_use = "a Buffer does nothing until `build` is called"]
pub struct Buffer<S, P = SingleProducer, W = HybridWait, const READERS: usize = 4> {
    capacity: usize,
    start: usize,
    prefault: bool,
    _types: Types<S, P, W>,
}

/// The chosen types, carried without owning values of them (`fn() -> _` keeps the builder
/// `Send`, `Sync` and free of drop-check obligations whatever they are).
type Types<S, P, W> = PhantomData<fn() -> (S, P, W)>;

/// A single-producer buffer of `capacity` heap slots, each starting as `T::default()`; spans
/// that cross the end come in two slices. Runs on every std target.
///
/// ```
/// let (mut w, mut r) = spanring_std::owned::portable::<u8>(3).build()?;
/// w.try_reserve(3)?.copy_from_slice(b"abc");
/// assert_eq!(r.try_read(3)?.to_array::<3>(), Some(*b"abc"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn portable<T>(capacity: usize) -> Buffer<HeapStorage<T>> {
    Buffer::with_capacity(capacity)
}

/// A single-producer buffer over double-mapped memory of at least `capacity` items (rounded up
/// to whole pages, see [`DoubleMapped`]): every span is one contiguous slice, wrap or not.
///
/// ```
/// let (mut w, mut r) = spanring_std::owned::mapped::<f32>(1000).build()?;
/// assert!(w.ring().capacity() >= 1000);
/// let mut span = w.try_reserve(4)?;
/// span.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]); // one `&mut [f32]` via DerefMut
/// drop(span);
/// assert_eq!(&*r.try_read(4)?, &[1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(unix)]
pub fn mapped<T: Copy + Zeroable>(capacity: usize) -> Buffer<DoubleMapped<T>> {
    Buffer::with_capacity(capacity)
}

impl<S, P, W, const READERS: usize> Buffer<S, P, W, READERS> {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            capacity,
            start: 0,
            prefault: false,
            _types: PhantomData,
        }
    }

    fn retype<P2, W2, const R2: usize>(self) -> Buffer<S, P2, W2, R2> {
        Buffer {
            capacity: self.capacity,
            start: self.start,
            prefault: self.prefault,
            _types: PhantomData,
        }
    }

    /// Uses wait strategy `W2` for blocking calls (e.g. [`YieldWait`](crate::YieldWait) for
    /// low latency on spare cores; the default [`HybridWait`](crate::HybridWait) spins, yields up to 50 µs, then parks).
    ///
    /// ```
    /// use spanring_std::{owned, YieldWait};
    /// let (mut w, mut r) = owned::portable::<u64>(4).wait::<YieldWait>().build()?;
    /// let t = std::thread::spawn(move || (0..100).try_for_each(|i| w.push(i)));
    /// let sum: u64 = (0..100).map(|_| r.pop().unwrap()).sum(); // spins and yields, no parking
    /// t.join().unwrap()?;
    /// assert_eq!(sum, 4950);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wait<W2: WaitStrategy + Default>(self) -> Buffer<S, P, W2, READERS> {
        self.retype()
    }

    /// Allows up to `R2` readers attached at once (default 4); more fail with
    /// [`AttachError::TooManyReaders`].
    ///
    /// ```
    /// use spanring_std::core_api::AttachError;
    /// let (_w, r) = spanring_std::owned::portable::<u8>(4).readers::<2>().build()?;
    /// let second = r.subscribe()?;
    /// assert_eq!(r.subscribe().unwrap_err(), AttachError::TooManyReaders { max: 2 });
    /// drop(second); // frees its slot
    /// assert!(r.subscribe().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn readers<const R2: usize>(self) -> Buffer<S, P, W, R2> {
        self.retype()
    }

    /// Starts the cursors at `cursor` instead of 0 (see
    /// [`RingBuilder::start_at`](spanring_core::parts::RingBuilder::start_at)); used to test the
    /// `usize` wrap.
    ///
    /// ```
    /// let start = usize::MAX - 1;
    /// let (mut w, mut r) = spanring_std::owned::portable::<u8>(4).start_at(start).build()?;
    /// assert_eq!(r.cursor(), start);
    /// w.try_reserve(3)?.copy_from_slice(&[1, 2, 3]); // cursors MAX - 1, MAX, 0
    /// assert_eq!(r.try_read(3)?.to_array::<3>(), Some([1, 2, 3]));
    /// assert_eq!(r.cursor(), 1); // wrapped
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_at(mut self, cursor: usize) -> Self {
        self.start = cursor;
        self
    }

    /// Commits every slot's memory at `build` (for double-mapped memory:
    /// [`DoubleMapped::new_prefaulted`]), so the ring's first lap takes no page fault; the
    /// cost is the whole ring resident from the start and a `build` that touches every page.
    /// Off by default: like `Vec::with_capacity`, a mapped buffer commits pages as they are
    /// first written. Portable buffers are always committed (their slots are written with
    /// `T::default()` at `build`).
    ///
    /// ```
    /// let (mut w, mut r) = spanring_std::owned::mapped::<u64>(1 << 16).prefault().build()?;
    /// w.try_push(1)?;
    /// assert_eq!(r.try_pop()?, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prefault(mut self) -> Self {
        self.prefault = true;
        self
    }
}

impl<S, W, const READERS: usize> Buffer<S, SingleProducer, W, READERS> {
    /// Allows any number of writers (the [`OwnedWriter`] becomes `Clone`: more writers are
    /// clones of the one `build` returns); costs a CAS per reservation while two or more
    /// writers exist, and a bitset of one bit per slot.
    ///
    /// ```
    /// let (mut a, mut r) = spanring_std::owned::portable::<u8>(4).multi_producer().build()?;
    /// let mut b = a.clone(); // a second writer
    /// a.try_push(1)?;
    /// b.try_push(2)?;
    /// drop((a, b)); // the last writer closes the ring
    /// assert_eq!(r.try_iter().collect::<Vec<_>>(), [1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn multi_producer(self) -> Buffer<S, OwnedMultiProducer, W, READERS> {
        self.retype()
    }
}

impl<S, P, W, const READERS: usize> Buffer<S, P, W, READERS>
where
    S: OwnedStorage,
    P: OwnedClaimMode,
    W: WaitStrategy + Default,
{
    /// Allocates the memory, builds the ring and returns its writer and a first reader
    /// (attached before anything is written, so it sees every item).
    ///
    /// # Errors
    ///
    /// [`BuildError::Capacity`] for a capacity of 0 (or beyond what cursors support),
    /// [`BuildError::Map`] when the double mapping fails, [`BuildError::Attach`] when
    /// `READERS == 0`.
    ///
    /// ```
    /// use spanring_std::owned::{self, BuildError};
    /// let (mut w, mut r) = owned::portable::<u16>(8).build()?;
    /// w.try_push(7)?;
    /// assert_eq!(r.try_pop()?, 7); // the first reader sees every item
    /// let none = owned::portable::<u16>(8).readers::<0>().build();
    /// assert!(matches!(none, Err(BuildError::Attach(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn build(
        self,
    ) -> Result<(OwnedWriter<S, P, W, READERS>, OwnedReader<S, P, W, READERS>), BuildError> {
        let storage = if self.prefault {
            S::allocate_prefaulted(self.capacity)?
        } else {
            S::allocate(self.capacity)?
        };
        let ring: Ring<S, P, W, READERS> = P::ring(storage, self.start)?;
        let ring = Arc::new(ring);
        // The reader first: attached at the start cursor, before any writer exists.
        let reader = OwnedReader::first(Arc::clone(&ring))?;
        let writer = Writer::attach(ring)?;
        Ok((writer, reader))
    }
}

impl<S, P, W, const READERS: usize> fmt::Debug for Buffer<S, P, W, READERS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("capacity", &self.capacity)
            .field("start", &self.start)
            .field("prefault", &self.prefault)
            .field("storage", &core::any::type_name::<S>())
            .field("readers", &READERS)
            .finish()
    }
}

/// Memory an owned buffer can allocate for itself: [`HeapStorage`] (items start as
/// `T::default()`) and, on unix, [`DoubleMapped`] (items start zeroed).
pub trait OwnedStorage: Storage + Sized {
    /// `capacity` slots (double-mapped memory rounds up to whole pages).
    ///
    /// # Errors
    ///
    /// [`BuildError::Capacity`] for 0 slots, [`BuildError::Map`] when mapping fails.
    fn allocate(capacity: usize) -> Result<Self, BuildError>;

    /// As [`allocate`](Self::allocate), with every slot's memory committed now
    /// ([`Buffer::prefault`]). By default the same as `allocate`.
    ///
    /// # Errors
    ///
    /// As [`allocate`](Self::allocate).
    fn allocate_prefaulted(capacity: usize) -> Result<Self, BuildError> {
        Self::allocate(capacity)
    }
}

impl<T: Default> OwnedStorage for HeapStorage<T> {
    fn allocate(capacity: usize) -> Result<Self, BuildError> {
        HeapStorage::with_capacity(capacity).map_err(|_| BuildError::Capacity(CapacityError::Zero))
    }
}

#[cfg(unix)]
impl<T: Copy + Zeroable> OwnedStorage for DoubleMapped<T> {
    fn allocate(capacity: usize) -> Result<Self, BuildError> {
        DoubleMapped::new(capacity).map_err(BuildError::Map)
    }

    fn allocate_prefaulted(capacity: usize) -> Result<Self, BuildError> {
        DoubleMapped::new_prefaulted(capacity).map_err(BuildError::Map)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for spanring_core::SingleProducer {}
    impl Sealed for super::OwnedMultiProducer {}
}

/// A producer kind an owned buffer can set up by itself: [`SingleProducer`] and
/// [`OwnedMultiProducer`] (which allocates its bitset). Sealed: a bound for
/// [`Buffer`]'s parameters, not another way to build rings (that is `Ring::builder`).
pub trait OwnedClaimMode: ClaimMode + Sized + sealed::Sealed {
    /// A ring of this kind over `storage`, cursors starting at `start` (through
    /// `Ring::builder`).
    ///
    /// # Errors
    ///
    /// [`CapacityError`] from the ring constructor.
    #[doc(hidden)]
    fn ring<S: Storage, W: WaitStrategy + Default, const READERS: usize>(
        storage: S,
        start: usize,
    ) -> Result<Ring<S, Self, W, READERS>, CapacityError>;
}

impl OwnedClaimMode for SingleProducer {
    fn ring<S: Storage, W: WaitStrategy + Default, const READERS: usize>(
        storage: S,
        start: usize,
    ) -> Result<Ring<S, Self, W, READERS>, CapacityError> {
        Ring::builder(storage)
            .wait::<W>()
            .readers::<READERS>()
            .start_at(start)
            .build()
    }
}

impl OwnedClaimMode for OwnedMultiProducer {
    fn ring<S: Storage, W: WaitStrategy + Default, const READERS: usize>(
        storage: S,
        start: usize,
    ) -> Result<Ring<S, Self, W, READERS>, CapacityError> {
        let bits: Box<[AtomicUsize]> = (0..multi_words(storage.capacity()))
            .map(|_| AtomicUsize::new(0))
            .collect();
        Ring::builder(storage)
            .wait::<W>()
            .readers::<READERS>()
            .multi_producer(bits)
            .start_at(start)
            .build()
    }
}

/// Why an owned buffer could not be built.
///
/// ```
/// use spanring_std::owned::{self, BuildError};
/// use spanring_std::core_api::CapacityError;
/// let err = owned::portable::<u8>(0).build().unwrap_err();
/// assert_eq!(err, BuildError::Capacity(CapacityError::Zero));
/// assert_eq!(err.to_string(), "ring capacity must be at least 1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The capacity is 0 or too large for the ring's cursors.
    Capacity(CapacityError),
    /// The double mapping failed.
    #[cfg(unix)]
    Map(MapError),
    /// The first reader could not attach (`READERS == 0`).
    Attach(AttachError),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Capacity(e) => e.fmt(f),
            #[cfg(unix)]
            Self::Map(e) => e.fmt(f),
            Self::Attach(e) => e.fmt(f),
        }
    }
}

/// `Display` shows the inner error's message, so `source` is left empty (the rule: one or the
/// other, never both); match on the variant to get the inner error.
impl std::error::Error for BuildError {}

impl From<CapacityError> for BuildError {
    fn from(e: CapacityError) -> Self {
        Self::Capacity(e)
    }
}

impl From<AttachError> for BuildError {
    fn from(e: AttachError) -> Self {
        Self::Attach(e)
    }
}

#[cfg(unix)]
impl From<MapError> for BuildError {
    fn from(e: MapError) -> Self {
        Self::Map(e)
    }
}
