//! Element access over a span's two slices (the part before the end of the memory, then the
//! part from its start), shared by [`ReadSpan`](crate::ReadSpan) and
//! [`WriteSpan`](crate::WriteSpan): what reads and writes do alike lives here once.

/// The `i`th of the items `a` then `b`.
#[inline(always)]
pub(crate) fn get<'a, T>(a: &'a [T], b: &'a [T], i: usize) -> Option<&'a T> {
    match i.checked_sub(a.len()) {
        None => a.get(i),
        Some(j) => b.get(j),
    }
}

/// The `i`th of the items `a` then `b`, mutably.
#[inline(always)]
pub(crate) fn get_mut<'a, T>(a: &'a mut [T], b: &'a mut [T], i: usize) -> Option<&'a mut T> {
    match i.checked_sub(a.len()) {
        None => a.get_mut(i),
        Some(j) => b.get_mut(j),
    }
}

/// Puts the first `min(a.len() + b.len(), dst.len())` items of `a` then `b` into the front of
/// `dst` with `put` (a slice copy or clone); returns how many.
#[inline(always)]
pub(crate) fn read_into<T>(a: &[T], b: &[T], dst: &mut [T], put: impl Fn(&mut [T], &[T])) -> usize {
    let n = (a.len() + b.len()).min(dst.len());
    let from_a = a.len().min(n);
    put(&mut dst[..from_a], &a[..from_a]);
    put(&mut dst[from_a..n], &b[..n - from_a]);
    n
}

/// Puts `src` into `a` then `b` with `put` (a slice copy or clone).
///
/// # Panics
///
/// If `src.len() != a.len() + b.len()`.
#[inline(always)]
pub(crate) fn write_from<T>(a: &mut [T], b: &mut [T], src: &[T], put: impl Fn(&mut [T], &[T])) {
    assert_eq!(
        src.len(),
        a.len() + b.len(),
        "source length must equal the span length"
    );
    let (sa, sb) = src.split_at(a.len());
    put(a, sa);
    put(b, sb);
}
