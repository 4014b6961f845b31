//! The sender's message buffers, reused: each message is built in a buffer taken from a pool and
//! handed to libzmq without a further copy (`zmq_msg_init_data`); libzmq gives it back through
//! its free callback once every peer's copy of the message is sent or dropped.
//!
//! Why: a fresh `zmq::Message::with_size` per message costs a `memset` of the whole message (the
//! `zmq` crate zero-fills it) and page faults on freshly mapped memory (a large message freed on
//! libzmq's I/O thread goes back to the allocator, which returns its pages to the system); with
//! 16,384-sample messages the two were three quarters of the sender thread's time. A reused
//! buffer is already mapped and is written once, by the copy out of the ring.

use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Bytes of free buffers kept for reuse at most (per sender); a buffer returned beyond that is
/// freed. libzmq may hold many more messages than this in flight (its high-water mark counts
/// messages: 1000 by default), so under back-pressure some messages still get fresh memory;
/// the budget bounds what a sender keeps once a burst is over.
const KEEP_BYTES: usize = 8 << 20;

/// Free message buffers, shared by a sender and the messages it has in flight.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    free: Mutex<Free>,
}

/// The free buffers and their capacity in bytes, in total.
#[derive(Debug, Default)]
struct Free {
    buffers: Vec<Vec<u8>>,
    bytes: usize,
}

/// A buffer lent to libzmq with one message, and the pool it goes back to.
struct Lease {
    buf: Vec<u8>,
    pool: Arc<Pool>,
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, Free> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take(&self) -> Vec<u8> {
        let mut free = self.lock();
        match free.buffers.pop() {
            Some(buf) => {
                free.bytes -= buf.capacity();
                buf
            }
            None => Vec::new(),
        }
    }

    fn give(&self, buf: Vec<u8>) {
        let mut free = self.lock();
        if free.bytes + buf.capacity() <= KEEP_BYTES {
            free.bytes += buf.capacity();
            free.buffers.push(buf);
        }
    }
}

/// libzmq's free callback for a message built by [`PooledMessage::new`]: returns the buffer to
/// its pool. Runs on whichever thread drops the last reference to the message (libzmq's I/O
/// thread, or the sender's on a failed send or a PUB with no subscriber). It cannot unwind: a
/// poisoned lock is taken as is, and the only allocation (`Vec::push` within `KEEP_BYTES`) aborts on
/// failure rather than panicking.
// SAFETY (contract of this `unsafe fn`): called only by libzmq, once per message built by
// `PooledMessage::new`, with that message's leaked `Box<Lease>` as `hint`.
unsafe extern "C" fn release(_data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the `Box<Lease>` leaked by `PooledMessage::new` for this message, and
    // libzmq calls this once per message, after its last use of the data: the box is taken
    // back exactly once and nothing reads the buffer any more.
    let lease = unsafe { Box::from_raw(hint.cast::<Lease>()) };
    let Lease { buf, pool } = *lease;
    pool.give(buf);
}

/// One message whose bytes live in a pooled buffer; closed (and, if libzmq did not take it,
/// its buffer returned) on drop.
pub(crate) struct PooledMessage {
    msg: zmq_sys::zmq_msg_t,
}

