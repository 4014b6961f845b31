//! [`Report`]: one line of counts per run on the console, and the requirements that decide the
//! exit status.

use core::fmt::Display;

use semihosting::{print, println};

use crate::check::InOrder;
use crate::irq::Sections;

/// Prints `run <name>: key=value ...` and collects failed requirements.
#[must_use = "a report's verdict is in ok()"]
pub struct Report {
    ok: bool,
    /// Requirements that failed on the current line, printed by `end`.
    failed: [&'static str; 4],
    n_failed: usize,
}

impl Report {
    /// Starts the line for run `name`.
    pub fn start(name: &str) -> Self {
        print!("run {name}:");
        Self {
            ok: true,
            failed: [""; 4],
            n_failed: 0,
        }
    }

    /// ` key=value`.
    pub fn count(&mut self, key: &str, value: impl Display) -> &mut Self {
        print!(" {key}={value}");
        self
    }

    /// The in-order counts of a stream of `total` items (calls [`InOrder::finish`]), and
    /// requires them clean and complete.
    pub fn order(&mut self, stream: &str, order: &mut InOrder, total: u32) -> &mut Self {
        order.finish(total);
        self.pending("not every item arrived", order.items == total);
        self.stream(stream, order)
    }

    /// The in-order counts of a stream without a known end, and requires them clean.
    pub fn stream(&mut self, stream: &str, order: &InOrder) -> &mut Self {
        print!(
            " {stream}: items={} lost={} dup={} reordered={}",
            order.items, order.lost, order.duplicated, order.reordered
        );
        self.pending("items lost, duplicated or reordered", order.clean());
        self
    }

    /// ` key=preempted/total`, and requires that the interrupt preempted at least one.
    pub fn preempted(&mut self, key: &str, sections: &Sections) -> &mut Self {
        print!(" preempted_{key}={}/{}", sections.preempted, sections.total);
        self.pending("the interrupt never preempted one", sections.preempted > 0);
        self
    }

    /// Ends the line and prints every requirement that failed on it.
    pub fn end(&mut self) -> &mut Self {
        println!();
        for what in &self.failed[..self.n_failed.min(4)] {
            println!("  FAILED: {what}");
        }
        self.n_failed = 0;
        self
    }

    /// Requires `holds`; prints `what` if it does not.
    pub fn require(&mut self, what: &str, holds: bool) -> &mut Self {
        if !holds {
            println!("  FAILED: {what}");
            self.ok = false;
        }
        self
    }

    /// A requirement on a count of the current line, reported by `end`.
    fn pending(&mut self, what: &'static str, holds: bool) {
        if !holds {
            self.ok = false;
            if self.n_failed < self.failed.len() {
                self.failed[self.n_failed] = what;
            }
            self.n_failed += 1;
        }
    }

    /// Whether every requirement held.
    pub fn ok(&self) -> bool {
        self.ok
    }
}
