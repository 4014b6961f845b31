//! Configuration: where a bridge's socket goes ([`Endpoint`]), which ZeroMQ pattern it speaks,
//! and the framing options.

/// Where the bridge's socket goes: ZeroMQ addresses such as `tcp://127.0.0.1:5555`,
/// `tcp://127.0.0.1:0` (a free port; the bridge reports the one it got) or
/// `ipc:///tmp/name.sock`. Reconnecting after a peer goes away is the engine's (libzmq's) job.
///
/// GNU Radio's `pub_sink`/`push_sink` bind by default and `sub_source`/`pull_source` connect;
/// either side may do either.
///
/// ```
/// use spanring_zmq::Endpoint;
/// assert_eq!(Endpoint::bind("tcp://127.0.0.1:0"), Endpoint::Bind("tcp://127.0.0.1:0".into()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// Listen at this address.
    Bind(String),
    /// Connect to this address (the peer need not be there yet; libzmq retries).
    Connect(String),
}

impl Endpoint {
    /// Listen at `address`.
    pub fn bind(address: impl Into<String>) -> Self {
        Self::Bind(address.into())
    }

    /// Connect to `address`.
    pub fn connect(address: impl Into<String>) -> Self {
        Self::Connect(address.into())
    }
}

/// The sending pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendPattern {
    /// PUB: fan-out to every subscriber; a subscriber that falls behind by the engine's
    /// high-water mark loses messages (a gap in the offsets it sees), the ring never waits for
    /// the network.
    Pub,
    /// PUSH: lossless; the sender waits while no peer is connected or the peer's queue is full,
    /// and the ring waits for the sender.
    Push,
}

/// The receiving pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecvPattern {
    /// SUB, subscribed to everything.
    Sub,
    /// PULL.
    Pull,
}

/// A sender's settings ([`Sender::spawn`](crate::Sender::spawn)).
///
/// ```
/// use spanring_zmq::{Endpoint, SenderConfig};
/// let c = SenderConfig::publish(Endpoint::bind("tcp://127.0.0.1:0")).max_items(1024).tag_header(true);
/// assert_eq!((c.max_items, c.tag_header, c.first_offset), (1024, true, 0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SenderConfig {
    /// PUB or PUSH.
    pub pattern: SendPattern,
    /// Where the socket goes.
    pub endpoint: Endpoint,
    /// Most items in one message (default 8192, GNU Radio's own message size for 8-byte
    /// items: a 64 KiB buffer). A message carries what the ring has published
    /// when the sender looks, up to this many: whole items only.
    pub max_items: usize,
    /// Prefix every message with GNU Radio's tag header (its `pass_tags`), default off.
    pub tag_header: bool,
    /// Stream index written in the first message's header (default 0); later messages count on
    /// from it, one per item sent.
    pub first_offset: u64,
    /// libzmq's linger: how long messages still queued when the sender's socket closes go on
    /// being delivered, in the background (default 5 s; the process must live that long).
    pub linger: std::time::Duration,
    /// The socket's send high-water mark in messages (libzmq's `ZMQ_SNDHWM`, default 1000 as in
    /// libzmq and GNU Radio): PUB drops messages for a subscriber this far behind, PUSH waits.
    pub high_water_mark: i32,
}

impl SenderConfig {
    /// A PUB sender at `endpoint`, other settings at their defaults.
    pub fn publish(endpoint: Endpoint) -> Self {
        Self::new(SendPattern::Pub, endpoint)
    }

    /// A PUSH sender at `endpoint`, other settings at their defaults.
    pub fn push(endpoint: Endpoint) -> Self {
        Self::new(SendPattern::Push, endpoint)
    }

    /// A sender of `pattern` at `endpoint`, other settings at their defaults.
    pub fn new(pattern: SendPattern, endpoint: Endpoint) -> Self {
        Self {
            pattern,
            endpoint,
            max_items: 8192,
            tag_header: false,
            first_offset: 0,
            linger: std::time::Duration::from_secs(5),
            high_water_mark: 1000,
        }
    }

    /// Sets [`max_items`](Self::max_items).
    pub fn max_items(mut self, n: usize) -> Self {
        self.max_items = n;
        self
    }

    /// Sets [`tag_header`](Self::tag_header).
    pub fn tag_header(mut self, on: bool) -> Self {
        self.tag_header = on;
        self
    }

    /// Sets [`first_offset`](Self::first_offset).
    pub fn first_offset(mut self, offset: u64) -> Self {
        self.first_offset = offset;
        self
    }

    /// Sets [`linger`](Self::linger).
    pub fn linger(mut self, linger: std::time::Duration) -> Self {
        self.linger = linger;
        self
    }

    /// Sets [`high_water_mark`](Self::high_water_mark).
    pub fn high_water_mark(mut self, messages: i32) -> Self {
        self.high_water_mark = messages;
        self
    }
}

/// A receiver's settings ([`Receiver::spawn`](crate::Receiver::spawn)).
///
/// ```
/// use spanring_zmq::{Endpoint, ReceiverConfig};
/// let c = ReceiverConfig::subscribe(Endpoint::connect("tcp://127.0.0.1:5555")).tag_header(true);
/// assert!(c.tag_header);
/// assert_eq!(c.first_offset, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// SUB or PULL.
    pub pattern: RecvPattern,
    /// Where the socket goes.
    pub endpoint: Endpoint,
    /// Expect GNU Radio's tag header on every message (the peer's `pass_tags`), default off.
    /// Only with it can gaps be seen.
    pub tag_header: bool,
    /// The offset the first message should have: `Some(0)` reports messages lost before the
    /// first one received (a late subscriber) as a gap too; `None` (default) takes the first
    /// message's offset as the start.
    pub first_offset: Option<u64>,
    /// The socket's receive high-water mark in messages (libzmq's `ZMQ_RCVHWM`, default 1000):
    /// how many messages the engine queues while the ring is full.
    pub high_water_mark: i32,
}

impl ReceiverConfig {
    /// A SUB receiver (subscribed to everything) at `endpoint`.
    pub fn subscribe(endpoint: Endpoint) -> Self {
        Self::new(RecvPattern::Sub, endpoint)
    }

    /// A PULL receiver at `endpoint`.
    pub fn pull(endpoint: Endpoint) -> Self {
        Self::new(RecvPattern::Pull, endpoint)
    }

    /// A receiver of `pattern` at `endpoint`, other settings at their defaults.
    pub fn new(pattern: RecvPattern, endpoint: Endpoint) -> Self {
        Self {
            pattern,
            endpoint,
            tag_header: false,
            first_offset: None,
            high_water_mark: 1000,
        }
    }

    /// Sets [`tag_header`](Self::tag_header).
    pub fn tag_header(mut self, on: bool) -> Self {
        self.tag_header = on;
        self
    }

    /// Sets [`first_offset`](Self::first_offset).
    pub fn first_offset(mut self, offset: Option<u64>) -> Self {
        self.first_offset = offset;
        self
    }

    /// Sets [`high_water_mark`](Self::high_water_mark).
    pub fn high_water_mark(mut self, messages: i32) -> Self {
        self.high_water_mark = messages;
        self
    }
}
