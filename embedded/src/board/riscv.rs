//! RISC-V (QEMU `virt`, machine mode, `-bios none`): the CLINT machine timer is the timer
//! interrupt. No runtime crate: the startup code below sets the stack, zeroes .bss (QEMU loads
//! .data in place, in RAM), installs the trap vector and calls the case's entry.

use core::arch::{asm, global_asm};
use core::ptr::{read_volatile, write_volatile};

use spanring_core::sync::{AtomicUsize, Ordering};

/// CLINT `mtimecmp` of hart 0 (64-bit, as two 32-bit halves): the timer interrupt is pending
/// while `mtime >= mtimecmp`.
const MTIMECMP: *mut u32 = 0x0200_4000 as *mut u32;
/// CLINT `mtime` (64-bit, 10 MHz on `virt`).
const MTIME: *const u32 = 0x0200_BFF8 as *const u32;
/// `mie.MTIE` and `mstatus.MIE`.
const MIE_MTIE: usize = 1 << 7;
const MSTATUS_MIE: usize = 1 << 3;
/// `mcause` of the machine timer interrupt (interrupt bit set, code 7).
const MCAUSE_MTI: usize = (1 << 31) | 7;

/// `mtime` ticks (100 ns each) between two timer interrupts.
pub const PERIOD: u32 = 500;

/// The period the trap handler re-arms with. Written by the main loop only while the timer is
/// off, read by the trap handler.
static PERIOD_NOW: AtomicUsize = AtomicUsize::new(0);

global_asm!(
    r#"
    .section .text.start, "ax"
    .globl _start
_start:
    la sp, _stack_top
    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  la t0, spanring_trap
    csrw mtvec, t0
    call spanring_main
3:  j 3b

    /* Direct-mode trap vector (4-byte aligned): saves the caller-saved registers, which the
       Rust handler may clobber, and returns with mret. */
    .section .text.trap, "ax"
    .align 4
spanring_trap:
    addi sp, sp, -64
    sw ra, 0(sp)
    sw t0, 4(sp)
    sw t1, 8(sp)
    sw t2, 12(sp)
    sw t3, 16(sp)
    sw t4, 20(sp)
    sw t5, 24(sp)
    sw t6, 28(sp)
    sw a0, 32(sp)
    sw a1, 36(sp)
    sw a2, 40(sp)
    sw a3, 44(sp)
    sw a4, 48(sp)
    sw a5, 52(sp)
    sw a6, 56(sp)
    sw a7, 60(sp)
    call spanring_trap_rust
    lw ra, 0(sp)
    lw t0, 4(sp)
    lw t1, 8(sp)
    lw t2, 12(sp)
    lw t3, 16(sp)
    lw t4, 20(sp)
    lw t5, 24(sp)
    lw t6, 28(sp)
    lw a0, 32(sp)
    lw a1, 36(sp)
    lw a2, 40(sp)
    lw a3, 44(sp)
    lw a4, 48(sp)
    lw a5, 52(sp)
    lw a6, 56(sp)
    lw a7, 60(sp)
    addi sp, sp, 64
    mret
"#
);

/// Called by `spanring_trap` (with interrupts disabled by the hardware until `mret`).
#[export_name = "spanring_trap_rust"]
extern "C" fn trap() {
    let mcause: usize;
    // SAFETY: reading mcause has no side effect; we run in machine mode.
    unsafe { asm!("csrr {0}, mcause", out(reg) mcause) };
    if mcause != MCAUSE_MTI {
        panic!("unexpected trap, mcause {mcause:#x}");
    }
    // Relaxed: written before the timer was enabled (the csrs that enables it is the program
    // order point on this single hart), and only read here.
    arm(PERIOD_NOW.load(Ordering::Relaxed) as u32);
    crate::irq::tick();
}

/// Reads the 64-bit `mtime` consistently (high, low, high again until stable).
fn mtime() -> u64 {
    loop {
        // SAFETY: MTIME and MTIME+1 are the CLINT's mtime halves on `virt`; reads have no
        // side effect.
        let (hi, lo, hi2) = unsafe {
            (
                read_volatile(MTIME.add(1)),
                read_volatile(MTIME),
                read_volatile(MTIME.add(1)),
            )
        };
        if hi == hi2 {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Next timer interrupt `period` ticks from now.
fn arm(period: u32) {
    let at = mtime() + u64::from(period);
    // SAFETY: MTIMECMP and MTIMECMP+1 are hart 0's mtimecmp halves on `virt`. The high half
    // is parked at its maximum first so no intermediate value makes the interrupt pending
    // early.
    unsafe {
        write_volatile(MTIMECMP.add(1), u32::MAX);
        write_volatile(MTIMECMP, at as u32);
        write_volatile(MTIMECMP.add(1), (at >> 32) as u32);
    }
}

/// The machine timer interrupt fires every `period` mtime ticks.
pub fn timer_start(period: u32) {
    // Relaxed: the timer is off; the trap handler reads it only after the csrs below.
    PERIOD_NOW.store(period as usize, Ordering::Relaxed);
    arm(period);
    // SAFETY: enables the machine timer interrupt and interrupts globally, in machine mode;
    // the trap vector was installed by _start. `asm!` without `nomem` is a compiler barrier,
    // so the store above is not moved after it.
    unsafe { asm!("csrs mie, {0}", "csrs mstatus, {1}", in(reg) MIE_MTIE, in(reg) MSTATUS_MIE) };
}

/// No further timer interrupts.
pub fn timer_stop() {
    // SAFETY: clears mie.MTIE in machine mode; leaves everything else as it is.
    unsafe { asm!("csrc mie, {0}", in(reg) MIE_MTIE) };
}
