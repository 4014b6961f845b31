//! [`CallbackSlot`]: a fixed-capacity, in-place, reusable home for one callback.

use core::cell::UnsafeCell;
use core::fmt;
use core::marker::PhantomData;
use core::mem::{self, MaybeUninit};

use static_assertions::{assert_eq_align, assert_eq_size, assert_impl_all, assert_not_impl_any};

use super::args::CallbackArgs;
use super::error::{CallError, CallbackKind};
use super::message::ConstMessage;
use super::policy::{Local, Sendable, ThreadPolicy};
use super::vtable::{Shims, VTable};

/// A reusable slot that holds one callback *inline*: setting a new callback builds it in place
/// in the slot's own `WORDS` machine words, after dropping the previous one. Nothing is ever
/// allocated, so re-arming an event in a pooled ring slot costs a few stores.
///
/// * `A` — how arguments are passed, a [`CallbackArgs`] family: `()`, [`ByValue<T>`](crate::callback::ByValue),
///   [`ByRef<T>`](crate::callback::ByRef), [`ByMut<T>`](crate::callback::ByMut) or a tuple of them. Callbacks are
///   `for<'a> FnMut(A::Of<'a>) -> R`, so `CallbackSlot<ByMut<Ctx>>` hands every call a fresh
///   `&mut Ctx`.
/// * `R` — the return type (`'static`; the default is `()`).
/// * `WORDS` — capacity in `usize` words (default 4: 32 bytes on 64-bit targets). The storage is
///   aligned like `usize`. The slot itself is `WORDS + 1` words.
/// * `P` — [`Local`] (default; any callback, slot neither `Send` nor `Sync`) or [`Sendable`]
///   (only `Send` callbacks; slot `Send + Sync`). [`SendCallbackSlot`] names the latter.
///
/// Three ways to set, recorded in the slot ([`CallbackKind`]) and checked on each call:
///
/// | set with | bound | `call` (`&mut`) | `call_shared` (`&`) | `call_once` |
/// | --- | --- | --- | --- | --- |
/// | [`set_once`](Self::set_once) | `FnOnce` | `Err(OnceOnly)` | `Err(OnceOnly)` | runs, empties |
/// | [`set`](Self::set) | `FnMut` | runs | `Err(NotShared)` | runs, empties |
/// | [`set_fn`](Self::set_fn) | `Fn` (`+ Sync` if [`Sendable`]) | runs | runs | runs, empties |
///
/// Every call on an empty slot returns [`CallError::Empty`].
///
/// ```
/// use spanring_core::callback::ByMut;
/// use spanring_core::callback::CallbackSlot;
/// struct Ctx { log: [u32; 4], n: usize }
///
/// let mut slot: CallbackSlot<ByMut<Ctx>> = CallbackSlot::new();
/// let mut ctx = Ctx { log: [0; 4], n: 0 };
/// for id in 1..=3u32 {
///     // Re-arm the same slot with a new callback each time: no allocation.
///     slot.set(move |ctx: &mut Ctx| { ctx.log[ctx.n] = id; ctx.n += 1; });
///     slot.call(&mut ctx).unwrap();
/// }
/// assert_eq!(&ctx.log[..3], &[1, 2, 3]);
/// ```
///
/// # Capacity is checked at compile time
///
/// A closure whose captures fit (here 16 bytes in a 4-word slot):
///
/// ```
/// use spanring_core::callback::CallbackSlot;
/// let data = [7u64; 2];
/// let mut slot: CallbackSlot<(), u64> = CallbackSlot::new();
/// slot.set(move |_| data[0] + data[1]);
/// assert_eq!(slot.call(()), Ok(14));
/// ```
///
/// The same code capturing 5 `u64`s (40 bytes) does not build:
///
/// ```compile_fail,E0080
/// use spanring_core::callback::CallbackSlot;
/// let data = [7u64; 5];
/// let mut slot: CallbackSlot<(), u64> = CallbackSlot::new();
/// slot.set(move |_| data[0] + data[1]);
/// ```
///
/// The error (a `const` assertion evaluated for each closure type when the generic `set` is
/// instantiated, so it appears under `cargo build`/`cargo test`; `cargo check` never
/// instantiates generic functions and does not report it) names the sizes and the fix, here on
/// a 64-bit target:
/// `closure too large for its CallbackSlot: it captures 40 bytes, the slot
/// (`CallbackSlot<A, R, WORDS = 4>`) holds 32 bytes. Fix: raise WORDS to at least 5 (for a
/// Dispatcher: `Dispatcher::<Ctx, 5>::spawn_sized(capacity, ctx)` ...), or capture less ...`.
/// Its "encountered while instantiating" note points at the call in your code.
///
/// Alignment is checked too. A 64-byte value aligned to 8 fits a 16-word slot:
///
/// ```
/// use spanring_core::callback::CallbackSlot;
/// #[derive(Clone, Copy)]
/// #[repr(C, align(8))]
/// struct Block([u8; 64]);
/// let block = Block([1; 64]);
/// let mut slot: CallbackSlot<(), u8, 16> = CallbackSlot::new();
/// // `let whole = block` captures all of `block`, not just the field (edition 2021
/// // closures capture disjoint fields).
/// slot.set(move |_| { let whole = block; whole.0[0] });
/// assert_eq!(slot.call(()), Ok(1));
/// ```
///
/// but the same value aligned to 64 (more than `usize`) does not build, with
/// `closure too aligned for CallbackSlot: ...`:
///
/// ```compile_fail,E0080
/// use spanring_core::callback::CallbackSlot;
/// #[derive(Clone, Copy)]
/// #[repr(C, align(64))]
/// struct Block([u8; 64]);
/// let block = Block([1; 64]);
/// let mut slot: CallbackSlot<(), u8, 16> = CallbackSlot::new();
/// // `let whole = block` captures all of `block`, not just the field (edition 2021
/// // closures capture disjoint fields).
/// slot.set(move |_| { let whole = block; whole.0[0] });
/// ```
///
/// # Threads
///
/// A [`Local`] slot is not `Send`, because it may hold a non-`Send` closure:
///
/// ```compile_fail
/// use spanring_core::callback::CallbackSlot;
/// let slot: CallbackSlot<()> = CallbackSlot::new();
/// std::thread::spawn(move || drop(slot));
/// ```
///
/// and a [`SendCallbackSlot`] refuses non-`Send` closures:
///
/// ```compile_fail
/// use spanring_core::callback::SendCallbackSlot;
/// let rc = std::rc::Rc::new(1);
/// let mut slot: SendCallbackSlot<(), i32> = SendCallbackSlot::new();
/// slot.set(move |_| *rc);
/// ```
///
/// # Panics and drops
///
/// The stored callback is dropped exactly once: by [`reset`](Self::reset), by the next `set*`,
/// by [`call_once`](Self::call_once) (which consumes it), or when the slot is dropped. If a
/// callback panics:
/// * in [`call`](Self::call) or [`call_shared`](Self::call_shared) the slot stays **intact**
///   (the callback, in whatever state it left itself, can be called again and is dropped later);
/// * in [`call_once`](Self::call_once) the slot is already **empty** — it is marked empty before
///   the callback runs, and the unwinding callback drops its own captures.
///
/// If a callback's *destructor* panics (in `reset`, `set*` or drop), the slot is left empty; in
/// `set*` the new callback is then dropped, not stored.
pub struct CallbackSlot<A, R = (), const WORDS: usize = 4, P = Local>
where
    A: CallbackArgs,
    R: 'static,
    P: ThreadPolicy,
{
    /// The closure's bytes. `UnsafeCell` because `call_shared` runs an `Fn` through `&self`
    /// and that closure may use interior mutability (atomics, `Cell`) on its captures.
    storage: UnsafeCell<[MaybeUninit<usize>; WORDS]>,
    /// Describes what `storage` holds: `VTable::EMPTY` (nothing live) or the table made for
    /// the type of the live closure in it. Never out of step with `storage`.
    vtable: &'static VTable<A, R>,
    /// The policy; `*const ()` removes the auto `Send`/`Sync`, given back for [`Sendable`] only.
    _policy: PhantomData<(P, *const ())>,
}

