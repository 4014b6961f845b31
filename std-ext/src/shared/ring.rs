//! [`SharedRing`]: the ring, in a segment that several processes map.
//!
//! The ring itself is the in-process one, [`GenericRing`], written once into the segment's
//! state block by the creator: its protocol state is atomics and plain numbers in a `repr(C)`
//! layout, its waits are [`FutexWait::shared`] words, and its memory is a
//! [`RelativeStorage`] that finds the double-mapped data at a fixed distance (each process
//! maps the control pages and the data in one reservation). So every process runs the same
//! claim, publish, read and close code as threads of one process do, through the same
//! [`Writer`] and [`Reader`] handles, spans included.
//!
//! Roles: a process that maps the ring as a writer can write and read; one that maps it as a
//! reader has the data, the header and the other reader pages read-only, so a stray write
//! faults in that process instead of corrupting the stream.
//!
//! Processes die. Each handle's owner is recorded (pid and start time, `owner.rs`) next to
//! the ring: a writer waiting for room checks, every [`liveness`](SharedRing::set_liveness)
//! period, whether the reader processes holding it back still live, and frees the slots of
//! dead ones; a process asking for the writer of a ring whose writer process died takes it
//! over (what the dead writer reserved but did not publish is never shown). A stopped or slow
//! process is alive and keeps what it holds.
//!
//! Not yet: fixed-width cursors for a 32-bit process next to a 64-bit one (a 32-bit process is
//! refused: the ring's layout differs), multi-producer rings, untethered readers, and async
//! waits across processes.

use core::alloc::Layout;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ops::{Deref, DerefMut};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

// Real atomics: the owner records live in memory shared by processes.
#[allow(clippy::disallowed_types)]
use core::sync::atomic::{AtomicU64, Ordering};

use spanring_core::parts::{GenericRing, ReaderRegistry};
use spanring_core::{AttachError, Reader, Ring, SingleProducer, WaitStrategy, WaitTimeout, Writer};

use super::error::SharedError;
use super::item::SharedItem;
use super::layout::ClaimMode;
use super::owner::{self, Owners};
use super::relative::RelativeStorage;
use super::segment::Segment;
use super::spec::SegmentSpec;
use super::view::{Role, SegmentMapping};
use crate::FutexWait;

/// The ring type inside a [`SharedRing`]: handles borrow it (`Writer<&SharedRingCore<T, N>>`).
pub type SharedRingCore<T, const READERS: usize> = GenericRing<
    RelativeStorage<T>,
    SingleProducer,
    SharedWait<T, READERS>,
    ReaderRegistry<READERS>,
>;

/// What the segment's state block holds: the ring, then who owns its handles.
#[repr(C)]
struct SharedState<T, const READERS: usize> {
    ring: SharedRingCore<T, READERS>,
    owners: Owners<READERS>,
}

impl<T, const READERS: usize> SharedState<T, READERS> {
    /// Frees the slots of readers whose processes died.
    fn sweep(&self) {
        for (slot, record) in self.owners.readers.iter().enumerate() {
            if owner::take_from_dead(record) {
                // SAFETY: the slot's owner process is dead (the kernel says so) and recorded
                // itself only after it attached there, so it held the slot; nothing else can
                // attach to a held slot, and we alone took the record from it.
                unsafe { self.ring.evict_reader(slot) };
            }
        }
    }
}

/// How a [`SharedRing`]'s handles wait: on a [`FutexWait::shared`] word, and, for writers
/// waiting for room, every liveness period a look for reader processes that died holding the
/// ring back (their slots are freed, so the writer goes on). Lives inside the ring; nothing to
/// construct by hand.
#[repr(C)]
pub struct SharedWait<T, const READERS: usize> {
    futex: FutexWait,
    /// Bytes from this value to the shared state (when `sweeps`).
    to_state: i64,
    /// Whether waiters look for dead readers (the writers' side).
    sweeps: bool,
    _ring: PhantomData<fn() -> T>,
}

impl<T, const READERS: usize> core::fmt::Debug for SharedWait<T, READERS> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedWait")
            .field("futex", &self.futex)
            .field("sweeps", &self.sweeps)
            .finish_non_exhaustive()
    }
}

