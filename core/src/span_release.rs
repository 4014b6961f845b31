//! [`SpanRelease`]: what a span does with its slots when it is dropped without an explicit
//! `publish` (write spans) or `consume` (read spans).

/// What a span does with its slots when dropped without an explicit
/// [`publish`](crate::WriteSpan::publish) / [`consume`](crate::ReadSpan::consume), chosen per
/// span with [`WriteSpan::on_drop`](crate::WriteSpan::on_drop) /
/// [`ReadSpan::on_drop`](crate::ReadSpan::on_drop) (GNU Radio 4's `SpanReleasePolicy`).
///
/// The default is [`All`](Self::All), because every form of this API that fills a span
/// without naming a count (`span.copy_from_slice(..)`, `span.fill(x)`, `span[i] = x` and the
/// drop at the end of the statement) relies on it, as do all the examples; the trap it leaves
/// (a span reserved and dropped unfilled publishes the slots' old items) is caught by
/// `#[must_use]` on spans when the span is never used, and the `*_with` calls
/// (`try_reserve_with`, `reserve_with`, ..) publish exactly what their closure returns.
/// Code ported from rtrb or bbqueue, where nothing is committed without a call, can ask for
/// that with [`Nothing`](Self::Nothing) or [`Explicit`](Self::Explicit).
///
/// On a multi-producer ring, publishing nothing never stalls anyone (GNU Radio 4's
/// multi-producer buffer hangs when a `ProcessNone` span is dropped): the slots are given
/// back, or, if another writer claimed after them, marked as a hole that readers pass.
///
/// ```
/// use spanring_core::{Ring, SliceStorage, SpanRelease};
/// let mut memory = [0u8; 4];
/// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
/// let mut r = ring.reader().unwrap();
/// let mut w = ring.writer().unwrap();
/// let mut span = w.try_reserve(2).unwrap().on_drop(SpanRelease::Nothing);
/// span[0] = 7;
/// drop(span); // nothing published: no stale item reaches the reader
/// assert!(r.try_pop().is_err());
/// let mut span = w.try_reserve(2).unwrap().on_drop(SpanRelease::Nothing);
/// span[0] = 7;
/// span.publish(1); // only what was written
/// assert_eq!(r.try_pop(), Ok(7));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SpanRelease {
    /// Publish (write span) or consume (read span) every slot: the default.
    #[default]
    All,
    /// Publish or consume nothing: a write span's slots are given back (claimed again by the
    /// next reservation), a read span's items are shown again by the next read.
    Nothing,
    /// A drop without `publish` / `consume` is a bug: it panics in debug builds (after
    /// releasing nothing, so the ring stays consistent) and releases nothing in release builds.
    Explicit,
}

impl SpanRelease {
    /// How many of a span's `len` slots its drop releases, `done` telling whether `publish` /
    /// `consume` ran already (then nothing more is released).
    #[inline(always)]
    pub(crate) fn count_on_drop(self, len: usize) -> usize {
        match self {
            SpanRelease::All => len,
            SpanRelease::Nothing | SpanRelease::Explicit => 0,
        }
    }

    /// Panics (debug builds only) if this is [`Explicit`](Self::Explicit): called once the
    /// span's slots are released, from a drop without `publish` / `consume`.
    #[inline(always)]
    pub(crate) fn check_explicit(self, what: &str) {
        if cfg!(debug_assertions) && self == SpanRelease::Explicit && !crate::panicking() {
            panic!("a span with SpanRelease::Explicit was dropped without `{what}`");
        }
    }
}
