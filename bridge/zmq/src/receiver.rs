//! [`Receiver`]: network → ring. A thread owns a ring writer and writes every accepted message's
//! items into reserved spans in place, checking framing and, with tag headers, stream offsets.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use spanring::handle::WriteHandle;
use spanring::ReserveError;

use crate::config::{ReceiverConfig, RecvPattern};
use crate::engine::{self, Engine};
use crate::error::{BridgeError, MessageError};
use crate::header::TagHeader;
use crate::idle::Idle;
use crate::item::{item_bytes_mut, PlainItem};
use crate::progress::Progress;
use crate::sender::End;

/// A jump in the stream offsets a receiver saw: messages between were lost (a PUB high-water
/// mark, a late subscriber, a restarted peer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The offset the next message should have had.
    pub expected: u64,
    /// The offset it had.
    pub found: u64,
}

impl Gap {
    /// Items lost: `found - expected`.
    pub fn missing(&self) -> u64 {
        self.found - self.expected
    }
}

/// A receiver's counters so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Messages whose items were written to the ring.
    pub messages: u64,
    /// Items written to the ring.
    pub items: u64,
    /// Messages rejected because their item bytes were not a whole number of items.
    pub framing_errors: u64,
    /// Messages rejected because their tag header was malformed.
    pub header_errors: u64,
    /// Messages rejected because they had more than one frame.
    pub frame_errors: u64,
    /// The most recent rejection.
    pub last_error: Option<MessageError>,
    /// Offset jumps forward (tag headers only).
    pub gaps: u64,
    /// Items lost in those jumps, in total.
    pub missing_items: u64,
    /// Offsets that went backwards (a peer restarted its stream); the new offset is taken as is.
    pub rewinds: u64,
    /// The offset the next message should have (tag headers only, once one arrived).
    pub next_offset: Option<u64>,
}

/// What a receiver did, once it has ended.
#[derive(Debug)]
pub struct ReceiverReport {
    /// Its counters at the end.
    pub stats: ReceiverStats,
    /// Items of an accepted message that were not written: the receiver was stopped while the
    /// ring was full, or the ring closed.
    pub unwritten_items: u64,
    /// Why it ended.
    pub end: End,
}

/// A callback told of each gap, on the receiver's thread, before the message after the gap is
/// written.
pub type GapCallback = Box<dyn FnMut(Gap) + Send>;

/// What the receiver's thread shares with its handle.
#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    progress: Progress<ReceiverStats>,
}

/// Network → ring: a thread that receives ZeroMQ messages (SUB or PULL) and writes their items
/// into a ring.
///
/// With a multi-producer ring, several receivers (each with a clone of the writer) can feed one
/// ring; each message's items land contiguously when the message fits in the ring.
///
/// ```
/// use std::time::Duration;
/// use spanring::std_ext::owned;
/// use spanring_zmq::{Endpoint, Receiver, ReceiverConfig, Sender, SenderConfig};
///
/// // Two PUSH senders, two PULL receivers, one multi-producer ring.
/// let (w, mut r) = owned::portable::<u64>(4096).multi_producer().build()?;
/// let mut txs = Vec::new();
/// let mut rxs = Vec::new();
/// for base in [0u64, 1000] {
///     let (mut wa, ra) = owned::portable::<u64>(256).build()?;
///     let tx = Sender::spawn(ra, SenderConfig::push(Endpoint::bind("tcp://127.0.0.1:0")))?;
///     rxs.push(Receiver::spawn(w.clone(), ReceiverConfig::pull(Endpoint::connect(tx.endpoint())))?);
///     (0..10).for_each(|i| wa.push(base + i).unwrap());
///     txs.push(tx); // wa dropped here: that ring closes, its sender ends after sending
/// }
/// let mut got: Vec<u64> = (0..20).map(|_| r.pop_timeout(Duration::from_secs(10)).unwrap()).collect();
/// got.sort();
/// assert_eq!(got, (0..10).chain(1000..1010).collect::<Vec<_>>());
/// # for tx in txs { tx.join(); }
/// # for rx in rxs { rx.stop(); }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Receiver {
    shared: Arc<Shared>,
    thread: JoinHandle<ReceiverReport>,
    endpoint: String,
}

impl Receiver {
    /// Starts a receiver on its own thread, writing into `writer` (any `'static` writer
    /// handle, such as an owned writer). Returns once the socket is bound or connected.
    ///
    /// # Errors
    ///
    /// As [`Sender::spawn`](crate::Sender::spawn).
    pub fn spawn<W>(writer: W, config: ReceiverConfig) -> Result<Self, BridgeError>
    where
        W: WriteHandle + Send + 'static,
        W::Item: PlainItem,
    {
        Self::spawn_with_gaps(writer, config, None)
    }

