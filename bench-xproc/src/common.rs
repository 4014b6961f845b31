//! What every peer's case shares: the clock, child processes and their lines, the checks,
//! spinning with a deadline, and the rows of the table.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Errors as text: every failure ends the case with a message.
pub type Res<T> = Result<T, String>;

/// `.ctx("what")?` on any result whose error prints with `Debug`.
pub trait Ctx<T> {
    /// The error as `what: error`.
    fn ctx(self, what: &str) -> Res<T>;
}

impl<T, E: std::fmt::Debug> Ctx<T> for Result<T, E> {
    fn ctx(self, what: &str) -> Res<T> {
        self.map_err(|e| format!("{what}: {e:?}"))
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process on the machine, so a reader's
/// end and the writer's start can be subtracted.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// How long a wait may see no progress before the case is declared stuck.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// Waiting for a condition by polling (the peers that have no blocking call): spins with a
/// hint, and, when `yields`, gives the core away every 64 misses (3 processes share 2 cores in
/// the 1 → 2 shapes). Fails after `DEADLINE` without progress, so a dead peer ends the case.
/// The clock is read only after 65 536 misses in a row.
pub struct Backoff {
    misses: u32,
    yields: bool,
    stuck_since: Option<Instant>,
}

impl Backoff {
    /// Spins, yielding every 64 misses: for throughput.
    pub fn yielding() -> Self {
        Self {
            misses: 0,
            yields: true,
            stuck_since: None,
        }
    }

    /// Spins only: for round trips (each of the two processes has a core).
    pub fn spinning() -> Self {
        Self {
            yields: false,
            ..Self::yielding()
        }
    }

    /// The condition held: the next wait starts afresh.
    #[inline]
    pub fn progress(&mut self) {
        self.misses = 0;
        self.stuck_since = None;
    }

    /// One more miss.
    #[inline]
    pub fn snooze(&mut self) -> Res<()> {
        self.misses = self.misses.wrapping_add(1);
        if self.misses & 63 != 0 {
            std::hint::spin_loop();
            return Ok(());
        }
        if self.yields {
            std::thread::yield_now();
        }
        if self.misses & 0xffff == 0 {
            let since = *self.stuck_since.get_or_insert_with(Instant::now);
            if since.elapsed() > DEADLINE {
                return Err("stuck: no progress from the other side".into());
            }
        }
        Ok(())
    }
}

/// A reader's check: every value is the one after the previous (0, 1, 2, …): nothing lost,
/// repeated or reordered. Records when the first item came.
#[derive(Default)]
pub struct Check {
    pub next: u64,
    pub first_ns: u64,
}

impl Check {
    pub fn new() -> Self {
        Self {
            next: 0,
            first_ns: 0,
        }
    }

    /// Checks one item.
    #[inline]
    pub fn item(&mut self, x: u64) -> Res<()> {
        if x != self.next {
            return Err(format!(
                "item {} is {x}: lost, repeated or reordered",
                self.next
            ));
        }
        if self.next == 0 {
            self.first_ns = now_ns();
        }
        self.next += 1;
        Ok(())
    }

    /// Checks a run of items.
    #[inline]
    pub fn items(&mut self, xs: &[u64]) -> Res<()> {
        for &x in xs {
            self.item(x)?;
        }
        Ok(())
    }

    /// The reader's line for the parent: `done COUNT FIRST_NS END_NS`.
    pub fn done_line(&self) -> String {
        format!("done {} {} {}", self.next, self.first_ns, now_ns())
    }
}

/// What a reader process reported.
#[derive(Debug, Clone, Copy)]
pub struct ReaderReport {
    pub count: u64,
    pub first_ns: u64,
    pub end_ns: u64,
}

impl ReaderReport {
    /// Parses a `done` line.
    pub fn parse(line: &str) -> Res<Self> {
        let mut it = line.split_whitespace().skip(1).map(str::parse::<u64>);
        let mut next = || -> Res<u64> {
            it.next()
                .ok_or_else(|| format!("short line {line:?}"))?
                .ctx("a number")
        };
        Ok(Self {
            count: next()?,
            first_ns: next()?,
            end_ns: next()?,
        })
    }

    /// This reader's own rate, from its first item to its last.
    pub fn own_rate(&self) -> f64 {
        self.count as f64 / (self.end_ns.saturating_sub(self.first_ns).max(1) as f64 / 1e9)
    }
}

/// A child process of this binary (re-executed), talking on its stdout in lines.
pub struct Peer {
    child: Child,
    out: BufReader<ChildStdout>,
    what: String,
}

impl Peer {
    /// Starts `current_exe() child ARGS…`, stdout piped (stderr shared with ours).
    pub fn spawn(args: &[String]) -> Res<Self> {
        let exe = std::env::current_exe().ctx("current_exe")?;
        let mut child = Command::new(exe)
            .arg("child")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .ctx("spawn a reader process")?;
        let out = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Self {
            child,
            out,
            what: args.join(" "),
        })
    }

    /// The next line that starts with `word` (other lines, e.g. a peer's logging, go to
    /// stderr). Fails if the child ends first.
    pub fn expect(&mut self, word: &str) -> Res<String> {
        loop {
            let mut line = String::new();
            let n = self.out.read_line(&mut line).ctx("read a child's line")?;
            if n == 0 {
                let status = self.child.wait().ctx("wait")?;
                return Err(format!(
                    "child `{}` ended ({status}) before saying {word:?}",
                    self.what
                ));
            }
            if line.starts_with(word) {
                return Ok(line.trim_end().to_string());
            }
            eprint!("[child] {line}");
        }
    }

    /// Waits for the child to exit, successfully.
    pub fn finish(mut self) -> Res<()> {
        let status = self.child.wait().ctx("wait")?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("child `{}` failed: {status}", self.what))
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // A case that failed midway: don't leave its reader spinning. Only our own child, by
        // its handle (a no-op once it has been waited for).
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Starts `n` readers with `args(i)`, then waits for each to say `ready`.
pub fn spawn_ready(n: usize, args: impl Fn(usize) -> Vec<String>) -> Res<Vec<Peer>> {
    let mut peers = (0..n)
        .map(|i| Peer::spawn(&args(i)))
        .collect::<Res<Vec<_>>>()?;
    for p in &mut peers {
        p.expect("ready")?;
    }
    Ok(peers)
}

/// Collects the readers' `done` lines and waits for them to exit.
pub fn collect(peers: Vec<Peer>, items: u64) -> Res<Vec<ReaderReport>> {
    let mut reports = Vec::new();
    for mut p in peers {
        let r = ReaderReport::parse(&p.expect("done")?)?;
        p.finish()?;
        if r.count != items {
            return Err(format!("a reader saw {} items of {items}", r.count));
        }
        reports.push(r);
    }
    Ok(reports)
}

/// How items move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One item per write and per read.
    One,
    /// Spans (or batches, or slices) of `BATCH` items.
    Batch,
}

/// The batch (span, slice) length of `Mode::Batch`.
pub const BATCH: usize = 64;

impl Mode {
    pub fn arg(self) -> &'static str {
        match self {
            Mode::One => "one",
            Mode::Batch => "batch",
        }
    }

