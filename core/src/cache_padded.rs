//! [`CachePadded`]: keeps a value alone on its cache line(s) so that cursors written by
//! different threads do not false-share (ringbuf#7).

use core::ops::{Deref, DerefMut};

/// Pads and aligns a value to the length of a cache line, per architecture.
///
/// x86_64 and aarch64 use 128 bytes: their L2 prefetcher pulls cache lines in adjacent pairs,
/// so two values 64 bytes apart still interfere. 32-bit ARM, RISC-V, MIPS and other small
/// cores use 32 or 64 bytes, where a 128-byte pad would only waste scarce RAM.
///
/// ```
/// use spanring_core::parts::CachePadded;
/// let a = CachePadded::new(7u32);
/// assert_eq!(*a, 7);
/// assert!(core::mem::align_of::<CachePadded<u32>>() >= 32);
/// ```
#[cfg_attr(
    any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "powerpc64"
    ),
    repr(align(128))
)]
#[cfg_attr(
    any(
        target_arch = "arm",
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "riscv32",
        target_arch = "riscv64",
        target_arch = "sparc",
        target_arch = "hexagon",
    ),
    repr(align(32))
)]
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "powerpc64",
        target_arch = "arm",
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "riscv32",
        target_arch = "riscv64",
        target_arch = "sparc",
        target_arch = "hexagon",
    )),
    repr(align(64))
)]
#[derive(Default, Debug)]
#[repr(C)]
pub struct CachePadded<T> {
    value: T,
}

impl<T> CachePadded<T> {
    crate::__maybe_const_fn! {
        /// Wraps `value`.
        ///
        /// ```
        /// use spanring_core::parts::CachePadded;
        /// static COUNT: CachePadded<u8> = CachePadded::new(1); // `const`
        /// assert_eq!(*COUNT, 1);
        /// assert!(core::mem::size_of_val(&COUNT) >= 32); // a whole cache line for one byte
        /// ```
        pub fn new(value: T) -> Self {
            Self { value }
        }
    }

    /// Unwraps the value.
    ///
    /// ```
    /// use spanring_core::parts::CachePadded;
    /// let mut padded = CachePadded::new(vec![1, 2]);
    /// padded.push(3); // `DerefMut` to the value
    /// assert_eq!(padded.into_inner(), [1, 2, 3]);
    /// ```
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> Deref for CachePadded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for CachePadded<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static_assertions::const_assert_eq!(core::mem::align_of::<CachePadded<u8>>(), 128);
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static_assertions::const_assert_eq!(core::mem::size_of::<CachePadded<usize>>(), 128);
#[cfg(any(target_arch = "arm", target_arch = "riscv32"))]
static_assertions::const_assert_eq!(core::mem::align_of::<CachePadded<u8>>(), 32);
