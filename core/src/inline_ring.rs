//! `const` constructors: a [`Ring`] that owns its slots ([`InlineStorage`]) built at compile
//! time, so a `static` ring needs no allocator and no initialisation code — in every
//! configuration (wait strategy, reader capacity, single or multi producer).
//!
//! Not available under the loom model checker, whose atomics are not `const`.
#![cfg(not(spanring_loom))]

use crate::claim::{MultiProducer, SingleProducer};
use crate::layout::Layout;
use crate::readers::ReaderRegistry;
use crate::ring::Ring;
use crate::storage::InlineStorage;
use crate::sync::AtomicUsize;
use crate::wait::BusySpin;
use crate::wait::WaitStrategy;

/// The layout of an inline ring of `N` slots; a zero (or absurd) `N` is a compile error in a
/// `static` and a panic elsewhere.
const fn inline_layout(n: usize) -> Layout {
    match Layout::new(n) {
        Ok(layout) => layout,
        Err(_) => panic!("an inline ring needs 1 ..= usize::MAX / 8 slots"),
    }
}

impl<T, const N: usize> Ring<InlineStorage<T, N>> {
    /// A single-producer ring that owns its `N` slots, built in `const` context, with the
    /// default wait strategy ([`BusySpin`]) and 4 reader slots. For any other configuration:
    /// [`new_inline_with`](Ring::new_inline_with) and [`new_inline_multi`](Ring::new_inline_multi).
    ///
    /// ```
    /// use spanring_core::{InlineStorage, Ring};
    /// static SAMPLES: Ring<InlineStorage<u16, 32>> = Ring::new_inline([0; 32]);
    ///
    /// // An interrupt handler (or another thread) writes; it never blocks.
    /// fn on_adc_interrupt(writer: &mut spanring_core::Writer<&'static Ring<InlineStorage<u16, 32>>>, sample: u16) {
    ///     if let Ok(mut span) = writer.try_reserve(1) {
    ///         span[0] = sample;
    ///     } // a full ring drops the sample: try_reserve never waits
    /// }
    ///
    /// let mut reader = SAMPLES.reader().unwrap();
    /// let mut writer = SAMPLES.writer().unwrap();
    /// on_adc_interrupt(&mut writer, 512);
    /// assert_eq!(reader.try_read(8).unwrap().to_array::<1>(), Some([512]));
    /// ```
    pub const fn new_inline(slots: [T; N]) -> Self {
        Self::new_inline_with(slots, BusySpin, BusySpin)
    }
}

impl<T, W: WaitStrategy, const N: usize, const READERS: usize>
    Ring<InlineStorage<T, N>, SingleProducer, W, READERS>
{
    /// A single-producer ring that owns its `N` slots, with any wait strategy (writers wait on
    /// `space`, readers on `data`) and any reader capacity, built in `const` context: e.g. a
    /// `static` async ring, or a one-reader ring that spends one padded cursor instead of four.
    ///
    /// ```
    /// use spanring_core::{AsyncWait, InlineStorage, Ring, SingleProducer};
    /// // A static ring for async tasks (embassy, tokio), with room for one reader.
    /// type Samples = Ring<InlineStorage<u16, 64>, SingleProducer, AsyncWait, 1>;
    /// static SAMPLES: Samples = Ring::new_inline_with([0; 64], AsyncWait::new(), AsyncWait::new());
    ///
    /// let mut w = SAMPLES.writer().unwrap();
    /// let mut r = SAMPLES.reader().unwrap();
    /// w.try_reserve(1).unwrap()[0] = 7;
    /// assert_eq!(r.try_read(1).unwrap()[0], 7);
    /// assert!(SAMPLES.reader().is_err()); // one reader slot
    /// ```
    pub const fn new_inline_with(slots: [T; N], space: W, data: W) -> Self {
        Self::assemble(
            InlineStorage::new(slots),
            inline_layout(N),
            0,
            ReaderRegistry::new_at_zero(),
            SingleProducer::new(),
            space,
            data,
        )
    }
}

