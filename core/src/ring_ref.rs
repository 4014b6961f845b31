//! [`RingRef`]: what a reader or writer handle may hold to reach its ring; [`RingPtr`]: the
//! ring's parameters named through that pointer.

use core::ops::Deref;

use crate::claim::ClaimMode;
use crate::readers::Registry;
use crate::ring::GenericRing;
use crate::storage::Storage;
use crate::wait::WaitStrategy;

/// A pointer through which a [`Reader`](crate::Reader) or [`Writer`](crate::Writer) reaches
/// its ring: `&Ring`, and with the `alloc` feature (on in `spanring-std` and the facade's
/// `std`) `Arc<Ring>`, `Rc<Ring>` and `Box<Ring>`.
///
/// A handle registers with the ring its pointer reaches when it attaches and keeps its
/// position (cursor, cached window) for that ring only; every later call dereferences the
/// pointer again. A `Deref` that reached another ring later (say one that switches between two
/// rings) would have the handle read slots that ring's writers are writing, a data race from
/// safe code. So `attach` takes only pointers that promise to reach the same ring for good:
///
/// ```
/// use spanring_core::{Reader, Ring, SliceStorage, Writer};
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut w = Writer::attach(&ring).unwrap(); // &Ring: a RingRef
/// let mut r = Reader::attach(&ring).unwrap();
/// w.try_push(1).unwrap();
/// assert_eq!(r.try_pop(), Ok(1));
/// ```
///
/// Any other `Deref` is refused at compile time:
///
/// ```compile_fail,E0277
/// use core::ops::Deref;
/// use spanring_core::{Reader, Ring, SliceStorage};
/// type R = Ring<SliceStorage<'static, u8>>;
/// struct Either<'a>(&'a R, &'a R, core::cell::Cell<bool>);
/// impl<'a> Deref for Either<'a> {
///     type Target = R;
///     fn deref(&self) -> &R {
///         self.2.set(!self.2.get()); // a different ring every call
///         if self.2.get() { self.0 } else { self.1 }
///     }
/// }
/// let (a, b): (&'static mut [u8], &'static mut [u8]) = (Box::leak(Box::new([0; 4])), Box::leak(Box::new([0; 4])));
/// let (a, b) = (Ring::new(SliceStorage::new(a)).unwrap(), Ring::new(SliceStorage::new(b)).unwrap());
/// let r = Reader::attach(Either(&a, &b, core::cell::Cell::new(false))); // error: not a RingRef
/// ```
///
/// # Safety
///
/// For as long as the value lives, `deref` returns a reference to the same ring every time,
/// and that ring stays at its address (moving the pointer does not move the ring) and alive;
/// a clone dereferences to the same ring as the original.
pub unsafe trait RingRef: Deref {}

// SAFETY: a shared reference is one address, fixed for its lifetime, and its referent can
// neither move nor be dropped while it is borrowed; a copy is the same reference.
unsafe impl<T: ?Sized> RingRef for &T {}

// SAFETY: as for `&T`, for the reference's lifetime (unique, so no clones).
unsafe impl<T: ?Sized> RingRef for &mut T {}

// SAFETY: an `Arc`'s value lives in its own allocation, which neither moves when the `Arc`
// moves nor is freed while any clone lives; clones share that one allocation.
#[cfg(feature = "alloc")]
unsafe impl<T: ?Sized> RingRef for alloc::sync::Arc<T> {}

// SAFETY: as for `Arc`.
#[cfg(feature = "alloc")]
unsafe impl<T: ?Sized> RingRef for alloc::rc::Rc<T> {}

// SAFETY: a `Box`'s value lives in its own allocation, which does not move when the `Box`
// moves and is freed only with it; a `Box` has no shared clones.
#[cfg(feature = "alloc")]
unsafe impl<T: ?Sized> RingRef for alloc::boxed::Box<T> {}

// SAFETY: as for `Arc` (loom's `Arc` owns one shared allocation the same way); only in the
// loom models (`--cfg spanring_loom`).
#[cfg(spanring_loom)]
unsafe impl<T: ?Sized> RingRef for loom::sync::Arc<T> {}

/// A pointer to a ring, with the ring's parameters as associated types: the one bound the
/// handles' methods carry (`impl<R: RingPtr> Writer<R>`), instead of the ring's storage,
/// claim mode, wait strategy and reader registry as four parameters each time. Implemented for
/// every `Deref` to a [`Ring`](crate::Ring) (a [`GenericRing`]); nothing to implement.
///
/// ```
/// use spanring_core::parts::RingPtr;
/// use spanring_core::{Reader, Ring, SliceStorage};
/// // Generic over any ring of `u32`, whatever its memory, producers, waits or readers:
/// fn sum<R: RingPtr<Item = u32>>(reader: &mut Reader<R>) -> u32 {
///     reader.try_read(usize::MAX).map(|span| span.iter().sum()).unwrap_or(0)
/// }
/// let mut memory = [0u32; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// ring.writer().unwrap().try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
/// assert_eq!(sum(&mut r), 6);
/// ```
pub trait RingPtr:
    Deref<Target = GenericRing<Self::Storage, Self::Mode, Self::Wait, Self::Readers>>
{
    /// The item type (the storage's).
    type Item;
    /// The ring's memory.
    type Storage: Storage<Item = Self::Item>;
    /// [`SingleProducer`](crate::SingleProducer) or [`MultiProducer`](crate::MultiProducer).
    type Mode: ClaimMode;
    /// How blocking calls wait.
    type Wait: WaitStrategy;
    /// The reader registry ([`ReaderRegistry`](crate::parts::ReaderRegistry)`<READERS>`).
    type Readers: Registry;
}

impl<S, P, W, G, T> RingPtr for T
where
    S: Storage,
    P: ClaimMode,
    W: WaitStrategy,
    G: Registry,
    T: Deref<Target = GenericRing<S, P, W, G>>,
{
    type Item = S::Item;
    type Storage = S;
    type Mode = P;
    type Wait = W;
    type Readers = G;
}
