//! [`Zeroable`]: types for which the all-zero bit pattern is a valid value.

use core::mem::MaybeUninit;
use core::num::{
    NonZeroI128, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI8, NonZeroIsize, NonZeroU128,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU8, NonZeroUsize, Wrapping,
};

/// Marks a type whose all-zero byte pattern is a valid, initialised value.
///
/// Fresh shared memory reads as zeros, so [`DoubleMapped`](crate::DoubleMapped) can only hand out
/// its slots as initialised `T`s when zeros are a `T`. Implemented for the integers, floats,
/// `bool` (zero is `false`), `char` (zero is `'\0'`), `()`, `Wrapping`, arrays and small tuples of
/// `Zeroable`s, `Option<NonZero*>` (zero is `None`) and `MaybeUninit<T>`.
///
/// # Safety
///
/// Implement it only if a value of the type whose every byte is `0` is valid (no reference, no
/// `NonZero`, no enum without a zero discriminant, no padding-sensitive invariant). For a
/// `#[repr(C)]` struct this holds when every field is `Zeroable`.
///
/// ```
/// use spanring_std::Zeroable;
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Sample { t: u64, value: f32, valid: bool }
/// // SAFETY: every field is Zeroable, so the all-zero struct is valid.
/// unsafe impl Zeroable for Sample {}
/// ```
pub unsafe trait Zeroable {}

macro_rules! zeroable {
    ($($t:ty),* $(,)?) => {
        $(
            // SAFETY: zero is a valid value of this primitive (0, 0.0, false, '\0', (), None).
            unsafe impl Zeroable for $t {}
        )*
    };
}

zeroable!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    bool,
    char,
    ()
);
zeroable!(
    Option<NonZeroU8>,
    Option<NonZeroU16>,
    Option<NonZeroU32>,
    Option<NonZeroU64>,
    Option<NonZeroU128>,
    Option<NonZeroUsize>,
    Option<NonZeroI8>,
    Option<NonZeroI16>,
    Option<NonZeroI32>,
    Option<NonZeroI64>,
    Option<NonZeroI128>,
    Option<NonZeroIsize>,
);

// SAFETY: an array is its elements back to back with no padding; all-zero elements are valid.
unsafe impl<T: Zeroable, const N: usize> Zeroable for [T; N] {}
// SAFETY: `Wrapping<T>` is `repr(transparent)` over `T`.
unsafe impl<T: Zeroable> Zeroable for Wrapping<T> {}
// SAFETY: every byte pattern, zeros included, is a valid `MaybeUninit`.
unsafe impl<T> Zeroable for MaybeUninit<T> {}
// SAFETY: a tuple's fields are each all-zero (valid), and its padding carries no invariant.
unsafe impl<A: Zeroable, B: Zeroable> Zeroable for (A, B) {}
// SAFETY: as for pairs.
unsafe impl<A: Zeroable, B: Zeroable, C: Zeroable> Zeroable for (A, B, C) {}
// SAFETY: as for pairs.
unsafe impl<A: Zeroable, B: Zeroable, C: Zeroable, D: Zeroable> Zeroable for (A, B, C, D) {}