impl<T, W: WaitStrategy, const N: usize, const READERS: usize>
    Ring<InlineStorage<T, N>, MultiProducer<[AtomicUsize; N]>, W, READERS>
{
    /// A multi-producer ring that owns its `N` slots and its `N` publication-record words
    /// (one a slot, [`multi_words`](crate::multi_words)), with any wait strategy and reader
    /// capacity, built in `const` context — any `N`, no array-initialisation tricks needed.
    ///
    /// ```
    /// use spanring_core::sync::AtomicUsize;
    /// use spanring_core::{Backoff, InlineStorage, MultiProducer, Ring};
    /// type Events = Ring<InlineStorage<u32, 4096>, MultiProducer<[AtomicUsize; 4096]>, Backoff, 2>;
    /// static EVENTS: Events =
    ///     Ring::new_inline_multi([0; 4096], Backoff::new(), Backoff::new());
    ///
    /// let mut r = EVENTS.reader().unwrap();
    /// // Any number of writers: the first attached, the rest cloned from it (the last writer
    /// // to go closes the ring).
    /// let writers = vec![EVENTS.writer().unwrap(); 2];
    /// std::thread::scope(|s| {
    ///     for (t, mut w) in (0u32..).zip(writers) {
    ///         s.spawn(move || w.reserve(1).unwrap()[0] = t);
    ///     }
    /// });
    /// let mut got = r.read_exact(2).unwrap().to_array::<2>().unwrap();
    /// got.sort();
    /// assert_eq!(got, [0, 1]);
    /// ```
    pub const fn new_inline_multi(slots: [T; N], space: W, data: W) -> Self {
        let layout = inline_layout(N);
        // Fresh atomics are 0: the state `MultiProducer::new` would store.
        let records = [const { AtomicUsize::new(0) }; N];
        let producer = MultiProducer::with_zeroed_records(records, &layout, 0, usize::BITS);
        let readers = ReaderRegistry::new_at_zero();
        Self::assemble(
            InlineStorage::new(slots),
            layout,
            0,
            readers,
            producer,
            space,
            data,
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::sync::AtomicUsize;
    use crate::{BusySpin, InlineStorage, MultiProducer, Ring, SingleProducer};

    type OneReader = Ring<InlineStorage<u8, 16>, SingleProducer, BusySpin, 1>;
    type FourReaders = Ring<InlineStorage<u8, 16>>;
    static ONE: OneReader = Ring::new_inline_with([0; 16], BusySpin, BusySpin);

    #[test]
    fn one_reader_ring_is_smaller_and_holds_one_reader() {
        assert!(core::mem::size_of::<OneReader>() < core::mem::size_of::<FourReaders>());
        let r = ONE.reader().unwrap();
        assert!(ONE.reader().is_err());
        drop(r);
        assert!(ONE.reader().is_ok());
    }

    #[test]
    fn inline_multi_ring_publishes_out_of_order_across_laps() {
        let ring: Ring<InlineStorage<u32, 5>, MultiProducer<[AtomicUsize; 5]>, BusySpin, 2> =
            Ring::new_inline_multi([0; 5], BusySpin, BusySpin);
        let mut r = ring.reader().unwrap();
        let mut a = ring.writer().unwrap();
        let mut b = a.clone();
        for lap in 0..7u32 {
            let mut first = a.try_reserve(2).unwrap();
            let mut second = b.try_reserve(3).unwrap();
            second.copy_from_slice(&[lap * 10 + 2, lap * 10 + 3, lap * 10 + 4]);
            drop(second); // published first, not visible until `first` is
            assert!(r.try_read(5).is_err());
            first.copy_from_slice(&[lap * 10, lap * 10 + 1]);
            drop(first);
            let got = r.try_read(5).unwrap();
            let expected: [u32; 5] = core::array::from_fn(|i| lap * 10 + i as u32);
            assert_eq!(got.to_array::<5>(), Some(expected));
        }
    }
}
