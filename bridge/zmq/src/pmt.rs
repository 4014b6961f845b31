//! Skipping GNU Radio PMTs (polymorphic types) in their serialised form, to find where a tag
//! header's tags end. Values are not decoded: the bridge carries stream positions, not tags.
//!
//! The serialised form (GNU Radio 3.10's `pmt::serialize`, big-endian lengths), checked against
//! `pmt.serialize_str` of Debian's GNU Radio 3.10.5.1: one type byte, then
//!
//! | type byte | kind | what follows |
//! | --- | --- | --- |
//! | `00`, `01`, `06` | true, false, nil | nothing |
//! | `02` | symbol | `u16` length, bytes |
//! | `03` | int32 | 4 bytes |
//! | `04`, `0b`, `0d` | double, uint64, int64 | 8 bytes |
//! | `05` | complex | 16 bytes |
//! | `07`, `09` | pair, dict | two PMTs (a dict is a list of key/value pairs) |
//! | `08`, `0c` | vector, tuple | `u32` count, that many PMTs |
//! | `0a` | uniform vector | `u8` element kind, `u32` count, `u8` pad length, pad bytes, count × element size |

/// Byte size of a uniform vector's element, by its kind byte (u8, s8, u16, s16, u32, s32, u64,
/// s64, f32, f64, c32, c64).
fn element_size(kind: u8) -> Option<usize> {
    const SIZES: [usize; 12] = [1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16];
    SIZES.get(usize::from(kind)).copied()
}

/// Returns the index just past the serialised PMT that starts at `msg[at]`, or `None` if it is
/// cut short or of an unknown kind. Iterative (a count of PMTs still to skip), so hostile nesting
/// cannot overflow the stack; every PMT takes at least one byte, so the count is bounded by the
/// bytes left.
///
/// ```
/// // A pair of a symbol "ab" and an int32 5, then one byte of payload.
/// let msg = [0x07, 0x02, 0x00, 0x02, b'a', b'b', 0x03, 0, 0, 0, 5, 0xff];
/// assert_eq!(spanring_zmq::skip_pmt(&msg, 0), Some(11));
/// assert_eq!(spanring_zmq::skip_pmt(&msg[..5], 0), None); // cut short
/// ```
pub fn skip_pmt(msg: &[u8], mut at: usize) -> Option<usize> {
    let take = |at: usize, n: usize| at.checked_add(n).filter(|&end| end <= msg.len());
    let be = |from: usize, n: usize| -> Option<usize> {
        let bytes = msg.get(from..from.checked_add(n)?)?;
        Some(
            bytes
                .iter()
                .fold(0usize, |acc, &b| (acc << 8) | usize::from(b)),
        )
    };
    let mut pending: usize = 1;
    while pending > 0 {
        pending -= 1;
        let kind = *msg.get(at)?;
        at += 1;
        at = match kind {
            0x00 | 0x01 | 0x06 => at,
            0x02 => take(at + 2, be(at, 2)?)?,
            0x03 => take(at, 4)?,
            0x04 | 0x0b | 0x0d => take(at, 8)?,
            0x05 => take(at, 16)?,
            0x07 | 0x09 => {
                pending += 2;
                at
            }
            0x08 | 0x0c => {
                pending = pending.checked_add(be(at, 4)?)?;
                at + 4
            }
            0x0a => {
                let size = element_size(*msg.get(at)?)?;
                let count = be(at + 1, 4)?;
                let pad = usize::from(*msg.get(at + 5)?);
                take(at + 6, pad.checked_add(count.checked_mul(size)?)?)?
            }
            _ => return None,
        };
        if pending > msg.len() - at {
            return None; // more PMTs announced than bytes left: each needs one at least
        }
    }
    Some(at)
}
