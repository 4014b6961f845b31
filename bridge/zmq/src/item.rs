//! [`PlainItem`]: the item types a bridge can put on the wire as raw bytes.

/// An item type whose values are plain bytes: no padding, no pointers, every bit pattern valid.
/// A bridge sends an item as its in-memory bytes (native byte order, as GNU Radio does) and
/// receives one by copying bytes into a ring slot.
///
/// Implemented for `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64`, `f32`, `f64` and for
/// arrays of any `PlainItem` (so `[f32; 2]` is a complex sample, `[i16; 2]` an `sc16` sample).
///
/// # GNU Radio's `itemsize` and `vlen`
///
/// A gr-zeromq block is configured with an `itemsize` (bytes per item of its stream type) and a
/// `vlen` (items per vector); one "item" on the wire is `itemsize × vlen` bytes, and a message
/// carries a whole number of them. [`PlainItem::WIRE_SIZE`] is that product:
///
/// | GNU Radio stream type | `itemsize` | `vlen` | item type here |
/// | --- | --- | --- | --- |
/// | byte | 1 | 1 | `u8` / `i8` |
/// | short | 2 | 1 | `i16` |
/// | int | 4 | 1 | `i32` |
/// | float | 4 | 1 | `f32` |
/// | complex (`gr_complex`) | 8 | 1 | `[f32; 2]` (re, im) |
/// | float, vlen 1024 | 4 | 1024 | `[f32; 1024]` |
/// | complex, vlen 4 | 8 | 4 | `[[f32; 2]; 4]` |
///
/// A receiver checks only that a message's length is a multiple of `WIRE_SIZE`; that the peer
/// means the same type is the configuration's job, as in GNU Radio.
///
/// # Safety
///
/// Implement it only for types where every bit pattern of `size_of::<Self>()` bytes is a valid
/// value and no byte is padding: a `#[repr(C)]` struct of `PlainItem` fields with no gaps
/// between them and none at the end.
///
/// ```
/// use spanring_zmq::PlainItem;
///
/// #[derive(Clone, Copy, Default)]
/// #[repr(C)]
/// struct Iq16 {
///     i: i16,
///     q: i16,
/// }
/// // SAFETY: two i16 fields, 4 bytes, no padding; every bit pattern is a valid i16.
/// unsafe impl PlainItem for Iq16 {}
///
/// assert_eq!(Iq16::WIRE_SIZE, 4);
/// assert_eq!(<[f32; 2]>::WIRE_SIZE, 8); // GNU Radio's gr_complex
/// ```
pub unsafe trait PlainItem: Copy + Send + Sync + 'static {
    /// Bytes per item on the wire: GNU Radio's `itemsize × vlen`.
    const WIRE_SIZE: usize = core::mem::size_of::<Self>();
}

macro_rules! plain {
    ($($t:ty),* $(,)?) => {
        $(
            // SAFETY: a primitive number: no padding, every bit pattern is a valid value.
            unsafe impl PlainItem for $t {}
        )*
    };
}

plain!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

// SAFETY: an array of plain items has no padding between or after its elements (its size is
// N × size_of::<T>()) and every element may hold any bit pattern.
unsafe impl<T: PlainItem, const N: usize> PlainItem for [T; N] {}

/// The bytes of a slice of plain items.
///
/// ```
/// let b = spanring_zmq::item_bytes(&[1u16, 0x0302]);
/// assert_eq!(b, &1u16.to_ne_bytes().into_iter().chain(0x0302u16.to_ne_bytes()).collect::<Vec<_>>()[..]);
/// ```
pub fn item_bytes<T: PlainItem>(items: &[T]) -> &[u8] {
    // SAFETY: `T: PlainItem` has no padding, so all `size_of_val(items)` bytes are initialised;
    // u8 has alignment 1, and the returned slice borrows `items` for its lifetime.
    unsafe {
        core::slice::from_raw_parts(items.as_ptr().cast::<u8>(), core::mem::size_of_val(items))
    }
}

/// The bytes of a mutable slice of plain items, to fill in place.
///
/// ```
/// let mut x = [0u32; 2];
/// spanring_zmq::item_bytes_mut(&mut x).copy_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
/// assert_eq!(x, [u32::from_le(1), u32::from_le(2)]);
/// ```
pub fn item_bytes_mut<T: PlainItem>(items: &mut [T]) -> &mut [u8] {
    let len = core::mem::size_of_val(items);
    // SAFETY: as in `item_bytes`, and any byte pattern written through the result is a valid
    // `T` (the `PlainItem` contract); the mutable borrow of `items` is held by the result.
    unsafe { core::slice::from_raw_parts_mut(items.as_mut_ptr().cast::<u8>(), len) }
}