impl<T, const READERS: usize> Default for SharedWait<T, READERS> {
    /// Waits only (no sweeping): what the ring is built with before its place is known.
    fn default() -> Self {
        Self {
            futex: FutexWait::shared(),
            to_state: 0,
            sweeps: false,
            _ring: PhantomData,
        }
    }
}

impl<T, const READERS: usize> SharedWait<T, READERS> {
    /// The shared state, if this wait sweeps.
    fn state(&self) -> Option<&SharedState<T, READERS>> {
        if !self.sweeps {
            return None;
        }
        let at = (self as *const Self)
            .cast::<u8>()
            .wrapping_offset(self.to_state as isize)
            .cast::<SharedState<T, READERS>>();
        // SAFETY: a sweeping wait is only made by `SharedRing::prepare`, with `to_state` the
        // distance from its place in the ring to the start of the `SharedState` that holds
        // it, and is only used there (the ring lives in the segment for good).
        Some(unsafe { &*at })
    }
}

impl<T, const READERS: usize> WaitStrategy for SharedWait<T, READERS> {
    fn wait_until(&self, ready: &mut dyn FnMut() -> bool) {
        let Some(state) = self.state() else {
            return self.futex.wait_until(ready);
        };
        while !self
            .futex
            .wait_until_timeout(ready, state.owners.liveness())
        {
            state.sweep();
        }
    }

    #[inline]
    fn notify_all(&self) {
        self.futex.notify_all();
    }
}

impl<T, const READERS: usize> WaitTimeout for SharedWait<T, READERS> {
    fn wait_until_timeout(&self, ready: &mut dyn FnMut() -> bool, timeout: Duration) -> bool {
        let Some(state) = self.state() else {
            return self.futex.wait_until_timeout(ready, timeout);
        };
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            if self
                .futex
                .wait_until_timeout(ready, left.min(state.owners.liveness()))
            {
                return true;
            }
            if left.is_zero() {
                return false;
            }
            state.sweep();
        }
    }
}

/// A single-producer broadcast ring in shared memory: one writer and up to `READERS` readers,
/// in any processes that map it.
///
/// The creator makes it ([`create`](Self::create): an anonymous, sealed memfd to hand to
/// children; [`create_named`](Self::create_named): a POSIX shared memory name for unrelated
/// processes) and maps it as the writer; other processes attach with
/// [`from_fd`](Self::from_fd) or [`open`](Self::open) in a [`Role`]. Then
/// [`writer`](Self::writer) and [`reader`](Self::reader) give the usual handles.
///
/// ```
/// use std::os::fd::AsFd;
/// use spanring_std::shared::{Role, SharedRing};
/// let ring = SharedRing::<u64>::create(4096)?;
/// // Normally in another process, given the descriptor (e.g. inherited across fork):
/// let fd = ring.as_fd().try_clone_to_owned().unwrap();
/// let other = SharedRing::<u64>::from_fd(fd, Role::Reader { slot: 0 })?;
/// let mut reader = other.reader().unwrap();
///
/// let mut writer = ring.writer()?;
/// writer.try_reserve(3).unwrap().copy_from_slice(&[1, 2, 3]);
/// assert_eq!(reader.try_read(8).unwrap().as_slice(), [1, 2, 3]);
/// # Ok::<(), spanring_std::shared::SharedError>(())
/// ```
pub struct SharedRing<T: SharedItem + Send, const READERS: usize = 4> {
    mapping: SegmentMapping<T>,
    segment: Segment<T>,
}

impl<T: SharedItem + Send, const READERS: usize> core::fmt::Debug for SharedRing<T, READERS> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedRing")
            .field("role", &self.mapping.role())
            .field("ring", self.ring())
            .finish()
    }
}

// SAFETY: the mapping and the descriptor are owned resources usable from any thread; the ring
// behind them is atomics, plain numbers and `T: Send` items, shared under its protocol.
unsafe impl<T: SharedItem + Send, const READERS: usize> Send for SharedRing<T, READERS> {}
// SAFETY: as for `Send`: `&SharedRing` hands out `&SharedRingCore`, which is `Sync` for
// `T: Send` like every ring.
unsafe impl<T: SharedItem + Send, const READERS: usize> Sync for SharedRing<T, READERS> {}

