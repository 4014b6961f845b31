//! Spans that wrap and partial publish/consume: the interrupt reserves 1–7 slots of a ring of
//! 37 (not a power of two, over a static array) and publishes only a prefix of some
//! (`span.publish(k)`); the main loop reads 1–6 at a time and consumes only a prefix of some
//! (`span.consume(k)`). Every item must still arrive once and in order, and spans must have
//! wrapped around the end of the storage on both sides.
#![no_std]
#![no_main]

use spanring_core::{Ring, SliceStorage};
use spanring_embedded::irq::{self, IrqCount};
use spanring_embedded::{board, check::InOrder, report::Report, static_cell::StaticCell};

const ITEMS: u32 = 20_000;
const CAPACITY: usize = 37;

static MEMORY: StaticCell<[u32; CAPACITY]> = StaticCell::new();
static RING: StaticCell<Ring<SliceStorage<'static, u32>>> = StaticCell::new();
static FULL: IrqCount = IrqCount::new();
static PARTIAL: IrqCount = IrqCount::new();
static WRAPPED: IrqCount = IrqCount::new();

fn case() -> bool {
    let storage = SliceStorage::new(MEMORY.init([0; CAPACITY]));
    let ring: &'static _ = RING.init(Ring::new(storage).unwrap());
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    let (mut seq, mut n) = (0u32, 0u32);
    irq::on_tick(move || {
        if seq == ITEMS {
            return;
        }
        n = n.wrapping_add(1);
        let reserve = 1 + n % 7;
        let Ok(mut span) = writer.try_reserve(reserve as usize) else {
            FULL.bump();
            return;
        };
        if !span.as_slices().1.is_empty() {
            WRAPPED.bump();
        }
        for (i, slot) in span.iter_mut().enumerate() {
            *slot = seq + i as u32;
        }
        // Every third span publishes all but (up to) two slots; the rest are released.
        let publish = if n.is_multiple_of(3) {
            reserve.saturating_sub(2).max(1)
        } else {
            reserve
        };
        let publish = publish.min(ITEMS - seq);
        if publish < reserve {
            PARTIAL.bump();
        }
        span.publish(publish as usize);
        seq += publish;
    });
    board::timer_start(board::PERIOD);

    let mut order = InOrder::new();
    let mut reads = irq::Sections::default();
    let (mut r, mut partial_consumes, mut wrapped_reads) = (0usize, 0u32, 0u32);
    while order.next < ITEMS && irq::ticks() < 40 * ITEMS as usize {
        r += 1;
        reads.run(&irq::READS, || {
            let Ok(span) = reader.try_read(1 + r % 6) else {
                return false;
            };
            wrapped_reads += u32::from(!span.as_slices().1.is_empty());
            // Every other read consumes all but the last item: it must be shown again.
            let consume = if r % 2 == 1 {
                span.len().max(2) - 1
            } else {
                span.len()
            };
            partial_consumes += u32::from(consume < span.len());
            span.iter().take(consume).for_each(|&v| order.see(v));
            span.consume(consume);
            true
        });
    }
    board::timer_stop();
    let mut report = Report::start("spans");
    report
        .order("ring", &mut order, ITEMS)
        .preempted("reads", &reads)
        .count("wrapped_writes", WRAPPED.get())
        .count("wrapped_reads", wrapped_reads)
        .count("partial_publishes", PARTIAL.get())
        .count("partial_consumes", partial_consumes)
        .count("full", FULL.get())
        .end();
    report
        .require("a write span wrapped", WRAPPED.get() > 0)
        .require("a read span wrapped", wrapped_reads > 0)
        .require("a span was published partially", PARTIAL.get() > 0)
        .require("a span was consumed partially", partial_consumes > 0);
    report.ok()
}

spanring_embedded::entry!(case);
