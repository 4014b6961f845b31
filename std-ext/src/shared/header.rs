//! [`Header`]: the first bytes of a shared segment, which say what the segment holds and where.
//!
//! Fixed-width fields only (no `usize`, no pointers), `#[repr(C, align(8))]`, so the same bytes
//! mean the same thing to a 64-bit and a 32-bit process (on i686 a bare `u64` field would be
//! 4-aligned; the explicit alignment and the `u32` pairs keep every `u64` at a multiple of 8 on
//! every target, which the const assertions below check field by field).
//!
//! Fields are stored in the creating machine's byte order; the endianness marker (and the
//! magic, read byte-swapped) tell a reader of the other byte order that it cannot use the
//! segment. Encoding and decoding go field by field through `to_ne_bytes`/`from_ne_bytes` at the
//! `offset_of!` offsets: no `unsafe`, no reliance on the bytes being a valid `Header`.
//!
//! The magic is the readiness flag: the creator writes every other field with the magic still
//! zero, then stores the magic with `Release` (see `segment.rs`); an attacher that loads it with
//! `Acquire` and finds it sees every field the creator wrote. A zero magic means the creator is
//! not done (or died before it was).

use core::mem::{offset_of, size_of};

use super::error::HeaderError;
use super::item::fnv1a;
use super::layout::SegmentLayout;

/// The magic number: the bytes `"spanring"` read as a big-endian `u64`. Not zero (zero means
/// "not ready") and not a palindrome (so a reader of the other byte order sees
/// `MAGIC.swap_bytes()`).
pub const MAGIC: u64 = u64::from_be_bytes(*b"spanring");

/// The format version this code writes and accepts.
pub const FORMAT_VERSION: u32 = 1;

/// The endianness marker, stored in the creator's byte order.
pub const ENDIAN_MARKER: u32 = 0x0102_0304;

/// The header's size in bytes (the same on every target).
pub const HEADER_LEN: usize = size_of::<Header>();

/// The header of a shared segment, as it lies in memory at offset 0 of the object.
///
/// Every offset and length is in bytes from the start of the object. Build one from a layout
/// with [`Header::for_layout`], turn it into bytes with [`to_bytes`](Self::to_bytes) and back
/// with [`from_bytes`](Self::from_bytes); [`validate`](super::validate) checks one.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | `magic` |
/// | 8 | 4 | `version` |
/// | 12 | 4 | `endian` |
/// | 16 | 4 | `header_len` |
/// | 20 | 4 | `claim_mode` |
/// | 24 | 8 | `page_size` |
/// | 32 | 8 | `layout_hash` |
/// | 40 | 8 | `item_name_hash` |
/// | 48 | 8 | `item_size` |
/// | 56 | 8 | `item_align` |
/// | 64 | 8 | `capacity` |
/// | 72 | 4 | `reader_slots` |
/// | 76 | 4 | `reserved` |
/// | 80 | 8 | `state_size` |
/// | 88 | 8 | `state_align` |
/// | 96 | 8 | `state_offset` |
/// | 104 | 8 | `state_len` |
/// | 112 | 8 | `slots_offset` |
/// | 120 | 8 | `slot_len` |
/// | 128 | 8 | `data_offset` |
/// | 136 | 8 | `data_len` |
/// | 144 | 8 | `total_size` |
///
/// ```
/// use spanring_std::shared::{ClaimMode, Header, ItemIdentity, SegmentLayout, StateLayout, HEADER_LEN};
/// let layout = SegmentLayout::compute(ItemIdentity::of::<u32>(), 1024, 1,
///     ClaimMode::SingleProducer, StateLayout { size: 64, align: 8 }, 4096)?;
/// let header = Header::for_layout(&layout);
/// let bytes = header.to_bytes();
/// assert_eq!(bytes.len(), HEADER_LEN);
/// assert_eq!(Header::from_bytes(&bytes), Ok(header));
/// # Ok::<(), spanring_std::shared::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C, align(8))]
pub struct Header {
    /// [`MAGIC`] once the creator has finished, 0 before.
    pub magic: u64,
    /// [`FORMAT_VERSION`] of the creator.
    pub version: u32,
    /// [`ENDIAN_MARKER`] in the creator's byte order.
    pub endian: u32,
    /// [`HEADER_LEN`] of the creator.
    pub header_len: u32,
    /// [`ClaimMode::to_raw`](super::ClaimMode::to_raw).
    pub claim_mode: u32,
    /// The page size the layout was computed for.
    pub page_size: u64,
    /// A hash of every field from `version` to `total_size` except `endian` and itself
    /// ([`Header::compute_layout_hash`]): catches a corrupted field that is still plausible.
    pub layout_hash: u64,
    /// [`ItemIdentity::name_hash`](super::ItemIdentity::name_hash).
    pub item_name_hash: u64,
    /// Item size in bytes.
    pub item_size: u64,
    /// Item alignment in bytes.
    pub item_align: u64,
    /// Items in the ring.
    pub capacity: u64,
    /// Reader slots.
    pub reader_slots: u32,
    /// Zero; a later format version may use it.
    pub reserved: u32,
    /// The state block's declared size.
    pub state_size: u64,
    /// The state block's declared alignment.
    pub state_align: u64,
    /// Where the state block starts.
    pub state_offset: u64,
    /// The state block's length, whole pages.
    pub state_len: u64,
    /// Where the reader slots start.
    pub slots_offset: u64,
    /// The length of one reader slot (one page).
    pub slot_len: u64,
    /// Where the data region starts.
    pub data_offset: u64,
    /// The data region's length.
    pub data_len: u64,
    /// The object's size.
    pub total_size: u64,
}