impl<T: SharedItem + Send, const READERS: usize> SharedRing<T, READERS> {
    /// What the segment must hold: `T`, single producer, `READERS` slots, the ring's layout.
    fn spec(capacity: Option<usize>) -> SegmentSpec<T> {
        let spec = SegmentSpec::new(
            capacity.unwrap_or(1),
            READERS as u32,
            ClaimMode::SingleProducer,
            Layout::new::<SharedState<T, READERS>>(),
        )
        .item_name(&Self::identity());
        match capacity {
            Some(_) => spec,
            None => spec.any_capacity(),
        }
    }

    /// The name the header's item hash is taken over: the item type, and what fixes the state
    /// block's meaning beyond its size: this crate's version (the ring's field layout) and the
    /// width of `usize` (its cursors). A process built for another width or another version
    /// gets [`HeaderError::ItemMismatch`](super::HeaderError) at attach, never a state it
    /// would misread, even where the block's size happens to be the same.
    fn identity() -> String {
        format!(
            "{} in a spanring-std {} SharedRing, {}-bit cursors",
            core::any::type_name::<T>(),
            env!("CARGO_PKG_VERSION"),
            usize::BITS
        )
    }

    /// Creates a ring of at least `capacity` items (rounded up to whole pages) in a sealed,
    /// anonymous memfd, mapped here as the writer. Hand [`as_fd`](Self::as_fd) to the processes
    /// that should attach (across `fork`, or `exec` with the descriptor kept open).
    ///
    /// # Errors
    ///
    /// [`SharedError`] if the object cannot be created, sized, sealed or mapped.
    ///
    /// ```
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<[f32; 2]>::create(1000)?;
    /// assert_eq!(ring.ring().capacity(), 1024); // whole pages of 8-byte items
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create(capacity: usize) -> Result<Self, SharedError> {
        let spec = Self::spec(Some(capacity));
        let ring = Self::prepare(&spec)?;
        let segment = Segment::create_with(&spec, |block| Self::write_state(block, ring))?;
        Self::map(segment, Role::Writer)
    }

