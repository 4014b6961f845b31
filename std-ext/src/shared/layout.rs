//! [`SegmentLayout`]: where each part of a shared segment lies, derived from a few parameters by
//! one pure function that the creator and every attacher run alike.
//!
//! ```text
//! offset 0             one page   header (fixed-width fields, see `Header`)
//! state_block.offset   ⌈state⌉    the ring's protocol state (size/align from the caller)
//! slots.offset         n pages    one page per reader slot: a reader's cursor, written by
//!                                 that reader only (so each can be mapped writable alone)
//! data.offset          capacity × item size, a whole number of pages (double-mapped)
//! total                = data.offset + data.len: the object's size
//! ```
//!
//! Every part starts on a page boundary, because a reader maps them with different access
//! (header and other readers' slots read-only, state and its own slot read-write, data
//! read-only) and access is per page. All numbers are `u64`, whatever the process's word size,
//! so a 32-bit and a 64-bit process derive the same layout; [`SegmentLayout::compute`] uses
//! checked arithmetic and returns a [`LayoutError`] for any parameter it cannot lay out.

use core::fmt;

use super::item::ItemIdentity;

/// Who may claim slots of the ring that will live in the segment. Part of the layout check: a
/// multi-producer writer must not attach to a ring whose state was laid out for one producer.
///
/// ```
/// use spanring_std::shared::ClaimMode;
/// assert_eq!(ClaimMode::from_raw(ClaimMode::MultiProducer.to_raw()), Some(ClaimMode::MultiProducer));
/// assert_eq!(ClaimMode::from_raw(0), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimMode {
    /// One writer (`SingleProducer` in core).
    SingleProducer,
    /// Several writers claiming with a CAS (`MultiProducer` in core).
    MultiProducer,
}

impl ClaimMode {
    /// The value stored in the header (1 or 2; 0 is never valid, so zeroed memory is not a
    /// mode).
    ///
    /// ```
    /// assert_eq!(spanring_std::shared::ClaimMode::SingleProducer.to_raw(), 1);
    /// ```
    pub const fn to_raw(self) -> u32 {
        match self {
            ClaimMode::SingleProducer => 1,
            ClaimMode::MultiProducer => 2,
        }
    }

    /// The mode a header value stands for, if any.
    ///
    /// ```
    /// use spanring_std::shared::ClaimMode;
    /// assert_eq!(ClaimMode::from_raw(1), Some(ClaimMode::SingleProducer));
    /// assert_eq!(ClaimMode::from_raw(3), None);
    /// ```
    pub const fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            1 => Some(ClaimMode::SingleProducer),
            2 => Some(ClaimMode::MultiProducer),
            _ => None,
        }
    }
}

impl fmt::Display for ClaimMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClaimMode::SingleProducer => "single producer",
            ClaimMode::MultiProducer => "multi producer",
        })
    }
}

/// Size and alignment of the protocol state block, as the caller declares it (typically
/// `Layout::new::<State>()` of a `#[repr(C)]` state with fixed-width fields).
///
/// ```
/// use core::alloc::Layout;
/// use spanring_std::shared::StateLayout;
/// let s = StateLayout::from(Layout::new::<[u64; 32]>());
/// assert_eq!((s.size, s.align), (256, 8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StateLayout {
    /// Bytes of state.
    pub size: u64,
    /// Its alignment (a power of two, at most the page size).
    pub align: u64,
}

impl From<core::alloc::Layout> for StateLayout {
    fn from(layout: core::alloc::Layout) -> Self {
        // `as u64`: usize is at most 64 bits on every target Rust supports.
        Self {
            size: layout.size() as u64,
            align: layout.align() as u64,
        }
    }
}

/// A byte range of the segment: `offset..offset + len`.
///
/// ```
/// use spanring_std::shared::Extent;
/// let e = Extent { offset: 4096, len: 8192 };
/// assert_eq!(e.end(), Some(12288));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Extent {
    /// First byte, from the start of the object.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
}

impl Extent {
    /// One past the last byte, `None` if that overflows.
    ///
    /// ```
    /// use spanring_std::shared::Extent;
    /// assert_eq!(Extent { offset: u64::MAX, len: 1 }.end(), None);
    /// ```
    pub const fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.len)
    }
}

/// The parts of a segment, named in errors.
///
/// ```
/// use spanring_std::shared::SegmentPart;
/// assert_eq!(SegmentPart::Data.to_string(), "data region");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentPart {
    /// The header page.
    Header,
    /// The protocol state block.
    State,
    /// The reader slot pages.
    ReaderSlots,
    /// The data region.
    Data,
}

