//! shaq 5.1 broadcast: one producer lane, every consumer reads it. The queue lives in a file in
//! /dev/shm that the writer creates (`Producer::create`) and the readers join
//! (`Consumer::join`) before anything is written (a consumer joins at the lane's frontier).
//! The producer has no blocking write: it polls `try_write` / `try_reserve_write_batch`.
//! Consumers poll `try_read` / `try_reserve_read_batch` too: shaq's blocking
//! `read_timeout` parks on its futex whenever a consumer catches up, and then every write
//! pays a wake-up syscall (1.2–1.6 M items/s here one at a time, against 23–25 M polling, the
//! issue's first look).

use shaq::broadcast::{BroadcastConfig, Consumer, Producer};
use std::fs::{File, OpenOptions};
use std::num::NonZeroUsize;

use crate::common::{
    collect, now_ns, spawn_ready, unique, Backoff, Check, Ctx, Mode, Res, Row, BATCH,
};

/// Items in the lane (as the other rings hold).
const CAPACITY: usize = 1 << 16;

const fn batch() -> NonZeroUsize {
    match NonZeroUsize::new(BATCH) {
        Some(n) => n,
        None => panic!("BATCH is 0"),
    }
}

/// Removes the queue's file when the case ends, however it ends.
struct Unlink(String);

impl Drop for Unlink {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn open(path: &str, create: bool) -> Res<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(create)
        .open(path)
        .ctx("the queue's file")
}

/// One producer process (this one) → `readers` consumer processes.
pub fn processes(readers: usize, mode: Mode, items: u64) -> Res<Row> {
    let path = format!("/dev/shm/{}", unique("spanring-xbench-shaq"));
    let file = open(&path, true)?;
    let _unlink = Unlink(path.clone());
    let config = BroadcastConfig {
        capacity: CAPACITY,
        producer_slots: 1,
        consumer_slots: readers,
    };
    // SAFETY: the file is new and ours (`create_new`), initialised here once and never
    // resized; every process uses `u64`, which is plain data.
    let mut producer = unsafe { Producer::<u64>::create(&file, config) }.ctx("shaq producer")?;
    let peers = spawn_ready(readers, |_| {
        vec![
            "shaq".into(),
            mode.arg().into(),
            path.clone(),
            items.to_string(),
        ]
    })?;
    let start = now_ns();
    let mut backoff = Backoff::yielding();
    match mode {
        Mode::One => {
            for x in 0..items {
                while producer.try_write(x).is_err() {
                    backoff.snooze()?;
                }
                backoff.progress();
            }
        }
        Mode::Batch => {
            let mut next = 0u64;
            while next < items {
                let n = (BATCH as u64).min(items - next) as usize;
                let count = NonZeroUsize::new(n).ok_or("empty batch")?;
                loop {
                    // SAFETY: every cell of the batch is written below before `publish`.
                    if let Some(mut batch) = unsafe { producer.try_reserve_write_batch(count) } {
                        for i in 0..n {
                            // SAFETY: `i < n`, the batch's length.
                            unsafe { batch.write(i, next + i as u64) };
                        }
                        batch.publish();
                        backoff.progress();
                        break;
                    }
                    backoff.snooze()?;
                }
                next += n as u64;
            }
        }
    }
    let reports = collect(peers, items)?;
    Ok(Row::from_reports(
        "shaq",
        "processes",
        mode,
        match mode {
            Mode::One => "try_write / try_read",
            Mode::Batch => "try_reserve_write_batch(64) / try_reserve_read_batch(64)",
        },
        items,
        start,
        &reports,
    ))
}

/// The consumer process: `shaq MODE PATH ITEMS`.
pub fn child(args: &[String]) -> Res<()> {
    let [mode, path, items] = args else {
        return Err(format!("shaq child: bad arguments {args:?}"));
    };
    let mode = Mode::parse(mode)?;
    let items: u64 = items.parse().ctx("items")?;
    let file = open(path, false)?;
    // SAFETY: the file holds a broadcast queue of `u64` made by the parent, which never
    // resizes it.
    let mut consumer = unsafe { Consumer::<u64>::join(&file) }.ctx("shaq consumer")?;
    println!("ready");
    let mut check = Check::new();
    let mut backoff = Backoff::yielding();
    match mode {
        Mode::One => {
            while check.next < items {
                match consumer.try_read() {
                    Some(x) => {
                        backoff.progress();
                        check.item(x)?;
                    }
                    None => backoff.snooze()?,
                }
            }
        }
        Mode::Batch => {
            while check.next < items {
                match consumer.try_reserve_read_batch(batch()) {
                    Some(b) => {
                        backoff.progress();
                        let (x, y) = b.as_slices();
                        check.items(x)?;
                        check.items(y)?;
                    }
                    None => backoff.snooze()?,
                }
            }
        }
    }
    if consumer.try_read().is_some() {
        return Err("an item past the end".into());
    }
    println!("{}", check.done_line());
    Ok(())
}