/// A [`CallbackSlot`] that only accepts `Send` callbacks (and `Send + Sync` ones for
/// [`set_fn`](CallbackSlot::set_fn)), and so is itself `Send + Sync`: it can live in a ring
/// slot shared by threads, and broadcast readers holding only `&` can run an `Fn` callback
/// through [`call_shared`](CallbackSlot::call_shared) concurrently.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use spanring_core::callback::ByRef;
/// use spanring_core::callback::SendCallbackSlot;
///
/// let mut slot: SendCallbackSlot<ByRef<AtomicUsize>> = SendCallbackSlot::new();
/// slot.set_fn(|hits: &AtomicUsize| {
///     hits.fetch_add(1, Ordering::Relaxed);
/// });
/// let hits = AtomicUsize::new(0);
/// std::thread::scope(|s| {
///     for _ in 0..4 {
///         s.spawn(|| slot.call_shared(&hits).unwrap());
///     }
/// });
/// assert_eq!(hits.load(Ordering::Relaxed), 4);
/// ```
pub type SendCallbackSlot<A, R = (), const WORDS: usize = 4> = CallbackSlot<A, R, WORDS, Sendable>;

// SAFETY: a `Sendable` slot only ever stores closures that are `Send` (every `set*` on
// `CallbackSlot<_, _, _, Sendable>` requires `F: Send`), so moving the slot moves a `Send` value;
// the vtable is a `&'static` table of fn pointers.
unsafe impl<A: CallbackArgs, R: 'static, const WORDS: usize> Send
    for CallbackSlot<A, R, WORDS, Sendable>
{
}

