//! [`validate`]: the attacher's check of a header, as a pure function over bytes.
//!
//! Everything an attacher learns about a segment comes from bytes that another process wrote,
//! maybe a faulty, older, foreign-endian or hostile one, or a file that was truncated. So the
//! check takes nothing on trust: it decodes the fields without `unsafe`, checks the magic,
//! byte order, version and header length, recomputes the layout hash, checks every part's
//! offset and length for overflow, page alignment, order and bounds, re-derives the whole
//! layout from the stored parameters with the creator's own function
//! ([`SegmentLayout::compute`]) and requires every stored offset to match, checks that the
//! object is exactly as large as recorded and that this process can map it, and finally
//! compares what the segment holds with what the attacher expects. Every failure is a
//! [`HeaderError`]; no input panics (the fuzz tests feed it mutated and truncated headers,
//! also under Miri).
//!
//! Being pure (no memory mapping, no system call) is what makes it testable under Miri and
//! fuzzable; `Segment::open` and `Segment::from_fd` call it on a copy of the header bytes
//! taken after an `Acquire` load of the magic, with the object size from `fstat`.

use super::error::HeaderError;
use super::header::{Header, ENDIAN_MARKER, FORMAT_VERSION, HEADER_LEN, MAGIC};
use super::item::ItemIdentity;
use super::layout::{ClaimMode, Extent, SegmentLayout, SegmentPart, StateLayout};

/// What an attacher expects of a segment, and what it knows about the object and itself.
///
/// ```
/// use spanring_std::shared::{ClaimMode, Expected, ItemIdentity, StateLayout};
/// let expected = Expected {
///     item: ItemIdentity::of::<u64>(),
///     claim: ClaimMode::SingleProducer,
///     state: StateLayout { size: 256, align: 64 },
///     capacity: None,     // take whatever the creator chose
///     reader_slots: Some(4),
///     page_size: 4096,
///     object_size: 4096 * 8,
/// };
/// assert_eq!(expected.capacity, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The item type.
    pub item: ItemIdentity,
    /// The claim mode.
    pub claim: ClaimMode,
    /// The protocol state block's size and alignment.
    pub state: StateLayout,
    /// The capacity in items, if the attacher requires one (`None`: any).
    pub capacity: Option<u64>,
    /// The number of reader slots, if the attacher requires one (`None`: any).
    pub reader_slots: Option<u32>,
    /// This process's page size (the layout must be page-aligned for it).
    pub page_size: u64,
    /// The object's real size (from `fstat`), which must equal the recorded total.
    pub object_size: u64,
}

/// What [`validate`] found: a header whose every field checks out, and the layout it describes.
///
/// ```
/// use spanring_std::shared::{validate, ClaimMode, Expected, Header, ItemIdentity, SegmentLayout,
///     StateLayout, FORMAT_VERSION};
/// let state = StateLayout { size: 64, align: 8 };
/// let layout = SegmentLayout::compute(ItemIdentity::of::<u16>(), 2048, 2,
///     ClaimMode::SingleProducer, state, 4096)?;
/// let bytes = Header::for_layout(&layout).to_bytes();
/// let info = validate(&bytes, &Expected {
///     item: ItemIdentity::of::<u16>(), claim: ClaimMode::SingleProducer, state,
///     capacity: Some(2048), reader_slots: None, page_size: 4096, object_size: layout.total,
/// })?;
/// assert_eq!(info.version, FORMAT_VERSION);
/// assert_eq!(info.layout, layout);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeaderInfo {
    /// The format version.
    pub version: u32,
    /// The header's layout hash.
    pub layout_hash: u64,
    /// Where everything lies; every part fits in the object and in this process's address
    /// space (both halves of the data mapping included).
    pub layout: SegmentLayout,
}

