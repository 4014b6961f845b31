//! Filling through a closure that may fail: the waiting forms [`Writer::reserve_with`] and
//! [`Writer::reserve_with_timeout`] of [`Writer::try_reserve_with`] (the async form,
//! [`Writer::reserve_with_async`], sits with the other futures). Each form reserves exactly as
//! its plain counterpart (`try_reserve`, `reserve`, `reserve_timeout`, `reserve_async`) and
//! then runs the one body they share, [`WriteSpan::publish_filled`]: publish what the closure
//! says it wrote on `Ok`, nothing on `Err`.

use core::time::Duration;

use crate::error::FillError;
use crate::ring_ref::RingPtr;
use crate::wait::WaitTimeout;
use crate::writer::WriteSpan;
use crate::writer::Writer;

impl<R: RingPtr> WriteSpan<'_, R> {
    /// Lets `fill` write the span, then publishes the count it returns (clamped to the span)
    /// when it returns `Ok`, and nothing (as [`publish`](Self::publish)`(0)`) when it returns
    /// `Err`. If `fill` panics, the span's drop rule applies (with `std`: nothing published).
    #[inline]
    pub(crate) fn publish_filled<E, F>(mut self, fill: F) -> Result<usize, FillError<E>>
    where
        F: FnOnce(&mut Self) -> Result<usize, E>,
    {
        match fill(&mut self) {
            Ok(count) => {
                let count = count.min(self.len());
                self.publish(count);
                Ok(count)
            }
            Err(e) => {
                self.publish(0);
                Err(FillError::Fill(e))
            }
        }
    }
}

impl<R: RingPtr> Writer<R> {
    /// As [`try_reserve_with`](Self::try_reserve_with), waiting through the ring's wait
    /// strategy while the ring is full (as [`reserve`](Self::reserve)); `fill` is called once
    /// the `n` slots are reserved. Publishes what `fill` returns on `Ok`, nothing on `Err`.
    ///
    /// Returns the published count.
    ///
    /// # Errors
    ///
    /// [`FillError::Reserve`] with what [`reserve`](Self::reserve) returned
    /// ([`ReserveError::TooLarge`](crate::ReserveError::TooLarge),
    /// [`ReserveError::Closed`](crate::ReserveError::Closed); `fill` is not called), or
    /// [`FillError::Fill`] with `fill`'s error.
    ///
    /// ```
    /// use spanring_core::{FillError, Ring, SliceStorage};
    /// let mut memory = [0u8; 2];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// w.try_push(2).unwrap(); // full
    /// std::thread::scope(|s| {
    ///     let reader = s.spawn(|| (r.pop(), r.pop())); // frees both slots
    ///     // Waits (here: busy-spins) until the reader made room, then fills.
    ///     let out = w.reserve_with(2, |span| {
    ///         span.copy_from_slice(&[3, 4]);
    ///         Ok::<_, ()>(2)
    ///     });
    ///     assert_eq!(out, Ok(2));
    ///     assert_eq!(reader.join().unwrap(), (Ok(1), Ok(2)));
    /// });
    /// assert_eq!((r.try_pop(), r.try_pop()), (Ok(3), Ok(4)));
    /// assert_eq!(w.reserve_with(1, |_| Err("bad input")), Err(FillError::Fill("bad input")));
    /// assert_eq!(r.available(), 0); // nothing was published
    /// ```
    #[inline]
    pub fn reserve_with<E, F>(&mut self, n: usize, fill: F) -> Result<usize, FillError<E>>
    where
        F: FnOnce(&mut WriteSpan<'_, R>) -> Result<usize, E>,
    {
        self.reserve(n)
            .map_err(FillError::Reserve)?
            .publish_filled(fill)
    }

    /// As [`reserve_with`](Self::reserve_with), giving up after `timeout` (as
    /// [`reserve_timeout`](Self::reserve_timeout)); `fill` is not called then.
    ///
    /// # Errors
    ///
    /// As [`reserve_with`](Self::reserve_with), plus
    /// [`FillError::Reserve`]`(`[`ReserveError::TimedOut`](crate::ReserveError::TimedOut)`)`.
    ///
    /// ```
    /// # use core::time::Duration;
    /// # use spanring_core::{FillError, ReserveError, Ring, SliceStorage, WaitStrategy, WaitTimeout};
    /// # #[derive(Default)] struct NoWait;
    /// # impl WaitStrategy for NoWait { fn wait_until(&self, r: &mut dyn FnMut() -> bool) { while !r() {} } fn notify_all(&self) {} }
    /// # impl WaitTimeout for NoWait { fn wait_until_timeout(&self, r: &mut dyn FnMut() -> bool, _: Duration) -> bool { r() } }
    /// let mut memory = [0u8; 2];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).wait::<NoWait>().build().unwrap();
    /// let _r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// let ms = Duration::from_millis(1);
    /// assert_eq!(w.reserve_with_timeout(2, ms, |_| Ok::<_, ()>(2)), Ok(2)); // now full
    /// let out = w.reserve_with_timeout(1, ms, |_| -> Result<usize, ()> { unreachable!() });
    /// assert_eq!(out, Err(FillError::Reserve(ReserveError::TimedOut)));
    /// ```
    #[inline]
    pub fn reserve_with_timeout<E, F>(
        &mut self,
        n: usize,
        timeout: Duration,
        fill: F,
    ) -> Result<usize, FillError<E>>
    where
        R::Wait: WaitTimeout,
        F: FnOnce(&mut WriteSpan<'_, R>) -> Result<usize, E>,
    {
        self.reserve_timeout(n, timeout)
            .map_err(FillError::Reserve)?
            .publish_filled(fill)
    }
}
