//! How a callback receives its argument: [`CallbackArgs`] and the families [`ByValue`],
//! [`ByRef`] and [`ByMut`].

use core::marker::PhantomData;

/// Names the argument type a [`CallbackSlot`](crate::callback::CallbackSlot) passes to its callback, for
/// every borrow lifetime at once.
///
/// A slot stores callbacks that implement `for<'a> FnMut(A::Of<'a>) -> R`. Going through a
/// family rather than a plain type lets the argument be a *reference with a fresh lifetime on
/// every call*, so a dispatcher can hand each callback `&mut Ctx` for just that call without the
/// slot's type naming any lifetime:
///
/// | family | callback receives | closure looks like |
/// | --- | --- | --- |
/// | `()` | `()` | `\|_\| ...` or `\|()\| ...` |
/// | [`ByValue<T>`] | `T` | `\|x: T\| ...` |
/// | [`ByRef<T>`] | `&'a T` | `\|ctx\| ctx.len()` |
/// | [`ByMut<T>`] | `&'a mut T` | `\|ctx\| ctx.count += 1` |
/// | `(F1, F2)` | `(F1::Of<'a>, F2::Of<'a>)` | `\|(ctx, n)\| ...` |
///
/// ```
/// use spanring_core::callback::ByMut;
/// use spanring_core::callback::ByValue;
/// use spanring_core::callback::CallbackSlot;
/// struct Ctx { total: u64 }
///
/// let mut slot: CallbackSlot<(ByMut<Ctx>, ByValue<u64>)> = CallbackSlot::new();
/// slot.set(|(ctx, n): (&mut Ctx, u64)| ctx.total += n);
/// let mut ctx = Ctx { total: 1 };
/// slot.call((&mut ctx, 41)).unwrap();
/// assert_eq!(ctx.total, 42);
/// ```
///
/// The types are `'static` markers (the slot's vtable is a `static`), so `T` must be `'static`
/// too; the *borrows* passed at call time may be as short as you like.
pub trait CallbackArgs: 'static {
    /// The argument the callback receives in a call that borrows for `'a`.
    type Of<'a>;
}

/// Pass a `T` by value: the callback is `FnMut(T) -> R`.
///
/// ```
/// use spanring_core::callback::ByValue;
/// use spanring_core::callback::CallbackSlot;
/// let mut slot: CallbackSlot<ByValue<u32>, u32> = CallbackSlot::new();
/// slot.set(|x| x * 2);
/// assert_eq!(slot.call(21), Ok(42));
/// ```
pub struct ByValue<T>(PhantomData<fn(T)>);

impl<T> core::fmt::Debug for ByValue<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ByValue<{}>", core::any::type_name::<T>())
    }
}

/// Pass a shared borrow: the callback is `for<'a> FnMut(&'a T) -> R`.
///
/// ```
/// use spanring_core::callback::ByRef;
/// use spanring_core::callback::CallbackSlot;
/// let mut slot: CallbackSlot<ByRef<str>, usize> = CallbackSlot::new();
/// slot.set(|s: &str| s.len());
/// let owned = [b'h', b'i'];
/// assert_eq!(slot.call(core::str::from_utf8(&owned).unwrap()), Ok(2));
/// ```
pub struct ByRef<T: ?Sized>(PhantomData<fn(&T)>);

impl<T: ?Sized> core::fmt::Debug for ByRef<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ByRef<{}>", core::any::type_name::<T>())
    }
}

/// Pass an exclusive borrow: the callback is `for<'a> FnMut(&'a mut T) -> R` — the way a
/// dispatcher hands its processor context to each event's callback.
///
/// ```
/// use spanring_core::callback::ByMut;
/// use spanring_core::callback::CallbackSlot;
/// struct Ctx { seen: u32 }
/// let mut slot: CallbackSlot<ByMut<Ctx>> = CallbackSlot::new();
/// slot.set(|ctx: &mut Ctx| ctx.seen += 1);
/// let mut ctx = Ctx { seen: 0 };
/// slot.call(&mut ctx).unwrap();
/// slot.call(&mut ctx).unwrap();
/// assert_eq!(ctx.seen, 2);
/// ```
pub struct ByMut<T: ?Sized>(PhantomData<fn(&mut T)>);

impl<T: ?Sized> core::fmt::Debug for ByMut<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ByMut<{}>", core::any::type_name::<T>())
    }
}

impl CallbackArgs for () {
    type Of<'a> = ();
}

impl<T: 'static> CallbackArgs for ByValue<T> {
    type Of<'a> = T;
}

impl<T: ?Sized + 'static> CallbackArgs for ByRef<T> {
    type Of<'a> = &'a T;
}

impl<T: ?Sized + 'static> CallbackArgs for ByMut<T> {
    type Of<'a> = &'a mut T;
}

impl<A: CallbackArgs, B: CallbackArgs> CallbackArgs for (A, B) {
    type Of<'a> = (A::Of<'a>, B::Of<'a>);
}

impl<A: CallbackArgs, B: CallbackArgs, C: CallbackArgs> CallbackArgs for (A, B, C) {
    type Of<'a> = (A::Of<'a>, B::Of<'a>, C::Of<'a>);
}
