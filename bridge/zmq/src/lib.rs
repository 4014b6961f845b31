//! # spanring-zmq
//!
//! A ZeroMQ bridge for spanring rings in GNU Radio's gr-zeromq message layout, so that a ring
//! is an endpoint GNU Radio 3's `zeromq.pub_sink`/`sub_source`/`push_sink`/`pull_source` (and
//! anything else that speaks that layout) reads and writes.
//!
//! - [`Sender`]: ring → network. Owns a reader; PUB (fan-out, lossy at the high-water mark) or
//!   PUSH (lossless back-pressure). Each message is a whole number of items, up to
//!   [`SenderConfig::max_items`], optionally behind the tag header ([`TagHeader`]) whose offset
//!   is the stream index of the message's first item.
//! - [`Receiver`]: network → ring. Owns a writer; SUB or PULL. Writes each message's items into
//!   a reserved span in place (one copy: message bytes → ring slots), rejects a message that is
//!   not a whole number of items ([`MessageError`], counted, nothing written), and with tag
//!   headers reports offset jumps ([`Gap`]) through counters and an optional callback.
//! - Items: any [`PlainItem`] (`u8` … `f64`, arrays such as `[f32; 2]` complex samples, plain
//!   `#[repr(C)]` structs); its docs map GNU Radio's `itemsize`/`vlen`.
//!
//! ## The message layout
//!
//! One ZeroMQ message, one frame: `[tag header] items…`. The tag header (GNU Radio's
//! `pass_tags`), all little-endian: `u16` magic `0x5FF0`, `u8` version 1, `u64` offset (index of
//! the first item in the stream), `u64` tag count, then the tags (a `u64` offset and three
//! serialised PMTs each; a receiver skips them, a sender writes none). Items are in native byte
//! order, as GNU Radio sends them.
//!
//! ```
//! use std::time::Duration;
//! use spanring::std_ext::owned;
//! use spanring_zmq::{Endpoint, Receiver, ReceiverConfig, Sender, SenderConfig};
//!
//! // A complex stream over ipc://, with tag headers (GNU Radio's pass_tags).
//! let path = std::env::temp_dir().join(format!("spanring-zmq-doc-{}.sock", std::process::id()));
//! let address = format!("ipc://{}", path.display());
//! let (mut w, r) = owned::portable::<[f32; 2]>(4096).build()?;
//! let tx = Sender::spawn(r, SenderConfig::push(Endpoint::bind(address.as_str())).tag_header(true))?;
//! let (w2, mut r2) = owned::portable::<[f32; 2]>(4096).build()?;
//! let rx = Receiver::spawn(w2, ReceiverConfig::pull(Endpoint::connect(address.as_str())).tag_header(true))?;
//! for i in 0..1000 {
//!     w.push([i as f32, -(i as f32)])?;
//! }
//! for i in 0..1000 {
//!     assert_eq!(r2.pop_timeout(Duration::from_secs(10))?, [i as f32, -(i as f32)]);
//! }
//! let stats = rx.stop().stats;
//! assert_eq!((stats.items, stats.gaps, stats.next_offset), (1000, 0, Some(1000)));
//! drop(w);
//! tx.join();
//! # let _ = std::fs::remove_file(path);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod config;
mod engine;
mod error;
mod header;
mod idle;
mod item;
mod pmt;
mod pool;
mod progress;
mod receiver;
mod sender;

pub use config::{Endpoint, ReceiverConfig, RecvPattern, SendPattern, SenderConfig};
pub use error::{BridgeError, MessageError};
pub use header::{HeaderError, TagHeader, HEADER_LEN, MAGIC, VERSION};
pub use item::{item_bytes, item_bytes_mut, PlainItem};
pub use pmt::skip_pmt;
pub use receiver::{Gap, GapCallback, Receiver, ReceiverReport, ReceiverStats};
pub use sender::{End, Sender, SenderReport, SenderStats};
