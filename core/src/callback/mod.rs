//! In-place, fixed-capacity, reusable callbacks: [`CallbackSlot`].
//!
//! A dispatcher that moves "run this closure on processor N" events through a ring wants to
//! re-arm a pooled event with a new closure without allocating. A `Box<dyn FnMut>` costs an
//! allocation and a free per event; a [`CallbackSlot`] keeps a few machine words inside the
//! event and builds each new closure there, after dropping the previous one (BlazingMQ made the
//! same change from `bsl::function` to an in-place "managed callback" and measured reset-and-call
//! 26–35× faster).
//!
//! Design:
//! * **Storage**: `WORDS` words of `MaybeUninit<usize>` in an `UnsafeCell` plus one pointer to a
//!   static per-closure-type table of fn pointers (call through `&mut`, call through `&`,
//!   consume-and-call, drop). The slot is `WORDS + 1` words and movable (closures are ordinary
//!   movable values; no pinning).
//! * **Fit is a compile error, not a runtime check**: each `set*` evaluates a `const` assertion
//!   for the concrete closure type (size ≤ `WORDS * size_of::<usize>()`, alignment ≤
//!   `align_of::<usize>()`). [`CallbackSlot::fits`] asks the same question as a `const fn`.
//! * **Arguments** come through a [`CallbackArgs`] family so callbacks can take fresh borrows
//!   (`CallbackSlot<ByMut<Ctx>>` runs `for<'a> FnMut(&'a mut Ctx)`).
//! * **Kinds** (`set_once` / `set` / `set_fn`) are recorded in the table; a call the stored kind
//!   does not allow returns a [`CallError`] instead of running. Calling through `&self` is only
//!   possible for `Fn` callbacks, and, in a slot that is `Sync`, `Fn + Sync` ones.
//! * **Threads** by type: [`Local`] slots take anything and are neither `Send` nor `Sync`;
//!   [`SendCallbackSlot`] (policy [`Sendable`]) takes only `Send` callbacks and is `Send + Sync`.
//!
//! ```
//! use spanring_core::callback::ByMut;
//! use spanring_core::callback::CallbackSlot;
//! struct Processor { handled: u32 }
//!
//! // A pooled event: its slot is reused for every event that passes through it.
//! let mut event: CallbackSlot<ByMut<Processor>> = CallbackSlot::default();
//! let mut processor = Processor { handled: 0 };
//! for weight in [1u32, 2, 3] {
//!     event.set(move |p: &mut Processor| p.handled += weight);
//!     event.call(&mut processor).unwrap();
//! }
//! assert_eq!(processor.handled, 6);
//! ```

mod args;
mod error;
mod message;
mod policy;
mod slot;
mod vtable;

// The tests use real threads and std atomics semantics; the loom build models other modules.
#[cfg(all(test, not(spanring_loom)))]
mod tests;

pub use args::{ByMut, ByRef, ByValue, CallbackArgs};
pub use error::{CallError, CallbackKind};
pub use policy::{Local, Sendable, ThreadPolicy};
pub use slot::{CallbackSlot, SendCallbackSlot};
