//! Errors: [`BridgeError`] (a bridge could not start, or stopped on a fault) and
//! [`MessageError`] (one received message rejected; the bridge goes on).

use crate::header::HeaderError;

/// Why a bridge could not start, or why it ended early.
#[derive(Debug)]
#[non_exhaustive]
pub enum BridgeError {
    /// The ZeroMQ engine (libzmq) failed: a bad endpoint, an address in use, a send error.
    Zmq(zmq::Error),
    /// The bridge's thread could not be started.
    Io(std::io::Error),
    /// The item type has size zero: it cannot be framed.
    ZeroSizedItem,
    /// `max_items` was zero: a sender could never send anything.
    ZeroBatch,
    /// The bridge thread panicked (a bug: please report it).
    Panicked,
}

impl core::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Zmq(e) => write!(f, "zeromq: {e}"),
            Self::Io(e) => write!(f, "bridge thread: {e}"),
            Self::ZeroSizedItem => f.write_str("zero-sized items cannot be framed"),
            Self::ZeroBatch => f.write_str("max_items must be at least 1"),
            Self::Panicked => f.write_str("the bridge thread panicked"),
        }
    }
}

impl std::error::Error for BridgeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Zmq(e) => Some(e),
            Self::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<zmq::Error> for BridgeError {
    fn from(e: zmq::Error) -> Self {
        Self::Zmq(e)
    }
}

impl From<std::io::Error> for BridgeError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

/// Why a receiver rejected one message. Nothing of a rejected message is written to the ring;
/// each kind is counted in [`ReceiverStats`](crate::ReceiverStats) and the latest is kept.
///
/// ```
/// use spanring_zmq::MessageError;
/// let e = MessageError::Framing { len: 10, item_size: 8 };
/// assert_eq!(e.to_string(), "message of 10 item bytes is not a whole number of 8-byte items");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageError {
    /// The item bytes are not a whole number of items.
    Framing {
        /// Item bytes in the message (after the tag header, if any).
        len: usize,
        /// Bytes per item (`PlainItem::WIRE_SIZE`).
        item_size: usize,
    },
    /// The tag header (expected because the receiver's `tag_header` is on) is malformed.
    Header(HeaderError),
    /// The message has a frame count other than one (GNU Radio sends one frame per message).
    Frames {
        /// How many frames it had.
        count: usize,
    },
}

impl core::fmt::Display for MessageError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Framing { len, item_size } => write!(
                f,
                "message of {len} item bytes is not a whole number of {item_size}-byte items"
            ),
            Self::Header(e) => write!(f, "{e}"),
            Self::Frames { count } => write!(f, "message of {count} frames, expected 1"),
        }
    }
}

impl std::error::Error for MessageError {}
