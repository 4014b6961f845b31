//! Multi-producer: the main loop and the timer interrupt both write into one MultiProducer
//! ring (cursors starting 2,000 before `usize::MAX`), the main loop also reads. The interrupt
//! often lands while the main loop holds a reservation it has not published yet, and claims
//! the slots after it: those are published out of order and must stay hidden until the main
//! loop's span is published. Each producer's items must arrive once and in its order.
#![no_std]
#![no_main]

use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, MultiProducer, Ring, SliceStorage};
use spanring_embedded::irq::{self, IrqCount, Sections};
use spanring_embedded::{board, check::InOrder, report::Report, static_cell::StaticCell};

/// Items per producer.
const ITEMS: u32 = 10_000;
const CAPACITY: usize = 32;
/// Set in the interrupt's items.
const IRQ_TAG: u32 = 1 << 31;

type MpRing = Ring<SliceStorage<'static, u32>, MultiProducer<&'static mut [AtomicUsize]>>;

static MEMORY: StaticCell<[u32; CAPACITY]> = StaticCell::new();
/// The record words, handed to the ring once as `&'static mut` (the ring must hold them
/// alone: `RecordWords`).
static BITS: StaticCell<[AtomicUsize; multi_words(CAPACITY)]> = StaticCell::new();
static RING: StaticCell<MpRing> = StaticCell::new();
static FULL: IrqCount = IrqCount::new();

fn case() -> bool {
    let storage = SliceStorage::new(MEMORY.init([0; CAPACITY]));
    let ring = Ring::builder(storage)
        .multi_producer(&mut BITS.init([const { AtomicUsize::new(0) }; multi_words(CAPACITY)])[..])
        .start_at(usize::MAX - 2_000)
        .build()
        .unwrap();
    let ring: &'static MpRing = RING.init(ring);
    let mut reader = ring.reader().unwrap();
    let mut irq_writer = ring.writer().unwrap();
    let mut main_writer = irq_writer.clone(); // more writers are clones of the first
    let mut seq = 0u32;
    irq::on_tick(move || {
        if seq == ITEMS {
            return;
        }
        let want = (1 + seq % 3).min(ITEMS - seq);
        match irq_writer.try_reserve(want as usize) {
            Ok(mut span) => {
                for (i, slot) in span.iter_mut().enumerate() {
                    *slot = IRQ_TAG | (seq + i as u32);
                }
                seq += want;
            }
            Err(_) => FULL.bump(),
        }
    });
    board::timer_start(board::PERIOD);

    let (mut main_order, mut irq_order) = (InOrder::new(), InOrder::new());
    let (mut reads, mut writes) = (Sections::default(), Sections::default());
    let (mut main_seq, mut main_full) = (0u32, 0u32);
    while (main_order.next < ITEMS || irq_order.next < ITEMS) && irq::ticks() < 40 * ITEMS as usize
    {
        if main_seq < ITEMS {
            writes.run(&irq::WRITES, || {
                let want = (1 + main_seq % 4).min(ITEMS - main_seq);
                let Ok(mut span) = main_writer.try_reserve(want as usize) else {
                    main_full += 1;
                    return false;
                };
                // Item by item, so the reservation stays open for a while.
                for slot in span.iter_mut() {
                    *slot = main_seq;
                    main_seq += 1;
                }
                true
            }); // published on drop, inside the section
        }
        reads.run(&irq::READS, || {
            let Ok(span) = reader.try_read(16) else {
                return false;
            };
            for &v in span.iter() {
                if v & IRQ_TAG != 0 {
                    irq_order.see(v & !IRQ_TAG);
                } else {
                    main_order.see(v);
                }
            }
            true
        });
    }
    board::timer_stop();
    let mut report = Report::start("mp");
    report
        .order("main", &mut main_order, ITEMS)
        .order("irq", &mut irq_order, ITEMS)
        .preempted("reads", &reads)
        .preempted("writes", &writes)
        .count("full_main", main_full)
        .count("full_irq", FULL.get())
        .end();
    report.ok()
}

spanring_embedded::entry!(case);
