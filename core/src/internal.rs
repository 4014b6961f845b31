//! The token that keeps the protocol methods of public traits callable from this crate only.

/// Proof that a [`RingCore`](crate::parts::RingCore) or [`Registry`](crate::parts::Registry)
/// method is called from this crate: only this crate can make one. The traits are public
/// (handle types and generic rings bound on them), but those methods detach readers, publish
/// slots and close the ring; called from outside (say `ring.reader_dropped(0)` while that
/// reader reads) they would let writers overwrite slots in use, so each takes this token.
#[derive(Clone, Copy)]
pub(crate) struct Internal(());

/// The token, for this crate's calls of those methods.
pub(crate) const INTERNAL: Internal = Internal(());
