//! [`RingBuilder`]: every configuration of a [`Ring`] through one chain of calls — wait
//! strategy, reader capacity, producer kind, start cursor — instead of naming the ring's type.

use crate::claim::{ClaimMode, MultiProducer, SingleProducer};
use crate::error::CapacityError;
use crate::layout::Layout;
use crate::ring::Ring;
use crate::storage::Storage;
use crate::wait::BusySpin;
use crate::wait::WaitStrategy;

/// Builds a [`Ring`] over caller-provided storage. Start with [`Ring::builder`]; every step is
/// optional:
///
/// | step | default |
/// |---|---|
/// | [`wait`](Self::wait)`::<W>()` / [`wait_with`](Self::wait_with)`(space, data)` | [`BusySpin`] (the only strategy that needs nothing from the platform; with `std`, pick a blocking one) |
/// | [`readers`](Self::readers)`::<N>()` | 4 reader slots (each costs one padded cursor: pick 1 to save RAM) |
/// | [`multi_producer`](Self::multi_producer)`(words)` | single producer |
/// | [`start_at`](Self::start_at)`(cursor)` | 0 |
///
/// ```
/// use spanring_core::sync::AtomicUsize;
/// use spanring_core::{multi_words, Backoff, Ring, SliceStorage};
///
/// let mut memory = [0u32; 100];
/// let mut words: Vec<AtomicUsize> = (0..multi_words(100)).map(|_| AtomicUsize::new(0)).collect();
/// let ring = Ring::builder(SliceStorage::new(&mut memory))
///     .wait::<Backoff>()
///     .readers::<2>()
///     .multi_producer(&mut words[..])
///     .start_at(usize::MAX - 10) // e.g. to test the cursor wrap-around
///     .build()
///     .unwrap();
/// let mut a = ring.writer().unwrap();
/// let mut b = a.clone(); // any number of writers: clones of the first
/// let mut r = ring.reader().unwrap();
/// a.try_reserve(1).unwrap()[0] = 1;
/// b.try_reserve(1).unwrap()[0] = 2;
/// assert_eq!(r.try_read(2).unwrap().to_array::<2>(), Some([1, 2]));
/// ```
///
/// For a `static` ring (no allocator, no initialisation code), the `const` constructors
/// [`Ring::new_inline_with`] and [`Ring::new_inline_multi`] take the same choices.
#[must_use = "a builder does nothing until `build` is called"]
#[derive(Debug)]
pub struct RingBuilder<
    S,
    P: BuildClaimMode = SingleProducer,
    W = BusySpin,
    const READERS: usize = 4,
> {
    storage: S,
    start: usize,
    space: W,
    data: W,
    producer: P::Config,
    stays_open: bool,
}

impl<S: Storage> Ring<S> {
    /// A [`RingBuilder`] over `storage`: choose the wait strategy, reader capacity, producer
    /// kind and start cursor, then [`build`](RingBuilder::build).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 16];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).readers::<1>().build().unwrap();
    /// assert_eq!(ring.capacity(), 16);
    /// ```
    pub fn builder(storage: S) -> RingBuilder<S> {
        RingBuilder {
            storage,
            start: 0,
            space: BusySpin,
            data: BusySpin,
            producer: (),
            stays_open: false,
        }
    }
}