    /// As [`spawn`](Self::spawn), calling `on_gap` for each gap (with `tag_header` on).
    ///
    /// ```
    /// # use spanring_zmq::*;
    /// # use spanring::std_ext::owned;
    /// let (w, _r) = owned::portable::<f32>(1024).build()?;
    /// let config = ReceiverConfig::subscribe(Endpoint::bind("tcp://127.0.0.1:0")).tag_header(true);
    /// let rx = Receiver::spawn_with_gaps(w, config, Some(Box::new(|g: Gap| eprintln!("lost {}", g.missing()))))?;
    /// assert_eq!(rx.stop().stats.gaps, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Sender::spawn`](crate::Sender::spawn).
    pub fn spawn_with_gaps<W>(
        writer: W,
        config: ReceiverConfig,
        on_gap: Option<GapCallback>,
    ) -> Result<Self, BridgeError>
    where
        W: WriteHandle + Send + 'static,
        W::Item: PlainItem,
    {
        if W::Item::WIRE_SIZE == 0 {
            return Err(BridgeError::ZeroSizedItem);
        }
        let shared = Arc::new(Shared::default());
        let (ready_tx, ready_rx) = mpsc::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("spanring-zmq-recv".into())
            .spawn(move || run(writer, config, on_gap, &thread_shared, ready_tx))?;
        match ready_rx.recv() {
            Ok(Ok(endpoint)) => Ok(Self {
                shared,
                thread,
                endpoint,
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(BridgeError::Panicked)
            }
        }
    }

    /// The address in effect (for `tcp://host:0`, with the port the system chose).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Counters so far.
    pub fn stats(&self) -> ReceiverStats {
        self.shared.progress.get()
    }

    /// Waits at most `timeout` until `done` holds for the counters: `Ok` with the counters that
    /// satisfied it, `Err` with the last ones seen.
    ///
    /// # Errors
    ///
    /// The last counters, if `timeout` passed first.
    pub fn wait_until(
        &self,
        timeout: Duration,
        done: impl FnMut(&ReceiverStats) -> bool,
    ) -> Result<ReceiverStats, ReceiverStats> {
        self.shared.progress.wait_until(timeout, done)
    }

    /// Whether the thread has ended (its ring closed, or the engine failed).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops (within 20 ms when waiting for a message; within a millisecond when waiting for
    /// ring space, leaving that message unwritten) and reports.
    pub fn stop(self) -> ReceiverReport {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.join()
    }

    /// Waits until the receiver ends by itself (its ring closed).
    pub fn join(self) -> ReceiverReport {
        let stats = self.shared.progress.get();
        self.thread.join().unwrap_or(ReceiverReport {
            stats,
            unwritten_items: 0,
            end: End::Failed(BridgeError::Panicked),
        })
    }
}

/// What a received message holds, once checked.
struct Checked<'m> {
    offset: Option<u64>,
    items: &'m [u8],
}

/// Checks one message's frames, header and framing; nothing is written here.
fn check(
    payload: &[u8],
    frames: usize,
    tag_header: bool,
    size: usize,
) -> Result<Checked<'_>, MessageError> {
    if frames != 1 {
        return Err(MessageError::Frames { count: frames });
    }
    let (offset, items) = if tag_header {
        let h = TagHeader::parse(payload).map_err(MessageError::Header)?;
        (Some(h.offset), &payload[h.items_at..])
    } else {
        (None, payload)
    };
    if items.len() % size != 0 {
        return Err(MessageError::Framing {
            len: items.len(),
            item_size: size,
        });
    }
    Ok(Checked { offset, items })
}

/// How writing one message ended, if not with every item written.
enum Unwritten {
    Stopped(u64),
    Closed(u64),
}

