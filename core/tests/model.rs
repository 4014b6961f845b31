//! Property tests: any single-threaded sequence of reserve / publish-k / read / consume-k /
//! attach / detach / one-item push and pop (and, on a multi-producer ring, a second writer that
//! comes and goes, so the sole writer's cache is taken and given up) matches a simple model (a `Vec` of everything published and one position per
//! reader), for power-of-two and other capacities, starting at 0 or just below `usize::MAX`.

use proptest::prelude::*;
use spanring_core::sync::AtomicUsize;
use spanring_core::{
    multi_words, AttachError, ClaimMode, MultiProducer, ReadError, Reader, ReserveError, Ring,
    SingleProducer, SliceStorage, Writer,
};

const READERS: usize = 4; // the ring's default reader capacity

#[derive(Clone, Debug)]
enum Op {
    /// Reserve `n`, publish `k` of them (k may exceed n: clamped).
    Write {
        writer: usize,
        n: usize,
        k: usize,
    },
    /// Reader `r` reads up to `max`, consumes `k` of what it got (clamped).
    Read {
        r: usize,
        max: usize,
        k: usize,
    },
    Attach,
    Detach {
        r: usize,
    },
    /// Writer `writer` pushes one item (`try_push`).
    Push {
        writer: usize,
    },
    /// Reader `r` pops one item (`try_pop`).
    Pop {
        r: usize,
    },
    /// Multi-producer only: drop the second writer if there is one (the first is then alone
    /// and claims from its own cache), else clone the first.
    ToggleSecond,
    /// Multi-producer only: writer 0 and writer 1 each reserve, then publish in the given
    /// order, each only a prefix (partial publishes out of order make holes).
    WriteTwo {
        n0: usize,
        k0: usize,
        n1: usize,
        k1: usize,
        second_first: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2usize, 0..12usize, 0..12usize).prop_map(|(writer, n, k)| Op::Write { writer, n, k }),
        4 => (0..READERS, 0..12usize, 0..12usize).prop_map(|(r, max, k)| Op::Read { r, max, k }),
        1 => Just(Op::Attach),
        1 => (0..READERS).prop_map(|r| Op::Detach { r }),
        4 => (0..2usize).prop_map(|writer| Op::Push { writer }),
        4 => (0..READERS).prop_map(|r| Op::Pop { r }),
        1 => Just(Op::ToggleSecond),
        2 => (0..6usize, 0..7usize, 0..6usize, 0..7usize, any::<bool>())
            .prop_map(|(n0, k0, n1, k1, second_first)| Op::WriteTwo { n0, k0, n1, k1, second_first }),
    ]
}

/// The model: every slot ever published (`None` = a skipped hole slot), and where each
/// attached reader is in it.
struct Model {
    capacity: usize,
    stream: Vec<Option<u64>>,
    readers: Vec<Option<usize>>,
}

impl Model {
    fn free(&self) -> usize {
        let oldest = self
            .readers
            .iter()
            .flatten()
            .min()
            .copied()
            .unwrap_or(self.stream.len());
        let oldest = oldest.min(self.stream.len());
        self.capacity - (self.stream.len() - oldest)
    }
}

type ModelWriter<'r, 'm, P> = Writer<&'r Ring<SliceStorage<'m, u64>, P>>;

/// How `run` gets its second writer: a multi-producer ring hands out only its first writer
/// through `ring.writer()`, the others are clones of it; a single-producer ring has none.
trait SecondWriter: ClaimMode + Sized {
    fn second<'r, 'm>(first: &ModelWriter<'r, 'm, Self>) -> Option<ModelWriter<'r, 'm, Self>>;
}

impl SecondWriter for SingleProducer {
    fn second<'r, 'm>(_: &ModelWriter<'r, 'm, Self>) -> Option<ModelWriter<'r, 'm, Self>> {
        None
    }
}

impl<B: spanring_core::parts::RecordWords> SecondWriter for MultiProducer<B> {
    fn second<'r, 'm>(first: &ModelWriter<'r, 'm, Self>) -> Option<ModelWriter<'r, 'm, Self>> {
        Some(first.clone())
    }
}

