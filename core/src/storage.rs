//! The caller-memory contract: [`Storage`], and the two plain storages core provides.

use core::cell::UnsafeCell;
use core::marker::PhantomData;

/// Memory a ring runs over: `capacity()` initialised `Item`s at `as_mut_ptr()`.
///
/// # Safety
///
/// An implementation promises, for as long as the value lives and is not moved out of the ring
/// that owns it:
/// - `as_mut_ptr()` always returns the same pointer, non-null, aligned for `Item`, valid for
///   reads and writes of `capacity()` consecutive initialised `Item`s — and of
///   `2 * capacity()` if `DOUBLE_MAPPED` is true, where element `i + capacity()` is the *same
///   memory* as element `i` (a second virtual mapping of the same pages);
/// - `capacity()` always returns the same non-zero value;
/// - nothing else reads or writes that memory while the ring exists: the ring hands out the
///   only references to it;
/// - the memory may be accessed from any thread the storage is sent to or shared with.
///
/// ```
/// use spanring_core::Storage;
/// let mut memory = [0u8; 16];
/// let storage: &mut [u8] = &mut memory;
/// assert_eq!(Storage::capacity(&storage), 16);
/// assert!(!<&mut [u8] as Storage>::DOUBLE_MAPPED);
/// ```
pub unsafe trait Storage {
    /// The slot type.
    type Item;
    /// True when element `i + capacity()` aliases element `i`, so every span is contiguous.
    const DOUBLE_MAPPED: bool = false;
    /// Base pointer of the slots.
    fn as_mut_ptr(&self) -> *mut Self::Item;
    /// Number of slots.
    fn capacity(&self) -> usize;
}

/// Borrowed caller memory: a stack array, a `static mut`-free `&'static mut [T]` from a cell, a
/// DMA region, a `Vec`'s slice.
// SAFETY: the `&mut` borrow gives the ring exclusive access for 'a; its pointer and length never
// change; a slice's elements are initialised and aligned. `Send`/`Sync` of the ring follow `T`.
unsafe impl<T> Storage for &mut [T] {
    type Item = T;
    fn as_mut_ptr(&self) -> *mut T {
        // `&self` of a `&mut [T]`: we only need the address; the ring turns it into references
        // under its own protocol. `as_ptr` of the reborrowed slice gives the same address with
        // the provenance of the unique borrow.
        (**self).as_ptr().cast_mut()
    }
    fn capacity(&self) -> usize {
        self.len()
    }
}

/// Slots stored inline, so a ring needs no outside memory at all (a `static` ring).
///
/// ```
/// use spanring_core::InlineStorage;
/// let slots = InlineStorage::new([0u32; 8]);
/// assert_eq!(spanring_core::Storage::capacity(&slots), 8);
/// ```
pub struct InlineStorage<T, const N: usize> {
    slots: UnsafeCell<[T; N]>,
    _not_sync_by_default: PhantomData<T>,
}

impl<T, const N: usize> InlineStorage<T, N> {
    /// Wraps an initialised array.
    pub const fn new(slots: [T; N]) -> Self {
        Self { slots: UnsafeCell::new(slots), _not_sync_by_default: PhantomData }
    }
}

// SAFETY: the cell is owned, its address is stable while the value is not moved (the ring owns
// it and never moves it while spans exist: spans borrow the ring), N elements are initialised.
unsafe impl<T, const N: usize> Storage for InlineStorage<T, N> {
    type Item = T;
    fn as_mut_ptr(&self) -> *mut T {
        self.slots.get().cast::<T>()
    }
    fn capacity(&self) -> usize {
        N
    }
}

// SAFETY: access to the slots is arbitrated by the ring's cursor protocol; moving items between
// threads needs `T: Send` and that is all a ring does with them (readers get `&T` only while the
// writer cannot touch those slots; sharing `&T` across threads needs `T: Sync`, required by the
// ring's own `Sync` impl).
unsafe impl<T: Send, const N: usize> Sync for InlineStorage<T, N> {}
