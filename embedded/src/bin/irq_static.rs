//! Example (copy it): a Cortex-M interrupt feeding a `static` ring, the main loop reading.
//!
//! The trap this avoids: a `Writer` made *inside* the handler (`let mut w = RING.writer()?;`)
//! drops when the handler returns, and the last writer's drop closes the ring for good: every
//! later interrupt gets `AttachError::Closed` and the reader `Closed`. Here the handler keeps
//! its writer for the ring's whole life, in a handler-local `static mut`: cortex-m-rt turns a
//! `static mut` declared inside an `#[exception]` (or `#[interrupt]`) handler into a safe
//! `&mut` that only that handler can reach and that keeps its value between invocations (an
//! exception does not preempt itself) — what RTIC's `#[local]` resources are. The writer is
//! attached on the first interrupt and never dropped, so stopping the timer (the producer) and
//! starting it again continues the same stream.
//!
//! Elsewhere: with RTIC, put the `Writer<&'static Ring<..>>` in a `#[local]` resource of the
//! task bound to the interrupt; with a handler that cannot own statics, a
//! `critical_section::Mutex<RefCell<Option<Writer<..>>>>` in a `static`, filled once from
//! `main`. The reader here lives in `main` for the same reason: dropping the last reader
//! handle does not close a static ring, but keeping it avoids missing items between two
//! attachments.
//!
//! On RISC-V boards this binary only reports that it is a Cortex-M example.
//! `cargo run --release --target thumbv7em-none-eabihf --bin irq_static` (in `embedded/`).
#![no_std]
#![no_main]

#[cfg(target_arch = "arm")]
mod example {
    use cortex_m_rt::exception;
    use spanring_core::{InlineStorage, Ring};
    use spanring_embedded::board;
    use spanring_embedded::check::InOrder;
    use spanring_embedded::report::Report;

    /// Items per producer phase (two phases: before and after the restart).
    const PER_PHASE: u32 = 5_000;

    /// The ring: 64 `u32` slots in the static itself, built in const context (no allocation,
    /// no once-cell). One writer (single producer), up to 4 readers.
    static RING: Ring<InlineStorage<u32, 64>> = Ring::new_inline([0; 64]);

    /// The timer interrupt: one item per tick, never waits (`try_push`: a full ring keeps the
    /// item for the next tick, as a driver would keep its sample in a register or count it).
    #[exception]
    fn SysTick() {
        // cortex-m-rt: `WRITER` is a `&mut Option<..>` private to this handler and kept
        // between invocations, so the writer is attached once and never dropped.
        static mut WRITER: Option<spanring_core::Writer<&'static Ring<InlineStorage<u32, 64>>>> =
            None;
        static mut NEXT: u32 = 0;
        let writer = WRITER.get_or_insert_with(|| RING.writer().expect("the only writer"));
        if *NEXT < 2 * PER_PHASE && writer.try_push(*NEXT).is_ok() {
            *NEXT += 1;
        }
    }

    /// Reads until `until` items in all were seen (the ring must stay open meanwhile).
    fn read_until(
        reader: &mut spanring_core::Reader<&'static Ring<InlineStorage<u32, 64>>>,
        order: &mut InOrder,
        until: u32,
    ) -> bool {
        while order.next < until {
            match reader.try_read(16) {
                Ok(items) => items.iter().for_each(|&v| order.see(v)), // consumed on drop
                Err(spanring_core::ReadError::Empty) => {}
                Err(_) => return false, // `Closed`: the trap this example avoids
            }
        }
        true
    }

    pub fn main() -> bool {
        // Attached before the first interrupt, so it sees every item.
        let mut reader = RING.reader().expect("a reader slot");
        let mut order = InOrder::new();

        board::timer_start(board::PERIOD); // the producer starts
        let first = read_until(&mut reader, &mut order, PER_PHASE);
        board::timer_stop(); // the producer stops (a peripheral switched off)...
        let open_while_stopped = !RING.is_closed();
        board::timer_start(board::PERIOD); // ...and restarts: the same writer goes on
        let second = read_until(&mut reader, &mut order, 2 * PER_PHASE);
        board::timer_stop();

        let mut report = Report::start("irq_static");
        report
            .order("ring", &mut order, 2 * PER_PHASE)
            .end()
            .require("first phase read without Closed", first)
            .require(
                "ring open while the producer was stopped",
                open_while_stopped,
            )
            .require("second phase read without Closed", second)
            .require("ring still open at the end", !RING.is_closed());
        report.ok()
    }
}

#[cfg(target_arch = "arm")]
fn case() -> bool {
    example::main()
}

#[cfg(not(target_arch = "arm"))]
fn case() -> bool {
    spanring_embedded::println!("irq_static: a Cortex-M example, nothing to run on this board");
    true
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::entry]
fn entry() -> ! {
    spanring_embedded::run(case)
}

#[cfg(not(target_arch = "arm"))]
spanring_embedded::entry!(case);