impl<S: Storage, P: BuildClaimMode, W: WaitStrategy, const READERS: usize>
    RingBuilder<S, P, W, READERS>
{
    /// Waits through `W2` (built with `Default`): writers on a full ring, readers on an empty
    /// one.
    ///
    /// ```
    /// use spanring_core::{Backoff, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).wait::<Backoff>().build().unwrap();
    /// # let _ = ring;
    /// ```
    pub fn wait<W2: WaitStrategy + Default>(self) -> RingBuilder<S, P, W2, READERS> {
        self.wait_with(W2::default(), W2::default())
    }

    /// Waits through the given instances (for strategies that carry configuration): writers
    /// wait on `space`, readers on `data`.
    ///
    /// ```
    /// use spanring_core::{Backoff, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory))
    ///     .wait_with(Backoff::default(), Backoff::default())
    ///     .build()
    ///     .unwrap();
    /// # let _ = ring;
    /// ```
    pub fn wait_with<W2: WaitStrategy>(
        self,
        space: W2,
        data: W2,
    ) -> RingBuilder<S, P, W2, READERS> {
        RingBuilder {
            storage: self.storage,
            start: self.start,
            space,
            data,
            producer: self.producer,
            stays_open: self.stays_open,
        }
    }

    /// Room for `R2` readers attached at once (each slot is one cache-padded cursor).
    ///
    /// ```
    /// use spanring_core::{AttachError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).readers::<1>().build().unwrap();
    /// let _only = ring.reader().unwrap();
    /// assert_eq!(ring.reader().unwrap_err(), AttachError::TooManyReaders { max: 1 });
    /// ```
    pub fn readers<const R2: usize>(self) -> RingBuilder<S, P, W, R2> {
        RingBuilder {
            storage: self.storage,
            start: self.start,
            space: self.space,
            data: self.data,
            producer: self.producer,
            stays_open: self.stays_open,
        }
    }

    /// Cursors start at `cursor` instead of 0 (to test the `usize` wrap-around, or to resume a
    /// stream position). For a capacity that is not a power of two, `cursor` is rounded down
    /// to a valid cursor ([`Layout::normalize`]).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(12).build().unwrap();
    /// assert_eq!(ring.start(), 12);
    ///
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).start_at(usize::MAX - 1).build().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// w.try_reserve(4).unwrap().copy_from_slice(&[1, 2, 3, 4]); // crosses usize::MAX
    /// assert_eq!(r.try_read(4).unwrap().to_array::<4>(), Some([1, 2, 3, 4]));
    /// ```
    pub fn start_at(mut self, cursor: usize) -> Self {
        self.start = cursor;
        self
    }

    /// Builds the ring.
    ///
    /// # Errors
    ///
    /// [`CapacityError`] if the storage has 0 slots or more than [`Layout`] supports, or
    /// (multi-producer) [`CapacityError::BitsetTooSmall`] if the record words are fewer than
    /// [`multi_words`](crate::multi_words)`(capacity)`.
    ///
    /// ```
    /// use spanring_core::{CapacityError, Ring, SliceStorage};
    /// let mut nothing: [u8; 0] = [];
    /// let err = Ring::builder(SliceStorage::new(&mut nothing)).build().unwrap_err();
    /// assert_eq!(err, CapacityError::Zero);
    /// ```
    pub fn build(self) -> Result<Ring<S, P, W, READERS>, CapacityError> {
        let producer = self.producer;
        let ring = Ring::build_with(
            self.storage,
            self.start,
            self.space,
            self.data,
            |layout, start| P::build(producer, layout, start),
        )?;
        Ok(if self.stays_open {
            ring.stays_open()
        } else {
            ring
        })
    }

    /// The ring stays open when its last writer is dropped ([`Ring::stays_open`]).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).stays_open().build().unwrap();
    /// drop(ring.writer().unwrap());
    /// assert!(!ring.is_closed());
    /// assert!(ring.writer().is_ok()); // handed out again
    /// ```
    pub fn stays_open(mut self) -> Self {
        self.stays_open = true;
        self
    }
}

impl<S: Storage, W: WaitStrategy, const READERS: usize> RingBuilder<S, SingleProducer, W, READERS> {
    /// Any number of writers ([`MultiProducer`]: the first from `ring.writer()`, the rest
    /// cloned from it), publishing through `words`: one record word
    /// a slot, [`multi_words`](crate::multi_words)`(capacity)` in all (any initial value; the
    /// ring zeroes them), held by the ring alone ([`RecordWords`](crate::record_words::RecordWords)): an
    /// array, a `&mut` slice, or a boxed slice / `Vec`.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let words: [AtomicUsize; 4] = Default::default();
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).multi_producer(words).build().unwrap();
    /// let a = ring.writer().unwrap();
    /// let _b = a.clone();
    /// ```
    pub fn multi_producer<B: crate::record_words::RecordWords>(
        self,
        words: B,
    ) -> RingBuilder<S, MultiProducer<B>, W, READERS> {
        RingBuilder {
            storage: self.storage,
            start: self.start,
            space: self.space,
            data: self.data,
            producer: words,
            stays_open: self.stays_open,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::SingleProducer {}
    impl<B: crate::record_words::RecordWords> Sealed for crate::MultiProducer<B> {}
}

/// A producer kind a [`RingBuilder`] can build: what it needs (`Config`) and how. Sealed.
pub trait BuildClaimMode: ClaimMode + Sized + sealed::Sealed {
    /// What the builder holds for it: nothing for [`SingleProducer`], the record words for
    /// [`MultiProducer`].
    type Config;
    #[doc(hidden)]
    fn build(config: Self::Config, layout: &Layout, start: usize) -> Result<Self, CapacityError>;
}

impl BuildClaimMode for SingleProducer {
    type Config = ();
    fn build((): (), _: &Layout, _: usize) -> Result<Self, CapacityError> {
        Ok(SingleProducer::new())
    }
}

impl<B: crate::record_words::RecordWords> BuildClaimMode for MultiProducer<B> {
    type Config = B;
    fn build(words: B, layout: &Layout, start: usize) -> Result<Self, CapacityError> {
        MultiProducer::checked(words, layout, start, usize::BITS)
    }
}
