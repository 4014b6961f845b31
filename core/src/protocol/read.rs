//! The read protocol below the [`Reader`](crate::Reader) handle: how a reader finds what is
//! published and catches up after a slow path unwound, over the ring's state block alone.
//! Waiting and waking are the handle's (`reader/wait.rs`): a poll that passes a hole frees
//! slots, and tells its caller through `passed_hole` so that it wakes writers waiting for
//! space.
//!
//! A reader's position ([`ReadPos`]) is its cursor plus what it already knows to be published
//! after it, so most reads load nothing shared. A poll refreshes that: on a single-producer
//! ring from the published cursor; on a multi-producer ring by walking the publication
//! records from the reader's front, passing holes (spans published as nothing) at its cursor.
//! `Closed` is reported only once the ring is sealed and the reader has everything before the
//! end (the claim cursor at the close). Slow paths take the position by value and return it,
//! so a loop of reads keeps it in registers; every poll first compares it with the registry
//! cursor and resynchronises if a slow path unwound in user code (`resync`).

use crate::claim::{ClaimMode, MultiClaim};
use crate::error::ReadError;
use crate::protocol::state::RingState;
use crate::readers::ReadPos;
use crate::readers::Registry;
use crate::sync::Ordering;

/// What a poll found: items to show, and whether a hole (not the published cursor) cut it.
pub(crate) struct Polled {
    pub(crate) count: usize,
    pub(crate) cut_by_hole: bool,
    /// Items from the cursor known published now (at least `count`).
    pub(crate) known: usize,
}

/// `Ok(n)` with `want ≤ n ≤ max` items to show, or fewer when no more can come;
/// `Err(Empty)` while fewer than `want` are published and more may come.
#[inline(always)]
pub(crate) fn poll_at_least<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    pos: &mut ReadPos,
    want: usize,
    max: usize,
    passed_hole: &impl Fn(),
) -> Result<usize, ReadError> {
    if max == 0 {
        return zero_length(state, pos, passed_hole);
    }
    let polled = poll(state, pos, max, passed_hole)?;
    if polled.count >= want || polled.cut_by_hole {
        return Ok(polled.count);
    }
    if let Some(end) = state.end_of_stream() {
        // Sealed: nothing will be published after `end`; if what we see reaches it, no more
        // can come.
        let polled = poll(state, pos, max, passed_hole)?;
        let seen_to = state.layout.advance(pos.cursor, polled.known);
        if polled.count >= want || seen_to == end {
            return Ok(polled.count);
        }
    }
    Err(ReadError::Empty)
}

/// A read of zero items, in every form (try, blocking, timeout, exact, async): never waits.
/// `Ok(0)` (an empty span) while the ring is open or items are left, `Err(Closed)` once
/// closed and drained — so a loop that reads until `Closed` ends, and nothing reports `Empty`
/// or `TimedOut` for a request of nothing.
#[cold]
#[inline(never)]
pub(crate) fn zero_length<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    pos: &mut ReadPos,
    passed_hole: &impl Fn(),
) -> Result<usize, ReadError> {
    match poll(state, pos, 0, passed_hole) {
        Ok(_) | Err(ReadError::Empty) => Ok(0),
        Err(e) => Err(e),
    }
}

/// Reloads the published cursor; returns (and caches) how many items follow our cursor.
#[inline]
pub(crate) fn refresh<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    pos: &mut ReadPos,
) -> usize {
    // Acquire: pairs with the writers' Release publication; the slots before it are then safe
    // to read.
    let published = state.published.load(Ordering::Acquire);
    let ready = state.layout.distance(pos.cursor, published).max(0) as usize;
    // `published` is `ready` items on (never behind the cursor: the reader attached at the
    // published cursor and reads only below it).
    pos.set_ready(
        &state.layout,
        if ready > 0 { published } else { pos.cursor },
        ready,
    );
    ready
}

/// How many items (≤ `max`) can be shown now, skipping holes.
#[inline(always)]
pub(crate) fn poll<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    pos: &mut ReadPos,
    max: usize,
    passed_hole: &impl Fn(),
) -> Result<Polled, ReadError> {
    resync(state, pos);
    if let Some(m) = state.producer.multi() {
        return poll_records(state, m, pos, max, passed_hole);
    }
    let mut available = pos.ready(&state.layout);
    // (`max(1)`: even a zero-item read must know whether anything is there.)
    if available >= max.max(1) {
        // Known already (a consume past a lap's last slot left no plain steps): set them.
        pos.set_end(&state.layout, available);
    } else {
        available = refresh(state, pos);
        if available == 0 {
            // Sealed, then the cursor once more: sealing happens after the last
            // publication of every span claimed before the close, so a reader that sees
            // the seal, is at the end of the stream and sees nothing new has read
            // everything (`Ring::close`).
            let Some(end) = state.end_of_stream() else {
                return Err(ReadError::Empty);
            };
            available = refresh(state, pos);
            if available == 0 {
                if pos.cursor == end {
                    return Err(ReadError::Closed);
                }
                // Closed, but a span claimed before the close is still in flight.
                return Err(ReadError::Empty);
            }
        }
    }
    Ok(Polled {
        count: available.min(max),
        cut_by_hole: false,
        known: available,
    })
}

