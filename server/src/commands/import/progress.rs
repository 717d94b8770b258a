//! Progress while importing: on a terminal, a bar over the logs' size on
//! disk (a spinner for stdin) with lines and lines/s; otherwise a plain
//! line every few seconds (logs, CI).

use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// How often the plain form prints.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Shows how far an import has got.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    quiet: bool,
    started: Instant,
    last_plain: Instant,
    /// Bytes taken from the files so far (the readers add to it).
    read: Arc<AtomicU64>,
}

impl Progress {
    /// A bar over `total` bytes (`None`: unknown, a spinner) on a
    /// terminal, plain lines otherwise; `quiet`: nothing.
    pub fn new(quiet: bool, total: Option<u64>) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let (bar, template) = match total {
                Some(total) => (
                    ProgressBar::new(total),
                    "{bar:30} {percent:>3}% {msg} [{elapsed} / about {duration}]",
                ),
                None => (ProgressBar::new_spinner(), "{spinner} {msg} [{elapsed}]"),
            };
            let style = ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        let now = Instant::now();
        Self {
            bar,
            quiet,
            started: now,
            last_plain: now,
            read: Arc::default(),
        }
    }

    /// The counter the readers add the bytes they take to.
    pub fn bytes(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.read)
    }

    fn rate(&self, lines: u64) -> f64 {
        lines as f64 / self.started.elapsed().as_secs_f64().max(1e-3)
    }

    /// Reports `lines` read so far (call often; it is cheap).
    pub fn lines(&mut self, lines: u64, log: &str) {
        if !lines.is_multiple_of(4096) {
            return;
        }
        let message = format!("{log}: {lines} lines, {:.0} lines/s", self.rate(lines));
        match &self.bar {
            Some(bar) => {
                bar.set_position(self.read.load(Ordering::Relaxed));
                bar.set_message(message);
            }
            None if !self.quiet && self.last_plain.elapsed() >= PLAIN_EVERY => {
                self.last_plain = Instant::now();
                eprintln!("whocomes import: {message}");
            }
            None => {}
        }
    }

    /// Clears the bar and says how fast the whole import went.
    pub fn finish(&self, lines: u64) -> String {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        format!(
            "{lines} lines in {:.1} s ({:.0} lines/s)",
            self.started.elapsed().as_secs_f64(),
            self.rate(lines)
        )
    }
}
