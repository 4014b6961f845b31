//! crossbar 1.2 `PodBus<u64>`: an SPMC broadcast ring in /dev/shm, created bounded (lossless:
//! the publisher spin-waits for the slowest subscriber), subscribers `connect` by name and poll
//! `try_recv`. One item at a time only: the bus has no batch or span call.

use crossbar::{BusSubscriber, PodBus};

use crate::common::{collect, now_ns, spawn_ready, unique, Backoff, Check, Ctx, Mode, Res, Row};

/// Slots in the ring (as the other rings hold); a power of two.
const CAPACITY: usize = 1 << 16;

/// Removes what the bus leaves in /dev/shm if a case fails before the bus is dropped.
struct Cleanup(String);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for suffix in ["", ".lock"] {
            let _ = std::fs::remove_file(format!("/dev/shm/crossbar-pod-{}{suffix}", self.0));
        }
    }
}

/// One publisher process (this one) → `readers` subscriber processes.
pub fn processes(readers: usize, items: u64) -> Res<Row> {
    let name = unique("spanring-xbench-cb");
    let _cleanup = Cleanup(name.clone());
    // Watermark 0: the publisher waits only when the slowest subscriber is a whole ring behind.
    let mut bus = PodBus::<u64>::create_bounded(&name, CAPACITY, 0).ctx("crossbar bus")?;
    let peers = spawn_ready(readers, |_| {
        vec!["crossbar".into(), name.clone(), items.to_string()]
    })?;
    let start = now_ns();
    for x in 0..items {
        bus.publish(x);
    }
    let reports = collect(peers, items)?;
    drop(bus);
    Ok(Row::from_reports(
        "crossbar",
        "processes",
        Mode::One,
        "publish / try_recv (bounded PodBus)",
        items,
        start,
        &reports,
    ))
}

/// The subscriber process: `crossbar NAME ITEMS`.
pub fn child(args: &[String]) -> Res<()> {
    let [name, items] = args else {
        return Err(format!("crossbar child: bad arguments {args:?}"));
    };
    let items: u64 = items.parse().ctx("items")?;
    let mut sub = BusSubscriber::<u64>::connect(name).ctx("crossbar subscriber")?;
    println!("ready");
    let mut check = Check::new();
    let mut backoff = Backoff::yielding();
    while check.next < items {
        match sub.try_recv() {
            Some(x) => {
                backoff.progress();
                check.item(x)?;
            }
            None => backoff.snooze()?,
        }
    }
    if sub.total_lagged() != 0 {
        return Err(format!("lost {} items", sub.total_lagged()));
    }
    println!("{}", check.done_line());
    Ok(())
}
