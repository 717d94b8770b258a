//! `whocomes import --follow FILE`: counts a live access log as it is
//! written, by the same rules, through the same writer and into the same
//! ledger as a one-off import.
//!
//! Complete lines are read as they appear (`tail.rs`); a line still being
//! written waits for its end. Every `--follow-checkpoint-ms` the ledger is
//! brought up to date, but only once the writer has written every hit
//! queued so far, so the ledger never says more was imported than the store
//! holds. When the path names a new file (logrotate's rename-and-create),
//! the old one is read to its end first, until it has stayed quiet for one
//! look. When the file is truncated in place (copytruncate), the ledger
//! notes what was read of it — importing the copy later adds only what was
//! missed — and the file is read again from its start. At SIGTERM or
//! Ctrl-C reading stops at a line end, the writer writes what is queued,
//! and the ledger notes exactly the lines read: a restart resumes there.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use activity::recorder_stats::{RecorderStats, StatsSnapshot};
use activity::recording::start_feed;
use activity::store::{ActivityStore, Imported};
use anyhow::Context as _;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::ledger::Plan;
use super::lines::{GZIP, Line};
use super::logline::MAX_LINE_BYTES;
use super::progress::Progress;
use super::tail::{Change, Tail};
use super::{ImportArgs, Run, Tally};

/// Follows the one log of `args` until `stop` completes, then writes what
/// was read, notes it in the ledger and says what it saw.
pub async fn follow(
    args: &ImportArgs,
    stop: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<Tally> {
    let path = one_log(args)?;
    let label = path.display().to_string();
    let (counter, store) = super::open(args).await?;
    let stopping = Stopping::on(stop);
    let mut tally = Tally::default();
    let mut tail = open_tail(&path, &store, &mut tally).await?;
    let (feed, writer) = start_feed(store.clone(), args.recorder.config());
    let mut ledger = Ledger {
        store: store.clone(),
        stats: writer.stats(),
        noted: None,
        offered: VecDeque::new(),
    };
    let mut progress = Progress::new(args.quiet, None);
    let mut run = Run {
        format: args.format,
        counter: &counter,
        feed: &feed,
        tally: &mut tally,
        watch: None,
        progress: &mut progress,
    };
    let looks = Looks {
        path: &path,
        label: &label,
        poll: Duration::from_millis(args.follow_poll_ms),
        checkpoint: Duration::from_millis(args.follow_checkpoint_ms),
    };
    let followed = looks
        .follow(&mut tail, &mut run, &mut ledger, &stopping)
        .await;
    drop(feed);
    let written = writer.finish().await;
    // What was read is written and noted even when reading failed.
    let noted = ledger.finish(&written, tail.entry()).await;
    store.close().await;
    followed?;
    noted?;
    let took = progress.finish(tally.lines);
    if !args.quiet {
        eprintln!("whocomes import --follow: {took}");
    }
    Ok(tally)
}

/// The one log `--follow` reads: a file (not stdin).
fn one_log(args: &ImportArgs) -> anyhow::Result<PathBuf> {
    match args.logs.as_slice() {
        [log] if log.as_os_str() != "-" => Ok(log.clone()),
        [_] => anyhow::bail!("--follow reads a file, not stdin"),
        _ => anyhow::bail!(
            "--follow takes exactly one log (given {}); import the others without it",
            args.logs.len()
        ),
    }
}

/// Opens the log at `path` where the ledger says its new lines start.
async fn open_tail(
    path: &Path,
    store: &Arc<dyn ActivityStore>,
    tally: &mut Tally,
) -> anyhow::Result<Tail> {
    let label = path.display();
    let file = File::open(path).with_context(|| format!("cannot open {label}"))?;
    let mut reader = BufReader::new(&file);
    let gzip = reader
        .fill_buf()
        .with_context(|| format!("cannot read {label}"))?
        .starts_with(&GZIP);
    anyhow::ensure!(
        !gzip,
        "{label} is gzip-compressed: follow the log the web server writes, and import compressed copies without --follow"
    );
    let plan = super::plan_log(&mut reader, store, &HashMap::new())
        .await
        .with_context(|| format!("cannot read {label}"))?;
    let from = match plan {
        Plan::From(from) => from,
        Plan::Nothing => {
            // The ledger holds more of this log than the file does: count
            // only what is written from now on.
            tally.truncated_copies += 1;
            let size = file.metadata()?.len();
            tracing::warn!(log = %label, "the store imported more of this log than it holds; counting only lines written from now on");
            size
        }
    };
    tally.already_imported_bytes += from;
    Tail::new(file, from, MAX_LINE_BYTES).with_context(|| format!("cannot read {label}"))
}

/// How the log is looked at.
struct Looks<'a> {
    path: &'a Path,
    label: &'a str,
    poll: Duration,
    checkpoint: Duration,
}

