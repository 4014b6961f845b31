//! iceoryx2 0.10, publish/subscribe over `ipc::Service` (POSIX shared memory), as the notes
//! set it up for a lossless benchmark: `RetryUntilDelivered` back-pressure, history 0, safe
//! overflow off, and the writer waits until every subscriber is connected before it sends.
//! One at a time: `publish_subscribe::<u64>()` and `send_copy`; in batches: `[u64]` slices of
//! 64 with `loan_slice_uninit`. Subscribers poll `receive()` (iceoryx2 has no blocking receive
//! without a separate event service).

use iceoryx2::prelude::*;

use crate::common::{
    collect, now_ns, spawn_ready, unique, Backoff, Check, Ctx, Mode, Res, Row, Rtt, BATCH,
};

/// Samples a subscriber may hold queued: one at a time (`u64` samples).
const BUFFER_ONE: usize = 4096;
/// Slices of 64 a subscriber may hold queued (65 536 items, as the other rings hold).
const BUFFER_SLICES: usize = CAPACITY_ITEMS / BATCH;
const CAPACITY_ITEMS: usize = 1 << 16;

fn node() -> Res<Node<ipc::Service>> {
    NodeBuilder::new()
        .create::<ipc::Service>()
        .ctx("iceoryx2 node")
}

fn service_name(name: &str) -> Res<ServiceName> {
    ServiceName::new(name).ctx("service name")
}

/// Opens (or creates) the `u64` service `name` with the benchmark's settings.
fn service_one(
    node: &Node<ipc::Service>,
    name: &str,
    subscribers: usize,
    buffer: usize,
) -> Res<iceoryx2::service::port_factory::publish_subscribe::PortFactory<ipc::Service, u64, ()>> {
    node.service_builder(&service_name(name)?)
        .publish_subscribe::<u64>()
        .max_publishers(1)
        .max_subscribers(subscribers)
        .subscriber_max_buffer_size(buffer)
        .history_size(0)
        .enable_safe_overflow(false)
        .open_or_create()
        .ctx("iceoryx2 service")
}

/// The same for `[u64]` slices.
fn service_slices(
    node: &Node<ipc::Service>,
    name: &str,
    subscribers: usize,
) -> Res<iceoryx2::service::port_factory::publish_subscribe::PortFactory<ipc::Service, [u64], ()>> {
    node.service_builder(&service_name(name)?)
        .publish_subscribe::<[u64]>()
        .max_publishers(1)
        .max_subscribers(subscribers)
        .subscriber_max_buffer_size(BUFFER_SLICES)
        .history_size(0)
        .enable_safe_overflow(false)
        .open_or_create()
        .ctx("iceoryx2 slice service")
}

/// Waits until `n` subscribers are connected to the service (they said `ready` already; this
/// is the check the notes ask for before sending, with history 0).
fn wait_subscribers(count: impl Fn() -> usize, n: usize) -> Res<()> {
    let mut backoff = Backoff::yielding();
    while count() < n {
        backoff.snooze()?;
    }
    Ok(())
}

/// One publisher process (this one) → `readers` subscriber processes.
pub fn processes(readers: usize, mode: Mode, items: u64) -> Res<Row> {
    let name = unique("spanring-xbench/iox2");
    let node = node()?;
    let args = |i: usize| {
        vec![
            "iceoryx2".into(),
            mode.arg().into(),
            name.clone(),
            items.to_string(),
            readers.to_string(),
            i.to_string(),
        ]
    };
    let start;
    let peers;
    match mode {
        Mode::One => {
            let service = service_one(&node, &name, readers, BUFFER_ONE)?;
            let publisher = service
                .publisher_builder()
                .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
                .create()
                .ctx("publisher")?;
            peers = spawn_ready(readers, args)?;
            wait_subscribers(|| service.dynamic_config().number_of_subscribers(), readers)?;
            start = now_ns();
            for x in 0..items {
                publisher.send_copy(x).ctx("send_copy")?;
            }
        }
        Mode::Batch => {
            let service = service_slices(&node, &name, readers)?;
            let publisher = service
                .publisher_builder()
                .initial_max_slice_len(BATCH)
                .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
                .create()
                .ctx("publisher")?;
            peers = spawn_ready(readers, args)?;
            wait_subscribers(|| service.dynamic_config().number_of_subscribers(), readers)?;
            start = now_ns();
            let mut next = 0u64;
            while next < items {
                let n = (BATCH as u64).min(items - next) as usize;
                let sample = publisher.loan_slice_uninit(n).ctx("loan_slice_uninit")?;
                let base = next;
                let sample = sample.write_from_fn(|i| base + i as u64);
                sample.send().ctx("send")?;
                next += n as u64;
            }
        }
    }
    let reports = collect(peers, items)?;
    Ok(Row::from_reports(
        "iceoryx2",
        "processes",
        mode,
        match mode {
            Mode::One => "send_copy / receive",
            Mode::Batch => "loan_slice_uninit(64) / receive",
        },
        items,
        start,
        &reports,
    ))
}

