//! The life of a [`Ring`]'s stream: closing it ([`close`](Ring::close), or the last writer
//! leaving), the seal that tells readers nothing claimed before the close is still in flight,
//! and opening it again ([`reopen`](Ring::reopen)), or keeping it open when writers come and
//! go ([`stays_open`](Ring::stays_open)).

use crate::claim::{ClaimMode, MultiClaim};
use crate::error::ReopenError;
use crate::readers::Registry;
use crate::ring::GenericRing;
use crate::storage::Storage;
use crate::sync::Ordering;
use crate::wait::WaitStrategy;

impl<S: Storage, P: ClaimMode, W: WaitStrategy, G: Registry> GenericRing<S, P, W, G> {
    crate::__maybe_const_fn! {
        /// Keeps the ring open when its last writer is dropped (by default that closes it):
        /// readers of a drained ring then wait for more, and a writer can attach again. For a
        /// `static` ring whose producer comes and goes (an interrupt handler that attaches a
        /// writer each time it runs, a peripheral stopped and restarted): without this, the
        /// first handler to return would close the ring for good. [`close`](Self::close)
        /// still ends the stream.
        ///
        /// ```
        /// use spanring_core::{InlineStorage, Ring};
        ///
        /// static EVENTS: Ring<InlineStorage<u32, 8>> = Ring::new_inline([0; 8]).stays_open();
        ///
        /// let mut events = EVENTS.reader().unwrap();
        /// for irq in 0..3 {
        ///     // An interrupt handler: a writer for the length of one run.
        ///     let mut w = EVENTS.writer().unwrap();
        ///     w.try_push(irq).unwrap();
        /// } // dropped each time: the ring stays open
        /// assert!(!EVENTS.is_closed() && !EVENTS.closes_when_writers_leave());
        /// assert_eq!(events.try_iter().collect::<Vec<_>>(), [0, 1, 2]);
        /// EVENTS.close();
        /// assert!(events.try_pop().is_err()); // closed and drained
        /// ```
        #[must_use]
        pub fn stays_open(mut self) -> Self {
            self.state.close_on_last_writer = false;
            self
        }
    }

    /// Closes the ring: new reservations fail with
    /// [`ReserveError::Closed`](crate::ReserveError); readers drain everything published and
    /// then get [`ReadError::Closed`](crate::ReadError). Dropping the last writer handle closes
    /// the ring too. Idempotent.
    ///
    /// **Nothing claimed is lost.** A span reserved before the close stays valid and whatever
    /// it publishes is delivered: readers report `Closed` only once every span claimed before
    /// the close has been published or dropped.
    /// - Multi-producer rings with two or more writers: exact and immediate. `close` orders
    ///   itself against every claim through the claim cursor (an atomic read-modify-write on
    ///   it); a claim that comes after fails (its slots are given back or skipped), one that
    ///   came before is waited for by the readers, which compare their cursor with the claim
    ///   cursor.
    /// - A multi-producer ring with one writer claims without an atomic read-modify-write (see
    ///   [`Writer::attach`](crate::Writer::attach)), so it completes like a single-producer
    ///   ring: when that writer next publishes, reserves, clones or drops.
    /// - Single-producer rings: the one writer's span is private (claiming it touches no shared
    ///   memory, which is what makes the single-producer path fast), so only the writer can
    ///   tell that nothing is in flight. Readers report `Closed` once the writer has seen the
    ///   close: at its next publish, its next reserve (which fails), or when it is dropped. A
    ///   close with no writer attached takes effect at once. Until then readers of a drained
    ///   ring see `Empty` (blocking reads keep waiting).
    ///
    /// ```
    /// use spanring_core::{ReadError, ReserveError, Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let mut reader = ring.reader().unwrap();
    /// let mut writer = ring.writer().unwrap();
    /// let mut span = writer.try_reserve(2).unwrap();
    /// ring.close(); // e.g. from another thread, while the span is being filled
    /// span.copy_from_slice(&[1, 2]);
    /// drop(span); // still delivered
    /// assert_eq!(reader.try_read(4).unwrap().to_array::<2>(), Some([1, 2]));
    /// assert_eq!(reader.try_read(4).unwrap_err(), ReadError::Closed);
    /// assert_eq!(writer.try_reserve(1).unwrap_err(), ReserveError::Closed);
    /// ```
    pub fn close(&self) {
        match self.state.producer.multi() {
            Some(m) => {
                // The CAS on the writers word decides the one closer, and whether the ring's
                // only writer may be claiming with a plain store (then it seals, not us).
                if let Some(deferred) = crate::writers::close_multi(&self.state.writers) {
                    // Release: a claimant that acquires the RMW below sees this.
                    self.state.closed.store(true, Ordering::Release);
                    if !deferred {
                        // Release RMW on the claim cursor, after the store above: a claim CAS
                        // that comes later in the cursor's modification order reads this RMW
                        // (or a later RMW of its release sequence) with Acquire, so its
                        // claimant sees `closed` and withdraws. Every claim before it is in the
                        // value readers compare against. (With the seal deferred, the one
                        // writer seals after its last claim instead, and no RMW may race its
                        // plain store.)
                        m.claim().fetch_add(0, Ordering::Release);
                        self.seal();
                    }
                }
            }
            None => {
                // The swap (AcqRel: Release so that a writer that sees `true` through the RMW
                // after it also sees everything before) makes exactly one caller seal. Then an
                // AcqRel RMW on the writer count: a writer attaching later reads it (Acquire in
                // `take_writer`) and so sees `closed`; a writer attached earlier is counted and
                // will seal itself (it alone knows whether its span is in flight).
                if !self.state.closed.swap(true, Ordering::AcqRel)
                    && self.state.writers.fetch_add(0, Ordering::AcqRel) == 0
                {
                    self.seal();
                }
            }
        }
        self.data.notify_all();
        self.space.notify_all();
    }