fn run<P, F>(capacity: usize, start: usize, ops: &[Op], make: F)
where
    P: SecondWriter,
    F: for<'m> FnOnce(&'m mut [u64]) -> Ring<SliceStorage<'m, u64>, P>,
{
    let mut memory = vec![0u64; capacity];
    let ring = make(&mut memory);
    let _ = start;
    let mut writers: Vec<ModelWriter<'_, '_, P>> = vec![ring.writer().unwrap()];
    writers.extend(P::second(&writers[0]));
    assert_eq!(writers.len(), if P::MULTI { 2 } else { 1 });
    type Handle<'r, 'm, P> = Reader<&'r Ring<SliceStorage<'m, u64>, P>>;
    let mut readers: Vec<Option<Handle<'_, '_, P>>> = (0..READERS).map(|_| None).collect();
    let mut model = Model {
        capacity,
        stream: Vec::new(),
        readers: vec![None; READERS],
    };
    let mut next_value = 1u64;

    for op in ops {
        match *op {
            Op::Write { writer, n, k } => {
                let count = writers.len();
                let w = &mut writers[writer % count];
                let expected_free = model.free();
                match w.try_reserve(n) {
                    Ok(mut span) => {
                        assert!(
                            n <= capacity && n <= expected_free,
                            "reserve {n} free {expected_free}"
                        );
                        assert_eq!(span.len(), n);
                        for slot in span.iter_mut() {
                            *slot = next_value;
                            next_value += 1;
                        }
                        let k = k.min(n);
                        let written: Vec<u64> = span.iter_mut().map(|v| *v).take(k).collect();
                        span.publish(k);
                        model.stream.extend(written.into_iter().map(Some));
                    }
                    Err(ReserveError::TooLarge {
                        requested,
                        capacity: c,
                    }) => {
                        assert_eq!((requested, c), (n, capacity));
                        assert!(n > capacity);
                    }
                    Err(ReserveError::Full { free }) => {
                        assert!(n <= capacity);
                        assert_eq!(free, expected_free);
                        assert!(free < n);
                    }
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            Op::Read { r, max, k } => {
                let Some(reader) = readers[r].as_mut() else {
                    continue;
                };
                let mut pos = model.readers[r].unwrap();
                assert_eq!(reader.available(), model.stream.len() - pos);
                let result = reader.try_read(max);
                // A read skips the holes in front of the reader.
                while pos < model.stream.len() && model.stream[pos].is_none() {
                    pos += 1;
                }
                model.readers[r] = Some(pos);
                let run = model.stream[pos..]
                    .iter()
                    .take_while(|v| v.is_some())
                    .count();
                match result {
                    Ok(span) => {
                        let len = run.min(max);
                        assert!(len > 0 || max == 0);
                        assert_eq!(span.len(), len);
                        let got: Vec<Option<u64>> = span.iter().copied().map(Some).collect();
                        assert_eq!(got, model.stream[pos..pos + len]);
                        let k = k.min(len);
                        span.consume(k);
                        model.readers[r] = Some(pos + k);
                    }
                    Err(ReadError::Empty) => assert_eq!(pos, model.stream.len()),
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            Op::Attach => {
                let free_slot = model.readers.iter().position(Option::is_none);
                match ring.reader() {
                    Ok(reader) => {
                        let i = free_slot.expect("attached beyond capacity");
                        readers[i] = Some(reader);
                        model.readers[i] = Some(model.stream.len());
                    }
                    Err(AttachError::TooManyReaders { max }) => {
                        assert_eq!(max, READERS.min(4));
                        assert!(free_slot.is_none() || READERS > 4);
                    }
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            Op::Detach { r } => {
                readers[r] = None;
                model.readers[r] = None;
            }
            Op::Push { writer } => {
                let count = writers.len();
                let expected_free = model.free();
                match writers[writer % count].try_push(next_value) {
                    Ok(()) => {
                        assert!(expected_free > 0, "pushed into a full ring");
                        model.stream.push(Some(next_value));
                        next_value += 1;
                    }
                    Err(spanring_core::PushError::Full(v)) => {
                        assert_eq!(v, next_value, "a failed push gives the item back");
                        assert_eq!(expected_free, 0, "push refused with {expected_free} free");
                    }
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            Op::Pop { r } => {
                let Some(reader) = readers[r].as_mut() else {
                    continue;
                };
                let mut pos = model.readers[r].unwrap();
                // A pop skips the holes in front of the reader, as a read does.
                while pos < model.stream.len() && model.stream[pos].is_none() {
                    pos += 1;
                }
                match reader.try_pop() {
                    Ok(x) => {
                        assert_eq!(Some(x), model.stream.get(pos).copied().flatten());
                        model.readers[r] = Some(pos + 1);
                    }
                    Err(ReadError::Empty) => {
                        assert_eq!(pos, model.stream.len());
                        model.readers[r] = Some(pos);
                    }
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            Op::ToggleSecond => {
                if !P::MULTI {
                    continue;
                }
                if writers.len() == 2 {
                    writers.pop();
                } else {
                    writers.extend(P::second(&writers[0]));
                }
            }
            Op::WriteTwo {
                n0,
                k0,
                n1,
                k1,
                second_first,
            } => {
                if !P::MULTI || writers.len() < 2 {
                    continue;
                }
                let free = model.free();
                if n0 + n1 > free {
                    continue; // the single-span ops cover Full
                }
                let (w0, rest) = writers.split_at_mut(1);
                let mut s0 = w0[0].try_reserve(n0).expect("space was free");
                let mut s1 = rest[0].try_reserve(n1).expect("space was free");
                let mut vals = |span: &mut spanring_core::WriteSpan<'_, _>| -> Vec<u64> {
                    span.iter_mut()
                        .map(|slot| {
                            *slot = next_value;
                            next_value += 1;
                            *slot
                        })
                        .collect()
                };
                let v0 = vals(&mut s0);
                let v1 = vals(&mut s1);
                let (k0, k1) = (k0.min(n0), k1.min(n1));
                // What each publish leaves in the stream: its prefix, then a hole unless the
                // unpublished tail could be given back (only the newest claim can).
                let newest_when_0 = !second_first || n1 == 0; // s1 still claimed after s0?
                if second_first {
                    s1.publish(k1);
                    s0.publish(k0);
                } else {
                    s0.publish(k0);
                    s1.publish(k1);
                }
                // s1 is always the newest claim, so its tail is given back. s0's tail is given
                // back only if s1 had already given back everything (n1 == 0 or k1 == 0 after
                // it published first) so that s0's end is the claim cursor again.
                let s0_tail_given_back = if second_first { k1 == 0 } else { n1 == 0 };
                let _ = newest_when_0;
                model.stream.extend(v0[..k0].iter().copied().map(Some));
                if !s0_tail_given_back {
                    model.stream.extend(std::iter::repeat(None).take(n0 - k0));
                }
                model.stream.extend(v1[..k1].iter().copied().map(Some));
            }
        }
    }
}

fn cases() -> u32 {
    if cfg!(miri) {
        4
    } else {
        256
    }
}

proptest! {
    // No failure file: Miri's isolation forbids the file system (failures print their input).
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn single_producer_matches_model(
        capacity in 1..10usize,
        near_max in any::<bool>(),
        ops in proptest::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 120 }),
    ) {
        let start = if near_max { usize::MAX - 6 } else { 0 };
        run(capacity, start, &ops, |m| Ring::builder(SliceStorage::new(m)).start_at(start).build().unwrap());
    }

    #[test]
    fn multi_producer_matches_model(
        capacity in 1..10usize,
        near_max in any::<bool>(),
        ops in proptest::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 120 }),
    ) {
        let start = if near_max { usize::MAX - 6 } else { 0 };
        let mut bits: Vec<AtomicUsize> = (0..multi_words(capacity)).map(|_| AtomicUsize::new(0)).collect();
        let bits = &mut bits[..];
        run(capacity, start, &ops, |m| Ring::builder(SliceStorage::new(m)).multi_producer(bits).start_at(start).build().unwrap());
    }
}
