//! The caller-memory contract: [`Storage`], and the two plain storages core provides.

use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ptr::NonNull;

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
/// use spanring_core::{SliceStorage, Storage};
/// let mut memory = [0u8; 16];
/// let storage = SliceStorage::new(&mut memory);
/// assert_eq!(storage.capacity(), 16);
/// assert!(!<SliceStorage<u8> as Storage>::DOUBLE_MAPPED);
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

/// Borrowed caller memory: a stack array, a `&'static mut [T]` handed out once by a cell, a
/// DMA region, a `Vec`'s slice.
///
/// The pointer is taken from the `&mut` once, at construction, so it keeps the unique borrow's
/// write permission (a pointer derived later from a shared reborrow could not be written
/// through: Stacked/Tree Borrows would call that UB).
///
/// ```
/// use spanring_core::{SliceStorage, Storage};
/// let mut memory = [0u8; 16];
/// let storage = SliceStorage::new(&mut memory);
/// assert_eq!(storage.capacity(), 16);
/// ```
pub struct SliceStorage<'a, T> {
    ptr: NonNull<T>,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T> core::fmt::Debug for SliceStorage<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The slots are not shown: a ring may be writing them.
        f.debug_struct("SliceStorage")
            .field("capacity", &self.len)
            .finish()
    }
}

impl<'a, T> SliceStorage<'a, T> {
    /// Takes the slice for the lifetime of the ring.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u32; 4];
    /// {
    ///     let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    ///     ring.writer().unwrap().try_push(7).unwrap();
    /// }
    /// assert_eq!(memory[0], 7); // the caller's memory again once the ring is gone
    /// ```
    pub fn new(slice: &'a mut [T]) -> Self {
        let len = slice.len();
        Self {
            ptr: NonNull::from(slice).cast::<T>(),
            len,
            _borrow: PhantomData,
        }
    }
}

impl<'a, T> From<&'a mut [T]> for SliceStorage<'a, T> {
    fn from(slice: &'a mut [T]) -> Self {
        Self::new(slice)
    }
}

impl<'a, T, const N: usize> From<&'a mut [T; N]> for SliceStorage<'a, T> {
    fn from(array: &'a mut [T; N]) -> Self {
        Self::new(array)
    }
}

// SAFETY: `ptr`/`len` come from a `&'a mut [T]` held (as PhantomData) for 'a, so the memory is
// initialised, aligned, exclusively ours and never moves; neither value ever changes.
unsafe impl<T> Storage for SliceStorage<'_, T> {
    type Item = T;
    fn as_mut_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }
    fn capacity(&self) -> usize {
        self.len
    }
}

// SAFETY: a `SliceStorage` is a `&mut [T]` in disguise; `&mut [T]` is `Send` iff `T: Send`.
unsafe impl<T: Send> Send for SliceStorage<'_, T> {}
// SAFETY: shared access to the slots is arbitrated by the ring's cursor protocol: a slot is
// written only by the one writer that claimed it (values move between threads: `T: Send`) and
// read as `&T` by any number of readers on any threads after publication (`T: Sync`).
unsafe impl<T: Send + Sync> Sync for SliceStorage<'_, T> {}

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

impl<T, const N: usize> core::fmt::Debug for InlineStorage<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The slots are not shown: a ring may be writing them.
        f.debug_struct("InlineStorage")
            .field("capacity", &N)
            .finish()
    }
}

impl<T, const N: usize> InlineStorage<T, N> {
    /// Wraps an initialised array.
    ///
    /// ```
    /// use spanring_core::{InlineStorage, Ring, Storage};
    /// let storage = InlineStorage::new([9u8; 4]);
    /// assert_eq!(storage.capacity(), 4);
    /// let ring = Ring::new(storage).unwrap(); // the ring owns its slots
    /// let mut w = ring.writer().unwrap();
    /// assert_eq!(w.try_reserve(1).unwrap()[0], 9); // slots start as the array's values
    /// ```
    pub const fn new(slots: [T; N]) -> Self {
        Self {
            slots: UnsafeCell::new(slots),
            _not_sync_by_default: PhantomData,
        }
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

// SAFETY: access to the slots is arbitrated by the ring's cursor protocol: a slot is written
// only by the writer that claimed it (values move between threads: `T: Send`) and read as `&T`
// by any number of readers on any threads after publication (`T: Sync`).
unsafe impl<T: Send + Sync, const N: usize> Sync for InlineStorage<T, N> {}

/// Marks storage whose second half aliases the first (`Storage::DOUBLE_MAPPED == true`): every
/// span over it is one contiguous slice, so spans dereference to `[T]` directly.
///
/// # Safety
///
/// Implement only for storage whose `DOUBLE_MAPPED` is `true` and which keeps that promise
/// (elements `i` and `i + capacity()` are the same memory for every `i < capacity()`).
///
/// ```
/// fn contiguous<S: spanring_core::storage::DoubleMappedStorage>(_: &S) {}
/// ```
///
/// A span over storage without it has no slice view; the compiler says so and names the way:
///
/// ```compile_fail
/// use spanring_core::{Ring, SliceStorage};
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut w = ring.writer().unwrap();
/// let span = w.try_reserve(2).unwrap();
/// let _ = span.as_slice(); // error: `SliceStorage<'_, u8>` is not double-mapped
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not double-mapped: a span over it may wrap, so it has no single slice",
    label = "not double-mapped",
    note = "use `span.as_slices()` / `as_mut_slices()` (two halves), `span.iter()`, or the \
            `copy_*` helpers; or use double-mapped memory (`spanring_std::DoubleMapped`, \
            `owned::mapped`) for one contiguous slice"
)]
pub unsafe trait DoubleMappedStorage: Storage {}
