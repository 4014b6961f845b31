//! The capacity rule of [`DoubleMapped`](super::DoubleMapped): how many items fit in a byte length
//! that both the page size and the item size divide.

use super::error::MapError;

/// Greatest common divisor (Euclid); `gcd(a, 0) == a`.
const fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

/// The rounded capacity: item count and byte length of one half of the mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rounded {
    /// Items in one half (`capacity()`).
    pub(crate) items: usize,
    /// Bytes in one half: `items * item_size`, a multiple of the page size.
    pub(crate) bytes: usize,
}

/// Rounds `requested` items of `item_size` bytes up to the smallest count whose byte size is a
/// multiple of `lcm(page_size, item_size)`.
///
/// Errors: `item_size == 0` ([`MapError::ZeroSizedItem`]), `requested == 0`
/// ([`MapError::ZeroCapacity`]), and any overflow, including a total reservation (`2 * bytes`)
/// above `isize::MAX` ([`MapError::TooLarge`]). `page_size` must be a non-zero power of two (the
/// caller got it from the OS and checked it).
pub(crate) fn round_capacity(
    requested: usize,
    item_size: usize,
    page_size: usize,
) -> Result<Rounded, MapError> {
    if item_size == 0 {
        return Err(MapError::ZeroSizedItem);
    }
    if requested == 0 {
        return Err(MapError::ZeroCapacity);
    }
    let too_large = MapError::TooLarge {
        requested,
        item_size,
    };
    // lcm = page / gcd * item: dividing first keeps the intermediate small.
    let unit_bytes = (page_size / gcd(page_size, item_size))
        .checked_mul(item_size)
        .ok_or(too_large)?;
    let items_per_unit = unit_bytes / item_size;
    let units = requested.div_ceil(items_per_unit);
    let items = units.checked_mul(items_per_unit).ok_or(too_large)?;
    let bytes = items.checked_mul(item_size).ok_or(too_large)?;
    // The reservation holds both halves, and pointer offsets must stay within isize::MAX.
    let total = bytes.checked_mul(2).ok_or(too_large)?;
    if total > isize::MAX as usize {
        return Err(too_large);
    }
    Ok(Rounded { items, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_to_whole_pages() {
        assert_eq!(
            round_capacity(1, 1, 4096).unwrap(),
            Rounded {
                items: 4096,
                bytes: 4096
            }
        );
        assert_eq!(round_capacity(4097, 1, 4096).unwrap().items, 8192);
        assert_eq!(round_capacity(1, 1, 16384).unwrap().items, 16384);
    }

    #[test]
    fn odd_item_sizes_use_the_lcm() {
        // lcm(4096, 3) = 12288 bytes = 4096 items of 3 bytes.
        assert_eq!(
            round_capacity(1, 3, 4096).unwrap(),
            Rounded {
                items: 4096,
                bytes: 12288
            }
        );
        assert_eq!(round_capacity(4097, 3, 4096).unwrap().items, 8192);
        // lcm(4096, 24) = 12288 bytes = 512 items.
        assert_eq!(round_capacity(100, 24, 4096).unwrap().items, 512);
        // An item bigger than a page: lcm(4096, 6000) = 1536000 = 256 items.
        assert_eq!(round_capacity(1, 6000, 4096).unwrap().items, 256);
    }

    #[test]
    fn invalid_requests_are_errors() {
        assert_eq!(round_capacity(1, 0, 4096), Err(MapError::ZeroSizedItem));
        assert_eq!(round_capacity(0, 4, 4096), Err(MapError::ZeroCapacity));
        assert!(matches!(
            round_capacity(usize::MAX, 1, 4096),
            Err(MapError::TooLarge { .. })
        ));
        assert!(matches!(
            round_capacity(usize::MAX / 2, 1, 4096),
            Err(MapError::TooLarge { .. })
        ));
        assert!(matches!(
            round_capacity(1, usize::MAX, 4096),
            Err(MapError::TooLarge { .. })
        ));
    }
}