    /// Creates a ring under the POSIX shared memory name `name` (`/` and 1 to 254 more bytes,
    /// mode 0600), for processes that are not related; they [`open`](Self::open) it by name.
    /// Remove the name with [`Segment::unlink`] when no new process needs it. A named object
    /// cannot be sealed (see the module docs of [`shared`](super)).
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create), and the name's (`EEXIST` if it is taken).
    ///
    /// ```
    /// use spanring_std::shared::{Role, Segment, SharedRing};
    /// let name = format!("/spanring-doc-{}", std::process::id());
    /// let ring = SharedRing::<u32>::create_named(&name, 1024)?;
    /// let other = SharedRing::<u32>::open(&name, Role::Reader { slot: 0 })?;
    /// Segment::<u32>::unlink(&name)?;
    /// let mut r = other.reader().unwrap();
    /// ring.writer()?.try_push(7).unwrap();
    /// assert_eq!(r.try_pop(), Ok(7));
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn create_named(name: &str, capacity: usize) -> Result<Self, SharedError> {
        let spec = Self::spec(Some(capacity));
        let ring = Self::prepare(&spec)?;
        let segment =
            Segment::create_named_with(name, &spec, |block| Self::write_state(block, ring))?;
        Self::map(segment, Role::Writer)
    }

    /// Attaches to the ring behind `fd` (from [`as_fd`](Self::as_fd) of the creator), checking
    /// its header against `T`, the claim mode, `READERS` and the ring's layout, and maps it
    /// for `role`.
    ///
    /// # Errors
    ///
    /// [`SharedError::Header`] if the object is not such a ring (or not initialised yet), and
    /// the mapping's errors.
    ///
    /// ```
    /// use std::os::fd::AsFd;
    /// use spanring_std::shared::{HeaderError, Role, SharedError, SharedRing};
    /// let ring = SharedRing::<u64>::create(512)?;
    /// let fd = || ring.as_fd().try_clone_to_owned().unwrap();
    /// assert!(SharedRing::<u64>::from_fd(fd(), Role::Writer).is_ok());
    /// let wrong = SharedRing::<i32>::from_fd(fd(), Role::Writer).unwrap_err();
    /// assert!(matches!(wrong, SharedError::Header(HeaderError::ItemMismatch { .. })));
    /// # Ok::<(), SharedError>(())
    /// ```
    pub fn from_fd(fd: OwnedFd, role: Role) -> Result<Self, SharedError> {
        Self::map(Segment::from_fd(fd, &Self::spec(None))?, role)
    }

    /// Attaches to the ring created under `name` by [`create_named`](Self::create_named).
    ///
    /// # Errors
    ///
    /// As [`from_fd`](Self::from_fd), and the name's (`ENOENT` if there is none).
    ///
    /// ```
    /// use spanring_std::shared::{Role, SharedRing};
    /// let err = SharedRing::<u8>::open("/spanring-no-such-ring", Role::Writer).unwrap_err();
    /// assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);
    /// ```
    pub fn open(name: &str, role: Role) -> Result<Self, SharedError> {
        Self::map(Segment::open(name, &Self::spec(None))?, role)
    }

    /// The ring, for everything the handles do not cover (`capacity`, `close`, …).
    ///
    /// ```
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<u8, 2>::create(4096)?;
    /// assert_eq!((ring.ring().capacity(), ring.ring().reader_count()), (4096, 0));
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn ring(&self) -> &SharedRingCore<T, READERS> {
        &self.state().ring
    }

    /// How often a writer that waits for room checks whether the reader processes holding it
    /// back still live (100 ms unless set; at least 1 ms). A reader process killed while it
    /// held the ring full stops holding it back within about this time. One setting for every
    /// process sharing the ring.
    ///
    /// ```
    /// use std::time::Duration;
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<u8>::create(4096)?;
    /// ring.set_liveness(Duration::from_millis(20));
    /// assert_eq!(ring.liveness(), Duration::from_millis(20));
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn set_liveness(&self, period: Duration) {
        let ms = u32::try_from(period.as_millis()).unwrap_or(u32::MAX).max(1);
        // Relaxed: a setting, read whenever a waiter next sleeps.
        self.state().owners.liveness_ms.store(ms, Ordering::Relaxed);
    }

    /// The liveness period ([`set_liveness`](Self::set_liveness)).
    ///
    /// ```
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<u8>::create(4096)?;
    /// assert_eq!(ring.liveness().as_millis(), 100);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn liveness(&self) -> Duration {
        self.state().owners.liveness()
    }

    fn state(&self) -> &SharedState<T, READERS> {
        // The state block holds a `SharedState<T, READERS>`: the creator wrote one there
        // (`write_state`) before it published the header, and the header check (`spec`) matched
        // the item type, claim mode, reader count and this type's size and alignment.
        let state = self.mapping.state().cast::<SharedState<T, READERS>>();
        // SAFETY: a valid `SharedState` (above), aligned (page-aligned block), writable in every
        // role, alive as long as `self.mapping`, and shared only through atomics.
        unsafe { state.as_ref() }
    }

    /// The ring's writer (there is one, in all processes together).
    ///
    /// # Errors
    ///
    /// [`SharedError::ReadOnlyRole`] in a process that mapped the ring as a reader (its data
    /// mapping is read-only), and [`SharedError::Attach`] with the ring's own errors
    /// (`WriterTaken`, `Closed`).
    ///
    /// ```
    /// use std::os::fd::AsFd;
    /// use spanring_std::shared::{Role, SharedError, SharedRing};
    /// use spanring_std::core_api::AttachError;
    /// let ring = SharedRing::<u8>::create(4096)?;
    /// let _w = ring.writer()?;
    /// assert_eq!(ring.writer().unwrap_err(), SharedError::Attach(AttachError::WriterTaken));
    /// let fd = ring.as_fd().try_clone_to_owned().unwrap();
    /// let reader_side = SharedRing::<u8>::from_fd(fd, Role::Reader { slot: 0 })?;
    /// assert_eq!(reader_side.writer().unwrap_err(), SharedError::ReadOnlyRole);
    /// # Ok::<(), SharedError>(())
    /// ```
    pub fn writer(&self) -> Result<SharedWriter<'_, T, READERS>, SharedError> {
        if self.mapping.role() != Role::Writer {
            return Err(SharedError::ReadOnlyRole);
        }
        let record = &*self.state().owners.writer;
        loop {
            match self.ring().writer() {
                Ok(writer) => {
                    let token = owner::this_process();
                    owner::claim(record, token);
                    return Ok(SharedWriter {
                        writer: ManuallyDrop::new(writer),
                        record,
                        token,
                    });
                }
                Err(AttachError::WriterTaken) if owner::take_from_dead(record) => {
                    // SAFETY: the writer's owner process is dead (the kernel says so) and
                    // recorded itself only after it took the writer; we alone took the record
                    // from it, and the ring is single-producer.
                    unsafe { self.ring().evict_writer() };
                }
                Err(e) => return Err(SharedError::Attach(e)),
            }
        }
    }

    /// A reader, at the stream's current end.
    ///
    /// # Errors
    ///
    /// [`AttachError::TooManyReaders`] when `READERS` readers are attached (in all processes).
    ///
    /// ```
    /// use spanring_std::shared::SharedRing;
    /// let ring = SharedRing::<u16, 1>::create(4096)?;
    /// let _r = ring.reader().unwrap();
    /// assert!(ring.reader().is_err()); // one slot
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn reader(&self) -> Result<SharedReader<'_, T, READERS>, AttachError> {
        let reader = self.ring().reader()?;
        let record = &*self.state().owners.readers[reader.registry_slot()];
        let token = owner::this_process();
        owner::claim(record, token);
        Ok(SharedReader {
            reader: ManuallyDrop::new(reader),
            record,
            token,
        })
    }

    /// How this process mapped the ring.
    ///
    /// ```
    /// use spanring_std::shared::{Role, SharedRing};
    /// assert_eq!(SharedRing::<u8>::create(1)?.role(), Role::Writer);
    /// # Ok::<(), spanring_std::shared::SharedError>(())
    /// ```
    pub fn role(&self) -> Role {
        self.mapping.role()
    }

    /// The state the creator writes into the state block of a segment laid out for `spec`.
    fn prepare(spec: &SegmentSpec<T>) -> Result<SharedState<T, READERS>, SharedError> {
        let layout = super::segment::plan(spec)?;
        let capacity = layout.capacity;
        // Where the storage and the writers' wait sit inside the ring (which starts the state,
        // `repr(C)`): measured on a ring built with placeholders, whose storage is never
        // used to reach items (building reads only the capacity).
        // SAFETY: as said: this storage only has its address taken.
        let probe = Self::build(unsafe { RelativeStorage::new(0, capacity) })?;
        let base = &probe as *const SharedRingCore<T, READERS> as i64;
        let storage_at = probe.storage() as *const RelativeStorage<T> as i64 - base;
        let space_at = probe.space_wait() as *const SharedWait<T, READERS> as i64 - base;
        // From the storage's place in the segment to the data region (all offsets below 2^63:
        // the layout fits this process).
        let offset = layout.data.offset as i64 - (layout.state_block.offset as i64 + storage_at);
        // SAFETY: the state is written into the state block (`write_state`) and used only
        // from there, in mappings that place the data `data.offset - state_block.offset` bytes
        // after the block (`SegmentMapping`), double-mapped, `capacity` items (the layout's).
        let ring = Self::build(unsafe { RelativeStorage::new(offset, capacity) })?;
        let space = SharedWait {
            to_state: -space_at,
            sweeps: true,
            ..SharedWait::default()
        };
        Ok(SharedState {
            ring: ring.with_wait_strategies(space, SharedWait::default()),
            owners: Owners::new(),
        })
    }

    /// Moves `state` into `block`, the state block of a segment being created.
    fn write_state(block: &mut [u8], state: SharedState<T, READERS>) {
        // The block was laid out from this type's `Layout` (`spec`) and starts on a page
        // boundary: a failure here is a bug in the layout, not bad input.
        assert!(
            block.len() >= core::mem::size_of::<SharedState<T, READERS>>()
                && block.as_ptr() as usize % core::mem::align_of::<SharedState<T, READERS>>() == 0,
            "the segment's state block does not fit the ring"
        );
        // SAFETY: `block` is large enough and aligned for the state (checked above) and ours
        // alone while the segment is created; `write` moves the state in without reading the
        // old bytes. It is never dropped: it lives as long as the segment.
        unsafe {
            block
                .as_mut_ptr()
                .cast::<SharedState<T, READERS>>()
                .write(state)
        };
    }

    /// A ring over `storage`, open until closed, waiting without sweeps.
    fn build(storage: RelativeStorage<T>) -> Result<SharedRingCore<T, READERS>, SharedError> {
        Ring::builder(storage)
            .wait::<SharedWait<T, READERS>>()
            .readers::<READERS>()
            .stays_open()
            .build()
            .map_err(SharedError::Capacity)
    }

    /// Maps `segment` for `role`.
    fn map(segment: Segment<T>, role: Role) -> Result<Self, SharedError> {
        let mapping = match role {
            Role::Writer => segment.map_writer()?,
            Role::Reader { slot } => segment.map_reader(slot)?,
        };
        Ok(Self { mapping, segment })
    }
}