// Through `&self` the slot exposes only `is_empty`, `kind` and `call_shared`, and every
// mutation of the storage or the vtable needs `&mut self`.
// SAFETY: `call_shared` runs the closure through `&F` only if `set_fn` stored it, which on a
// `Sendable` slot requires `F: Fn + Sync`, so concurrent shared calls are sound.
unsafe impl<A: CallbackArgs, R: 'static, const WORDS: usize> Sync
    for CallbackSlot<A, R, WORDS, Sendable>
{
}

assert_eq_size!(CallbackSlot<()>, [usize; 5]);
assert_eq_size!(CallbackSlot<(), (), 0>, usize);
assert_eq_align!(CallbackSlot<()>, usize);
assert_not_impl_any!(CallbackSlot<()>: Send, Sync);
assert_impl_all!(SendCallbackSlot<()>: Send, Sync, Default);
assert_impl_all!(CallbackSlot<()>: Default);

impl<A: CallbackArgs, R: 'static, const WORDS: usize, P: ThreadPolicy>
    CallbackSlot<A, R, WORDS, P>
{
    /// Bytes a closure may occupy: `WORDS * size_of::<usize>()`.
    pub const CAPACITY: usize = WORDS * mem::size_of::<usize>();

    /// Largest alignment a closure may need: `align_of::<usize>()`.
    pub const ALIGN: usize = mem::align_of::<usize>();

    /// Whether a callback of type `F` fits this slot: at most [`CAPACITY`](Self::CAPACITY)
    /// bytes and aligned at most like `usize`. The `set*` methods refuse exactly the types for
    /// which this is `false` — at compile time (see below).
    ///
    /// A closure's type cannot be written down, so name it through a generic helper that
    /// takes the closure by reference:
    ///
    /// ```
    /// use spanring_core::callback::CallbackSlot;
    /// type Slot = CallbackSlot<(), u64>; // 4 words
    /// fn fits<F>(_: &F) -> bool {
    ///     Slot::fits::<F>()
    /// }
    /// let four = [1usize; 4];
    /// let five = [1usize; 5];
    /// assert!(fits(&move |_: ()| four[0] as u64)); // 4 words of captures
    /// assert!(!fits(&move |_: ()| five[0] as u64)); // 5: `Slot::set` would not build
    /// // It is a `const fn`, so named types can be checked at compile time, with your own
    /// // message:
    /// const _: () = assert!(Slot::fits::<fn(())>(), "a fn pointer is one word");
    /// ```
    ///
    /// It answers the question; it cannot make an oversized `set` build. The size check in
    /// `set*` is a `const` assertion evaluated when the method is instantiated for `F`
    /// (post-monomorphization), so every `set::<F>` the program contains must fit, even one in
    /// a branch that `if Slot::fits::<F>()` would skip at run time. Because it is
    /// post-monomorphization, the error appears under `cargo build`/`cargo test`; `cargo check`
    /// does not report it (as of Rust 1.95).
    #[inline]
    #[must_use]
    pub const fn fits<F>() -> bool {
        mem::size_of::<F>() <= Self::CAPACITY && mem::align_of::<F>() <= Self::ALIGN
    }

    /// An empty slot. `const`, so slots can live in `static`s.
    ///
    /// ```
    /// use spanring_core::callback::CallbackSlot;
    /// let slot: CallbackSlot<()> = CallbackSlot::new();
    /// assert!(slot.is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self {
            storage: UnsafeCell::new([MaybeUninit::uninit(); WORDS]),
            vtable: &VTable::EMPTY,
            _policy: PhantomData,
        }
    }

    /// True when no callback is stored.
    ///
    /// ```
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<()> = CallbackSlot::new();
    /// slot.set_once(|_| ());
    /// assert!(!slot.is_empty());
    /// slot.call_once(()).unwrap();
    /// assert!(slot.is_empty());
    /// ```
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.vtable.kind.is_none()
    }

    /// The kind of the stored callback, or `None` when empty.
    ///
    /// ```
    /// use spanring_core::callback::CallbackKind;
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<()> = CallbackSlot::new();
    /// slot.set_fn(|_| ());
    /// assert_eq!(slot.kind(), Some(CallbackKind::Shared));
    /// ```
    #[inline]
    #[must_use]
    pub fn kind(&self) -> Option<CallbackKind> {
        self.vtable.kind
    }

    /// Runs the stored callback through `&mut self` (the `FnMut` path). The callback stays in
    /// the slot. If it panics, the slot stays intact.
    ///
    /// # Errors
    /// [`CallError::Empty`] if nothing is stored, [`CallError::OnceOnly`] if it was set with
    /// [`set_once`](Self::set_once) (use [`call_once`](Self::call_once)).
    ///
    /// ```
    /// use spanring_core::callback::ByValue;
    /// use spanring_core::callback::CallbackSlot;
    /// let mut sum = 0;
    /// let mut slot: CallbackSlot<ByValue<u32>, u32> = CallbackSlot::new();
    /// slot.set(move |x| { sum += x; sum });
    /// assert_eq!(slot.call(2), Ok(2));
    /// assert_eq!(slot.call(3), Ok(5));
    /// ```
    #[inline]
    pub fn call(&mut self, args: A::Of<'_>) -> Result<R, CallError> {
        let call = self.vtable.call_mut;
        let ptr = self.storage.get_mut().as_mut_ptr().cast::<u8>();
        // SAFETY: `call_mut` of the table describing `storage`: either a refusal that touches
        // nothing, or the in-place call for the live closure there (aligned by the checks in
        // `emplace`); `&mut self` makes this the only access.
        unsafe { call(ptr, args) }
    }

    /// Runs the stored callback through `&self` (the `Fn` path), so several threads holding
    /// `&` to one [`SendCallbackSlot`] — a broadcast ring's readers — can run it at once. The
    /// callback stays in the slot; if it panics, the slot stays intact.
    ///
    /// # Errors
    /// [`CallError::Empty`] if nothing is stored, [`CallError::NotShared`] if it was set with
    /// [`set`](Self::set), [`CallError::OnceOnly`] if set with [`set_once`](Self::set_once).
    ///
    /// ```
    /// use spanring_core::callback::ByValue;
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<ByValue<u32>, u32> = CallbackSlot::new();
    /// let offset = 10;
    /// slot.set_fn(move |x| x + offset);
    /// let shared = &slot;
    /// assert_eq!(shared.call_shared(1), Ok(11));
    /// assert_eq!(shared.call_shared(2), Ok(12));
    /// ```
    #[inline]
    pub fn call_shared(&self, args: A::Of<'_>) -> Result<R, CallError> {
        let call = self.vtable.call_ref;
        let ptr = self.storage.get().cast::<u8>().cast_const();
        // `call_ref` of the table describing `storage` refuses without touching anything unless
        // the closure was stored by `set_fn`: then it is live and aligned (checked in `emplace`),
        // `Fn`, and also `Sync` when the slot is `Sync` (`Sendable`).
        // SAFETY: so concurrent shared calls are fine; nothing can drop or replace it while
        // `&self` lives; `ptr` comes from the `UnsafeCell` (interior mutability is allowed).
        unsafe { call(ptr, args) }
    }

    /// Consumes the stored callback and runs it (the `FnOnce` path), leaving the slot empty.
    /// Works for every kind. The slot is marked empty *before* the callback runs, so if it
    /// panics the slot is empty and the callback's captures are dropped once, by the unwind.
    ///
    /// # Errors
    /// [`CallError::Empty`] if nothing is stored.
    ///
    /// ```
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<(), [u8; 3]> = CallbackSlot::new();
    /// let owned = [1u8, 2, 3];
    /// slot.set_once(move |_| owned);
    /// assert_eq!(slot.call_once(()), Ok([1, 2, 3]));
    /// assert!(slot.is_empty());
    /// ```
    #[inline]
    pub fn call_once(&mut self, args: A::Of<'_>) -> Result<R, CallError> {
        let vtable = mem::replace(&mut self.vtable, &VTable::EMPTY);
        let ptr = self.storage.get_mut().as_mut_ptr().cast::<u8>();
        // `vtable` described `storage`: the empty table's `call_once` refuses without touching
        // anything; otherwise `storage` held a live closure of its type.
        // SAFETY: the slot was marked empty above, so this move out of the storage is the only
        // consumer and nothing will drop those bytes again, even if the call unwinds.
        unsafe { (vtable.call_once)(ptr, args) }
    }

    /// Drops the stored callback, if any, leaving the slot empty (also if the destructor panics).
    ///
    /// ```
    /// use spanring_core::callback::CallError;
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<()> = CallbackSlot::new();
    /// slot.set(|_| ());
    /// slot.reset();
    /// assert_eq!(slot.call(()), Err(CallError::Empty));
    /// ```
    #[inline]
    pub fn reset(&mut self) {
        if let Some(drop) = mem::replace(&mut self.vtable, &VTable::EMPTY).drop {
            let ptr = self.storage.get_mut().as_mut_ptr().cast::<u8>();
            // SAFETY: `drop` is only `Some` in a closure's table, so `storage` held a live closure
            // of its type; the slot was marked empty first, so this is its one and only drop.
            unsafe { drop(ptr) }
        }
    }

    /// Moves the callback out into a new slot, leaving this one empty (`mem::take`).
    ///
    /// ```
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<(), u8> = CallbackSlot::new();
    /// slot.set(|_| 9);
    /// let mut moved = slot.take();
    /// assert!(slot.is_empty());
    /// assert_eq!(moved.call(()), Ok(9));
    /// ```
    #[inline]
    #[must_use = "the taken callback is dropped if unused; use `reset` to drop it"]
    pub fn take(&mut self) -> Self {
        mem::take(self)
    }

    /// Panics (at compile time, called from a `const` block) when a closure of type `F` does
    /// not fit this slot, with a message that names the sizes and the fix. Used by the `set*`
    /// methods and by spanring-std's dispatcher (whose `post` checks first, so the error's
    /// "while instantiating" note points at the caller's `post`). Not part of the API.
    ///
    /// A post-monomorphization check: `cargo build` reports it, `cargo check` does not (it
    /// never instantiates generic functions).
    #[doc(hidden)]
    pub const fn __assert_fits<F>() {
        if mem::size_of::<F>() > Self::CAPACITY {
            let words = mem::size_of::<F>().div_ceil(mem::size_of::<usize>());
            let message = ConstMessage::new()
                .str("closure too large for its CallbackSlot: it captures ")
                .num(mem::size_of::<F>())
                .str(" bytes, the slot (`CallbackSlot<A, R, WORDS = ")
                .num(WORDS)
                .str(">`) holds ")
                .num(Self::CAPACITY)
                .str(" bytes. Fix: raise WORDS to at least ")
                .num(words)
                .str(" (for a Dispatcher: `Dispatcher::<Ctx, ")
                .num(words)
                .str(
                    ">::spawn_sized(capacity, ctx)` instead of `Dispatcher::spawn`), or \
                      capture less (a reference, an index, an `Arc` or a `Box`)",
                );
            panic!("{}", message.as_str());
        }
        if mem::align_of::<F>() > Self::ALIGN {
            let message = ConstMessage::new()
                .str("closure too aligned for its CallbackSlot: it captures a value aligned to ")
                .num(mem::align_of::<F>())
                .str(" bytes, the slot's word storage is aligned to ")
                .num(Self::ALIGN)
                .str("; no WORDS fixes that: capture the value in a `Box` (or by reference)");
            panic!("{}", message.as_str());
        }
    }

    /// Drops the current callback and builds `f` in the storage under `vtable`.
    ///
    /// Fails to *compile* (post-monomorphization `const` assertion) when `F` does not fit.
    ///
    /// # Safety
    /// `vtable` must be one of `Shims::<F, A, R>`'s tables, and its kind must be one that `F`
    /// and this slot's policy allow (the `set*` wrappers pick it from their bounds).
    #[inline]
    unsafe fn emplace<F>(&mut self, f: F, vtable: &'static VTable<A, R>) {
        const { Self::__assert_fits::<F>() }
        self.reset();
        let ptr = self.storage.get_mut().as_mut_ptr().cast::<F>();
        // SAFETY: the const assertions above guarantee that `F` fits in the storage and that
        // the word-aligned storage is aligned enough for it; `reset` left it holding nothing
        // live, so writing does not leak or overwrite a closure; `&mut self` is exclusive.
        unsafe { ptr.write(f) };
        self.vtable = vtable;
    }
}

