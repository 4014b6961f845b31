//! [`Sender`]: ring → network. A thread owns a ring reader and sends what it reads as ZeroMQ
//! messages (PUB or PUSH), each a whole number of items, optionally behind GNU Radio's tag
//! header.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use spanring::handle::ReadHandle;
use spanring::ReadError;

use crate::config::{SendPattern, SenderConfig};
use crate::engine::{self, Engine};
use crate::error::BridgeError;
use crate::header::TagHeader;
use crate::idle::Idle;
use crate::item::{item_bytes, PlainItem};
use crate::pool::{Pool, PooledMessage};
use crate::progress::Progress;

/// A sender's counters so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Messages handed to the engine.
    pub messages: u64,
    /// Items in those messages.
    pub items: u64,
    /// The offset the next message's header will carry (`first_offset` + `items`).
    pub next_offset: u64,
    /// PUSH: times the sender had to wait because no peer was connected or the peer's queue
    /// was at the high-water mark (the message was kept and sent later).
    pub blocked_waits: u64,
}

/// Why a bridge ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum End {
    /// The ring was closed (the last writer, or for a receiver every reader, is gone): a sender
    /// sent everything before it ended.
    RingClosed,
    /// [`stop`](Sender::stop) was called.
    Stopped,
    /// The engine failed.
    Failed(BridgeError),
}

/// What a sender did, once it has ended.
#[derive(Debug)]
pub struct SenderReport {
    /// Its counters at the end.
    pub stats: SenderStats,
    /// Items that were published in the ring but not sent: unread when stopped, or in a message
    /// that could not be handed to the engine. Zero when the ring closed and the stream was sent
    /// to its end.
    pub unsent_items: u64,
    /// Why it ended.
    pub end: End,
}

/// What the sender's thread shares with its handle.
#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    progress: Progress<SenderStats>,
}

/// Ring → network: a thread that reads items from a ring and sends them as ZeroMQ messages.
///
/// ```
/// use std::time::Duration;
/// use spanring::std_ext::owned;
/// use spanring_zmq::{Endpoint, Receiver, ReceiverConfig, Sender, SenderConfig};
///
/// // Ring A → PUSH → PULL → ring B.
/// let (mut wa, ra) = owned::portable::<u32>(1024).build()?;
/// let (wb, mut rb) = owned::portable::<u32>(1024).build()?;
/// let tx = Sender::spawn(ra, SenderConfig::push(Endpoint::bind("tcp://127.0.0.1:0")))?;
/// let rx = Receiver::spawn(wb, ReceiverConfig::pull(Endpoint::connect(tx.endpoint())))?;
/// for i in 0..100 {
///     wa.push(i)?;
/// }
/// drop(wa); // closes ring A: the sender sends the rest and ends
/// let sent = tx.join();
/// assert_eq!((sent.stats.items, sent.unsent_items), (100, 0));
/// let got: Vec<u32> = (0..100).map(|_| rb.pop_timeout(Duration::from_secs(10)).unwrap()).collect();
/// assert_eq!(got, (0..100).collect::<Vec<_>>());
/// rx.stop();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Sender {
    shared: Arc<Shared>,
    thread: JoinHandle<SenderReport>,
    endpoint: String,
}

