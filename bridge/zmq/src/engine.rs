//! The ZeroMQ engine (the pure-Rust `zeromq` crate on a tokio runtime): one runtime per bridge,
//! sockets of the four patterns, binding or connecting.

use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use zeromq::{
    PubSocket, PullSocket, PushSocket, Socket, SocketRecv, SocketSend, SubSocket, ZmqMessage,
    ZmqResult,
};

use crate::config::{Endpoint, RecvPattern, SendPattern};

/// A runtime with one worker thread: the engine's connection tasks run there, while the bridge's
/// own thread drives sends and receives with `block_on`.
pub(crate) fn runtime() -> std::io::Result<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("spanring-zmq-io")
        .enable_all()
        .build()
}

/// Binds or connects `socket`; returns the address in effect (a bound `:0` port resolved).
async fn attach<S: Socket>(socket: &mut S, endpoint: &Endpoint) -> ZmqResult<String> {
    match endpoint {
        Endpoint::Bind(address) => Ok(socket.bind(address).await?.to_string()),
        Endpoint::Connect(address) => {
            socket.connect(address).await?;
            Ok(address.clone())
        }
    }
}

/// A sending socket.
pub(crate) enum SendSocket {
    Pub(PubSocket),
    Push(PushSocket),
}

impl SendSocket {
    /// Opens a socket of `pattern` at `endpoint`.
    pub(crate) async fn open(
        pattern: SendPattern,
        endpoint: &Endpoint,
    ) -> ZmqResult<(Self, String)> {
        Ok(match pattern {
            SendPattern::Pub => {
                let mut s = PubSocket::new();
                let at = attach(&mut s, endpoint).await?;
                (Self::Pub(s), at)
            }
            SendPattern::Push => {
                let mut s = PushSocket::new();
                let at = attach(&mut s, endpoint).await?;
                (Self::Push(s), at)
            }
        })
    }

    /// Sends one message (PUB: drops it for subscribers whose queue is full; PUSH: gives it back
    /// in `ZmqError::ReturnToSender` while no peer is connected).
    pub(crate) async fn send(&mut self, message: ZmqMessage) -> ZmqResult<()> {
        match self {
            Self::Pub(s) => s.send(message).await,
            Self::Push(s) => s.send(message).await,
        }
    }
}

/// A receiving socket.
pub(crate) enum RecvSocket {
    Sub(SubSocket),
    Pull(PullSocket),
}

impl RecvSocket {
    /// Opens a socket of `pattern` at `endpoint` (SUB subscribes to everything first, so the
    /// subscription goes to every peer as it connects).
    pub(crate) async fn open(
        pattern: RecvPattern,
        endpoint: &Endpoint,
    ) -> ZmqResult<(Self, String)> {
        Ok(match pattern {
            RecvPattern::Sub => {
                let mut s = SubSocket::new();
                s.subscribe("").await?;
                let at = attach(&mut s, endpoint).await?;
                (Self::Sub(s), at)
            }
            RecvPattern::Pull => {
                let mut s = PullSocket::new();
                let at = attach(&mut s, endpoint).await?;
                (Self::Pull(s), at)
            }
        })
    }

    /// The next message.
    pub(crate) async fn recv(&mut self) -> ZmqResult<ZmqMessage> {
        match self {
            Self::Sub(s) => s.recv().await,
            Self::Pull(s) => s.recv().await,
        }
    }
}

/// Closes a socket's endpoints and lets the engine's tasks finish writing what is queued, for at
/// most `linger`. Returns whether every engine task ended in time (then nothing queued was lost
/// on this side).
pub(crate) fn close_and_linger(
    runtime: &Runtime,
    close: impl std::future::Future<Output = ()>,
    linger: Duration,
) -> bool {
    runtime.block_on(async {
        close.await;
        let deadline = Instant::now() + linger;
        let metrics = tokio::runtime::Handle::current().metrics();
        loop {
            if metrics.num_alive_tasks() == 0 {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
}
