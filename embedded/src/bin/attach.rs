//! Reader attach/detach while the interrupt publishes: one reader checks the whole stream;
//! transient readers attach mid-stream, must see exactly the items published after they
//! attached (from their cursor on, in order), and detach again. Now and then the reader table
//! (4 readers) is filled: the next attach must fail, and after the extra readers detach
//! without reading, the writer must not stall.
#![no_std]
#![no_main]

use spanring_core::{InlineStorage, Ring};
use spanring_embedded::irq::{self, IrqCount};
use spanring_embedded::{board, check::InOrder, report::Report};

const ITEMS: u32 = 20_000;

static RING: Ring<InlineStorage<u32, 64>> = Ring::new_inline([0; 64]);
static FULL: IrqCount = IrqCount::new();

fn case() -> bool {
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
            }
            Err(_) => FULL.bump(),
        }
    });
    board::timer_start(board::PERIOD);

    let mut order = InOrder::new();
    let mut reads = irq::Sections::default();
    // Totals over all transient readers.
    let mut transient = InOrder::new();
    let (mut attaches, mut refused, mut full_table, mut i) = (0u32, 0u32, 0u32, 0u32);
    while order.next < ITEMS && irq::ticks() < 40 * ITEMS as usize {
        i += 1;
        if i.is_multiple_of(4) {
            // Cursors start at 0 here, so a cursor is the sequence number published there.
            let mut late = RING.reader().unwrap();
            attaches += 1;
            let mut check = InOrder::starting_at(late.cursor() as u32);
            for _ in 0..3 {
                reads.run(&irq::READS, || match late.try_read(8) {
                    Ok(span) => {
                        span.iter().for_each(|&v| check.see(v));
                        true
                    }
                    Err(_) => false,
                });
            }
            transient.items += check.items;
            transient.lost += check.lost;
            transient.duplicated += check.duplicated;
            transient.reordered += check.reordered;
            if i.is_multiple_of(64) {
                // The main reader, `late` and two more fill the table of 4.
                let a = RING.reader().unwrap();
                let b = RING.reader().unwrap();
                refused += u32::from(RING.reader().is_err());
                full_table += 1;
                drop((a, b)); // detached without reading
            }
        } // `late` detaches here
        reads.run(&irq::READS, || match reader.try_read(16) {
            Ok(span) => {
                span.iter().for_each(|&v| order.see(v));
                true
            }
            Err(_) => false,
        });
    }
    board::timer_stop();
    let mut report = Report::start("attach");
    report
        .order("ring", &mut order, ITEMS)
        .stream("transient", &transient)
        .preempted("reads", &reads)
        .count("attaches", attaches)
        .count("refused_when_full", refused)
        .count("full_table", full_table)
        .count("readers_left", RING.reader_count())
        .count("full", FULL.get())
        .end();
    report
        .require("at least 100 transient readers", attaches >= 100)
        .require(
            "a 5th reader was refused",
            refused == full_table && full_table > 0,
        )
        .require("transient readers saw items", transient.items > 0)
        .require("only the main reader is left", RING.reader_count() == 1);
    report.ok()
}

spanring_embedded::entry!(case);