impl<T: SharedItem + Send, const READERS: usize> AsFd for SharedRing<T, READERS> {
    /// The segment's descriptor, to hand to processes that attach with
    /// [`from_fd`](SharedRing::from_fd).
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.segment.as_fd()
    }
}

/// The writer of a [`SharedRing`]: a [`Writer`] (it dereferences to one) that records this
/// process as the ring's writer, so that another process can take the writer over if this one
/// dies holding it. Dropping it releases the writer.
pub struct SharedWriter<'a, T: SharedItem + Send, const READERS: usize> {
    writer: ManuallyDrop<Writer<&'a SharedRingCore<T, READERS>>>,
    #[allow(clippy::disallowed_types)]
    record: &'a AtomicU64,
    token: u64,
}

/// A reader of a [`SharedRing`]: a [`Reader`] (it dereferences to one) that records this
/// process as its slot's owner, so that a writer can free the slot if this process dies
/// holding it. Dropping it detaches the reader.
pub struct SharedReader<'a, T: SharedItem + Send, const READERS: usize> {
    reader: ManuallyDrop<Reader<&'a SharedRingCore<T, READERS>>>,
    #[allow(clippy::disallowed_types)]
    record: &'a AtomicU64,
    token: u64,
}

/// Deref to the handle, and a drop that clears the owner record before the handle goes.
macro_rules! owned_handle {
    ($name:ident, $field:ident, $handle:ident) => {
        impl<'a, T: SharedItem + Send, const READERS: usize> Deref for $name<'a, T, READERS> {
            type Target = $handle<&'a SharedRingCore<T, READERS>>;
            fn deref(&self) -> &Self::Target {
                &self.$field
            }
        }

        impl<T: SharedItem + Send, const READERS: usize> DerefMut for $name<'_, T, READERS> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.$field
            }
        }

        impl<T: SharedItem + Send, const READERS: usize> Drop for $name<'_, T, READERS> {
            fn drop(&mut self) {
                // The record first, then the handle: a slot is never free under a record of
                // ours that a reclaimer could later find dead (it would free the slot of the
                // next owner).
                owner::release(self.record, self.token);
                // SAFETY: dropped once, here; the field is not used afterwards.
                unsafe { ManuallyDrop::drop(&mut self.$field) };
            }
        }

        impl<T: SharedItem + Send, const READERS: usize> core::fmt::Debug
            for $name<'_, T, READERS>
        {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("owner", &self.token)
                    .finish_non_exhaustive()
            }
        }
    };
}

owned_handle!(SharedWriter, writer, Writer);
owned_handle!(SharedReader, reader, Reader);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_identity_names_the_cursor_width_and_the_version() {
        let name = SharedRing::<u64, 4>::identity();
        assert!(
            name.contains(&format!("{}-bit cursors", usize::BITS)),
            "{name}"
        );
        assert!(name.contains(env!("CARGO_PKG_VERSION")), "{name}");
        // Not the plain item identity a segment of bare `u64`s would carry.
        let plain = SegmentSpec::<u64>::new(1, 4, ClaimMode::SingleProducer, Layout::new::<u8>());
        assert_ne!(SharedRing::<u64, 4>::spec(None).item(), plain.item());
    }
}
