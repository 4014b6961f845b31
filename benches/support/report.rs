//! Printing rows as bm_Buffer-like tables, and writing every row as JSON (hand-written: no
//! serde needed for flat records of strings and numbers).

use std::fmt::Write as _;
use std::path::Path;

use super::stats::{si, Stats};

/// One measured row.
#[derive(Clone, Debug)]
pub struct Row {
    /// Which table it belongs to: `buffer`, `verify`, `peers`, `wait`.
    pub table: &'static str,
    /// `spanring`, a peer crate name, or `copy_from_slice`.
    pub implementation: String,
    /// `double-mapped`, `portable`, or `-` for peers.
    pub memory: &'static str,
    /// `single` / `multi` claim protocol, or `-` for peers.
    pub claim: &'static str,
    /// Wait strategy.
    pub wait: &'static str,
    /// Producer threads.
    pub producers: usize,
    /// Consumer threads.
    pub consumers: usize,
    /// Slots per reservation.
    pub chunk: usize,
    /// Samples per consumer per repetition.
    pub samples: usize,
    /// Slots in the ring.
    pub capacity: usize,
    /// The measurement.
    pub stats: Stats,
    /// For peer rows: spanring's ops/s in the same scenario divided by the peer's.
    pub ratio: Option<f64>,
}

impl Row {
    /// `P→C` label.
    pub fn shape(&self) -> String {
        format!("{}P→{}C", self.producers, self.consumers)
    }
}

/// Prints a header line and the stats columns for `rows`.
pub fn print_table(title: &str, rows: &[Row]) {
    println!("\n## {title}\n");
    println!(
        "| {:<15} | {:<13} | {:<6} | {:<6} | {:>5} | {:<8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>7} |",
        "impl", "memory", "claim", "P→C", "chunk", "wait", "ops/s", "min", "median", "max", "mean", "stddev", "ratio"
    );
    println!(
        "|{:-<17}|{:-<15}|{:-<8}|{:-<8}|{:->7}|{:-<10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->9}|",
        "", "", "", "", ":", "", ":", ":", ":", ":", ":", ":", ":"
    );
    for r in rows {
        let s = &r.stats;
        let ratio = r.ratio.map_or_else(|| "".into(), |x| format!("{x:.2}×"));
        let mark = if s.timed_out { "*" } else { "" };
        println!(
            "| {:<15} | {:<13} | {:<6} | {:<6} | {:>5} | {:<8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>7} |",
            r.implementation,
            r.memory,
            r.claim,
            r.shape(),
            r.chunk,
            r.wait,
            format!("{}{mark}", si(s.ops)),
            si(s.min),
            si(s.median),
            si(s.max),
            si(s.mean),
            si(s.stddev),
            ratio
        );
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        "null".into()
    }
}

/// Writes every row, plus the run's mode, to `path` (creating its directory).
pub fn write_json(path: &Path, mode: &str, rows: &[Row]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = String::new();
    let _ = writeln!(out, "{{\n  \"benchmark\": \"buffer\",");
    let _ = writeln!(out, "  \"mode\": {},", json_str(mode));
    let _ = writeln!(
        out,
        "  \"cores\": {},",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let _ = writeln!(out, "  \"rows\": [");
    for (i, r) in rows.iter().enumerate() {
        let s = &r.stats;
        let _ = write!(
            out,
            "    {{\"table\": {}, \"impl\": {}, \"memory\": {}, \"claim\": {}, \"wait\": {}, \
             \"producers\": {}, \"consumers\": {}, \"chunk\": {}, \"samples\": {}, \"capacity\": {}, \
             \"reps\": {}, \"ops_per_s\": {}, \"min\": {}, \"median\": {}, \"max\": {}, \"mean\": {}, \
             \"stddev\": {}, \"timed_out\": {}, \"ratio\": {}}}",
            json_str(r.table),
            json_str(&r.implementation),
            json_str(r.memory),
            json_str(r.claim),
            json_str(r.wait),
            r.producers,
            r.consumers,
            r.chunk,
            r.samples,
            r.capacity,
            s.reps,
            json_num(s.ops),
            json_num(s.min),
            json_num(s.median),
            json_num(s.max),
            json_num(s.mean),
            json_num(s.stddev),
            s.timed_out,
            r.ratio.map_or_else(|| "null".into(), |x| format!("{x:.3}")),
        );
        out.push_str(if i + 1 < rows.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    std::fs::write(path, out)
}