/// Writes `bytes` (a whole number of items) into the ring: one span when it fits in the ring,
/// else spans of the ring's capacity; waits (idle) while the ring is full.
fn write_items<W>(
    writer: &mut W,
    bytes: &[u8],
    shared: &Shared,
    idle: &mut Idle,
) -> Result<(), Unwritten>
where
    W: WriteHandle,
    W::Item: PlainItem,
{
    let size = W::Item::WIRE_SIZE;
    let total = bytes.len() / size;
    let (mut done, mut chunk) = (0usize, total);
    while done < total {
        let n = chunk.min(total - done);
        let src = &bytes[done * size..(done + n) * size];
        let wrote = writer.try_write_with(n, |a, b| {
            let (head, tail) = src.split_at(a.len() * size);
            item_bytes_mut(a).copy_from_slice(head);
            item_bytes_mut(b).copy_from_slice(tail);
            n
        });
        match wrote {
            Ok(_) => {
                done += n;
                idle.reset();
            }
            Err(ReserveError::TooLarge { capacity, .. }) => chunk = capacity.max(1),
            Err(ReserveError::Closed) => return Err(Unwritten::Closed((total - done) as u64)),
            Err(_) => {
                if shared.stop.load(Ordering::Relaxed) {
                    return Err(Unwritten::Stopped((total - done) as u64));
                }
                idle.wait();
            }
        }
    }
    Ok(())
}

/// The receiver thread: open the socket, report readiness, then receive → check → write until a
/// stop or the ring closes.
fn run<W>(
    mut writer: W,
    config: ReceiverConfig,
    mut on_gap: Option<GapCallback>,
    shared: &Shared,
    ready: mpsc::Sender<Result<String, BridgeError>>,
) -> ReceiverReport
where
    W: WriteHandle,
    W::Item: PlainItem,
{
    let kind = match config.pattern {
        RecvPattern::Sub => zmq::SUB,
        RecvPattern::Pull => zmq::PULL,
    };
    let opened = Engine::open(kind, &config.endpoint, |s| {
        s.set_rcvhwm(config.high_water_mark)?;
        s.set_rcvtimeo(engine::millis(engine::STOP_POLL))?;
        s.set_linger(0)?;
        if kind == zmq::SUB {
            s.set_subscribe(b"")?;
        }
        Ok(())
    });
    let engine = match opened {
        Ok((engine, endpoint)) => {
            let _ = ready.send(Ok(endpoint));
            engine
        }
        Err(e) => {
            let _ = ready.send(Err(e.into()));
            return ReceiverReport {
                stats: shared.progress.get(),
                unwritten_items: 0,
                end: End::Stopped,
            };
        }
    };
    let socket = engine.socket();
    let size = W::Item::WIRE_SIZE;
    let mut next_offset = config.first_offset;
    let mut idle = Idle::default();
    let mut unwritten = 0;
    let mut message = zmq::Message::new();
    let mut extra = zmq::Message::new();
    let end = loop {
        if shared.stop.load(Ordering::Relaxed) {
            break End::Stopped;
        }
        match socket.recv(&mut message, 0) {
            Ok(()) => {}
            Err(zmq::Error::EAGAIN | zmq::Error::EINTR) => continue, // the stop poll interval
            Err(e) => break End::Failed(e.into()),
        }
        // A multi-part message: read (and drop) the rest, so the next one starts clean.
        let mut frames = 1;
        while socket.get_rcvmore().unwrap_or(false) {
            if socket.recv(&mut extra, 0).is_err() {
                break;
            }
            frames += 1;
        }
        let checked = match check(&message, frames, config.tag_header, size) {
            Ok(c) => c,
            Err(e) => {
                shared.progress.update(|s| {
                    match e {
                        MessageError::Framing { .. } => s.framing_errors += 1,
                        MessageError::Header(_) => s.header_errors += 1,
                        MessageError::Frames { .. } => s.frame_errors += 1,
                    }
                    s.last_error = Some(e);
                });
                continue;
            }
        };
        let n = (checked.items.len() / size) as u64;
        if let Some(found) = checked.offset {
            match next_offset {
                Some(expected) if found > expected => {
                    let gap = Gap { expected, found };
                    shared.progress.update(|s| {
                        s.gaps += 1;
                        s.missing_items += gap.missing();
                    });
                    if let Some(f) = on_gap.as_mut() {
                        f(gap);
                    }
                }
                Some(expected) if found < expected => shared.progress.update(|s| s.rewinds += 1),
                _ => {}
            }
            next_offset = Some(found.saturating_add(n));
        }
        match write_items(&mut writer, checked.items, shared, &mut idle) {
            Ok(()) => shared.progress.update(|s| {
                s.messages += 1;
                s.items += n;
                s.next_offset = next_offset;
            }),
            Err(Unwritten::Stopped(k)) => {
                unwritten = k;
                break End::Stopped;
            }
            Err(Unwritten::Closed(k)) => {
                unwritten = k;
                break End::RingClosed;
            }
        }
    };
    drop(writer); // the last writer of an owned ring closes it: its readers drain and end
    drop(engine);
    ReceiverReport {
        stats: shared.progress.get(),
        unwritten_items: unwritten,
        end,
    }
}
