//! [`SharedItem`]: the plain-data types that may cross a process boundary in a shared segment,
//! and [`ItemIdentity`], what an attacher compares to be sure both sides mean the same type.
//!
//! A shared segment is read by processes that were compiled separately, maybe by another
//! compiler, maybe for another word size. The only values that keep their meaning there are
//! plain bytes: no pointers (they point into one process's address space), no references, no
//! file descriptors (numbers private to one process), nothing whose validity depends on bytes
//! the writer never wrote. The marker trait names that promise; the identity lets an attacher
//! refuse a segment that was created for another type instead of reading garbage.

/// A type whose values may be written into shared memory by one process and read by another.
///
/// Implemented for `u8`..`u64`, `i8`..`i64`, `f32`, `f64` and arrays `[T; N]` of shared items
/// (so `[f32; 2]` complex samples or `[u8; 188]` transport-stream packets need no derive).
///
/// # Safety
///
/// Implementing it promises, for every value of the type:
///
/// - **Plain data.** It holds no pointers, references, `Box`es, file descriptors, handles, or
///   anything else whose meaning is private to one process or one address space; no `Drop`
///   (guaranteed by `Copy`).
/// - **Every bit pattern a reader may see is a valid value.** A reader maps memory that another
///   process writes; the segment's layout check guarantees only that the writer declared the
///   same type (by name, size and alignment). So either every bit pattern of its size is a
///   valid value (integers, floats, arrays of them), or the type's invariants hold for every
///   pattern a writer of the same type can produce, and the user accepts that a faulty or
///   hostile writer can produce others.
/// - **No padding-dependent invariant.** Padding bytes are not copied reliably; nothing may
///   depend on them. Prefer `#[repr(C)]` types without padding (and see the alignment note).
/// - **The same layout in every process.** `#[repr(C)]` or `#[repr(transparent)]` with
///   fixed-width fields (no `usize`/`isize`, which differ between 32- and 64-bit processes);
///   where a 32-bit and a 64-bit process share a ring, an explicit alignment for types with
///   `u64`/`f64` fields (`u64` is 4-aligned in i686 structs): the size and alignment check
///   refuses the mismatch, but only an explicit layout makes both sides agree.
///
/// ```
/// use spanring_std::shared::{ItemIdentity, SharedItem};
///
/// /// One IQ sample pair with a timestamp, the same layout on every target.
/// #[derive(Clone, Copy)]
/// #[repr(C, align(8))]
/// struct Tagged {
///     time_ns: u64,
///     iq: [f32; 2],
/// }
/// // SAFETY: fixed-width numbers only, no padding (8 + 8 bytes, align 8), every bit pattern is
/// // a valid value, the same layout on 32- and 64-bit targets.
/// unsafe impl SharedItem for Tagged {}
///
/// assert_eq!(ItemIdentity::of::<Tagged>().size, 16);
/// assert_eq!(ItemIdentity::of::<[f32; 2]>().align, 4);
/// ```
pub unsafe trait SharedItem: Copy + 'static {}

macro_rules! shared_items {
    ($($t:ty),*) => {$(
        // SAFETY: a primitive number: no pointers, no padding, every bit pattern is a value,
        // the same size and alignment on every target where both sides agree on alignment
        // (checked by `ItemIdentity`).
        unsafe impl SharedItem for $t {}
    )*};
}
shared_items!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

// SAFETY: an array of shared items is the items back to back (no padding between them: the
// size of `T` is a multiple of its alignment), so every promise of `T` holds for the array.
unsafe impl<T: SharedItem, const N: usize> SharedItem for [T; N] {}

/// What identifies an item type in a segment's header: its size, its alignment, and a hash of
/// its name.
///
/// The name comes from [`core::any::type_name`], whose output is not guaranteed to be stable
/// across compiler versions (nor to be unique): a writer and a reader built by different
/// compilers may disagree on the name of the same type, and then the attach fails with a typed
/// [`HeaderError::ItemMismatch`](super::HeaderError::ItemMismatch) rather than silently
/// sharing. Build both sides with one toolchain, or compare [`ItemIdentity::named`] identities
/// that the application names itself.
///
/// ```
/// use spanring_std::shared::ItemIdentity;
/// let a = ItemIdentity::of::<[f32; 2]>();
/// assert_eq!((a.size, a.align), (8, 4));
/// assert_ne!(a, ItemIdentity::of::<u64>()); // same size, other type
/// assert_eq!(a, ItemIdentity::of::<[f32; 2]>());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ItemIdentity {
    /// `size_of::<T>()` in bytes.
    pub size: u64,
    /// `align_of::<T>()` in bytes.
    pub align: u64,
    /// A 64-bit FNV-1a hash of the type's name.
    pub name_hash: u64,
}

impl ItemIdentity {
    /// The identity of `T`: its size, alignment and the hash of `type_name::<T>()`.
    ///
    /// ```
    /// use spanring_std::shared::ItemIdentity;
    /// let id = ItemIdentity::of::<u32>();
    /// assert_eq!(id, ItemIdentity::named::<u32>("u32"));
    /// ```
    pub fn of<T: SharedItem>() -> Self {
        Self::named::<T>(core::any::type_name::<T>())
    }

    /// The identity of `T` under a name the application chooses (stable across compilers,
    /// unlike [`type_name`](core::any::type_name)).
    ///
    /// ```
    /// use spanring_std::shared::ItemIdentity;
    /// let v1 = ItemIdentity::named::<[u8; 16]>("myapp::Packet v1");
    /// assert_ne!(v1, ItemIdentity::named::<[u8; 16]>("myapp::Packet v2"));
    /// ```
    pub fn named<T: SharedItem>(name: &str) -> Self {
        // `as u64`: usize is at most 64 bits on every target Rust supports.
        Self {
            size: core::mem::size_of::<T>() as u64,
            align: core::mem::align_of::<T>() as u64,
            name_hash: fnv1a(name.as_bytes()),
        }
    }
}

/// 64-bit FNV-1a: tiny, stable by definition (its constants are fixed by the algorithm), and
/// the same on every target. Not a cryptographic hash: it tells types apart, it does not
/// defend against a writer that forges an identity (a writer can write anything anyway).
pub(crate) const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        // From the FNV reference test suite.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn identities_tell_same_sized_types_apart() {
        let ids = [
            ItemIdentity::of::<u32>(),
            ItemIdentity::of::<i32>(),
            ItemIdentity::of::<f32>(),
            ItemIdentity::of::<[u8; 4]>(),
            ItemIdentity::of::<[u16; 2]>(),
        ];
        for (i, a) in ids.iter().enumerate() {
            assert_eq!(a.size, 4);
            for b in &ids[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