    /// Marks the close complete for readers (see [`close`](Self::close)): called once no span
    /// claimed before the close can still be published.
    #[inline]
    pub(crate) fn seal(&self) {
        self.state.seal();
        self.data.notify_all();
    }

    /// Completes a [`close`](Self::close) whose seal waits for a writer (a single-producer
    /// ring, or a multi-producer ring with one writer) on behalf of that writer,
    /// for a layer above the ring that tracks the writer itself (std-ext's dispatcher does,
    /// with a flag and a fence around each post). The caller guarantees that the writer holds
    /// no span now and that its next claim sees `closed`. Not unsafe (memory stays sound),
    /// but a wrong call lets readers report `Closed` before the writer's last span, which
    /// is then never read. No effect while the ring is open.
    #[doc(hidden)]
    pub fn seal_for_idle_writer(&self) {
        if self.is_closed() {
            self.seal();
        }
    }

    /// Whether [`close`](Self::close) was called (or the last writer dropped): new
    /// reservations fail. Readers may still have items to drain (and, on a single-producer
    /// ring, a span reserved before the close may still be published).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let w = ring.writer().unwrap();
    /// assert!(!ring.is_closed());
    /// drop(w); // the last writer closes the ring
    /// assert!(ring.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        // Acquire: see `close`.
        if self.state.closed.load(Ordering::Acquire) {
            return true;
        }
        // A multi-producer close decides in the writers word (its CAS sets `CLOSED`) and stores
        // `closed` just after; a claim that reads the word in between fails `Closed`, and this
        // must agree with it (found by loom, `sole_writer_claim_races_close`, after a dispatcher
        // test under qemu saw a post fail `Closed` on a ring that said it was open). Acquire:
        // pairs with the close's AcqRel CAS, as the flag's load pairs with its store.
        self.state.producer.multi().is_some()
            && self.state.writers.load(Ordering::Acquire) & crate::writers::CLOSED != 0
    }

    /// Whether dropping the last writer closes the ring: `true` by default, `false` after
    /// [`stays_open`](Self::stays_open).
    ///
    /// ```
    /// use spanring_core::{InlineStorage, Ring};
    /// let ring: Ring<InlineStorage<u8, 4>> = Ring::new_inline([0; 4]);
    /// assert!(ring.closes_when_writers_leave());
    /// drop(ring.writer().unwrap());
    /// assert!(ring.is_closed());
    /// ```
    pub fn closes_when_writers_leave(&self) -> bool {
        self.state.close_on_last_writer
    }

    /// Opens a closed ring again, for a new stream that continues at the published cursor:
    /// a `static` ring whose producer was stopped (its last writer dropped, or
    /// [`close`](Self::close)d) and is started again. Only once no handle is attached: every
    /// writer and reader saw, or may see, the old stream end.
    ///
    /// # Errors
    ///
    /// [`ReopenError::NotClosed`], [`ReopenError::HandlesAttached`].
    ///
    /// ```
    /// use spanring_core::{InlineStorage, ReopenError, Ring};
    ///
    /// static EVENTS: Ring<InlineStorage<u32, 8>> = Ring::new_inline([0; 8]);
    ///
    /// let mut r = EVENTS.reader().unwrap();
    /// drop(EVENTS.writer().unwrap()); // the producer stops: the ring closes
    /// assert!(r.try_pop().is_err()); // the stream ended
    /// assert_eq!(EVENTS.reopen(), Err(ReopenError::HandlesAttached));
    /// drop(r);
    /// EVENTS.reopen().unwrap(); // the producer starts again
    /// let mut r = EVENTS.reader().unwrap();
    /// EVENTS.writer().unwrap().try_push(5).unwrap();
    /// assert_eq!(r.try_pop(), Ok(5));
    /// ```
    pub fn reopen(&self) -> Result<(), ReopenError> {
        if !self.is_closed() {
            return Err(ReopenError::NotClosed);
        }
        if self.state.readers.active() != 0 {
            return Err(ReopenError::HandlesAttached);
        }
        // The writers word: no writer may be attached, and a writer attaching from now on
        // is refused until the `closed` flag clears (it checks `is_closed` first and after
        // counting itself, and undoes the count when it sees the close).
        // Relaxed: validated by the CAS.
        let word = self.state.writers.load(Ordering::Relaxed);
        if word & crate::writers::COUNT != 0 {
            return Err(ReopenError::HandlesAttached);
        }
        // Acquire: every claim and publish of the writers that left (before their AcqRel
        // decrements) happens before the new stream. Release: part of the word's RMW chain
        // that a new writer's attach reads. (What a new writer must see of the reset is
        // published by the `closed` store below, which clears last.)
        if self
            .state
            .writers
            .compare_exchange(word, 0, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return Err(ReopenError::HandlesAttached); // a writer is attaching right now
        }
        // Relaxed: published by the Release store of `closed` below, which every attach
        // acquires (`is_closed`) before it uses the ring.
        self.state.sealed.store(false, Ordering::Relaxed);
        // The single-producer writer flag, kept taken since the close: hand it out again.
        self.state.producer.release_writer();
        // Release: pairs with `is_closed`'s Acquire load in `Writer::attach` (and in readers'
        // polls): whoever sees the ring open sees the reset before it.
        self.state.closed.store(false, Ordering::Release);
        Ok(())
    }

    /// Frees reader slot `slot` as if its [`Reader`](crate::Reader) had been dropped, and
    /// wakes writers waiting for room: for a ring shared by processes, when the process that
    /// held the reader died without dropping it. Writers stop waiting for that reader.
    ///
    /// # Safety
    ///
    /// No live reader handle holds `slot` (its owner is gone for good, and nothing else
    /// attached to the slot since): a reader still reading there would see writers overwrite
    /// the slots it reads.
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::new(SliceStorage::new(&mut memory)).unwrap();
    /// let reader = ring.reader().unwrap();
    /// let slot = reader.registry_slot();
    /// core::mem::forget(reader); // as a process that died would
    /// // SAFETY (example): the reader was forgotten, nothing else holds its slot.
    /// unsafe { ring.evict_reader(slot) };
    /// assert_eq!(ring.reader_count(), 0);
    /// ```
    pub unsafe fn evict_reader(&self, slot: usize) {
        self.reader_gone(slot);
    }

    /// Releases the writer as if its [`Writer`](crate::Writer) had been dropped with no span
    /// in flight: for a ring shared by processes, when the writer's process died. A
    /// single-producer ring can then hand out its writer again (or, unless it
    /// [`stays_open`](Self::stays_open), is closed as by the last writer leaving). What the
    /// dead writer reserved but did not publish is never shown: a new writer claims from the
    /// published cursor.
    ///
    /// # Safety
    ///
    /// No live writer handle is counted in its place: its owner is gone for good. Only for
    /// single-producer rings (a multi-producer writer that died with a span in flight leaves
    /// slots that are never published).
    ///
    /// ```
    /// use spanring_core::{Ring, SliceStorage};
    /// let mut memory = [0u8; 4];
    /// let ring = Ring::builder(SliceStorage::new(&mut memory)).stays_open().build().unwrap();
    /// let mut r = ring.reader().unwrap();
    /// let mut w = ring.writer().unwrap();
    /// w.try_push(1).unwrap();
    /// let mut span = w.try_reserve(2).unwrap();
    /// span.fill(9); // written, never published: its owner "dies" mid-span
    /// core::mem::forget(span);
    /// core::mem::forget(w);
    /// // SAFETY (example): the writer was forgotten; nothing else counts as it.
    /// unsafe { ring.evict_writer() };
    /// let mut w = ring.writer().unwrap(); // taken again, from the published cursor
    /// w.try_push(2).unwrap();
    /// assert_eq!(r.try_iter().collect::<Vec<_>>(), [1, 2]);
    /// ```
    pub unsafe fn evict_writer(&self) {
        self.writer_gone();
    }
}
