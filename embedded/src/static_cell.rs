//! [`StaticCell`]: turns a value built at run time (a ring over a static array, which is not
//! `const`) into a `&'static` that the interrupt handler's closure can capture.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

use spanring_core::sync::{AtomicBool, Ordering};

/// A `static` place for one value, filled once at run time.
pub struct StaticCell<T> {
    taken: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
}

// SAFETY: the only access through `&StaticCell` is `init`, which hands the value out once (as
// `&'static mut T`, to whichever context called it): like moving a `T` there, so `T: Send`.
unsafe impl<T: Send> Sync for StaticCell<T> {}

impl<T> StaticCell<T> {
    /// An empty cell.
    pub const fn new() -> Self {
        Self {
            taken: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Moves `value` into the cell and returns it, for the rest of the program.
    ///
    /// # Panics
    ///
    /// If called a second time.
    // A `&mut` out of `&self` is what this type is for; `taken` makes it the only one.
    #[allow(clippy::mut_from_ref)]
    pub fn init(&'static self, value: T) -> &'static mut T {
        // Relaxed: the swap only has to be atomic (one winner); the value is published to
        // other contexts through whatever the caller then shares it with.
        assert!(
            !self.taken.swap(true, Ordering::Relaxed),
            "StaticCell initialised twice"
        );
        // SAFETY: the swap above lets exactly one call reach this line, and nothing else
        // accesses `value`, so this `&'static mut` is the only reference ever made to it.
        unsafe { (*self.value.get()).write(value) }
    }
}

impl<T> Default for StaticCell<T> {
    fn default() -> Self {
        Self::new()
    }
}
