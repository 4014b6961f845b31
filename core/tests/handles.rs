//! `ReadHandle` / `WriteHandle`: helpers written once against the traits run on every kind of
//! ring (single and multi producer, borrowed and inline storage).

use spanring_core::handle::ReadHandle;
use spanring_core::handle::WriteHandle;
use spanring_core::sync::AtomicUsize;
use spanring_core::{
    multi_words, BusySpin, InlineStorage, ReadError, ReserveError, Ring, SliceStorage,
};

/// Writes `0..n` in spans of `chunk` (publishing only `keep` of each), reads everything back
/// through `read_with` in pieces, consuming one fewer than shown each time; returns the items.
fn round_trip(
    w: &mut impl WriteHandle<Item = u32>,
    r: &mut impl ReadHandle<Item = u32>,
    spans: u32,
    chunk: usize,
    keep: usize,
) -> Vec<u32> {
    let mut next = 0;
    let mut out = Vec::new();
    for _ in 0..spans {
        let published = w
            .try_write_with(chunk, |a, b| {
                assert_eq!(
                    a.len() + b.len(),
                    chunk,
                    "the span covers what was reserved"
                );
                for slot in a.iter_mut().chain(b.iter_mut()).take(keep) {
                    *slot = next;
                    next += 1;
                }
                keep
            })
            .unwrap();
        assert_eq!(published, keep.min(chunk));
        loop {
            match r.try_read_with(usize::MAX, |a, b| {
                let shown: Vec<u32> = a.iter().chain(b).copied().collect();
                let take = if shown.len() > 1 { shown.len() - 1 } else { 1 };
                out.extend_from_slice(&shown[..take]);
                take
            }) {
                Ok(_) => {}
                Err(ReadError::Empty) => break,
                Err(e) => panic!("{e}"),
            }
        }
    }
    out
}

#[test]
fn the_same_helper_runs_on_single_and_multi_producer_rings() {
    let expected: Vec<u32> = (0..5 * 20).collect();

    let mut memory = [0u32; 7]; // not a power of two: spans wrap into two slices
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let (mut w, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    assert_eq!(round_trip(&mut w, &mut r, 20, 6, 5), expected);

    let mut memory = [0u32; 7];
    let mut words: Vec<AtomicUsize> = (0..multi_words(7)).map(|_| AtomicUsize::new(0)).collect();
    let ring = Ring::new_multi(SliceStorage::new(&mut memory), &mut words[..]).unwrap();
    let (mut w, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    assert_eq!(round_trip(&mut w, &mut r, 20, 6, 5), expected);

    let ring: Ring<InlineStorage<u32, 7>> = Ring::new_inline([0; 7]);
    let (mut w, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    assert_eq!(round_trip(&mut w, &mut r, 20, 6, 5), expected);
}

#[test]
fn closures_are_not_called_when_nothing_can_be_shown_or_reserved() {
    let mut memory = [0u32; 2];
    let ring = Ring::builder(SliceStorage::new(&mut memory))
        .wait::<BusySpin>()
        .build()
        .unwrap();
    let (mut w, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    let empty = r.try_read_with(4, |_, _| unreachable!("nothing to show"));
    assert_eq!(empty, Err(ReadError::Empty));
    let too_large = w.try_write_with(3, |_, _| unreachable!("no span"));
    assert!(matches!(too_large, Err(ReserveError::TooLarge { .. })));
    WriteHandle::try_push(&mut w, 1).unwrap();
    WriteHandle::try_push(&mut w, 2).unwrap();
    assert!(matches!(
        w.try_write_with(1, |_, _| unreachable!("full")),
        Err(ReserveError::Full { .. })
    ));
    assert_eq!(WriteHandle::free(&w), 0);
    assert_eq!(ReadHandle::available(&r), 2);
    assert_eq!(ReadHandle::pop(&mut r), Ok(1));
    assert_eq!(r.read_with(1, |a, _| a.len()), Ok(1)); // blocking form, data already there
    drop(w);
    assert_eq!(
        r.try_read_with(1, |_, _| unreachable!("closed")),
        Err(ReadError::Closed)
    );
}

#[test]
fn a_write_closure_publishing_nothing_leaves_nothing_visible() {
    let mut memory = [0u32; 4];
    let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    let (mut w, mut r) = (ring.writer().unwrap(), ring.reader().unwrap());
    assert_eq!(
        w.write_with(3, |a, _| {
            a.fill(9);
            0
        }),
        Ok(0)
    );
    assert_eq!(ReadHandle::try_pop(&mut r), Err(ReadError::Empty));
    assert_eq!(
        w.try_write_with(2, |a, b| {
            a.iter_mut().chain(b).for_each(|x| *x = 4);
            9
        }),
        Ok(2)
    ); // clamped
    assert_eq!(
        (r.try_pop(), r.try_pop(), r.try_pop()),
        (Ok(4), Ok(4), Err(ReadError::Empty))
    );
}

/// A writer handle is the ring reference and three words of claim state (its limit, next
/// cursor and free count), on every target: embedded code moves writers into interrupt
/// closures that live in fixed callback slots (`embedded/src/bin/spans.rs` puts one in a
/// six-word slot on thumbv6m), so a field added to the handle must be a decision, not an
/// accident. A "limit unknown" flag, once tried, grew it by a word and broke that firmware's
/// build; this catches it on the host.
#[test]
fn a_writer_handle_is_four_words() {
    use core::mem::size_of;
    type Sp<'m, 'r> = spanring_core::Writer<&'r Ring<SliceStorage<'m, u32>>>;
    type Mp<'m, 'b, 'r> = spanring_core::Writer<
        &'r Ring<SliceStorage<'m, u32>, spanring_core::MultiProducer<&'b mut [AtomicUsize]>>,
    >;
    assert_eq!(size_of::<Sp>(), 4 * size_of::<usize>());
    assert_eq!(size_of::<Mp>(), 4 * size_of::<usize>());
}
