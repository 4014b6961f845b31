//! Cursors near `usize::MAX` (= `u32::MAX` on these targets): a single-producer ring and a
//! multi-producer ring whose cursors start 3,000 slots before the wrap, each fed by the timer
//! interrupt and read by the main loop across it. Every read span must start at the cursor
//! where the previous one ended (the ring's `Layout::advance`: plain wrapping addition for a
//! power-of-two capacity, lap stamps with a gap otherwise), and reads must have crossed the
//! wrap.
#![no_std]
#![no_main]

use spanring_core::sync::AtomicUsize;
use spanring_core::{multi_words, ClaimMode, MultiProducer, Ring, SliceStorage};
use spanring_embedded::irq::{self, IrqCount};
use spanring_embedded::{board, check::InOrder, report::Report, static_cell::StaticCell};

const ITEMS: u32 = 20_000;
const BEFORE_WRAP: usize = 3_000;
/// Not a power of two: the start is rounded down to a valid cursor (Layout::normalize).
const MP_CAPACITY: usize = 48;

type SpRing = Ring<SliceStorage<'static, u32>>;
type MpRing = Ring<SliceStorage<'static, u32>, MultiProducer<&'static mut [AtomicUsize]>>;

static SP_MEMORY: StaticCell<[u32; 64]> = StaticCell::new();
static SP_RING: StaticCell<SpRing> = StaticCell::new();
static MP_MEMORY: StaticCell<[u32; MP_CAPACITY]> = StaticCell::new();
/// The record words, handed to the ring once as `&'static mut` (the ring must hold them
/// alone: `RecordWords`).
static MP_BITS: StaticCell<[AtomicUsize; multi_words(MP_CAPACITY)]> = StaticCell::new();
static MP_RING: StaticCell<MpRing> = StaticCell::new();
static FULL: IrqCount = IrqCount::new();

/// The interrupt publishes ITEMS sequence numbers into `ring`; the main loop checks them.
fn run<P: ClaimMode + Send + Sync + 'static>(
    name: &str,
    ring: &'static Ring<SliceStorage<'static, u32>, P>,
) -> bool {
    let start = ring.start();
    let layout = *ring.layout();
    let mut expect = start;
    let mut reader = ring.reader().unwrap();
    let mut writer = ring.writer().unwrap();
    let mut seq = 0u32;
    irq::on_tick(move || {
        if seq == ITEMS {
            return;
        }
        let want = (1 + seq % 5).min(ITEMS - seq);
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
    let ticks_before = irq::ticks();
    board::timer_start(board::PERIOD);

    let mut order = InOrder::new();
    let mut reads = irq::Sections::default();
    let (mut bad_cursor, mut crossed, mut straddled) = (0u32, 0u32, 0u32);
    while order.next < ITEMS && irq::ticks() - ticks_before < 40 * ITEMS as usize {
        reads.run(&irq::READS, || {
            let Ok(span) = reader.try_read(7) else {
                return false;
            };
            let first = span.start();
            bad_cursor += u32::from(first != expect);
            expect = layout.advance(first, span.len());
            crossed += u32::from(first < start);
            straddled += u32::from(expect < first);
            span.iter().for_each(|&v| order.see(v));
            true
        });
    }
    board::timer_stop();
    irq::clear_tick(); // drops the writer: this ring is done
    let mut report = Report::start(name);
    report
        .count("start", format_args!("MAX-{}", usize::MAX - start))
        .order("ring", &mut order, ITEMS)
        .preempted("reads", &reads)
        .count("bad_cursors", bad_cursor)
        .count("reads_past_wrap", crossed)
        .count("reads_across_wrap", straddled)
        .count("full", FULL.get())
        .end();
    report
        .require(
            "a read span did not start where the previous one ended",
            bad_cursor == 0,
        )
        .require("reads crossed usize::MAX", crossed > 0);
    report.ok()
}

fn case() -> bool {
    let sp: Result<SpRing, _> = Ring::builder(SliceStorage::new(SP_MEMORY.init([0; 64])))
        .start_at(usize::MAX - BEFORE_WRAP)
        .build();
    let sp_ok = run("near_max_sp", SP_RING.init(sp.unwrap()));
    let mp: Result<MpRing, _> = Ring::builder(SliceStorage::new(MP_MEMORY.init([0; MP_CAPACITY])))
        .multi_producer(
            &mut MP_BITS.init([const { AtomicUsize::new(0) }; multi_words(MP_CAPACITY)])[..],
        )
        .start_at(usize::MAX - BEFORE_WRAP)
        .build();
    let mp_ok = run("near_max_mp", MP_RING.init(mp.unwrap()));
    sp_ok && mp_ok
}

spanring_embedded::entry!(case);
