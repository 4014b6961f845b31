//! [`RecordWords`]: the memory a multi-producer ring keeps its publication records in.

use crate::sync::AtomicUsize;

/// The record words of a [`MultiProducer`](crate::MultiProducer) ring, one a slot
/// ([`multi_words`](crate::multi_words)`(capacity)`): an inline `[AtomicUsize; C]`, a borrowed
/// `&[AtomicUsize]` (or `&mut`), and with core's `alloc` feature (on under `std`)
/// `Box<[AtomicUsize]>`, `Vec<AtomicUsize>`, `Arc<[AtomicUsize]>` or `Rc<[AtomicUsize]>`.
///
/// Writers publish a span by storing its record, and readers read a slot only after they
/// found its record, so both must see the same words on every call. Any `AsRef` would let safe
/// code pass words that change between calls (a reader would then trust a record the writers
/// never stored for that slot and read a slot being written), so the ring takes only these:
///
/// ```
/// use spanring_core::{multi_words, sync::AtomicUsize, Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let words: [AtomicUsize; multi_words(4)] = Default::default();
/// let ring = Ring::new_multi(SliceStorage::new(&mut memory), &words[..]).unwrap();
/// # let _ = ring;
/// ```
///
/// ```compile_fail,E0277
/// use spanring_core::{sync::AtomicUsize, Ring, SliceStorage};
/// struct Words<'a>(&'a [AtomicUsize], &'a [AtomicUsize], core::cell::Cell<bool>);
/// impl AsRef<[AtomicUsize]> for Words<'_> {
///     fn as_ref(&self) -> &[AtomicUsize] {
///         self.2.set(!self.2.get()); // other words every call
///         if self.2.get() { self.0 } else { self.1 }
///     }
/// }
/// let mut memory = [0u8; 4];
/// let (a, b): ([AtomicUsize; 4], [AtomicUsize; 4]) = Default::default();
/// let words = Words(&a, &b, core::cell::Cell::new(false));
/// let ring = Ring::new_multi(SliceStorage::new(&mut memory), words); // error: not RecordWords
/// ```
///
/// # Safety
///
/// Every call of `as_ref` on the value returns the same slice (address and length) for as
/// long as the value is not moved, and nobody else stores to those words while a ring uses
/// them.
pub unsafe trait RecordWords: AsRef<[AtomicUsize]> {}

// SAFETY: an array's `as_ref` is the array itself, at its own address.
unsafe impl<const C: usize> RecordWords for [AtomicUsize; C] {}

// SAFETY: the same slice for the reference's whole lifetime.
unsafe impl RecordWords for &[AtomicUsize] {}

// SAFETY: as for `&[AtomicUsize]`.
unsafe impl RecordWords for &mut [AtomicUsize] {}

// SAFETY: the array behind the reference, fixed for its lifetime.
unsafe impl<const C: usize> RecordWords for &[AtomicUsize; C] {}

// SAFETY: the boxed slice's own allocation, which does not move with the `Box`.
#[cfg(feature = "alloc")]
unsafe impl RecordWords for alloc::boxed::Box<[AtomicUsize]> {}

// SAFETY: the vector's buffer; it cannot grow (or move) without `&mut`, which the ring never
// gives out.
#[cfg(feature = "alloc")]
unsafe impl RecordWords for alloc::vec::Vec<AtomicUsize> {}

// SAFETY: the shared allocation, fixed while any clone lives.
#[cfg(feature = "alloc")]
unsafe impl RecordWords for alloc::sync::Arc<[AtomicUsize]> {}

// SAFETY: as for `Arc`.
#[cfg(feature = "alloc")]
unsafe impl RecordWords for alloc::rc::Rc<[AtomicUsize]> {}