/// Brings `pos` up to this reader's registry cursor if they differ, which happens only after a
/// cold call unwound: the slow paths work on a by-value copy of the position (so that a loop
/// of `pop`s, and `for x in reader`, keeps the cursor in registers), and a panic in user code
/// they run (an item's `clone` in [`pop_cold`], a wait strategy in [`wait_for_cold`]) can
/// leave the copy's consumes in the registry but not in the reader. Left behind, the reader
/// would read a slot the writers consider free. Every slow path polls first, and every fast
/// path misses on such a position (the copy consumed only when nothing was left on the plain
/// steps: `end == cursor`), so checking here suffices. One `Acquire` load of the reader's own
/// registry slot per poll.
///
/// The registry is ahead either by an item the copy consumed inside the known window (the
/// cursor moves, `front` stays) or past holes the copy passed with nothing known (the new
/// cursor is a span head: start from it, knowing nothing). `core/tests/one_item.rs` and
/// `core/tests/hazards.rs` have a test for each.
#[inline(always)]
pub(crate) fn resync<P: ClaimMode, G: Registry>(state: &RingState<P, G>, pos: &mut ReadPos) {
    let registered = state.readers.cursor(pos.slot);
    if registered != pos.cursor {
        resync_cold(&state.layout, pos, registered);
    }
}

#[cold]
#[inline(never)]
pub(crate) fn resync_cold(layout: &crate::layout::Layout, pos: &mut ReadPos, registered: usize) {
    let front = pos.front();
    let ahead = layout.distance(pos.cursor, registered);
    let left = layout.distance(registered, front);
    if ahead > 0 && left >= 0 {
        pos.cursor = registered;
        pos.set_ready(layout, front, left as usize);
    } else {
        *pos = ReadPos::new(pos.slot, registered);
    }
}

/// Records a multi-producer poll walks at least (when published), whatever the request.
const WALK_AHEAD: usize = 256;

/// Multi-producer [`poll`]: walks the publication records from the reader's front
/// (`cursor + ready`, always a span head), passing holes it meets at the cursor.
#[inline(always)]
pub(crate) fn poll_records<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    m: &P::Multi,
    pos: &mut ReadPos,
    max: usize,
    passed_hole: &impl Fn(),
) -> Result<Polled, ReadError> {
    // Walk ahead of the request: every record found now is one the next reads need not load
    // (their fast path is the cached `ready`), so a reader that keeps up with its writers
    // touches the record lines once per walk instead of once per item.
    let walk = max.max(1).max(WALK_AHEAD);
    let mut end = None;
    loop {
        let (ready, hole) = walk_records(state, m, pos, walk, passed_hole);
        if ready > 0 {
            return Ok(Polled {
                count: ready.min(max),
                cut_by_hole: hole && ready < max,
                known: ready,
            });
        }
        // Nothing: sealed, then the records once more. Sealing happens after the close's RMW
        // on the claim cursor, and `end` (the claim cursor now) covers every span claimed
        // before it; claims after it withdraw. So a reader at `end` that then sees no record
        // has read everything (`Ring::close`).
        if let Some(end) = end {
            if pos.cursor == end {
                return Err(ReadError::Closed);
            }
            return Err(ReadError::Empty); // a span claimed before the close is in flight
        }
        match state.end_of_stream() {
            None => return Err(ReadError::Empty),
            Some(at) => end = Some(at),
        }
    }
}

/// Extends what `pos` knows over the data records from the front until it covers `want` items
/// or the records stop; passes (consumes) holes met while nothing is ready. Returns how many
/// items from the cursor are now known published and whether a hole ended the run.
#[inline(always)]
pub(crate) fn walk_records<P: ClaimMode, G: Registry>(
    state: &RingState<P, G>,
    m: &P::Multi,
    pos: &mut ReadPos,
    want: usize,
    passed_hole: &impl Fn(),
) -> (usize, bool) {
    let layout = &state.layout;
    let mut ready = pos.ready(layout);
    let mut front = pos.front();
    let mut hole = false;
    while ready < want {
        // The common case first: a run of data records in one lap, tested word by word as
        // `record` would, with the lap's tag computed once (`MultiClaim::data_run`).
        let (run, after, stopped) = m.data_run(layout, front, want - ready);
        ready += run;
        front = after;
        if stopped || ready >= want {
            break;
        }
        // A skip record, a span that wraps into the next lap, or the lap's end.
        match m.record(layout, front) {
            None => break,
            Some((len, false)) => {
                // The record's Acquire made the span's data visible; what is known never
                // passes a hole, so the fast path (`known_ready`) needs no atomic access.
                ready += len;
                front = layout.advance(front, len);
            }
            Some((len, true)) => {
                if ready > 0 {
                    hole = true; // show the data first; the hole is passed on a later poll
                    break;
                }
                // Nothing known (`ready == 0`), so the cursor is the front: pass the hole.
                front = layout.advance(front, len);
                state.consume_to(pos, front, 0);
                passed_hole();
            }
        }
    }
    pos.set_ready(layout, front, ready);
    (ready, hole)
}
