//! Cortex-M (QEMU `microbit`, `mps2-an385`, `mps2-an386`): SysTick is the timer interrupt.
//! QEMU models SysTick on every M-profile core, including the microbit's Cortex-M0 (the real
//! nRF51 has none; on hardware a TIMER peripheral would take its place).

use core::ptr::write_volatile;

/// SysTick control and status: bit 0 ENABLE, bit 1 TICKINT (raise the exception), bit 2
/// CLKSOURCE (1 = the processor clock).
const SYST_CSR: *mut u32 = 0xE000_E010 as *mut u32;
/// SysTick reload value (the period minus one).
const SYST_RVR: *mut u32 = 0xE000_E014 as *mut u32;
/// SysTick current value; any write clears it.
const SYST_CVR: *mut u32 = 0xE000_E018 as *mut u32;

/// Processor clock cycles between two SysTick interrupts.
pub const PERIOD: u32 = 1_000;

/// SysTick fires every `period` processor cycles (1 ..= 2^24).
pub fn timer_start(period: u32) {
    // SAFETY: the three SysTick registers exist on every Cortex-M at these addresses (System
    // Control Space); writing them has no effect on memory. Only this module touches them.
    unsafe {
        write_volatile(SYST_CSR, 0);
        write_volatile(SYST_RVR, period - 1);
        write_volatile(SYST_CVR, 0);
        write_volatile(SYST_CSR, 0b111);
    }
}

/// No further SysTick interrupts (one already pending may still run once).
pub fn timer_stop() {
    // SAFETY: as in `timer_start`.
    unsafe { write_volatile(SYST_CSR, 0) };
}
