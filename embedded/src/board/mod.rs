//! The emulated board: a periodic timer interrupt and its name. One module per architecture,
//! each with the same functions:
//!
//! - `timer_start(period)`: the timer interrupt fires every `period` timer ticks and calls
//!   [`crate::irq::tick`];
//! - `timer_stop()`: no further timer interrupts;
//! - `PERIOD`: the period the cases use, tuned so that the interrupt takes a good share of the
//!   CPU (it must often land inside a read) while the main loop still keeps up.

/// The board, from the target triple (set by build.rs).
pub const NAME: &str = env!("SPANRING_BOARD");

#[cfg(target_arch = "arm")]
mod cortex_m;
#[cfg(target_arch = "arm")]
pub use cortex_m::*;

#[cfg(target_arch = "riscv32")]
mod riscv;
#[cfg(target_arch = "riscv32")]
pub use riscv::*;
