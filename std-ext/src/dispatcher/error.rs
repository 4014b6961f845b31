//! Why a [`Dispatcher`](super::Dispatcher) could not start ([`SpawnError`]) or a callback could
//! not be posted ([`PostError`], [`TryPostError`]). The post errors give the closure back.

use core::fmt;

use spanring_core::CapacityError;

/// [`Dispatcher::spawn`](super::Dispatcher::spawn) failed.
#[derive(Debug)]
pub enum SpawnError {
    /// The ring could not be built with this capacity (zero, or too large).
    Capacity(CapacityError),
    /// The operating system refused to start the worker thread.
    Thread(std::io::Error),
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpawnError::Capacity(e) => write!(f, "dispatcher ring: {e}"),
            SpawnError::Thread(e) => write!(f, "dispatcher worker thread: {e}"),
        }
    }
}

impl std::error::Error for SpawnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SpawnError::Capacity(e) => Some(e),
            SpawnError::Thread(e) => Some(e),
        }
    }
}

/// [`Poster::post`](super::Poster::post) failed because the dispatcher is closed (shut down,
/// or its worker exited by a panic). Holds the closure, which was not posted.
///
/// ```
/// use spanring_std::Dispatcher;
/// let (dispatcher, mut poster) = Dispatcher::spawn(4, 0u32).unwrap();
/// let mut spare = poster.clone();
/// drop(poster);
/// assert_eq!(dispatcher.shutdown().unwrap(), 0);
/// let refused = spare.post(|n: &mut u32| *n += 1).unwrap_err();
/// let _closure = refused.into_inner();
/// ```
pub struct PostError<F>(pub F);

impl<F> PostError<F> {
    /// The closure that was not posted.
    ///
    /// ```
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, mut poster) = Dispatcher::spawn(4, 0u32)?;
    /// assert_eq!(dispatcher.shutdown().unwrap(), 0);
    /// let refused = poster.post(|n: &mut u32| *n += 1).unwrap_err();
    /// let callback = refused.into_inner(); // never ran: ours to call or drop
    /// let mut n = 1;
    /// callback(&mut n);
    /// assert_eq!(n, 2);
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn into_inner(self) -> F {
        self.0
    }
}

impl<F> fmt::Debug for PostError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PostError(..)")
    }
}

impl<F> fmt::Display for PostError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("posting to a closed dispatcher")
    }
}

impl<F> std::error::Error for PostError<F> {}

/// [`Poster::try_post`](super::Poster::try_post) failed. Holds the closure, which was not
/// posted.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
/// use spanring_std::{Dispatcher, TryPostError};
///
/// let (dispatcher, mut poster) = Dispatcher::spawn(1, ()).unwrap();
/// // The only slot holds a callback that keeps the worker busy until `go` is set.
/// let go = Arc::new(AtomicBool::new(false));
/// let gate = go.clone();
/// poster.post(move |_| while !gate.load(Ordering::Acquire) { std::thread::yield_now() }).unwrap();
/// match poster.try_post(|_| ()) {
///     Err(TryPostError::Full(_closure)) => {}
///     other => panic!("expected Full, got {other:?}"),
/// }
/// go.store(true, Ordering::Release);
/// drop(poster);
/// dispatcher.join().unwrap();
/// ```
pub enum TryPostError<F> {
    /// Every slot holds an event the worker has not finished yet.
    Full(F),
    /// The dispatcher is closed (shut down, or its worker exited by a panic).
    Closed(F),
}

impl<F> TryPostError<F> {
    /// The closure that was not posted.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, mut poster) = Dispatcher::spawn(4, ())?;
    /// dispatcher.shutdown().unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// let refused = poster.try_post(move |_| tx.send(7).unwrap()).unwrap_err();
    /// assert!(!refused.is_full()); // `Closed`
    /// refused.into_inner()(&mut ()); // never ran: ours to call or drop
    /// assert_eq!(rx.try_recv(), Ok(7));
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn into_inner(self) -> F {
        match self {
            TryPostError::Full(f) | TryPostError::Closed(f) => f,
        }
    }

    /// True for [`TryPostError::Full`].
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use spanring_std::Dispatcher;
    /// let (dispatcher, mut poster) = Dispatcher::spawn(1, ())?;
    /// let (go, gate) = mpsc::channel::<()>();
    /// // The only slot stays taken until this callback returns, i.e. until `go` sends.
    /// poster.post(move |_| drop(gate.recv())).unwrap();
    /// assert!(poster.try_post(|_| ()).unwrap_err().is_full());
    /// go.send(()).unwrap();
    /// drop(poster);
    /// dispatcher.join().unwrap();
    /// # Ok::<(), spanring_std::SpawnError>(())
    /// ```
    pub fn is_full(&self) -> bool {
        matches!(self, TryPostError::Full(_))
    }
}

impl<F> fmt::Debug for TryPostError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryPostError::Full(_) => "Full(..)",
            TryPostError::Closed(_) => "Closed(..)",
        })
    }
}

impl<F> fmt::Display for TryPostError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryPostError::Full(_) => "dispatcher ring is full",
            TryPostError::Closed(_) => "posting to a closed dispatcher",
        })
    }
}

impl<F> std::error::Error for TryPostError<F> {}