// The same layout on every target: size, alignment and each offset are asserted, so a change
// that would make a 32-bit and a 64-bit process disagree does not compile.
const _: () = {
    assert!(size_of::<Header>() == 152);
    assert!(core::mem::align_of::<Header>() == 8);
    assert!(offset_of!(Header, magic) == 0);
    assert!(offset_of!(Header, version) == 8);
    assert!(offset_of!(Header, endian) == 12);
    assert!(offset_of!(Header, header_len) == 16);
    assert!(offset_of!(Header, claim_mode) == 20);
    assert!(offset_of!(Header, page_size) == 24);
    assert!(offset_of!(Header, layout_hash) == 32);
    assert!(offset_of!(Header, item_name_hash) == 40);
    assert!(offset_of!(Header, item_size) == 48);
    assert!(offset_of!(Header, item_align) == 56);
    assert!(offset_of!(Header, capacity) == 64);
    assert!(offset_of!(Header, reader_slots) == 72);
    assert!(offset_of!(Header, reserved) == 76);
    assert!(offset_of!(Header, state_size) == 80);
    assert!(offset_of!(Header, state_align) == 88);
    assert!(offset_of!(Header, state_offset) == 96);
    assert!(offset_of!(Header, state_len) == 104);
    assert!(offset_of!(Header, slots_offset) == 112);
    assert!(offset_of!(Header, slot_len) == 120);
    assert!(offset_of!(Header, data_offset) == 128);
    assert!(offset_of!(Header, data_len) == 136);
    assert!(offset_of!(Header, total_size) == 144);
};
static_assertions::const_assert_eq!(HEADER_LEN, 152);

/// Reads `N` bytes at `at` (in bounds: callers pass `offset_of!` positions of a `HEADER_LEN`
/// slice, checked by `from_bytes`).
fn field<const N: usize>(bytes: &[u8; HEADER_LEN], at: usize) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&bytes[at..at + N]);
    out
}

impl Header {
    /// The header for `layout`, magic included (the creator stores the magic separately, last;
    /// see the module docs).
    ///
    /// ```
    /// use spanring_std::shared::{ClaimMode, Header, ItemIdentity, SegmentLayout, StateLayout, MAGIC};
    /// let layout = SegmentLayout::compute(ItemIdentity::of::<u8>(), 4096, 1,
    ///     ClaimMode::SingleProducer, StateLayout { size: 8, align: 8 }, 4096)?;
    /// let h = Header::for_layout(&layout);
    /// assert_eq!(h.magic, MAGIC);
    /// assert_eq!(h.total_size, layout.total);
    /// assert_eq!(h.layout_hash, h.compute_layout_hash());
    /// # Ok::<(), spanring_std::shared::LayoutError>(())
    /// ```
    pub fn for_layout(layout: &SegmentLayout) -> Self {
        let mut header = Self {
            magic: MAGIC,
            version: FORMAT_VERSION,
            endian: ENDIAN_MARKER,
            header_len: HEADER_LEN as u32,
            claim_mode: layout.claim.to_raw(),
            page_size: layout.page_size,
            layout_hash: 0,
            item_name_hash: layout.item.name_hash,
            item_size: layout.item.size,
            item_align: layout.item.align,
            capacity: layout.capacity,
            reader_slots: layout.reader_slots,
            reserved: 0,
            state_size: layout.state.size,
            state_align: layout.state.align,
            state_offset: layout.state_block.offset,
            state_len: layout.state_block.len,
            slots_offset: layout.slots.offset,
            slot_len: layout.page_size,
            data_offset: layout.data.offset,
            data_len: layout.data.len,
            total_size: layout.total,
        };
        header.layout_hash = header.compute_layout_hash();
        header
    }