/// The subscriber process: `iceoryx2 MODE NAME ITEMS READERS INDEX`.
pub fn child(args: &[String]) -> Res<()> {
    let [mode, name, items, readers, _index] = args else {
        return Err(format!("iceoryx2 child: bad arguments {args:?}"));
    };
    let mode = Mode::parse(mode)?;
    let items: u64 = items.parse().ctx("items")?;
    let readers: usize = readers.parse().ctx("readers")?;
    let node = node()?;
    let mut check = Check::new();
    let mut backoff = Backoff::yielding();
    match mode {
        Mode::One => {
            let service = service_one(&node, name, readers, BUFFER_ONE)?;
            let subscriber = service
                .subscriber_builder()
                .buffer_size(BUFFER_ONE)
                .create()
                .ctx("subscriber")?;
            println!("ready");
            while check.next < items {
                match subscriber.receive().ctx("receive")? {
                    Some(sample) => {
                        backoff.progress();
                        check.item(*sample.payload())?;
                    }
                    None => backoff.snooze()?,
                }
            }
            if subscriber.receive().ctx("receive")?.is_some() {
                return Err("an item past the end".into());
            }
        }
        Mode::Batch => {
            let service = service_slices(&node, name, readers)?;
            let subscriber = service
                .subscriber_builder()
                .buffer_size(BUFFER_SLICES)
                .create()
                .ctx("subscriber")?;
            println!("ready");
            while check.next < items {
                match subscriber.receive().ctx("receive")? {
                    Some(sample) => {
                        backoff.progress();
                        check.items(sample.payload())?;
                    }
                    None => backoff.snooze()?,
                }
            }
            if subscriber.receive().ctx("receive")?.is_some() {
                return Err("a slice past the end".into());
            }
        }
    }
    println!("{}", check.done_line());
    Ok(())
}

/// Ping-pong over two services (one each way), both sides polling.
pub fn ping_pong(rounds: usize, warmup: usize) -> Res<Rtt> {
    let (a, b) = (
        unique("spanring-xbench/iox2-ping"),
        unique("spanring-xbench/iox2-pong"),
    );
    let node = node()?;
    let ping = service_one(&node, &a, 1, 16)?;
    let pong = service_one(&node, &b, 1, 16)?;
    let out = ping
        .publisher_builder()
        .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
        .create()
        .ctx("ping publisher")?;
    let back = pong
        .subscriber_builder()
        .buffer_size(16)
        .create()
        .ctx("pong subscriber")?;
    let total = rounds + warmup;
    let mut peer = spawn_ready(1, |_| {
        vec![
            "iceoryx2-pong".into(),
            a.clone(),
            b.clone(),
            total.to_string(),
        ]
    })?;
    wait_subscribers(|| ping.dynamic_config().number_of_subscribers(), 1)?;
    let mut samples = Vec::with_capacity(rounds);
    for i in 0..total as u64 {
        let t0 = std::time::Instant::now();
        out.send_copy(i).ctx("send_copy")?;
        let mut backoff = Backoff::spinning();
        let x = loop {
            match back.receive().ctx("receive")? {
                Some(sample) => break *sample.payload(),
                None => backoff.snooze()?,
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
    peer.pop().ok_or("no pong process")?.finish()?;
    Ok(Rtt::from_samples("iceoryx2", samples))
}

/// The pong process: `iceoryx2-pong A B ROUNDS`.
pub fn pong_child(args: &[String]) -> Res<()> {
    let [a, b, rounds] = args else {
        return Err(format!("iceoryx2 pong: bad arguments {args:?}"));
    };
    let rounds: u64 = rounds.parse().ctx("rounds")?;
    let node = node()?;
    let ping = service_one(&node, a, 1, 16)?;
    let pong = service_one(&node, b, 1, 16)?;
    let input = ping
        .subscriber_builder()
        .buffer_size(16)
        .create()
        .ctx("ping subscriber")?;
    let out = pong
        .publisher_builder()
        .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
        .create()
        .ctx("pong publisher")?;
    // The parent's pong subscriber exists already (it was made before this process started).
    wait_subscribers(|| pong.dynamic_config().number_of_subscribers(), 1)?;
    println!("ready");
    for i in 0..rounds {
        let mut backoff = Backoff::spinning();
        let x = loop {
            match input.receive().ctx("receive")? {
                Some(sample) => break *sample.payload(),
                None => backoff.snooze()?,
            }
        };
        if x != i {
            return Err(format!("round {i} arrived as {x}"));
        }
        out.send_copy(x).ctx("send back")?;
    }
    Ok(())
}

/// What iceoryx2 leaves in /dev/shm and /tmp/iceoryx2, to remove what a run added.
pub struct Leftovers {
    shm_before: Vec<std::path::PathBuf>,
    tmp_existed: bool,
    tmp_before: Vec<std::path::PathBuf>,
}

const TMP: &str = "/tmp/iceoryx2";

fn list(dir: &str, recurse: bool) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if recurse && p.is_dir() {
                todo.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

impl Leftovers {
    /// What is there before the run.
    pub fn before() -> Self {
        Self {
            shm_before: list("/dev/shm", false),
            tmp_existed: std::path::Path::new(TMP).exists(),
            tmp_before: list(TMP, true),
        }
    }

    /// Removes the `iox2_*` objects and /tmp/iceoryx2 entries that appeared since `before`
    /// (all of /tmp/iceoryx2 if it was not there). Returns how many it removed.
    pub fn clean(&self) -> usize {
        let mut removed = 0;
        for p in list("/dev/shm", false) {
            let ours = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("iox2_"));
            if ours && !self.shm_before.contains(&p) && std::fs::remove_file(&p).is_ok() {
                removed += 1;
            }
        }
        if !self.tmp_existed {
            removed += list(TMP, true).len();
            let _ = std::fs::remove_dir_all(TMP);
        } else {
            let mut new: Vec<_> = list(TMP, true)
                .into_iter()
                .filter(|p| !self.tmp_before.contains(p))
                .collect();
            // Deepest first, so directories are empty when their turn comes.
            new.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
            for p in new {
                let gone = if p.is_dir() {
                    std::fs::remove_dir(&p)
                } else {
                    std::fs::remove_file(&p)
                };
                removed += usize::from(gone.is_ok());
            }
        }
        removed
    }
}