/// Checks the header in `bytes` against the object and `expected` (see the module docs for
/// the order of the checks). Pure: no system call, no `unsafe`, no panic for any input.
///
/// # Errors
///
/// One [`HeaderError`] per kind of failure: [`Truncated`](HeaderError::Truncated) (bytes or
/// object shorter than a header), [`NotReady`](HeaderError::NotReady) (magic still zero),
/// [`BadMagic`](HeaderError::BadMagic), [`ForeignEndian`](HeaderError::ForeignEndian),
/// [`BadEndianMarker`](HeaderError::BadEndianMarker),
/// [`UnsupportedVersion`](HeaderError::UnsupportedVersion),
/// [`HeaderLen`](HeaderError::HeaderLen), [`Reserved`](HeaderError::Reserved),
/// [`LayoutHash`](HeaderError::LayoutHash), [`UnknownClaimMode`](HeaderError::UnknownClaimMode),
/// [`PageSize`](HeaderError::PageSize), the part checks
/// ([`PartOverflow`](HeaderError::PartOverflow), [`PartMisaligned`](HeaderError::PartMisaligned),
/// [`PartsOutOfOrder`](HeaderError::PartsOutOfOrder),
/// [`PartOutOfBounds`](HeaderError::PartOutOfBounds)), [`Layout`](HeaderError::Layout) and
/// [`Inconsistent`](HeaderError::Inconsistent) (stored values that the parameters do not
/// produce), [`ObjectSize`](HeaderError::ObjectSize),
/// [`TooLargeForProcess`](HeaderError::TooLargeForProcess), and the expectation mismatches
/// ([`ItemMismatch`](HeaderError::ItemMismatch), [`ClaimMismatch`](HeaderError::ClaimMismatch),
/// [`StateMismatch`](HeaderError::StateMismatch),
/// [`CapacityMismatch`](HeaderError::CapacityMismatch),
/// [`ReaderSlotsMismatch`](HeaderError::ReaderSlotsMismatch)).
///
/// ```
/// use spanring_std::shared::{validate, ClaimMode, Expected, HeaderError, ItemIdentity,
///     StateLayout, HEADER_LEN};
/// let expected = Expected {
///     item: ItemIdentity::of::<u8>(), claim: ClaimMode::SingleProducer,
///     state: StateLayout { size: 8, align: 8 }, capacity: None, reader_slots: None,
///     page_size: 4096, object_size: 1 << 20,
/// };
/// assert_eq!(validate(&[0; HEADER_LEN], &expected), Err(HeaderError::NotReady));
/// assert!(matches!(validate(&[1, 2, 3], &expected), Err(HeaderError::Truncated { .. })));
/// ```
pub fn validate(bytes: &[u8], expected: &Expected) -> Result<HeaderInfo, HeaderError> {
    if expected.object_size < HEADER_LEN as u64 {
        return Err(HeaderError::Truncated {
            len: expected.object_size,
            needed: HEADER_LEN as u64,
        });
    }
    let h = Header::from_bytes(bytes)?;

    // Identity of the format.
    if h.magic == 0 {
        return Err(HeaderError::NotReady);
    }
    if h.magic == MAGIC.swap_bytes() || h.endian == ENDIAN_MARKER.swap_bytes() {
        return Err(HeaderError::ForeignEndian);
    }
    if h.magic != MAGIC {
        return Err(HeaderError::BadMagic { found: h.magic });
    }
    if h.endian != ENDIAN_MARKER {
        return Err(HeaderError::BadEndianMarker { found: h.endian });
    }
    if h.version != FORMAT_VERSION {
        return Err(HeaderError::UnsupportedVersion {
            found: h.version,
            supported: FORMAT_VERSION,
        });
    }
    if h.header_len != HEADER_LEN as u32 {
        return Err(HeaderError::HeaderLen {
            found: h.header_len,
            expected: HEADER_LEN as u32,
        });
    }
    if h.reserved != 0 {
        return Err(HeaderError::Reserved { found: h.reserved });
    }
    let computed = h.compute_layout_hash();
    if h.layout_hash != computed {
        return Err(HeaderError::LayoutHash {
            stored: h.layout_hash,
            computed,
        });
    }
    let Some(claim) = ClaimMode::from_raw(h.claim_mode) else {
        return Err(HeaderError::UnknownClaimMode {
            found: h.claim_mode,
        });
    };
    if h.page_size != expected.page_size {
        return Err(HeaderError::PageSize {
            found: h.page_size,
            expected: expected.page_size,
        });
    }

    // The stored parts, each on its own: no overflow, page-aligned, in order, inside the total.
    check_parts(&h)?;

    // The stored parameters must produce exactly the stored parts.
    let item = ItemIdentity {
        size: h.item_size,
        align: h.item_align,
        name_hash: h.item_name_hash,
    };
    let state = StateLayout {
        size: h.state_size,
        align: h.state_align,
    };
    let layout =
        SegmentLayout::compute(item, h.capacity, h.reader_slots, claim, state, h.page_size)
            .map_err(HeaderError::Layout)?;
    let derived = Header::for_layout(&layout);
    let pairs = [
        ("state_offset", h.state_offset, derived.state_offset),
        ("state_len", h.state_len, derived.state_len),
        ("slots_offset", h.slots_offset, derived.slots_offset),
        ("slot_len", h.slot_len, derived.slot_len),
        ("data_offset", h.data_offset, derived.data_offset),
        ("data_len", h.data_len, derived.data_len),
        ("total_size", h.total_size, derived.total_size),
    ];
    for (field, stored, derived) in pairs {
        if stored != derived {
            return Err(HeaderError::Inconsistent {
                field,
                stored,
                derived,
            });
        }
    }

    // The object as it really is, and this process.
    if expected.object_size != layout.total {
        return Err(HeaderError::ObjectSize {
            object_size: expected.object_size,
            recorded: layout.total,
        });
    }
    check_fits_process(&layout)?;

    // What the attacher expects.
    if item != expected.item {
        return Err(HeaderError::ItemMismatch {
            expected: expected.item,
            found: item,
        });
    }
    if claim != expected.claim {
        return Err(HeaderError::ClaimMismatch {
            expected: expected.claim,
            found: claim,
        });
    }
    if state != expected.state {
        return Err(HeaderError::StateMismatch {
            expected: expected.state,
            found: state,
        });
    }
    if let Some(capacity) = expected.capacity {
        if capacity != layout.capacity {
            return Err(HeaderError::CapacityMismatch {
                expected: capacity,
                found: layout.capacity,
            });
        }
    }
    if let Some(slots) = expected.reader_slots {
        if slots != layout.reader_slots {
            return Err(HeaderError::ReaderSlotsMismatch {
                expected: slots,
                found: layout.reader_slots,
            });
        }
    }
    Ok(HeaderInfo {
        version: h.version,
        layout_hash: h.layout_hash,
        layout,
    })
}