    /// The hash of the layout fields (FNV-1a over each field's value as little-endian bytes,
    /// so the hash of a value does not depend on the machine).
    ///
    /// ```
    /// use spanring_std::shared::{ClaimMode, Header, ItemIdentity, SegmentLayout, StateLayout};
    /// let layout = SegmentLayout::compute(ItemIdentity::of::<u8>(), 4096, 1,
    ///     ClaimMode::SingleProducer, StateLayout { size: 8, align: 8 }, 4096)?;
    /// let mut h = Header::for_layout(&layout);
    /// h.capacity += 1;
    /// assert_ne!(h.layout_hash, h.compute_layout_hash());
    /// # Ok::<(), spanring_std::shared::LayoutError>(())
    /// ```
    pub fn compute_layout_hash(&self) -> u64 {
        let words: [u64; 19] = [
            u64::from(self.version),
            u64::from(self.header_len),
            u64::from(self.claim_mode),
            self.page_size,
            self.item_name_hash,
            self.item_size,
            self.item_align,
            self.capacity,
            u64::from(self.reader_slots),
            u64::from(self.reserved),
            self.state_size,
            self.state_align,
            self.state_offset,
            self.state_len,
            self.slots_offset,
            self.slot_len,
            self.data_offset,
            self.data_len,
            self.total_size,
        ];
        let mut bytes = [0u8; 19 * 8];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        fnv1a(&bytes)
    }

    /// The header's bytes as they lie in memory (native byte order).
    ///
    /// ```
    /// use spanring_std::shared::{ClaimMode, Header, ItemIdentity, SegmentLayout, StateLayout, MAGIC};
    /// let layout = SegmentLayout::compute(ItemIdentity::of::<u8>(), 4096, 1,
    ///     ClaimMode::SingleProducer, StateLayout { size: 8, align: 8 }, 4096)?;
    /// let bytes = Header::for_layout(&layout).to_bytes();
    /// assert_eq!(bytes[..8], MAGIC.to_ne_bytes());
    /// # Ok::<(), spanring_std::shared::LayoutError>(())
    /// ```
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        macro_rules! put {
            ($($f:ident),*) => {$(
                let at = offset_of!(Header, $f);
                let v = self.$f.to_ne_bytes();
                b[at..at + v.len()].copy_from_slice(&v);
            )*};
        }
        put!(
            magic,
            version,
            endian,
            header_len,
            claim_mode,
            page_size,
            layout_hash,
            item_name_hash,
            item_size,
            item_align,
            capacity,
            reader_slots,
            reserved,
            state_size,
            state_align,
            state_offset,
            state_len,
            slots_offset,
            slot_len,
            data_offset,
            data_len,
            total_size
        );
        b
    }

    /// Reads a header from the first [`HEADER_LEN`] bytes of `bytes` (native byte order). Any
    /// bytes decode; only a short slice is an error. Checking the values is
    /// [`validate`](super::validate)'s job.
    ///
    /// # Errors
    ///
    /// [`HeaderError::Truncated`] if `bytes` is shorter than a header.
    ///
    /// ```
    /// use spanring_std::shared::{Header, HeaderError, HEADER_LEN};
    /// let zeros = [0u8; HEADER_LEN];
    /// assert_eq!(Header::from_bytes(&zeros).unwrap().magic, 0);
    /// assert!(matches!(Header::from_bytes(&zeros[..10]), Err(HeaderError::Truncated { .. })));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, HeaderError> {
        let Some(b) = bytes
            .get(..HEADER_LEN)
            .and_then(|b| <&[u8; HEADER_LEN]>::try_from(b).ok())
        else {
            return Err(HeaderError::Truncated {
                len: bytes.len() as u64,
                needed: HEADER_LEN as u64,
            });
        };
        macro_rules! get {
            ($t:ty, $f:ident) => {
                <$t>::from_ne_bytes(field(b, offset_of!(Header, $f)))
            };
        }
        Ok(Self {
            magic: get!(u64, magic),
            version: get!(u32, version),
            endian: get!(u32, endian),
            header_len: get!(u32, header_len),
            claim_mode: get!(u32, claim_mode),
            page_size: get!(u64, page_size),
            layout_hash: get!(u64, layout_hash),
            item_name_hash: get!(u64, item_name_hash),
            item_size: get!(u64, item_size),
            item_align: get!(u64, item_align),
            capacity: get!(u64, capacity),
            reader_slots: get!(u32, reader_slots),
            reserved: get!(u32, reserved),
            state_size: get!(u64, state_size),
            state_align: get!(u64, state_align),
            state_offset: get!(u64, state_offset),
            state_len: get!(u64, state_len),
            slots_offset: get!(u64, slots_offset),
            slot_len: get!(u64, slot_len),
            data_offset: get!(u64, data_offset),
            data_len: get!(u64, data_len),
            total_size: get!(u64, total_size),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::{ClaimMode, ItemIdentity, StateLayout};

    #[test]
    fn bytes_round_trip_and_every_field_has_its_own_bytes() {
        let layout = SegmentLayout::compute(
            ItemIdentity::of::<[f32; 2]>(),
            512,
            3,
            ClaimMode::MultiProducer,
            StateLayout {
                size: 300,
                align: 128,
            },
            4096,
        )
        .unwrap();
        let h = Header::for_layout(&layout);
        let bytes = h.to_bytes();
        assert_eq!(Header::from_bytes(&bytes), Ok(h));
        // Flipping any byte changes the decoded header (no byte is ignored or shared).
        for i in 0..HEADER_LEN {
            let mut b = bytes;
            b[i] ^= 0xFF;
            assert_ne!(Header::from_bytes(&b).unwrap(), h, "byte {i}");
        }
    }
}