impl fmt::Display for SegmentPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SegmentPart::Header => "header",
            SegmentPart::State => "state block",
            SegmentPart::ReaderSlots => "reader slots",
            SegmentPart::Data => "data region",
        })
    }
}

/// Where everything lies in a segment, and what it was laid out for.
///
/// Built by [`compute`](Self::compute) (creator) or read back and checked from a header by
/// [`validate`](super::validate) (attacher).
///
/// ```
/// use spanring_std::shared::{ClaimMode, ItemIdentity, SegmentLayout, StateLayout};
/// let layout = SegmentLayout::compute(
///     ItemIdentity::of::<u64>(),
///     512, // 512 × 8 bytes = one 4 KiB page
///     2,
///     ClaimMode::SingleProducer,
///     StateLayout { size: 640, align: 128 },
///     4096,
/// )?;
/// assert_eq!(layout.state_block.offset, 4096);
/// assert_eq!(layout.slots.offset, 8192);
/// assert_eq!(layout.data.offset, 8192 + 2 * 4096);
/// assert_eq!(layout.total, layout.data.offset + 4096);
/// # Ok::<(), spanring_std::shared::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SegmentLayout {
    /// The page size every part is aligned to.
    pub page_size: u64,
    /// The item type.
    pub item: ItemIdentity,
    /// Items in the ring (one half of the double mapping).
    pub capacity: u64,
    /// Reader slots (one page each).
    pub reader_slots: u32,
    /// The claim mode of the ring.
    pub claim: ClaimMode,
    /// The state block's declared size and alignment.
    pub state: StateLayout,
    /// The header: `0..page_size`.
    pub header: Extent,
    /// The state block, rounded up to whole pages.
    pub state_block: Extent,
    /// All reader slots, one page each.
    pub slots: Extent,
    /// The data region: `capacity × item.size` bytes, a whole number of pages.
    pub data: Extent,
    /// The object's size: the end of the data region.
    pub total: u64,
}

impl SegmentLayout {
    /// Lays out a segment for `capacity` items of `item`, `reader_slots` readers, a state block
    /// of `state` and pages of `page_size` bytes.
    ///
    /// `capacity × item.size` must be a whole number of pages: round a requested capacity with
    /// [`round_capacity`](Self::round_capacity) first.
    ///
    /// # Errors
    ///
    /// A [`LayoutError`] for each parameter that cannot be laid out: a page size that is not a
    /// power of two of at least the header's size, a zero-sized item, an alignment that is not
    /// a power of two, is above the page size or does not divide the size, zero capacity, zero
    /// reader slots, an empty state, a data region that is not whole pages, or any overflow.
    ///
    /// ```
    /// use spanring_std::shared::{ClaimMode, ItemIdentity, LayoutError, SegmentLayout, StateLayout};
    /// let err = SegmentLayout::compute(
    ///     ItemIdentity::of::<u64>(),
    ///     100, // 800 bytes: not a whole page
    ///     1,
    ///     ClaimMode::SingleProducer,
    ///     StateLayout { size: 64, align: 8 },
    ///     4096,
    /// );
    /// assert!(matches!(err, Err(LayoutError::DataNotWholePages { .. })));
    /// ```
    pub fn compute(
        item: ItemIdentity,
        capacity: u64,
        reader_slots: u32,
        claim: ClaimMode,
        state: StateLayout,
        page_size: u64,
    ) -> Result<Self, LayoutError> {
        if !page_size.is_power_of_two() || page_size < super::header::HEADER_LEN as u64 {
            return Err(LayoutError::PageSize { page_size });
        }
        if item.size == 0 {
            return Err(LayoutError::ZeroSizedItem);
        }
        if !item.align.is_power_of_two() || item.align > page_size || item.size % item.align != 0 {
            return Err(LayoutError::ItemAlign {
                size: item.size,
                align: item.align,
            });
        }
        if capacity == 0 {
            return Err(LayoutError::ZeroCapacity);
        }
        if reader_slots == 0 {
            return Err(LayoutError::NoReaderSlots);
        }
        if state.size == 0 {
            return Err(LayoutError::EmptyState);
        }
        if !state.align.is_power_of_two() || state.align > page_size {
            return Err(LayoutError::StateAlign { align: state.align });
        }
        let data_len = capacity
            .checked_mul(item.size)
            .ok_or(LayoutError::Overflow)?;
        if data_len % page_size != 0 {
            return Err(LayoutError::DataNotWholePages {
                bytes: data_len,
                page_size,
            });
        }
        let header = Extent {
            offset: 0,
            len: page_size,
        };
        let state_block = Extent {
            offset: page_size,
            len: round_up(state.size, page_size).ok_or(LayoutError::Overflow)?,
        };
        let slots = Extent {
            offset: state_block.end().ok_or(LayoutError::Overflow)?,
            len: u64::from(reader_slots)
                .checked_mul(page_size)
                .ok_or(LayoutError::Overflow)?,
        };
        let data = Extent {
            offset: slots.end().ok_or(LayoutError::Overflow)?,
            len: data_len,
        };
        let total = data.end().ok_or(LayoutError::Overflow)?;
        Ok(Self {
            page_size,
            item,
            capacity,
            reader_slots,
            claim,
            state,
            header,
            state_block,
            slots,
            data,
            total,
        })
    }

