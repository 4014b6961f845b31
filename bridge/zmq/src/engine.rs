//! The ZeroMQ engine: libzmq (through the `zmq` crate), one context (one I/O thread) shared by
//! every bridge of the process, sockets of the four patterns, binding or connecting.

use std::sync::OnceLock;
use std::time::Duration;

use crate::config::Endpoint;

/// How often a bridge blocked in the engine looks at its stop flag.
pub(crate) const STOP_POLL: Duration = Duration::from_millis(20);

/// The process's libzmq context: one I/O thread for every bridge (on a small machine a thread
/// per bridge costs more than it brings). It lives as long as the process, so a closed socket's
/// queued messages go on being delivered in the background, for at most its linger time.
fn context() -> zmq::Context {
    static CONTEXT: OnceLock<zmq::Context> = OnceLock::new();
    CONTEXT.get_or_init(zmq::Context::new).clone()
}

/// A bridge's socket.
pub(crate) struct Engine {
    socket: zmq::Socket,
}

impl Engine {
    /// A socket of `kind`, set up by `setup`, then bound or connected to `endpoint`. Returns it
    /// with the address in effect (a bound `:0` port resolved).
    pub(crate) fn open(
        kind: zmq::SocketType,
        endpoint: &Endpoint,
        setup: impl FnOnce(&zmq::Socket) -> zmq::Result<()>,
    ) -> zmq::Result<(Self, String)> {
        let socket = context().socket(kind)?;
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
        Ok((Self { socket }, at))
    }

    /// The socket.
    pub(crate) fn socket(&self) -> &zmq::Socket {
        &self.socket
    }

    /// The socket, for calls into libzmq that take it mutably (sending a pooled message).
    pub(crate) fn socket_mut(&mut self) -> &mut zmq::Socket {
        &mut self.socket
    }
}

/// Milliseconds for a libzmq time option, saturated to its `i32`.
pub(crate) fn millis(d: Duration) -> i32 {
    i32::try_from(d.as_millis()).unwrap_or(i32::MAX)
}