/// Each stored part: its end does not overflow, it starts and ends on a page boundary, it
/// starts where the previous one ended or later, and it ends inside the recorded total.
fn check_parts(h: &Header) -> Result<(), HeaderError> {
    let slots_len =
        u64::from(h.reader_slots)
            .checked_mul(h.slot_len)
            .ok_or(HeaderError::PartOverflow {
                part: SegmentPart::ReaderSlots,
            })?;
    let parts = [
        (
            SegmentPart::Header,
            Extent {
                offset: 0,
                len: h.page_size,
            },
        ),
        (
            SegmentPart::State,
            Extent {
                offset: h.state_offset,
                len: h.state_len,
            },
        ),
        (
            SegmentPart::ReaderSlots,
            Extent {
                offset: h.slots_offset,
                len: slots_len,
            },
        ),
        (
            SegmentPart::Data,
            Extent {
                offset: h.data_offset,
                len: h.data_len,
            },
        ),
    ];
    // `page_size` was compared with this process's page size, a power of two, but check here
    // too so this function stands alone (and never divides by zero).
    let page = h.page_size;
    if !page.is_power_of_two() {
        return Err(HeaderError::Layout(super::LayoutError::PageSize {
            page_size: page,
        }));
    }
    let mut previous_end = 0u64;
    for (part, extent) in parts {
        let Some(end) = extent.end() else {
            return Err(HeaderError::PartOverflow { part });
        };
        if extent.offset % page != 0 || extent.len % page != 0 {
            return Err(HeaderError::PartMisaligned {
                part,
                offset: extent.offset,
                len: extent.len,
            });
        }
        if extent.offset < previous_end {
            return Err(HeaderError::PartsOutOfOrder {
                part,
                offset: extent.offset,
                previous_end,
            });
        }
        if end > h.total_size {
            return Err(HeaderError::PartOutOfBounds {
                part,
                end,
                total: h.total_size,
            });
        }
        previous_end = end;
    }
    Ok(())
}