    /// The smallest capacity of at least `min_capacity` items of `item_size` bytes whose data
    /// region is a whole number of pages (the rule of [`DoubleMapped`](crate::DoubleMapped)).
    ///
    /// # Errors
    ///
    /// [`LayoutError::ZeroSizedItem`], [`LayoutError::ZeroCapacity`],
    /// [`LayoutError::PageSize`], or [`LayoutError::Overflow`].
    ///
    /// ```
    /// use spanring_std::shared::SegmentLayout;
    /// assert_eq!(SegmentLayout::round_capacity(1000, 4, 4096), Ok(1024));
    /// assert_eq!(SegmentLayout::round_capacity(1, 3, 4096), Ok(4096)); // lcm(4096, 3) bytes
    /// ```
    pub fn round_capacity(
        min_capacity: u64,
        item_size: u64,
        page_size: u64,
    ) -> Result<u64, LayoutError> {
        if !page_size.is_power_of_two() {
            return Err(LayoutError::PageSize { page_size });
        }
        if item_size == 0 {
            return Err(LayoutError::ZeroSizedItem);
        }
        if min_capacity == 0 {
            return Err(LayoutError::ZeroCapacity);
        }
        // Items per lcm(page, item) bytes: page / gcd(page, item).
        let unit = page_size / gcd(page_size, item_size);
        min_capacity
            .div_ceil(unit)
            .checked_mul(unit)
            .ok_or(LayoutError::Overflow)
    }

    /// The page of reader slot `slot`, `None` past the last slot.
    ///
    /// ```
    /// use spanring_std::shared::{ClaimMode, ItemIdentity, SegmentLayout, StateLayout};
    /// let l = SegmentLayout::compute(ItemIdentity::of::<u8>(), 4096, 3,
    ///     ClaimMode::MultiProducer, StateLayout { size: 1, align: 1 }, 4096)?;
    /// assert_eq!(l.slot(2).unwrap().offset, l.slots.offset + 2 * 4096);
    /// assert_eq!(l.slot(3), None);
    /// # Ok::<(), spanring_std::shared::LayoutError>(())
    /// ```
    pub fn slot(&self, slot: u32) -> Option<Extent> {
        if slot >= self.reader_slots {
            return None;
        }
        Some(Extent {
            offset: self.slots.offset + u64::from(slot) * self.page_size,
            len: self.page_size,
        })
    }
}

/// `value` rounded up to a multiple of `to` (a power of two), `None` on overflow.
fn round_up(value: u64, to: u64) -> Option<u64> {
    Some(value.checked_add(to - 1)? & !(to - 1))
}

/// Greatest common divisor (Euclid).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

