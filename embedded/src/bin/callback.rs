//! The callback slot from an interrupt: the ring's items are `SendCallbackSlot`s. The timer
//! interrupt re-arms the slots it reserves in place (`set_fn`, two closure types of different
//! size, so the slot's vtable changes too) and publishes them; the main loop runs each through
//! `call_shared`, and the callbacks feed the order check. (Every case also runs its interrupt
//! work from a `SendCallbackSlot`, see irq.rs.)
#![no_std]
#![no_main]

use spanring_core::callback::ByMut;
use spanring_core::callback::SendCallbackSlot;
use spanring_core::{InlineStorage, Ring};
use spanring_embedded::irq::{self, IrqCount};
use spanring_embedded::{board, check::InOrder, report::Report};

const ITEMS: u32 = 20_000;

/// A callback that gets `&mut InOrder`; 2 words of captures.
type Event = SendCallbackSlot<ByMut<InOrder>, (), 2>;

static RING: Ring<InlineStorage<Event, 16>> = Ring::new_inline([const { Event::new() }; 16]);
static FULL: IrqCount = IrqCount::new();

fn case() -> bool {
    let mut reader = RING.reader().unwrap();
    let mut writer = RING.writer().unwrap();
    let mut seq = 0u32;
    irq::on_tick(move || {
        if seq == ITEMS {
            return;
        }
        let want = (1 + seq % 3).min(ITEMS - seq);
        let Ok(mut span) = writer.try_reserve(want as usize) else {
            FULL.bump();
            return;
        };
        for event in span.iter_mut() {
            let s = seq;
            if s.is_multiple_of(5) {
                // Two halves: a different closure type (8 bytes of captures instead of 4).
                let (hi, lo) = ((s >> 16) as u16 as u32, s & 0xFFFF);
                event.set_fn(move |order: &mut InOrder| order.see(hi << 16 | lo));
            } else {
                event.set_fn(move |order: &mut InOrder| order.see(s));
            }
            seq += 1;
        }
    });
    board::timer_start(board::PERIOD);

    let mut order = InOrder::new();
    let mut reads = irq::Sections::default();
    let mut call_errors = 0u32;
    while order.next < ITEMS && irq::ticks() < 40 * ITEMS as usize {
        reads.run(&irq::READS, || {
            let Ok(span) = reader.try_read(8) else {
                return false;
            };
            for event in span.iter() {
                call_errors += u32::from(event.call_shared(&mut order).is_err());
            }
            true
        });
    }
    board::timer_stop();
    let mut report = Report::start("callback");
    report
        .order("calls", &mut order, ITEMS)
        .preempted("reads", &reads)
        .count("call_errors", call_errors)
        .count("full", FULL.get())
        .end();
    report.require("every published callback could be called", call_errors == 0);
    report.ok()
}

spanring_embedded::entry!(case);
