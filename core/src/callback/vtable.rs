//! The per-closure-type function table a [`CallbackSlot`](crate::callback::CallbackSlot) keeps beside its
//! bytes: how to call, consume and drop the erased closure, and which of those it allows.
//!
//! One `VTable` exists per (closure type, kind) as an associated `const` of [`Shims`], promoted
//! to a `&'static` — no allocation, no registration.

use core::marker::PhantomData;
use core::mem;

use super::args::CallbackArgs;
use super::error::{CallError, CallbackKind};

/// Call through an exclusive pointer (`FnMut`, or consuming for `FnOnce`).
pub(super) type CallMut<A, R> =
    for<'a> unsafe fn(*mut u8, <A as CallbackArgs>::Of<'a>) -> Result<R, CallError>;
/// Call through a shared pointer (`Fn`).
pub(super) type CallRef<A, R> =
    for<'a> unsafe fn(*const u8, <A as CallbackArgs>::Of<'a>) -> Result<R, CallError>;

/// Erased operations on one stored closure type, or on nothing ([`VTable::EMPTY`]).
///
/// Every entry is always callable: a call the stored kind does not allow goes to a refusal
/// shim that returns the [`CallError`] without touching the storage. So a call on the hot path
/// is one load and one indirect call, with no branch on emptiness or kind.
pub(super) struct VTable<A: CallbackArgs, R> {
    /// What was recorded at `set*` time; `None` for the empty table.
    pub(super) kind: Option<CallbackKind>,
    /// Calls in place through `&mut` (refuses for empty and `Once`).
    pub(super) call_mut: CallMut<A, R>,
    /// Calls in place through `&` (refuses unless `Shared`).
    pub(super) call_ref: CallRef<A, R>,
    /// Moves the closure out of the storage and calls it by value (refuses only when empty).
    pub(super) call_once: CallMut<A, R>,
    /// Drops the closure in place; `None` when empty or when it has no drop glue, so re-arming
    /// a slot that held a plain closure skips an indirect call.
    pub(super) drop: Option<unsafe fn(*mut u8)>,
}

impl<A: CallbackArgs, R> VTable<A, R> {
    /// The table of an empty slot: every call refuses with [`CallError::Empty`].
    pub(super) const EMPTY: Self = VTable {
        kind: None,
        call_mut: refuse_mut_empty::<A, R>,
        call_ref: refuse_ref_empty::<A, R>,
        call_once: refuse_mut_empty::<A, R>,
        drop: None,
    };
}

/// Holder of the `VTable` constants for closure type `F`.
pub(super) struct Shims<F, A, R>(PhantomData<(F, A, R)>);

impl<F, A: CallbackArgs, R> Shims<F, A, R>
where
    F: for<'a> FnOnce(A::Of<'a>) -> R,
{
    pub(super) const ONCE: VTable<A, R> = VTable {
        kind: Some(CallbackKind::Once),
        call_mut: refuse_mut_once_only::<A, R>,
        call_ref: refuse_ref_once_only::<A, R>,
        call_once: call_once::<F, A, R>,
        drop: drop_fn::<F>(),
    };
}

impl<F, A: CallbackArgs, R> Shims<F, A, R>
where
    F: for<'a> FnMut(A::Of<'a>) -> R,
{
    pub(super) const MUT: VTable<A, R> = VTable {
        kind: Some(CallbackKind::Mut),
        call_mut: call_mut::<F, A, R>,
        call_ref: refuse_ref_not_shared::<A, R>,
        call_once: call_once::<F, A, R>,
        drop: drop_fn::<F>(),
    };
}

impl<F, A: CallbackArgs, R> Shims<F, A, R>
where
    F: for<'a> Fn(A::Of<'a>) -> R,
{
    pub(super) const SHARED: VTable<A, R> = VTable {
        kind: Some(CallbackKind::Shared),
        call_mut: call_mut::<F, A, R>,
        call_ref: call_ref::<F, A, R>,
        call_once: call_once::<F, A, R>,
        drop: drop_fn::<F>(),
    };
}

fn refuse_mut_empty<A: CallbackArgs, R>(_: *mut u8, _: A::Of<'_>) -> Result<R, CallError> {
    Err(CallError::Empty)
}

fn refuse_ref_empty<A: CallbackArgs, R>(_: *const u8, _: A::Of<'_>) -> Result<R, CallError> {
    Err(CallError::Empty)
}

fn refuse_mut_once_only<A: CallbackArgs, R>(_: *mut u8, _: A::Of<'_>) -> Result<R, CallError> {
    Err(CallError::OnceOnly)
}

fn refuse_ref_once_only<A: CallbackArgs, R>(_: *const u8, _: A::Of<'_>) -> Result<R, CallError> {
    Err(CallError::OnceOnly)
}

fn refuse_ref_not_shared<A: CallbackArgs, R>(_: *const u8, _: A::Of<'_>) -> Result<R, CallError> {
    Err(CallError::NotShared)
}

/// Calls the closure in place through an exclusive pointer.
///
/// # Safety
/// `p` points to a live, properly aligned `F` that nothing else accesses during the call.
unsafe fn call_mut<F, A, R>(p: *mut u8, args: A::Of<'_>) -> Result<R, CallError>
where
    A: CallbackArgs,
    F: for<'a> FnMut(A::Of<'a>) -> R,
{
    // SAFETY: the caller guarantees `p` is a live, aligned, unaliased `F`.
    let f = unsafe { &mut *p.cast::<F>() };
    Ok(f(args))
}

/// Calls the closure in place through a shared pointer.
///
/// # Safety
/// `p` points to a live, properly aligned `F` that nobody mutates or drops during the call
/// (other shared calls may run concurrently if `F: Sync`), and the pointer's provenance allows
/// interior mutation (it comes from an `UnsafeCell`).
unsafe fn call_ref<F, A, R>(p: *const u8, args: A::Of<'_>) -> Result<R, CallError>
where
    A: CallbackArgs,
    F: for<'a> Fn(A::Of<'a>) -> R,
{
    // SAFETY: the caller guarantees `p` is a live, aligned `F` that is only shared meanwhile.
    let f = unsafe { &*p.cast::<F>() };
    Ok(f(args))
}

/// Moves the closure out of the storage and calls it by value; afterwards the storage holds no
/// `F` (its bytes are dead), even if the call panics.
///
/// # Safety
/// `p` points to a live, properly aligned `F` that the caller has already marked as gone (so
/// it is never dropped or read again), and nothing else accesses it.
unsafe fn call_once<F, A, R>(p: *mut u8, args: A::Of<'_>) -> Result<R, CallError>
where
    A: CallbackArgs,
    F: for<'a> FnOnce(A::Of<'a>) -> R,
{
    // SAFETY: `p` is a live aligned `F` and the caller gave up ownership of it: this read is
    // the one and only move out of it.
    let f = unsafe { p.cast::<F>().read() };
    Ok(f(args))
}

/// `drop_in_place::<F>` if `F` needs dropping.
const fn drop_fn<F>() -> Option<unsafe fn(*mut u8)> {
    if mem::needs_drop::<F>() {
        Some(drop_in_place::<F>)
    } else {
        None
    }
}

/// Drops the closure in place.
///
/// # Safety
/// `p` points to a live, properly aligned `F` that the caller has already marked as gone, and
/// nothing else accesses it.
unsafe fn drop_in_place<F>(p: *mut u8) {
    // SAFETY: `p` is a live aligned `F` the caller no longer considers owned: dropped once.
    unsafe { p.cast::<F>().drop_in_place() }
}
