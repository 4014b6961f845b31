//! spanring's `SharedRing`: a named ring created by the writer process, opened by name by the
//! reader processes (or by threads of one process, for the in-process baseline).
//!
//! Blocking calls (`push`, `reserve`, `pop`, `read`): they spin a little, then sleep on a
//! shared futex, which is what a user of the ring writes.

use spanring::std_ext::shared::{Role, Segment, SharedRing};
use spanring::ReadError;

use crate::common::{
    collect, now_ns, spawn_ready, unique, Backoff, Check, Ctx, Mode, Res, Row, Rtt, BATCH,
};

/// Up to 4 reader slots, `u64` items.
pub type Ring = SharedRing<u64, 4>;

/// Items in a throughput ring (512 KiB of `u64`), as for the other peers.
pub const CAPACITY: usize = 1 << 16;

/// Writes `0..items` one at a time or in spans of `BATCH`, then closes the ring (also when a
/// write fails, so that readers end).
fn write(ring: &Ring, mode: Mode, items: u64) -> Res<()> {
    let result = write_items(ring, mode, items);
    ring.ring().close();
    result
}

fn write_items(ring: &Ring, mode: Mode, items: u64) -> Res<()> {
    // Dropped (released) before `write` closes the ring, so readers see Closed at once.
    let mut writer = ring.writer().ctx("the writer")?;
    match mode {
        Mode::One => {
            for x in 0..items {
                writer.push(x).ctx("push")?;
            }
        }
        Mode::Batch => {
            let mut next = 0u64;
            while next < items {
                let n = (BATCH as u64).min(items - next) as usize;
                let mut span = writer.reserve(n).ctx("reserve")?;
                for (i, slot) in span.as_mut_slice().iter_mut().enumerate() {
                    *slot = next + i as u64;
                }
                drop(span); // published
                next += n as u64;
            }
        }
    }
    Ok(())
}

/// Reads until the ring closes, checking every item.
fn read(
    reader: &mut spanring::std_ext::shared::SharedReader<'_, u64, 4>,
    mode: Mode,
) -> Res<Check> {
    let mut check = Check::new();
    match mode {
        Mode::One => loop {
            match reader.pop() {
                Ok(x) => check.item(x)?,
                Err(ReadError::Closed) => break,
                Err(e) => return Err(format!("pop: {e}")),
            }
        },
        Mode::Batch => loop {
            match reader.read(BATCH) {
                Ok(span) => check.items(span.as_slice())?,
                Err(ReadError::Closed) => break,
                Err(e) => return Err(format!("read: {e}")),
            }
        },
    }
    Ok(check)
}

/// One writer process (this one) → `readers` reader processes.
pub fn processes(readers: usize, mode: Mode, items: u64) -> Res<Row> {
    let name = format!("/{}", unique("spanring-xbench"));
    let ring = Ring::create_named(&name, CAPACITY).ctx("create the ring")?;
    let peers = spawn_ready(readers, |i| {
        vec![
            "spanring".into(),
            mode.arg().into(),
            name.clone(),
            items.to_string(),
            i.to_string(),
        ]
    });
    // Every reader attached (or failed): no new process needs the name.
    Segment::<u64>::unlink(&name).ctx("unlink the ring's name")?;
    let peers = peers?;
    let start = now_ns();
    write(&ring, mode, items)?;
    let reports = collect(peers, items)?;
    Ok(Row::from_reports(
        "spanring",
        "processes",
        mode,
        api(mode),
        items,
        start,
        &reports,
    ))
}

/// The reader process: `spanring MODE NAME ITEMS SLOT`.
pub fn child(args: &[String]) -> Res<()> {
    let [mode, name, items, slot] = args else {
        return Err(format!("spanring child: bad arguments {args:?}"));
    };
    let mode = Mode::parse(mode)?;
    let items: u64 = items.parse().ctx("items")?;
    let slot: u32 = slot.parse().ctx("slot")?;
    let ring = Ring::open(name, Role::Reader { slot }).ctx("open the ring")?;
    let mut reader = ring.reader().ctx("a reader")?;
    println!("ready");
    let check = read(&mut reader, mode)?;
    if check.next != items {
        return Err(format!("read {} items of {items}", check.next));
    }
    println!("{}", check.done_line());
    Ok(())
}