/// The object, and the address space for the data region's two halves, fit in this process
/// (`isize::MAX` bytes at most per mapping, as pointer offsets require).
fn check_fits_process(layout: &SegmentLayout) -> Result<(), HeaderError> {
    let limit = isize::MAX as u64;
    let both_halves = layout.data.len.checked_mul(2);
    match both_halves {
        Some(both) if layout.total <= limit && both <= limit => Ok(()),
        _ => Err(HeaderError::TooLargeForProcess {
            total: layout.total,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (SegmentLayout, Expected) {
        let state = StateLayout {
            size: 200,
            align: 64,
        };
        let item = ItemIdentity::of::<u32>();
        let layout =
            SegmentLayout::compute(item, 2048, 2, ClaimMode::MultiProducer, state, 4096).unwrap();
        let expected = Expected {
            item,
            claim: ClaimMode::MultiProducer,
            state,
            capacity: Some(2048),
            reader_slots: Some(2),
            page_size: 4096,
            object_size: layout.total,
        };
        (layout, expected)
    }

    /// Re-encodes `h` with a fresh layout hash, so the check behind the hash is reached.
    fn rehashed(mut h: Header) -> [u8; HEADER_LEN] {
        h.layout_hash = h.compute_layout_hash();
        h.to_bytes()
    }

    #[test]
    fn a_valid_header_validates() {
        let (layout, expected) = sample();
        let info = validate(&Header::for_layout(&layout).to_bytes(), &expected).unwrap();
        assert_eq!(info.layout, layout);
    }

    #[test]
    fn each_check_has_its_error() {
        let (layout, expected) = sample();
        let good = Header::for_layout(&layout);
        let check = |h: Header| validate(&rehashed(h), &expected);

        let mut h = good;
        h.magic = MAGIC.swap_bytes();
        assert_eq!(check(h), Err(HeaderError::ForeignEndian));
        h = good;
        h.magic = 7;
        assert_eq!(check(h), Err(HeaderError::BadMagic { found: 7 }));
        h = good;
        h.endian = 9;
        assert_eq!(check(h), Err(HeaderError::BadEndianMarker { found: 9 }));
        h = good;
        h.version = 2;
        assert!(matches!(
            check(h),
            Err(HeaderError::UnsupportedVersion { found: 2, .. })
        ));
        h = good;
        h.header_len = 8;
        assert!(matches!(
            check(h),
            Err(HeaderError::HeaderLen { found: 8, .. })
        ));
        h = good;
        h.reserved = 1;
        assert_eq!(check(h), Err(HeaderError::Reserved { found: 1 }));
        h = good;
        h.claim_mode = 0;
        assert_eq!(check(h), Err(HeaderError::UnknownClaimMode { found: 0 }));
        h = good;
        h.page_size = 8192;
        assert!(matches!(
            check(h),
            Err(HeaderError::PageSize { found: 8192, .. })
        ));
        h = good;
        h.data_offset += 1;
        assert!(matches!(
            check(h),
            Err(HeaderError::PartMisaligned {
                part: SegmentPart::Data,
                ..
            })
        ));
        h = good;
        h.data_offset = u64::MAX - 4095;
        assert!(matches!(
            check(h),
            Err(HeaderError::PartOverflow {
                part: SegmentPart::Data
            })
        ));
        h = good;
        h.slots_offset = 0;
        assert!(matches!(
            check(h),
            Err(HeaderError::PartsOutOfOrder {
                part: SegmentPart::ReaderSlots,
                ..
            })
        ));
        h = good;
        h.total_size -= 4096;
        assert!(matches!(
            check(h),
            Err(HeaderError::PartOutOfBounds {
                part: SegmentPart::Data,
                ..
            })
        ));
        h = good;
        h.data_offset += 4096;
        h.total_size += 4096;
        assert!(matches!(
            check(h),
            Err(HeaderError::Inconsistent {
                field: "data_offset",
                ..
            })
        ));
        h = good;
        h.capacity = 100; // 400 bytes: not whole pages
        assert!(matches!(
            check(h),
            Err(HeaderError::Layout(
                crate::shared::LayoutError::DataNotWholePages { .. }
            ))
        ));
        h = good;
        h.capacity += 1;
        assert!(matches!(
            validate(&h.to_bytes(), &expected),
            Err(HeaderError::LayoutHash { .. })
        ));
        let short = Expected {
            object_size: layout.total - 4096,
            ..expected
        };
        assert!(matches!(
            validate(&good.to_bytes(), &short),
            Err(HeaderError::ObjectSize { .. })
        ));
    }

    #[test]
    fn expectations_are_compared() {
        let (layout, expected) = sample();
        let bytes = Header::for_layout(&layout).to_bytes();
        let with = |e: Expected| validate(&bytes, &e);
        assert!(matches!(
            with(Expected {
                item: ItemIdentity::of::<i32>(),
                ..expected
            }),
            Err(HeaderError::ItemMismatch { .. })
        ));
        assert!(matches!(
            with(Expected {
                claim: ClaimMode::SingleProducer,
                ..expected
            }),
            Err(HeaderError::ClaimMismatch { .. })
        ));
        assert!(matches!(
            with(Expected {
                capacity: Some(1024),
                ..expected
            }),
            Err(HeaderError::CapacityMismatch {
                expected: 1024,
                found: 2048
            })
        ));
        assert!(matches!(
            with(Expected {
                reader_slots: Some(3),
                ..expected
            }),
            Err(HeaderError::ReaderSlotsMismatch { .. })
        ));
        assert!(matches!(
            with(Expected {
                state: StateLayout { size: 8, align: 8 },
                ..expected
            }),
            Err(HeaderError::StateMismatch { .. })
        ));
        let any = Expected {
            capacity: None,
            reader_slots: None,
            ..expected
        };
        assert!(with(any).is_ok());
    }
}
