//! Whether a [`CallbackSlot`](crate::callback::CallbackSlot) may cross threads: [`Local`] or
//! [`Sendable`], chosen by type so that the check costs nothing at run time.

mod sealed {
    pub trait Sealed {}
}

/// Thread policy of a [`CallbackSlot`](crate::callback::CallbackSlot): [`Local`] or [`Sendable`].
/// Sealed: the slot's `Send`/`Sync` impls and its `set*` bounds are written for exactly these two.
pub trait ThreadPolicy: sealed::Sealed + 'static {}

/// Accepts any callback, including ones capturing `Rc` or `Cell`; the slot is neither `Send`
/// nor `Sync`. The default.
///
/// ```
/// use std::rc::Rc;
/// use spanring_core::callback::CallbackSlot;
/// let shared = Rc::new(5);
/// let mut slot: CallbackSlot<(), i32> = CallbackSlot::new();
/// slot.set(move |_| *shared);
/// assert_eq!(slot.call(()), Ok(5));
/// ```
#[derive(Debug)]
pub enum Local {}

/// Accepts only `Send` callbacks (and `Send + Sync` ones for `set_fn`); the slot is `Send` and
/// `Sync`. See [`SendCallbackSlot`](crate::callback::SendCallbackSlot).
#[derive(Debug)]
pub enum Sendable {}

impl sealed::Sealed for Local {}
impl sealed::Sealed for Sendable {}
impl ThreadPolicy for Local {}
impl ThreadPolicy for Sendable {}