/// The same shape in one process: the writer on this thread, readers on others.
pub fn threads(readers: usize, mode: Mode, items: u64) -> Res<Row> {
    let ring = Ring::create(CAPACITY).ctx("create the ring")?;
    // Attached before the writer starts (a reader starts at the stream's end).
    let handles = (0..readers)
        .map(|_| ring.reader().ctx("a reader"))
        .collect::<Res<Vec<_>>>()?;
    let (start, reports) = std::thread::scope(|s| -> Res<_> {
        let joins: Vec<_> = handles
            .into_iter()
            .map(|mut r| {
                s.spawn(move || -> Res<_> {
                    let check = read(&mut r, mode)?;
                    crate::common::ReaderReport::parse(&check.done_line())
                })
            })
            .collect();
        let start = now_ns();
        write(&ring, mode, items)?;
        let mut reports = Vec::new();
        for j in joins {
            let r = j.join().map_err(|_| "a reader thread panicked")??;
            if r.count != items {
                return Err(format!("a reader thread saw {} items of {items}", r.count));
            }
            reports.push(r);
        }
        Ok((start, reports))
    })?;
    Ok(Row::from_reports(
        "spanring",
        "threads",
        mode,
        api(mode),
        items,
        start,
        &reports,
    ))
}

fn api(mode: Mode) -> &'static str {
    match mode {
        Mode::One => "push / pop",
        Mode::Batch => "reserve(64) / read(64) spans",
    }
}

/// Ping-pong: this process writes `i` on ring A, the other process reads it and writes it
/// back on ring B, this process reads it: one round trip. Both sides poll (`try_pop`), as
/// the iceoryx2 case does.
pub fn ping_pong(rounds: usize, warmup: usize) -> Res<Rtt> {
    let (a, b) = (
        format!("/{}", unique("spanring-xbench-ping")),
        format!("/{}", unique("spanring-xbench-pong")),
    );
    let ping = SharedRing::<u64, 1>::create_named(&a, 4096).ctx("create ring A")?;
    let pong = SharedRing::<u64, 1>::create_named(&b, 4096).ctx("create ring B")?;
    let mut back = pong.reader().ctx("a reader of B")?;
    let total = rounds + warmup;
    let peer = spawn_ready(1, |_| {
        vec![
            "spanring-pong".into(),
            a.clone(),
            b.clone(),
            total.to_string(),
        ]
    });
    let unlinked = Segment::<u64>::unlink(&a).and_then(|()| Segment::<u64>::unlink(&b));
    let mut peer = peer?;
    unlinked.ctx("unlink the rings' names")?;
    let mut out = ping.writer().ctx("the writer of A")?;
    let mut samples = Vec::with_capacity(rounds);
    for i in 0..total as u64 {
        let t0 = std::time::Instant::now();
        out.try_push(i).ctx("push")?;
        let mut backoff = Backoff::spinning();
        let x = loop {
            match back.try_pop() {
                Ok(x) => break x,
                Err(ReadError::Empty) => backoff.snooze()?,
                Err(e) => return Err(format!("pop: {e}")),
            }
        };
        let dt = t0.elapsed().as_nanos() as u64;
        if x != i {
            return Err(format!("round {i} came back as {x}"));
        }
        if i >= warmup as u64 {
            samples.push(dt);
        }
    }
    drop(out);
    ping.ring().close();
    peer.pop().ok_or("no pong process")?.finish()?;
    Ok(Rtt::from_samples("spanring", samples))
}

/// The pong process: `spanring-pong A B ROUNDS`.
pub fn pong_child(args: &[String]) -> Res<()> {
    let [a, b, rounds] = args else {
        return Err(format!("spanring pong: bad arguments {args:?}"));
    };
    let rounds: u64 = rounds.parse().ctx("rounds")?;
    let ping = SharedRing::<u64, 1>::open(a, Role::Reader { slot: 0 }).ctx("open ring A")?;
    let pong = SharedRing::<u64, 1>::open(b, Role::Writer).ctx("open ring B")?;
    let mut input = ping.reader().ctx("a reader of A")?;
    let mut out = pong.writer().ctx("the writer of B")?;
    println!("ready");
    for i in 0..rounds {
        let mut backoff = Backoff::spinning();
        let x = loop {
            match input.try_pop() {
                Ok(x) => break x,
                Err(ReadError::Empty) => backoff.snooze()?,
                Err(e) => return Err(format!("pop: {e}")),
            }
        };
        if x != i {
            return Err(format!("round {i} arrived as {x}"));
        }
        out.try_push(x).ctx("push back")?;
    }
    Ok(())
}