impl Sender {
    /// Starts a sender on its own thread, reading from `reader` (any `'static` reader handle,
    /// such as an [`OwnedReader`](spanring::std_ext::owned::OwnedReader)). Returns once the
    /// socket is bound or connected.
    ///
    /// # Errors
    ///
    /// [`BridgeError::Zmq`] if the endpoint cannot be bound or connected,
    /// [`BridgeError::Io`] if the thread cannot start, [`BridgeError::ZeroSizedItem`],
    /// [`BridgeError::ZeroBatch`].
    pub fn spawn<R>(reader: R, config: SenderConfig) -> Result<Self, BridgeError>
    where
        R: ReadHandle + Send + 'static,
        R::Item: PlainItem,
    {
        if R::Item::WIRE_SIZE == 0 {
            return Err(BridgeError::ZeroSizedItem);
        }
        if config.max_items == 0 {
            return Err(BridgeError::ZeroBatch);
        }
        let shared = Arc::new(Shared::default());
        shared
            .progress
            .update(|s| s.next_offset = config.first_offset);
        let (ready_tx, ready_rx) = mpsc::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("spanring-zmq-send".into())
            .spawn(move || run(reader, config, &thread_shared, ready_tx))?;
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
    pub fn stats(&self) -> SenderStats {
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
        done: impl FnMut(&SenderStats) -> bool,
    ) -> Result<SenderStats, SenderStats> {
        self.shared.progress.wait_until(timeout, done)
    }

    /// Whether the thread has ended (ring closed, or the engine failed).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops after the message in hand (within a millisecond when idle) and reports what was not
    /// sent.
    pub fn stop(self) -> SenderReport {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.join()
    }

    /// Waits until the sender ends by itself: its ring closed and everything was sent, or the
    /// engine failed.
    pub fn join(self) -> SenderReport {
        let stats = self.shared.progress.get();
        self.thread.join().unwrap_or(SenderReport {
            stats,
            unsent_items: 0,
            end: End::Failed(BridgeError::Panicked),
        })
    }
}

/// The sender thread: open the socket, report readiness, then read → frame → send until the ring
/// closes, a stop, or an engine failure.
fn run<R>(
    mut reader: R,
    config: SenderConfig,
    shared: &Shared,
    ready: mpsc::Sender<Result<String, BridgeError>>,
) -> SenderReport
where
    R: ReadHandle,
    R::Item: PlainItem,
{
    let kind = match config.pattern {
        SendPattern::Pub => zmq::PUB,
        SendPattern::Push => zmq::PUSH,
    };
    let opened = Engine::open(kind, &config.endpoint, |s| {
        s.set_sndhwm(config.high_water_mark)?;
        s.set_linger(engine::millis(config.linger))
    });
    let mut engine = match opened {
        Ok((engine, endpoint)) => {
            let _ = ready.send(Ok(endpoint));
            engine
        }
        Err(e) => {
            let _ = ready.send(Err(e.into()));
            return SenderReport {
                stats: shared.progress.get(),
                unsent_items: 0,
                end: End::Stopped,
            };
        }
    };
    let push = config.pattern == SendPattern::Push;
    let socket = engine.socket_mut();
    let pool = Arc::new(Pool::default());
    let mut offset = config.first_offset;
    let mut idle = Idle::default();
    let end = loop {
        if shared.stop.load(Ordering::Relaxed) {
            break End::Stopped;
        }
        // The items are consumed from the ring only once the engine has taken their message:
        // a stop or a failure leaves them unread, so they count as unsent.
        let mut failure = None;
        let read = reader.try_read_with(config.max_items, |a, b| {
            let n = a.len() + b.len();
            // One copy: ring slots → a pooled buffer that libzmq sends and hands back.
            let head = TagHeader::bytes(offset);
            let head = if config.tag_header { &head[..] } else { &[] };
            let mut message = match PooledMessage::new(&pool, &[head, item_bytes(a), item_bytes(b)])
            {
                Ok(m) => m,
                Err(e) => {
                    failure = Some(End::Failed(e.into()));
                    return 0;
                }
            };
            loop {
                match message.send(socket, zmq::DONTWAIT) {
                    Ok(()) => return n,
                    // PUSH without a peer, or at the high-water mark (PUB never says so): wait
                    // until the socket can take it, then send the same message again (a failed
                    // send leaves it ours; the items are still in the ring until it is taken).
                    Err(zmq::Error::EAGAIN) if push => {
                        if let Err(e) = wait_writable(socket, shared) {
                            failure = Some(e);
                            return 0;
                        }
                    }
                    Err(zmq::Error::EAGAIN | zmq::Error::EINTR) => {
                        if shared.stop.load(Ordering::Relaxed) {
                            failure = Some(End::Stopped);
                            return 0;
                        }
                    }
                    Err(e) => {
                        failure = Some(End::Failed(e.into()));
                        return 0;
                    }
                }
            }
        });
        match read {
            Ok(n) if n > 0 => {
                idle.reset();
                offset += n as u64;
                shared.progress.update(|s| {
                    s.messages += 1;
                    s.items += n as u64;
                    s.next_offset = offset;
                });
            }
            Ok(_) => {}
            Err(ReadError::Closed) => break End::RingClosed,
            Err(_) => idle.wait(),
        }
        if let Some(end) = failure {
            break end;
        }
    };
    let unsent = if matches!(end, End::RingClosed) {
        0
    } else {
        reader.available() as u64
    };
    drop(reader); // an owned reader's drop may close its ring: the writer stops waiting for us
    drop(engine); // closes the socket; libzmq delivers what is queued for at most the linger time
    SenderReport {
        stats: shared.progress.get(),
        unsent_items: unsent,
        end,
    }
}

/// PUSH: waits until the socket can take a message (a peer is connected and below the
/// high-water mark), looking at the stop flag every [`STOP_POLL`](engine::STOP_POLL). PUB never
/// waits: libzmq drops the message for subscribers at the high-water mark.
fn wait_writable(socket: &zmq::Socket, shared: &Shared) -> Result<(), End> {
    let mut waited = false;
    loop {
        match socket.poll(
            zmq::POLLOUT,
            if waited {
                engine::millis(engine::STOP_POLL).into()
            } else {
                0
            },
        ) {
            Ok(ready) if ready > 0 => return Ok(()),
            Ok(_) | Err(zmq::Error::EINTR) => {}
            Err(e) => return Err(End::Failed(e.into())),
        }
        if shared.stop.load(Ordering::Relaxed) {
            return Err(End::Stopped);
        }
        if !waited {
            shared.progress.update(|s| s.blocked_waits += 1);
            waited = true;
        }
    }
}
