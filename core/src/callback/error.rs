//! What a [`CallbackSlot`](crate::callback::CallbackSlot) holds ([`CallbackKind`]) and why a call was
//! refused ([`CallError`]).

use core::fmt;

/// Which calls the callback stored in a slot supports; recorded when it is set.
///
/// ```
/// use spanring_core::callback::CallbackKind;
/// use spanring_core::callback::CallbackSlot;
/// let mut slot: CallbackSlot<()> = CallbackSlot::new();
/// assert_eq!(slot.kind(), None);
/// slot.set_once(|_| ());
/// assert_eq!(slot.kind(), Some(CallbackKind::Once));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallbackKind {
    /// Set with [`set_once`](crate::callback::CallbackSlot::set_once): only
    /// [`call_once`](crate::callback::CallbackSlot::call_once).
    Once,
    /// Set with [`set`](crate::callback::CallbackSlot::set): [`call`](crate::callback::CallbackSlot::call) and
    /// `call_once`.
    Mut,
    /// Set with [`set_fn`](crate::callback::CallbackSlot::set_fn): every call, including
    /// [`call_shared`](crate::callback::CallbackSlot::call_shared) through `&self`.
    Shared,
}

/// Why a [`CallbackSlot`](crate::callback::CallbackSlot) refused a call. The slot is unchanged and the
/// arguments were dropped.
///
/// ```
/// use spanring_core::callback::CallError;
/// use spanring_core::callback::CallbackSlot;
/// let mut slot: CallbackSlot<()> = CallbackSlot::new();
/// assert_eq!(slot.call(()), Err(CallError::Empty));
/// slot.set(|_| ());
/// assert_eq!(slot.call_shared(()), Err(CallError::NotShared));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallError {
    /// The slot holds no callback (never set, reset, or consumed by `call_once`).
    Empty,
    /// The callback was set with `set_once` and can only be run by `call_once`.
    OnceOnly,
    /// `call_shared` needs a callback set with `set_fn` (an `Fn`, and `Sync` in a
    /// [`SendCallbackSlot`](crate::callback::SendCallbackSlot)); this one may mutate itself.
    NotShared,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CallError::Empty => "callback slot is empty",
            CallError::OnceOnly => {
                "callback was set with set_once and can only be run by call_once"
            }
            CallError::NotShared => {
                "callback was not set with set_fn and cannot be called through a shared reference"
            }
        })
    }
}

impl core::error::Error for CallError {}
