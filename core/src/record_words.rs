//! [`RecordWords`]: the memory a multi-producer ring keeps its publication records in.

use crate::sync::AtomicUsize;

/// The record words of a [`MultiProducer`](crate::MultiProducer) ring, one a slot
/// ([`multi_words`](crate::multi_words)`(capacity)`), held exclusively by the ring: an inline
/// `[AtomicUsize; C]`, a `&mut [AtomicUsize]` (or `&mut [AtomicUsize; C]`), and with core's
/// `alloc` feature (on under `std`) `Box<[AtomicUsize]>` or `Vec<AtomicUsize>`.
///
/// Writers publish a span by storing its record, and readers read a slot only after they
/// found its record. So nothing but the ring may store to the words: a record stored from
/// outside (through a `&[AtomicUsize]` the caller kept, an `Arc` clone, or a `static`) would
/// send readers to a slot a writer is writing, a data race from safe code. And the container
/// must return the same words on every call. So the ring takes only containers that hold the
/// words exclusively, as [`SliceStorage`](crate::SliceStorage) takes its slots by `&mut`:
///
/// ```
/// use spanring_core::{multi_words, sync::AtomicUsize, Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let mut words: [AtomicUsize; multi_words(4)] = Default::default();
/// let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
/// # let _ = ring;
/// ```
///
/// Shared words are refused at compile time (the caller could store a record through them):
///
/// ```compile_fail,E0277
/// use spanring_core::{multi_words, sync::AtomicUsize, Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let words: [AtomicUsize; multi_words(4)] = Default::default();
/// let ring = Ring::new_multi(SliceStorage::new(&mut memory), &words[..]); // error
/// words[0].store(1, core::sync::atomic::Ordering::Release); // what it would allow
/// ```
///
/// So is a container whose words change between calls:
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
/// long as the value is not moved, and nothing but the holder of the value can reach those
/// words (no other reference, clone or name through which they could be stored to) while it
/// lives.
pub unsafe trait RecordWords: AsRef<[AtomicUsize]> {}

// SAFETY: an array's `as_ref` is the array itself, at its own address, owned by the value.
unsafe impl<const C: usize> RecordWords for [AtomicUsize; C] {}

// SAFETY: the same slice for the reference's whole lifetime, and a `&mut` is the only way to
// reach it for that long.
unsafe impl RecordWords for &mut [AtomicUsize] {}

// SAFETY: as for `&mut [AtomicUsize]`.
unsafe impl<const C: usize> RecordWords for &mut [AtomicUsize; C] {}

// SAFETY: the boxed slice's own allocation, owned by the `Box` and not moved with it.
#[cfg(feature = "alloc")]
unsafe impl RecordWords for alloc::boxed::Box<[AtomicUsize]> {}

// SAFETY: the vector's buffer, owned by it; it cannot grow (or move) without `&mut`, which the
// ring never gives out.
#[cfg(feature = "alloc")]
unsafe impl RecordWords for alloc::vec::Vec<AtomicUsize> {}
