//! Firmware test harness: runs spanring-core's protocol on emulated microcontrollers (QEMU),
//! with a timer interrupt as a producer and the main loop as the reader.
//!
//! Each case is a binary in `src/bin/` that enters through [`entry!`]. A case installs the
//! interrupt's work with [`irq::on_tick`], starts the board timer, reads and checks in the main
//! loop, prints its counts ([`report`]) and returns whether every requirement held; the harness
//! turns that into the emulator's exit status through semihosting.
#![no_std]
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod board;
pub mod check;
pub mod irq;
pub mod report;
pub mod static_cell;

pub use semihosting::println;

/// Runs a case's body and exits the emulator: status 0 if it returned `true`, 1 otherwise
/// (a panic also exits 1, through semihosting's panic handler, after printing the message).
pub fn run(case: fn() -> bool) -> ! {
    println!("board {}", board::NAME);
    let ok = case();
    board::timer_stop();
    println!("{}", if ok { "RESULT ok" } else { "RESULT FAILED" });
    semihosting::process::exit(if ok { 0 } else { 1 })
}

/// Defines the firmware entry point (and, on Cortex-M, the SysTick handler) for a case:
/// `spanring_embedded::entry!(main_body);` with `fn main_body() -> bool`.
#[cfg(target_arch = "arm")]
#[macro_export]
macro_rules! entry {
    ($case:path) => {
        #[cortex_m_rt::entry]
        fn __spanring_entry() -> ! {
            $crate::run($case)
        }

        // Defined here rather than in the library: the vector table refers to `SysTick` only
        // weakly, so the linker would not pull a library object in for it.
        #[cortex_m_rt::exception]
        fn SysTick() {
            $crate::irq::tick();
        }
    };
}

/// Defines the firmware entry point for a case (RISC-V: called by the startup code in
/// `board::riscv`): `spanring_embedded::entry!(main_body);` with `fn main_body() -> bool`.
#[cfg(target_arch = "riscv32")]
#[macro_export]
macro_rules! entry {
    ($case:path) => {
        #[export_name = "spanring_main"]
        extern "C" fn __spanring_entry() -> ! {
            $crate::run($case)
        }
    };
}