impl PooledMessage {
    /// A message of the concatenated `parts`, copied once into a buffer from `pool`.
    pub(crate) fn new(pool: &Arc<Pool>, parts: &[&[u8]]) -> Result<Self, zmq::Error> {
        let len = parts.iter().map(|p| p.len()).sum();
        let mut buf = pool.take();
        buf.clear();
        buf.reserve(len);
        for part in parts {
            buf.extend_from_slice(part);
        }
        let mut msg = zmq_sys::zmq_msg_t::default();
        if len == 0 {
            // libzmq needs no buffer (nor a free callback) for an empty message.
            pool.give(buf);
            // SAFETY: `msg` is a zeroed `zmq_msg_t` that `zmq_msg_init` initialises.
            let rc = unsafe { zmq_sys::zmq_msg_init(&mut msg) };
            debug_assert_eq!(rc, 0, "zmq_msg_init cannot fail");
            return Ok(Self { msg });
        }
        let mut lease = Box::new(Lease {
            buf,
            pool: Arc::clone(pool),
        });
        let data = lease.buf.as_mut_ptr().cast::<c_void>();
        let hint = Box::into_raw(lease).cast::<c_void>();
        // SAFETY: `data` points to `len` initialised bytes owned by the leaked lease at `hint`;
        // the heap buffer does not move (the lease is not touched again here) and nothing but
        // libzmq uses it until `release` takes the lease back, which libzmq calls once when the
        // message is closed. `msg` is a zeroed `zmq_msg_t` for `zmq_msg_init_data` to set up.
        let rc = unsafe { zmq_sys::zmq_msg_init_data(&mut msg, data, len, Some(release), hint) };
        if rc == -1 {
            // SAFETY: on failure (libzmq could not allocate its reference count) libzmq keeps
            // no reference and will not call `release`: the lease is still ours to take back.
            drop(unsafe { Box::from_raw(hint.cast::<Lease>()) });
            // SAFETY: `zmq_errno` only reads the calling thread's `errno`.
            return Err(zmq::Error::from_raw(unsafe { zmq_sys::zmq_errno() }));
        }
        Ok(Self { msg })
    }

    /// Sends the message (`zmq_msg_send`). On success libzmq owns its bytes and this value is
    /// left empty; on failure it is unchanged and can be sent again.
    pub(crate) fn send(&mut self, socket: &mut zmq::Socket, flags: i32) -> Result<(), zmq::Error> {
        // SAFETY: `self.msg` is an initialised message and `socket` a live socket used by this
        // thread only (`&mut`); `zmq_msg_send` either takes the message (leaving `msg` empty but
        // valid) or fails leaving it as it was.
        let rc = unsafe { zmq_sys::zmq_msg_send(&mut self.msg, socket.as_mut_ptr(), flags) };
        if rc == -1 {
            // SAFETY: as in `new`.
            Err(zmq::Error::from_raw(unsafe { zmq_sys::zmq_errno() }))
        } else {
            Ok(())
        }
    }
}

impl Drop for PooledMessage {
    fn drop(&mut self) {
        // SAFETY: `self.msg` is initialised (by `new`, possibly emptied by a send); closing it
        // once drops our reference, calling `release` if it was the last one.
        unsafe {
            zmq_sys::zmq_msg_close(&mut self.msg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_message_returns_its_buffer() {
        let pool = Arc::new(Pool::default());
        let m = PooledMessage::new(&pool, &[b"head", b"items"]).unwrap();
        assert!(pool.lock().buffers.is_empty());
        drop(m);
        let free = pool.lock();
        assert_eq!(free.buffers.len(), 1);
        assert_eq!(free.buffers[0], b"headitems");
        assert_eq!(free.bytes, free.buffers[0].capacity());
    }

    #[test]
    fn a_sent_message_comes_back_once_libzmq_is_done() {
        let ctx = zmq::Context::new();
        let mut push = ctx.socket(zmq::PUSH).unwrap();
        push.bind("inproc://pool-test").unwrap();
        let pull = ctx.socket(zmq::PULL).unwrap();
        pull.connect("inproc://pool-test").unwrap();
        let pool = Arc::new(Pool::default());
        let mut m = PooledMessage::new(&pool, &[&[1u8, 2], &[3]]).unwrap();
        m.send(&mut push, 0).unwrap();
        drop(m); // empty after the send: nothing goes back yet (inproc passes the buffer on)
        let got = pull.recv_bytes(0).unwrap();
        assert_eq!(got, [1, 2, 3]);
        // The receiver's copy of the message was the last reference: the buffer is back.
        assert_eq!(pool.lock().buffers.len(), 1);
        // An empty message needs no buffer.
        let mut e = PooledMessage::new(&pool, &[]).unwrap();
        e.send(&mut push, 0).unwrap();
        assert!(pull.recv_bytes(0).unwrap().is_empty());
    }
}