impl<A: CallbackArgs, R: 'static, const WORDS: usize> CallbackSlot<A, R, WORDS, Local> {
    /// Stores an `FnMut` callback (dropping the previous one), callable by
    /// [`call`](Self::call) and [`call_once`](Self::call_once). A closure larger than
    /// [`CAPACITY`](Self::CAPACITY) or aligned more than `usize` is a compile error.
    ///
    /// ```
    /// use spanring_core::callback::CallbackSlot;
    /// let mut count = 0u32;
    /// let mut slot: CallbackSlot<(), u32> = CallbackSlot::new();
    /// slot.set(move |_| { count += 1; count });
    /// slot.call(()).unwrap();
    /// assert_eq!(slot.call(()), Ok(2));
    /// ```
    #[inline]
    pub fn set<F>(&mut self, f: F)
    where
        F: for<'a> FnMut(A::Of<'a>) -> R + 'static,
    {
        // SAFETY: the table is `F`'s own, and `F: FnMut` allows the `Mut` kind.
        unsafe { self.emplace(f, &Shims::<F, A, R>::MUT) }
    }

    /// Stores an `Fn` callback, callable by every call including
    /// [`call_shared`](Self::call_shared) through `&self`. (A `Local` slot is not `Sync`, so
    /// no `Sync` bound is needed here; see [`SendCallbackSlot`] for sharing across threads.)
    ///
    /// ```
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<(), &'static str> = CallbackSlot::new();
    /// slot.set_fn(|_| "hi");
    /// assert_eq!((&slot).call_shared(()), Ok("hi"));
    /// ```
    #[inline]
    pub fn set_fn<F>(&mut self, f: F)
    where
        F: for<'a> Fn(A::Of<'a>) -> R + 'static,
    {
        // SAFETY: the table is `F`'s own; `F: Fn` allows the `Shared` kind, and a `Local` slot
        // is not `Sync`, so shared calls never happen on two threads at once.
        unsafe { self.emplace(f, &Shims::<F, A, R>::SHARED) }
    }

    /// Stores an `FnOnce` callback, run (and consumed) only by [`call_once`](Self::call_once).
    ///
    /// ```
    /// use spanring_core::callback::CallError;
    /// use spanring_core::callback::CallbackSlot;
    /// let mut slot: CallbackSlot<()> = CallbackSlot::new();
    /// slot.set_once(|_| ());
    /// assert_eq!(slot.call(()), Err(CallError::OnceOnly));
    /// assert_eq!(slot.call_once(()), Ok(()));
    /// ```
    #[inline]
    pub fn set_once<F>(&mut self, f: F)
    where
        F: for<'a> FnOnce(A::Of<'a>) -> R + 'static,
    {
        // SAFETY: the table is `F`'s own, and `F: FnOnce` allows the `Once` kind.
        unsafe { self.emplace(f, &Shims::<F, A, R>::ONCE) }
    }
}

