//! [`HeapStorage`]: ring slots in an owned heap allocation, portable to every std target.

use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use spanring_core::Storage;

/// Owned ring memory on the heap: a `Box<[T]>` turned into a raw pointer so that the ring may
/// write through it while only holding `&self` (a `Box` would assert uniqueness on every access).
/// The items are dropped and the allocation freed when the storage is dropped.
///
/// # When to use it
///
/// The portable default when the capacity is known only at run time: any `T`, any platform, no
/// page rounding. Spans that cross the end come in two pieces; use
/// [`DoubleMapped`](crate::DoubleMapped) when contiguous spans matter. For a fixed capacity
/// without allocation, core's `InlineStorage` does the same inline.
///
/// ```
/// use spanring_std::HeapStorage;
/// use spanring_core::Storage;
/// let slots = HeapStorage::<u64>::with_capacity(100).unwrap();
/// assert_eq!(slots.capacity(), 100);
/// assert!(HeapStorage::<u64>::with_capacity(0).is_err());
/// let from_vec = HeapStorage::new(vec![String::new(); 3]).unwrap();
/// assert_eq!(from_vec.capacity(), 3);
/// ```
pub struct HeapStorage<T> {
    /// From `Box::into_raw`; reclaimed in `Drop`.
    ptr: NonNull<T>,
    len: usize,
    /// We own `T`s (drop check, auto traits come from the manual impls below).
    _owns: PhantomData<T>,
}

/// [`HeapStorage`] was given no items; a ring needs at least one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmptyStorage;

impl fmt::Display for EmptyStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ring storage needs at least one slot")
    }
}

impl std::error::Error for EmptyStorage {}

/// An empty storage is a ring of capacity 0: `?` turns [`EmptyStorage`] into
/// [`CapacityError::Zero`](spanring_core::CapacityError::Zero), the error a ring builder gives
/// for the same request (no other cause is lost: `EmptyStorage` has no other meaning).
///
/// ```
/// use spanring_std::{EmptyStorage, HeapStorage};
/// use spanring_core::CapacityError;
/// fn slots(n: usize) -> Result<HeapStorage<u8>, CapacityError> {
///     Ok(HeapStorage::with_capacity(n)?)
/// }
/// assert_eq!(slots(0).unwrap_err(), CapacityError::from(EmptyStorage));
/// assert!(matches!(slots(0), Err(CapacityError::Zero)));
/// ```
impl From<EmptyStorage> for spanring_core::CapacityError {
    fn from(EmptyStorage: EmptyStorage) -> Self {
        spanring_core::CapacityError::Zero
    }
}

impl<T> HeapStorage<T> {
    /// Takes ownership of initialised slots (a `Vec<T>`, `Box<[T]>`, …).
    ///
    /// # Errors
    ///
    /// [`EmptyStorage`] when there are no items.
    ///
    /// ```
    /// use spanring_std::{EmptyStorage, HeapStorage};
    /// use spanring_core::Storage;
    /// let slots = HeapStorage::new([10u32, 20, 30])?; // no `Default` needed
    /// assert_eq!(slots.capacity(), 3);
    /// // SAFETY (example): the pointer is valid for `capacity()` initialised items; nothing writes.
    /// let items = unsafe { std::slice::from_raw_parts(slots.as_mut_ptr(), slots.capacity()) };
    /// assert_eq!(items, [10, 20, 30]);
    /// assert_eq!(HeapStorage::<u32>::new(Vec::new()).unwrap_err(), EmptyStorage);
    /// # Ok::<(), EmptyStorage>(())
    /// ```
    pub fn new(items: impl Into<Box<[T]>>) -> Result<Self, EmptyStorage> {
        let items: Box<[T]> = items.into();
        let len = items.len();
        if len == 0 {
            return Err(EmptyStorage);
        }
        let raw: *mut [T] = Box::into_raw(items);
        // SAFETY: `Box::into_raw` never returns null.
        let ptr = unsafe { NonNull::new_unchecked(raw.cast::<T>()) };
        Ok(Self {
            ptr,
            len,
            _owns: PhantomData,
        })
    }

    /// `capacity` slots, each `T::default()`.
    ///
    /// # Errors
    ///
    /// [`EmptyStorage`] when `capacity == 0`.
    ///
    /// ```
    /// use spanring_std::{EmptyStorage, HeapStorage};
    /// use spanring_core::Storage;
    /// let slots = HeapStorage::<String>::with_capacity(3)?;
    /// assert_eq!(slots.capacity(), 3);
    /// // SAFETY (example): the pointer is valid for `capacity()` initialised items; nothing writes.
    /// let items = unsafe { std::slice::from_raw_parts(slots.as_mut_ptr(), slots.capacity()) };
    /// assert!(items.iter().all(String::is_empty)); // each `String::default()`
    /// assert_eq!(HeapStorage::<String>::with_capacity(0).unwrap_err(), EmptyStorage);
    /// # Ok::<(), EmptyStorage>(())
    /// ```
    pub fn with_capacity(capacity: usize) -> Result<Self, EmptyStorage>
    where
        T: Default,
    {
        Self::new((0..capacity).map(|_| T::default()).collect::<Box<[T]>>())
    }
}

impl<T> Drop for HeapStorage<T> {
    fn drop(&mut self) {
        let raw = core::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len);
        // SAFETY: `raw` is exactly the pointer and length `Box::into_raw` gave us in `new`, and it
        // is reclaimed only here, once; no reference into it outlives `self`.
        drop(unsafe { Box::from_raw(raw) });
    }
}

impl<T> fmt::Debug for HeapStorage<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeapStorage")
            .field("capacity", &self.len)
            .finish_non_exhaustive()
    }
}

// SAFETY: the pointer comes from a live `Box<[T]>` of `len > 0` initialised, aligned items that
// only this value owns; neither it nor `len` changes until drop, and the heap address does not
// move when the `HeapStorage` moves.
unsafe impl<T> Storage for HeapStorage<T> {
    type Item = T;
    fn as_mut_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }
    fn capacity(&self) -> usize {
        self.len
    }
}

// SAFETY: a `HeapStorage<T>` owns its `T`s like a `Box<[T]>`, which is `Send` iff `T: Send`.
unsafe impl<T: Send> Send for HeapStorage<T> {}
// `&HeapStorage` hands out only the raw pointer, and a ring built on it lets several threads use
// the items at once: the writer moves items in while broadcast readers on different threads hold
// `&T` to the *same* item at the same time; `&mut T` access is arbitrated by the ring's cursors.
// SAFETY: hence `T: Send` (items move) + `T: Sync` (shared `&T`), as core's `SliceStorage`.
unsafe impl<T: Send + Sync> Sync for HeapStorage<T> {}
