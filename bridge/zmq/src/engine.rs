//! The ZeroMQ engine: libzmq (through the `zmq` crate), one context per bridge, sockets of the
//! four patterns, binding or connecting.

use std::time::{Duration, Instant};

use crate::config::Endpoint;

/// How often a bridge blocked in the engine looks at its stop flag.
pub(crate) const STOP_POLL: Duration = Duration::from_millis(20);

/// A socket with the context it belongs to (dropped together, socket first).
pub(crate) struct Engine {
    socket: Option<zmq::Socket>,
    context: zmq::Context,
}

impl Engine {
    /// A socket of `kind`, set up by `setup`, then bound or connected to `endpoint`. Returns it
    /// with the address in effect (a bound `:0` port resolved).
    pub(crate) fn open(
        kind: zmq::SocketType,
        endpoint: &Endpoint,
        setup: impl FnOnce(&zmq::Socket) -> zmq::Result<()>,
    ) -> zmq::Result<(Self, String)> {
        let context = zmq::Context::new();
        let socket = context.socket(kind)?;
        setup(&socket)?;
        let at = match endpoint {
            Endpoint::Bind(address) => {
                socket.bind(address)?;
                match socket.get_last_endpoint()? {
                    Ok(resolved) => resolved,
                    Err(_) => address.clone(),
                }
            }
            Endpoint::Connect(address) => {
                socket.connect(address)?;
                address.clone()
            }
        };
        Ok((
            Self {
                socket: Some(socket),
                context,
            },
            at,
        ))
    }

    /// The socket.
    pub(crate) fn socket(&self) -> &zmq::Socket {
        // The socket is only taken in `close`, which consumes self.
        self.socket.as_ref().expect("socket present until close")
    }

    /// Closes the socket and ends the context, which waits (at most the socket's linger time)
    /// until queued messages are written out. Returns whether that finished before `linger`.
    pub(crate) fn close(mut self, linger: Duration) -> bool {
        let started = Instant::now();
        drop(self.socket.take());
        drop(self.context);
        started.elapsed() < linger
    }
}

/// Milliseconds for a libzmq time option, saturated to its `i32`.
pub(crate) fn millis(d: Duration) -> i32 {
    i32::try_from(d.as_millis()).unwrap_or(i32::MAX)
}