impl Looks<'_> {
    /// Reads and counts until told to stop.
    async fn follow(
        &self,
        tail: &mut Tail,
        run: &mut Run<'_>,
        ledger: &mut Ledger,
        stopping: &Stopping,
    ) -> anyhow::Result<()> {
        let mut line = Line::default();
        let mut number = tail.skipped_lines();
        let mut last_checkpoint = Instant::now();
        // The path has named another file since the last look.
        let mut replaced = false;
        loop {
            let mut read_some = false;
            while !stopping.is_set() && tail.next_line(&mut line)? {
                read_some = true;
                number += 1;
                run.line(&line, self.label, number).await?;
            }
            if stopping.is_set() {
                return Ok(());
            }
            ledger.settle().await?;
            if last_checkpoint.elapsed() >= self.checkpoint {
                ledger.offer(tail.entry());
                last_checkpoint = Instant::now();
            }
            match tail.look(self.path)? {
                Change::Same => replaced = false,
                Change::Truncated => {
                    tracing::info!(log = %self.label, "the log was truncated (copytruncate?); reading it again from its start");
                    ledger.offer(tail.entry());
                    tail.restart()?;
                    number = 0;
                    run.tally.truncations += 1;
                    continue;
                }
                // The old file stayed quiet for a whole look: it is done.
                Change::Replaced if replaced && !read_some => {
                    if tail.last_line(&mut line)? {
                        number += 1;
                        run.line(&line, self.label, number).await?;
                    }
                    ledger.offer(tail.entry());
                    *tail = open_tail(self.path, &ledger.store, run.tally).await?;
                    tracing::info!(log = %self.label, "the log was rotated; following the new file");
                    number = tail.skipped_lines();
                    run.tally.rotations += 1;
                    replaced = false;
                    continue;
                }
                Change::Replaced => replaced = true,
            }
            stopping.sleep(self.poll).await;
        }
    }
}

/// Brings the import ledger up to date, once what it would say is written.
struct Ledger {
    store: Arc<dyn ActivityStore>,
    stats: Arc<RecorderStats>,
    /// What the ledger says now, of the file being read.
    noted: Option<Imported>,
    /// The next notes, oldest first, each with the hits queued when it was
    /// offered: it is made once that many are written. A file left behind
    /// by a rotation or a truncation keeps its own.
    offered: VecDeque<(Imported, u64)>,
}

impl Ledger {
    /// Offers `entry` as a note, to be made once every hit queued so far
    /// is written; reading goes on meanwhile.
    fn offer(&mut self, entry: Imported) {
        if self.noted.as_ref() == Some(&entry) {
            return;
        }
        let queued = self.stats.snapshot().queued;
        // A later note of the same file replaces the one still waiting.
        if let Some(last) = self.offered.back_mut()
            && last.0.log == entry.log
        {
            *last = (entry, queued);
        } else {
            self.offered.push_back((entry, queued));
        }
    }

    /// Makes the offered notes whose hits are written by now.
    async fn settle(&mut self) -> anyhow::Result<()> {
        let now = self.stats.snapshot();
        not_lost(&now)?;
        while self
            .offered
            .front()
            .is_some_and(|(_, queued)| now.written >= *queued)
        {
            if let Some((entry, _)) = self.offered.pop_front() {
                self.mark(entry).await?;
            }
        }
        Ok(())
    }

    /// After the writer has finished: makes every offered note, then
    /// `last`, the file being read at the stop.
    async fn finish(mut self, written: &StatsSnapshot, last: Imported) -> anyhow::Result<()> {
        not_lost(written)?;
        while let Some((entry, _)) = self.offered.pop_front() {
            self.mark(entry).await?;
        }
        if self.noted.as_ref() != Some(&last) {
            self.mark(last).await?;
        }
        Ok(())
    }

    async fn mark(&mut self, entry: Imported) -> anyhow::Result<()> {
        self.store
            .mark_imported(&entry)
            .await
            .context("the hits are written, but the import ledger could not be updated")?;
        self.noted = Some(entry);
        Ok(())
    }
}

/// Fails if the writer has lost or dropped hits: the ledger must then stay
/// where it was, so that following again reads those lines again.
fn not_lost(written: &StatsSnapshot) -> anyhow::Result<()> {
    anyhow::ensure!(
        written.lost == 0 && written.dropped == 0,
        "{} hits could not be written ({} lost, {} dropped); the import ledger stays at its last note, so following again retries from there",
        written.lost + written.dropped,
        written.lost,
        written.dropped
    );
    Ok(())
}

/// Whether the follower was told to stop, and a wait that ends when it is.
struct Stopping {
    set: Arc<AtomicBool>,
    wake: Arc<Notify>,
    task: JoinHandle<()>,
}

impl Stopping {
    /// Watches `stop` from now on.
    fn on(stop: impl Future<Output = ()> + Send + 'static) -> Self {
        let set = Arc::new(AtomicBool::new(false));
        let wake = Arc::new(Notify::new());
        let task = tokio::spawn({
            let (set, wake) = (set.clone(), wake.clone());
            async move {
                stop.await;
                set.store(true, Ordering::Release);
                wake.notify_one();
            }
        });
        Self { set, wake, task }
    }

    fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Waits `wait`, or less if told to stop meanwhile.
    async fn sleep(&self, wait: Duration) {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = self.wake.notified() => {}
        }
    }
}

impl Drop for Stopping {
    fn drop(&mut self) {
        self.task.abort();
    }
}