/// Why a set of parameters cannot be laid out as a segment.
///
/// ```
/// use spanring_std::shared::{LayoutError, SegmentLayout};
/// assert_eq!(SegmentLayout::round_capacity(0, 8, 4096), Err(LayoutError::ZeroCapacity));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutError {
    /// The page size is not a power of two, or smaller than the header.
    PageSize {
        /// The page size given.
        page_size: u64,
    },
    /// The item type has size zero.
    ZeroSizedItem,
    /// The item's alignment is not a power of two, exceeds the page size, or does not divide
    /// its size.
    ItemAlign {
        /// Item size.
        size: u64,
        /// Item alignment.
        align: u64,
    },
    /// Zero items.
    ZeroCapacity,
    /// Zero reader slots.
    NoReaderSlots,
    /// A state block of zero bytes.
    EmptyState,
    /// The state's alignment is not a power of two, or exceeds the page size.
    StateAlign {
        /// The alignment given.
        align: u64,
    },
    /// The data region is not a whole number of pages (the capacity was not rounded).
    DataNotWholePages {
        /// `capacity × item size`.
        bytes: u64,
        /// The page size.
        page_size: u64,
    },
    /// A size or offset overflows 64 bits.
    Overflow,
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::PageSize { page_size } => write!(
                f,
                "page size {page_size} is not a power of two of at least the header's size"
            ),
            LayoutError::ZeroSizedItem => f.write_str("the item type has size zero"),
            LayoutError::ItemAlign { size, align } => write!(
                f,
                "item alignment {align} (size {size}) is not a power of two dividing the size \
                 and at most a page"
            ),
            LayoutError::ZeroCapacity => f.write_str("a ring needs at least one item"),
            LayoutError::NoReaderSlots => f.write_str("a segment needs at least one reader slot"),
            LayoutError::EmptyState => f.write_str("the state block has size zero"),
            LayoutError::StateAlign { align } => write!(
                f,
                "state alignment {align} is not a power of two of at most a page"
            ),
            LayoutError::DataNotWholePages { bytes, page_size } => write!(
                f,
                "a data region of {bytes} bytes is not a whole number of {page_size}-byte pages"
            ),
            LayoutError::Overflow => f.write_str("the segment's size overflows 64 bits"),
        }
    }
}

impl std::error::Error for LayoutError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> StateLayout {
        StateLayout {
            size: 100,
            align: 64,
        }
    }

    #[test]
    fn parts_are_page_aligned_ordered_and_end_at_total() {
        for page in [4096u64, 16384, 65536] {
            let cap = SegmentLayout::round_capacity(1000, 24, page).unwrap();
            let l = SegmentLayout::compute(
                ItemIdentity::of::<[u64; 3]>(),
                cap,
                5,
                ClaimMode::MultiProducer,
                state(),
                page,
            )
            .unwrap();
            let parts = [l.header, l.state_block, l.slots, l.data];
            for p in parts {
                assert_eq!(p.offset % page, 0);
                assert_eq!(p.len % page, 0);
                assert!(p.len > 0);
            }
            for w in parts.windows(2) {
                assert_eq!(w[0].end(), Some(w[1].offset));
            }
            assert_eq!(l.data.end(), Some(l.total));
            assert_eq!(l.data.len, cap * 24);
        }
    }

    #[test]
    fn bad_parameters_are_typed_errors() {
        let id = ItemIdentity::of::<u32>();
        let c = ClaimMode::SingleProducer;
        let compute =
            |id, cap, slots, st, page| SegmentLayout::compute(id, cap, slots, c, st, page);
        assert_eq!(
            compute(id, 1024, 1, state(), 4095),
            Err(LayoutError::PageSize { page_size: 4095 })
        );
        assert_eq!(
            compute(id, 1024, 1, state(), 64),
            Err(LayoutError::PageSize { page_size: 64 })
        );
        assert_eq!(
            compute(id, 0, 1, state(), 4096),
            Err(LayoutError::ZeroCapacity)
        );
        assert_eq!(
            compute(id, 1024, 0, state(), 4096),
            Err(LayoutError::NoReaderSlots)
        );
        let empty = StateLayout { size: 0, align: 8 };
        assert_eq!(
            compute(id, 1024, 1, empty, 4096),
            Err(LayoutError::EmptyState)
        );
        let odd = StateLayout { size: 8, align: 3 };
        assert_eq!(
            compute(id, 1024, 1, odd, 4096),
            Err(LayoutError::StateAlign { align: 3 })
        );
        let huge = ItemIdentity {
            size: 1 << 40,
            align: 8,
            name_hash: 0,
        };
        assert_eq!(
            compute(huge, 1 << 30, 1, state(), 4096),
            Err(LayoutError::Overflow)
        );
        let zst = ItemIdentity {
            size: 0,
            align: 1,
            name_hash: 0,
        };
        assert_eq!(
            compute(zst, 1024, 1, state(), 4096),
            Err(LayoutError::ZeroSizedItem)
        );
        assert_eq!(
            SegmentLayout::round_capacity(u64::MAX, 3, 4096),
            Err(LayoutError::Overflow)
        );
    }
}
