//! Single producer in the interrupt: every timer tick publishes a span of 1–4 items into a ring
//! in a `static` (InlineStorage, built in const context); the main loop reads and checks every
//! item in order. Requires that the interrupt landed inside reads in progress.
#![no_std]
#![no_main]

use spanring_core::{InlineStorage, Ring};
use spanring_embedded::irq::{self, IrqCount};
use spanring_embedded::{board, check::InOrder, report::Report};

const ITEMS: u32 = 20_000;

static RING: Ring<InlineStorage<u32, 64>> = Ring::new_inline([0; 64]);
/// Ticks that found the ring full (the item is retried on the next tick). Interrupt-written.
static FULL: IrqCount = IrqCount::new();

fn case() -> bool {
    // Attached before the producer starts, so it must see every item.
    let mut reader = RING.reader().unwrap();
    let mut writer = RING.writer().unwrap();
    let mut seq = 0u32;
    irq::on_tick(move || {
        if seq == ITEMS {
            return;
        }
        let want = (1 + seq % 4).min(ITEMS - seq);
        match writer.try_reserve(want as usize) {
            Ok(mut span) => {
                for (i, slot) in span.iter_mut().enumerate() {
                    *slot = seq + i as u32;
                }
                seq += want;
            } // published on drop
            Err(_) => FULL.bump(),
        }
    });
    board::timer_start(board::PERIOD);

    let mut order = InOrder::new();
    let mut reads = irq::Sections::default();
    while order.next < ITEMS && irq::ticks() < 20 * ITEMS as usize {
        reads.run(&irq::READS, || match reader.try_read(16) {
            Ok(span) => {
                span.iter().for_each(|&v| order.see(v));
                true
            } // consumed on drop
            Err(_) => false,
        });
    }
    board::timer_stop();
    let mut report = Report::start("sp_irq");
    report
        .order("ring", &mut order, ITEMS)
        .preempted("reads", &reads)
        .count("full", FULL.get())
        .count("ticks", irq::ticks())
        .end();
    report.ok()
}

spanring_embedded::entry!(case);