impl<A: CallbackArgs, R: 'static, const WORDS: usize> CallbackSlot<A, R, WORDS, Sendable> {
    /// Stores a `Send + FnMut` callback; see [`CallbackSlot::set`].
    ///
    /// ```
    /// use spanring_core::callback::SendCallbackSlot;
    /// let mut slot: SendCallbackSlot<(), u32> = SendCallbackSlot::new();
    /// slot.set(|_| 7);
    /// let handle = std::thread::spawn(move || slot.call(()));
    /// assert_eq!(handle.join().unwrap(), Ok(7));
    /// ```
    #[inline]
    pub fn set<F>(&mut self, f: F)
    where
        F: for<'a> FnMut(A::Of<'a>) -> R + Send + 'static,
    {
        // SAFETY: the table is `F`'s own, `F: FnMut` allows the `Mut` kind, and `F: Send` is
        // what the `Send` impl of a `Sendable` slot relies on.
        unsafe { self.emplace(f, &Shims::<F, A, R>::MUT) }
    }

    /// Stores a `Send + Sync + Fn` callback that threads sharing the slot may run at once
    /// through [`call_shared`](CallbackSlot::call_shared); see [`SendCallbackSlot`].
    ///
    /// ```
    /// use spanring_core::callback::SendCallbackSlot;
    /// let mut slot: SendCallbackSlot<(), u32> = SendCallbackSlot::new();
    /// slot.set_fn(|_| 3);
    /// assert_eq!(slot.call_shared(()), Ok(3));
    /// ```
    #[inline]
    pub fn set_fn<F>(&mut self, f: F)
    where
        F: for<'a> Fn(A::Of<'a>) -> R + Send + Sync + 'static,
    {
        // SAFETY: the table is `F`'s own; `F: Fn + Sync` allows concurrent shared calls (the
        // `Sync` impl relies on it) and `F: Send` allows the `Send` impl.
        unsafe { self.emplace(f, &Shims::<F, A, R>::SHARED) }
    }

    /// Stores a `Send + FnOnce` callback; see [`CallbackSlot::set_once`].
    ///
    /// ```
    /// use spanring_core::callback::SendCallbackSlot;
    /// let mut slot: SendCallbackSlot<(), u8> = SendCallbackSlot::new();
    /// slot.set_once(|_| 1);
    /// assert_eq!(slot.call_once(()), Ok(1));
    /// ```
    #[inline]
    pub fn set_once<F>(&mut self, f: F)
    where
        F: for<'a> FnOnce(A::Of<'a>) -> R + Send + 'static,
    {
        // SAFETY: the table is `F`'s own, `F: FnOnce` allows the `Once` kind, `F: Send` the
        // `Send` impl.
        unsafe { self.emplace(f, &Shims::<F, A, R>::ONCE) }
    }
}

impl<A: CallbackArgs, R: 'static, const WORDS: usize, P: ThreadPolicy> Default
    for CallbackSlot<A, R, WORDS, P>
{
    /// An empty slot, as ring slots need initialised memory.
    fn default() -> Self {
        Self::new()
    }
}

impl<A: CallbackArgs, R: 'static, const WORDS: usize, P: ThreadPolicy> Drop
    for CallbackSlot<A, R, WORDS, P>
{
    fn drop(&mut self) {
        self.reset();
    }
}

impl<A: CallbackArgs, R: 'static, const WORDS: usize, P: ThreadPolicy> fmt::Debug
    for CallbackSlot<A, R, WORDS, P>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallbackSlot")
            .field("kind", &self.kind())
            .field("capacity", &Self::CAPACITY)
            .finish()
    }
}
