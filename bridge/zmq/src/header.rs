//! GNU Radio's tag header (gr-zeromq with `pass_tags`): what precedes the items of a message.

use crate::pmt::skip_pmt;

/// The header's magic number, `0x5FF0` (little-endian on the wire: `f0 5f`).
pub const MAGIC: u16 = 0x5FF0;
/// The header version GNU Radio 3.8–3.10 writes and this crate reads: 1.
pub const VERSION: u8 = 1;
/// Bytes of a header without tags: `u16` magic, `u8` version, `u64` offset, `u64` tag count.
pub const HEADER_LEN: usize = 2 + 1 + 8 + 8;

/// A decoded tag header: where the message's items start in the stream, and where they start in
/// the message.
///
/// ```
/// use spanring_zmq::TagHeader;
///
/// let mut msg = Vec::new();
/// TagHeader::write(&mut msg, 1000);
/// assert_eq!(&msg[..3], &[0xf0, 0x5f, 0x01]); // magic (LE), version
/// assert_eq!(&msg[3..11], &1000u64.to_le_bytes()); // offset of the first item
/// assert_eq!(&msg[11..19], &0u64.to_le_bytes()); // no tags
/// msg.extend_from_slice(&[1, 2, 3, 4]);
/// let h = TagHeader::parse(&msg).unwrap();
/// assert_eq!((h.offset, h.tags, h.items_at), (1000, 0, 19));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagHeader {
    /// Absolute stream index of the message's first item (GNU Radio's `nitems_written` there).
    pub offset: u64,
    /// How many tags the header carried (their contents are skipped, not decoded).
    pub tags: u64,
    /// Byte index in the message where the items begin.
    pub items_at: usize,
}

/// Why a tag header could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// The message is shorter than a header.
    Short {
        /// The message's length in bytes.
        len: usize,
    },
    /// The first two bytes are not `f0 5f`.
    Magic {
        /// What they were (read little-endian).
        found: u16,
    },
    /// A version other than 1.
    Version {
        /// The version byte found.
        found: u8,
    },
    /// A tag's PMT-serialised key, value or source id is cut short or of an unknown kind.
    Tag {
        /// Which tag (0-based).
        index: u64,
    },
}

impl core::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Short { len } => write!(f, "message of {len} bytes is shorter than a tag header"),
            Self::Magic { found } => {
                write!(f, "tag header magic {found:#06x}, expected {MAGIC:#06x}")
            }
            Self::Version { found } => write!(f, "tag header version {found}, expected {VERSION}"),
            Self::Tag { index } => write!(f, "tag {index} of the header is malformed"),
        }
    }
}

impl std::error::Error for HeaderError {}

impl TagHeader {
    /// Appends a header without tags, first item at stream index `offset`, to `out`.
    pub fn write(out: &mut impl Extend<u8>, offset: u64) {
        out.extend(MAGIC.to_le_bytes());
        out.extend([VERSION]);
        out.extend(offset.to_le_bytes());
        out.extend(0u64.to_le_bytes());
    }

    /// The fixed-size header without tags, first item at `offset`.
    pub fn bytes(offset: u64) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..2].copy_from_slice(&MAGIC.to_le_bytes());
        b[2] = VERSION;
        b[3..11].copy_from_slice(&offset.to_le_bytes());
        b
    }

    /// Reads the header at the start of `msg`, skipping any tags.
    ///
    /// # Errors
    ///
    /// A [`HeaderError`] saying what is wrong; a header never panics, whatever the bytes.
    pub fn parse(msg: &[u8]) -> Result<Self, HeaderError> {
        if msg.len() < HEADER_LEN {
            return Err(HeaderError::Short { len: msg.len() });
        }
        let magic = u16::from_le_bytes([msg[0], msg[1]]);
        if magic != MAGIC {
            return Err(HeaderError::Magic { found: magic });
        }
        if msg[2] != VERSION {
            return Err(HeaderError::Version { found: msg[2] });
        }
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&msg[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let offset = word(3);
        let tags = word(11);
        let mut at = HEADER_LEN;
        for index in 0..tags {
            // Each tag: u64 offset (LE), then key, value and source id as serialised PMTs.
            let bad = HeaderError::Tag { index };
            at = at.checked_add(8).filter(|&a| a <= msg.len()).ok_or(bad)?;
            for _ in 0..3 {
                at = skip_pmt(msg, at).ok_or(bad)?;
            }
        }
        Ok(Self {
            offset,
            tags,
            items_at: at,
        })
    }
}
