//! Async waiting: [`AsyncWait`] (a no_std, waker-based [`WaitStrategy`](crate::WaitStrategy)),
//! the [`WakerRegistry`] trait, and the futures [`ReserveFuture`] / [`ReadFuture`] that
//! [`Writer::reserve_async`](crate::Writer::reserve_async) and
//! [`Reader::read_async`](crate::Reader::read_async) return on rings built with it.
//!
//! ```
//! use core::future::Future;
//! use core::pin::pin;
//! use core::task::{Context, Poll};
//! use std::sync::Arc;
//! use std::task::Wake;
//! use spanring_core::{AsyncWait, InlineStorage, Ring};
//!
//! let ring = Ring::builder(InlineStorage::new([0u32; 8])).wait::<AsyncWait>().build().unwrap();
//! let mut writer = ring.writer().unwrap();
//! let mut reader = ring.reader().unwrap();
//! struct Nothing;
//! impl Wake for Nothing {
//!     fn wake(self: Arc<Self>) {}
//! }
//! let waker = Arc::new(Nothing).into();
//! let mut cx = Context::from_waker(&waker);
//!
//! let mut read = pin!(reader.read_async(8));
//! assert!(read.as_mut().poll(&mut cx).is_pending()); // nothing yet: its waker is registered
//! writer.try_reserve(2).unwrap().copy_from_slice(&[7, 8]); // publishing wakes it
//! match read.as_mut().poll(&mut cx) {
//!     Poll::Ready(Ok(items)) => assert_eq!(items.to_array::<2>(), Some([7, 8])),
//!     other => panic!("{other:?}"),
//! };
//! ```

mod async_wait;
mod futures;
mod waker_cell;

pub use async_wait::{AsyncWait, WakerCellId, WakerRegistry};
pub use futures::{AsyncRing, ReadFuture, ReserveFuture};
