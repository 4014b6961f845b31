//! [`SegmentSpec`]: what a segment holds, as the creator asks for it and as an attacher expects
//! it. One value serves both sides, so a writer and a reader built from the same code agree.

use core::alloc::Layout;
use core::marker::PhantomData;

use super::item::{ItemIdentity, SharedItem};
use super::layout::{ClaimMode, StateLayout};

/// The parameters of a segment of `T` items: capacity, reader slots, claim mode and the
/// protocol state block's layout.
///
/// For [`Segment::create`](super::Segment::create) the capacity is a minimum (rounded up so the
/// data region is whole pages, as for [`DoubleMapped`](crate::DoubleMapped)); for
/// [`Segment::open`](super::Segment::open) and [`Segment::from_fd`](super::Segment::from_fd)
/// the segment must hold exactly that rounded capacity and that many reader slots, unless the
/// attacher accepts any ([`any_capacity`](Self::any_capacity),
/// [`any_reader_slots`](Self::any_reader_slots)). Item type, claim mode and state layout are
/// always checked.
///
/// ```
/// use core::alloc::Layout;
/// use spanring_std::shared::{ClaimMode, SegmentSpec};
/// let spec = SegmentSpec::<[f32; 2]>::new(1 << 16, 4, ClaimMode::SingleProducer,
///     Layout::new::<[u64; 64]>());
/// let reader_side = spec.any_capacity();
/// assert_eq!(reader_side.claim(), ClaimMode::SingleProducer);
/// ```
pub struct SegmentSpec<T> {
    pub(crate) item: ItemIdentity,
    pub(crate) capacity: usize,
    pub(crate) reader_slots: u32,
    pub(crate) claim: ClaimMode,
    pub(crate) state: StateLayout,
    pub(crate) check_capacity: bool,
    pub(crate) check_reader_slots: bool,
    _item: PhantomData<fn() -> T>,
}

impl<T> core::fmt::Debug for SegmentSpec<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SegmentSpec")
            .field("item", &self.item)
            .field("capacity", &self.capacity)
            .field("reader_slots", &self.reader_slots)
            .field("claim", &self.claim)
            .field("state", &self.state)
            .field("check_capacity", &self.check_capacity)
            .field("check_reader_slots", &self.check_reader_slots)
            .finish()
    }
}

// Manual impls (and `Debug` above): a derive would require `T: Clone`/`T: Copy`/`T: Debug`
// of the spec's phantom item.
impl<T> Clone for SegmentSpec<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SegmentSpec<T> {}

impl<T: SharedItem> SegmentSpec<T> {
    /// A segment of at least `capacity` items of `T`, `reader_slots` reader slots, rings of
    /// `claim` mode and a state block of `state` (e.g. `Layout::new::<State>()`).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, SegmentSpec};
    /// let spec = SegmentSpec::<u64>::new(4096, 2, ClaimMode::MultiProducer, Layout::new::<u64>());
    /// assert_eq!((spec.capacity(), spec.reader_slots()), (4096, 2));
    /// ```
    pub fn new(capacity: usize, reader_slots: u32, claim: ClaimMode, state: Layout) -> Self {
        Self {
            item: ItemIdentity::of::<T>(),
            capacity,
            reader_slots,
            claim,
            state: StateLayout::from(state),
            check_capacity: true,
            check_reader_slots: true,
            _item: PhantomData,
        }
    }

    /// The item type under a name of the application's choosing instead of `type_name::<T>()`
    /// (see [`ItemIdentity::named`]).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, ItemIdentity, SegmentSpec};
    /// let spec = SegmentSpec::<[u8; 188]>::new(1024, 1, ClaimMode::SingleProducer,
    ///     Layout::new::<u64>()).item_name("mpeg-ts packet");
    /// assert_eq!(spec.item(), ItemIdentity::named::<[u8; 188]>("mpeg-ts packet"));
    /// ```
    #[must_use]
    pub fn item_name(mut self, name: &str) -> Self {
        self.item = ItemIdentity::named::<T>(name);
        self
    }
}

impl<T> SegmentSpec<T> {
    /// Attach to a segment of any capacity (the attacher learns it from the header).
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let _any = spec.any_capacity();
    /// ```
    #[must_use]
    pub fn any_capacity(mut self) -> Self {
        self.check_capacity = false;
        self
    }

    /// Attach to a segment with any number of reader slots.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(1, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// let _any = spec.any_reader_slots();
    /// ```
    #[must_use]
    pub fn any_reader_slots(mut self) -> Self {
        self.check_reader_slots = false;
        self
    }

    /// The requested (minimum) capacity.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(10, 1, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// assert_eq!(spec.capacity(), 10);
    /// ```
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The number of reader slots.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(10, 3, ClaimMode::SingleProducer, Layout::new::<u8>());
    /// assert_eq!(spec.reader_slots(), 3);
    /// ```
    pub fn reader_slots(&self) -> u32 {
        self.reader_slots
    }

    /// The claim mode.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, SegmentSpec};
    /// let spec = SegmentSpec::<u8>::new(10, 3, ClaimMode::MultiProducer, Layout::new::<u8>());
    /// assert_eq!(spec.claim(), ClaimMode::MultiProducer);
    /// ```
    pub fn claim(&self) -> ClaimMode {
        self.claim
    }

    /// The item identity that the header records and attachers compare.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, ItemIdentity, SegmentSpec};
    /// let spec = SegmentSpec::<u16>::new(10, 3, ClaimMode::MultiProducer, Layout::new::<u8>());
    /// assert_eq!(spec.item(), ItemIdentity::of::<u16>());
    /// ```
    pub fn item(&self) -> ItemIdentity {
        self.item
    }

    /// The state block's layout.
    ///
    /// ```
    /// use core::alloc::Layout;
    /// use spanring_std::shared::{ClaimMode, SegmentSpec, StateLayout};
    /// let spec = SegmentSpec::<u16>::new(10, 3, ClaimMode::MultiProducer, Layout::new::<u32>());
    /// assert_eq!(spec.state(), StateLayout { size: 4, align: 4 });
    /// ```
    pub fn state(&self) -> StateLayout {
        self.state
    }
}