    pub fn parse(s: &str) -> Res<Self> {
        match s {
            "one" => Ok(Mode::One),
            "batch" => Ok(Mode::Batch),
            _ => Err(format!("unknown mode {s:?}")),
        }
    }
}

/// One measured throughput case.
#[derive(Debug, Clone)]
pub struct Row {
    pub peer: &'static str,
    /// "processes" or "threads".
    pub transport: &'static str,
    pub readers: usize,
    pub mode: Mode,
    /// How the peer's API calls the mode (span, batch, slice, …).
    pub api: &'static str,
    /// Items every reader got, per second, from the writer's first write to the last reader's
    /// last item.
    pub rate: f64,
    /// The slowest reader's own rate (from its first item to its last).
    pub slowest_reader: f64,
}

impl Row {
    /// Builds a row from the writer's start and the readers' reports.
    #[allow(clippy::too_many_arguments)]
    pub fn from_reports(
        peer: &'static str,
        transport: &'static str,
        mode: Mode,
        api: &'static str,
        items: u64,
        start_ns: u64,
        reports: &[ReaderReport],
    ) -> Self {
        let end = reports.iter().map(|r| r.end_ns).max().unwrap_or(start_ns);
        let slowest = reports
            .iter()
            .map(ReaderReport::own_rate)
            .fold(f64::INFINITY, f64::min);
        Self {
            peer,
            transport,
            readers: reports.len(),
            mode,
            api,
            rate: items as f64 / (end.saturating_sub(start_ns).max(1) as f64 / 1e9),
            slowest_reader: slowest,
        }
    }
}

/// Round trips: median and 99th percentile in nanoseconds.
#[derive(Debug, Clone)]
pub struct Rtt {
    pub peer: &'static str,
    pub median_ns: u64,
    pub p99_ns: u64,
}

impl Rtt {
    pub fn from_samples(peer: &'static str, mut ns: Vec<u64>) -> Self {
        ns.sort_unstable();
        let at = |q: f64| ns[((ns.len() - 1) as f64 * q).round() as usize];
        Self {
            peer,
            median_ns: at(0.5),
            p99_ns: at(0.99),
        }
    }
}

/// A name no other run or case uses: `PREFIX-PID-N`.
pub fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}
