//! The background writer: drains the queue in batches (every second, or
//! every `flush_hits` hits, and under load everything waiting up to
//! `max_batch_hits`), folds each batch into rows and adds them to the rows
//! waiting ([`PendingRows`]); once every `flush_every` what waits becomes a
//! write, so each row is written at most once an interval however many
//! requests its visitor made (sooner only when more than
//! `max_pending_rows` wait). It looks at the queue every few milliseconds
//! instead of waiting on it, so a request that queues a hit never has to
//! wake another thread. A write runs as a task of its own beside the
//! draining and folding: a write that takes seconds (an interval's rows to
//! a remote database under load) never leaves the queue to fill; one write
//! at a time.
//!
//! A write carries a name ([`BatchId`]). One that fails is sent again with
//! backoff, unchanged and under the same name, so a store that keeps the
//! names it applied adds it once even if an earlier try's reply was lost;
//! what arrives meanwhile keeps folding into the rows waiting behind it,
//! so a long outage costs memory by distinct rows (visitors, hours and
//! paths), not by requests. What is held is bounded in bytes
//! (`max_held_bytes`): past it, whole visitor-days of what waits are given
//! up, the oldest day's first, counted as lost and said. For a store given
//! a [`Journal`], what is held while it fails is also kept on disk, so a
//! stop or a crash loses none of it: the next start takes it up and writes
//! it once the store answers.
//!
//! When [`WriterHandle::finish`] is called (the server stopped), or every
//! sender is gone (an import's feed dropped), it closes the queue, writes
//! what is left (or leaves it in the journal) and ends. Before folding, it
//! caps the paths each hour keeps ([`PathBudget`]) and works out the signs
//! that need a visitor-day's recent past (`verdict::watch::Watch`: a file
//! before the page, a form posted at once, a rate no reader keeps), in
//! arrival order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::port::rows::{Batch, BatchId};
use crate::port::store::{ActivityStore, StoreError};
use crate::recording::budget::PathBudget;
use crate::recording::journal::{Journal, JournalError, Left};
use crate::recording::layer::{ActivityLayer, PeerAddress, socket_addr_extension};
use crate::recording::pending::PendingRows;
use crate::recording::recorder_stats::{RecorderStats, StatsSnapshot};
use crate::request::hit::Counter;
use crate::request::seen::Seen;
use crate::verdict::watch::Watch;

/// How the recorder queues and writes.
#[derive(Clone, Copy, Debug)]
pub struct RecorderConfig {
    /// Hits the queue holds before new ones are dropped.
    pub queue: usize,
    /// Write what is pending this often: each row at most once an
    /// interval. Also the most a crash (SIGKILL) can lose.
    pub flush_every: Duration,
    /// Fold as soon as this many hits are waiting (they are folded at least
    /// every second anyway).
    pub flush_hits: usize,
    /// Write early, before the interval is over, once this many rows are
    /// pending (see [`PendingRows::rows`]).
    pub max_pending_rows: usize,
    /// The most hits one write takes when more are waiting: a store that
    /// falls behind gets bigger batches, which fold into fewer rows per hit.
    pub max_batch_hits: usize,
    /// The most memory the rows held may take, in bytes as the writer
    /// estimates them ([`PendingRows::bytes`]): what waits behind a slow
    /// write or for a store that fails. Past it, whole visitor-days are
    /// given up, the oldest first, and counted as lost.
    pub max_held_bytes: u64,
    /// The most a journal ([`Journal`]) may take on disk; a journal that
    /// would take more keeps what it held before, and says so.
    pub max_journal_bytes: u64,
    /// How often to delete rows past their retention.
    pub retention_every: Duration,
    /// The most distinct paths kept per store and hour; requests for any
    /// other are counted under `(other paths)`.
    pub paths_per_hour: usize,
    /// How the layer finds a request's peer address.
    pub peer_address: PeerAddress,
}

impl Default for RecorderConfig {
    fn default() -> Self {
        Self {
            queue: 65_536,
            flush_every: Duration::from_secs(10),
            // A quarter of the queue: folded as it comes, written once an interval.
            flush_hits: 16_384,
            // A visitor-day with its paths and sources is a few hundred
            // bytes: tens of MB at most. Room for every visitor of a busy
            // interval (65,536 in 10 s measured 143 MB peak RSS in all, in
            // docs/BENCHMARKS.md); a smaller cap writes the same rows
            // again within the interval.
            max_pending_rows: 200_000,
            max_batch_hits: 50_000,
            // 100,000 visitor-days with their paths take about 50 MB.
            max_held_bytes: 256 * 1024 * 1024,
            max_journal_bytes: 1024 * 1024 * 1024,
            retention_every: Duration::from_secs(3_600),
            paths_per_hour: 1_000,
            peer_address: socket_addr_extension,
        }
    }
}

/// The running writer.
#[derive(Debug)]
pub struct WriterHandle {
    task: JoinHandle<()>,
    stats: Arc<RecorderStats>,
    /// Set by [`finish`](Self::finish): the writer closes its queue.
    closing: Arc<AtomicBool>,
}

impl WriterHandle {
    /// What the recorder has done so far.
    pub fn stats(&self) -> Arc<RecorderStats> {
        self.stats.clone()
    }

    /// Closes the queue, then waits until the writer has written what was
    /// queued and ended. Stop the server first: a hit offered after this is
    /// refused and counted as dropped (a request the server gave up
    /// waiting for may still hold a clone of the [`ActivityLayer`]).
    pub async fn finish(self) -> StatsSnapshot {
        self.closing.store(true, Ordering::Release);
        if let Err(error) = self.task.await {
            tracing::error!(%error, "the activity writer stopped abnormally");
        }
        self.stats.snapshot()
    }
}

/// Starts recording into `store`: returns the layer to put in front of the
/// app, and the handle of the writer task (needs a Tokio runtime).
pub fn start(
    counter: Counter,
    store: Arc<dyn ActivityStore>,
    config: RecorderConfig,
) -> (ActivityLayer, WriterHandle) {
    start_journaled(counter, store, config, None)
}

/// [`start`], with a journal that keeps what is held for a failing store
/// on disk (for a remote store: a local file, in the data folder). At
/// start the writer takes up what an earlier run left in it.
pub fn start_journaled(
    counter: Counter,
    store: Arc<dyn ActivityStore>,
    config: RecorderConfig,
    journal: Option<Journal>,
) -> (ActivityLayer, WriterHandle) {
    let (feed, writer) = spawn(store, config, journal.map(Arc::new));
    let layer = ActivityLayer::new(counter, feed.sender, writer.stats(), config.peer_address);
    (layer, writer)
}

/// Starts a writer fed by hand rather than by requests (an import, a
/// benchmark): [`HitFeed::send`] waits for room instead of dropping.
pub fn start_feed(
    store: Arc<dyn ActivityStore>,
    config: RecorderConfig,
) -> (HitFeed, WriterHandle) {
    spawn(store, config, None)
}

fn spawn(
    store: Arc<dyn ActivityStore>,
    config: RecorderConfig,
    journal: Option<Arc<Journal>>,
) -> (HitFeed, WriterHandle) {
    let (sender, receiver) = mpsc::channel(config.queue.max(1));
    let stats = Arc::new(RecorderStats::default());
    let closing = Arc::new(AtomicBool::new(false));
    let task = tokio::spawn(run(
        receiver,
        store,
        config,
        stats.clone(),
        closing.clone(),
        journal,
    ));
    (
        HitFeed {
            sender,
            stats: stats.clone(),
        },
        WriterHandle {
            task,
            stats,
            closing,
        },
    )
}

/// Hands hits to a writer, waiting when its queue is full. Drop every clone
/// to let the writer finish.
#[derive(Clone, Debug)]
pub struct HitFeed {
    sender: mpsc::Sender<Seen>,
    stats: Arc<RecorderStats>,
}

impl HitFeed {
    /// Queues one hit (or a file's mark); waits while the queue is full.
    /// Fails only if the writer has stopped.
    pub async fn send(&self, seen: impl Into<Seen>) -> Result<(), WriterStopped> {
        let seen = seen.into();
        let hit = matches!(seen, Seen::Hit(_));
        self.sender.send(seen).await.map_err(|_| WriterStopped)?;
        if hit {
            self.stats.queued();
        } else {
            self.stats.queued_mark();
        }
        Ok(())
    }
}

/// The writer task is gone, so a hit could not be queued.
#[derive(Debug, thiserror::Error)]
#[error("the activity writer has stopped")]
pub struct WriterStopped;

async fn run(
    mut queue: mpsc::Receiver<Seen>,
    store: Arc<dyn ActivityStore>,
    config: RecorderConfig,
    stats: Arc<RecorderStats>,
    closing: Arc<AtomicBool>,
    journal: Option<Arc<Journal>>,
) {
    let flush_hits = config.flush_hits.max(1);
    let max_batch = config.max_batch_hits.max(flush_hits);
    let most_bytes = usize::try_from(config.max_held_bytes).unwrap_or(usize::MAX);
    let mut buffer: Vec<Seen> = Vec::with_capacity(flush_hits);
    let mut watch = Watch::default();
    let mut budget = PathBudget::new(config.paths_per_hour);
    let mut held = Held::default();
    // What an earlier run left is read beside the draining (a big journal
    // takes a while); nothing is written before it is taken up.
    if let Some(journal) = &journal {
        let journal = journal.clone();
        held.taking_up = Some(tokio::task::spawn_blocking(move || journal.load()));
    }
    let mut write_at = Instant::now() + config.flush_every;
    let mut write_due = false;
    let mut keep_at = Instant::now() + config.flush_every;
    stats.next_write(due_after(config.flush_every));
    let mut backoff = Duration::from_millis(100);
    let mut retry_at: Option<Instant> = None;
    let mut retention_at = Instant::now();
    let mut writing: Option<JoinHandle<Result<(), StoreError>>> = None;
    loop {
        let closed = collect(
            &mut queue,
            &closing,
            &mut buffer,
            (flush_hits, max_batch),
            (Instant::now() + FOLD_EVERY).min(write_at),
        )
        .await;
        if !buffer.is_empty() {
            budget.admit(&*store, &mut buffer).await;
            // The signs that need time, in arrival order, before folding.
            for seen in &mut buffer {
                watch.see(seen);
            }
            stats.arrived(buffer.iter().filter_map(|seen| match seen {
                Seen::Hit(hit) => Some(hit.at),
                Seen::Files(_) | Seen::Scripts(_) => None,
            }));
            held.fold(Batch::fold_all(&buffer));
            buffer.clear();
            // Past the budget, whole visitor-days are given up, oldest
            // first, down to nine tenths of it (not one at every fold).
            held.give_up_beyond(most_bytes, &stats, &*store);
        }
        if let Some(task) = held.taking_up.take_if(|task| closed || task.is_finished()) {
            write_due |= held.take_up(task.await, journal.as_deref(), &stats, &*store);
        }
        // Once an interval (or early, past the cap; or at the stop), what
        // is waiting becomes the next write.
        let now = Instant::now();
        if now >= write_at || closed {
            write_due = true;
            write_at = now + config.flush_every;
            stats.next_write(due_after(config.flush_every));
        }
        write_due |= held.waiting.rows() >= config.max_pending_rows;
        // While a store fails, the journal follows what is held, once an
        // interval.
        if let Some(journal) = &journal
            && held.journaling
            && now >= keep_at
        {
            held.keep_in(journal, &stats);
            keep_at = now + config.flush_every;
        }
        // A write runs beside the draining (the queue never waits on the
        // store: a long write under load would fill it); its outcome is
        // taken once it is done, or waited for at the stop.
        if let Some(task) = writing.take_if(|task| closed || task.is_finished()) {
            let outcome = task.await;
            held.settle(outcome, &stats, &*store, journal.as_deref());
            match held.outgoing.as_ref().and_then(|out| out.error.as_ref()) {
                None => {
                    backoff = Duration::from_millis(100);
                    retry_at = None;
                }
                Some(error) => {
                    // A throttled store said how long to wait: no sooner.
                    let wait = error.retry_after();
                    retry_at = Some(Instant::now() + backoff.max(wait.unwrap_or_default()));
                    // A store that will not recover soon is asked again
                    // only at the longest wait.
                    backoff = if error.is_transient() {
                        (backoff * 2).min(MAX_BACKOFF)
                    } else {
                        MAX_BACKOFF
                    };
                    if let Some(journal) = &journal
                        && !held.journaling
                    {
                        // The first failure: the journal starts with what is held.
                        held.journaling = true;
                        held.keep_in(journal, &stats);
                        keep_at = Instant::now() + config.flush_every;
                    }
                }
            }
        }
        let due = retry_at.is_none_or(|at| Instant::now() >= at);
        if writing.is_none() && due && !closed && held.taking_up.is_none() {
            if held.outgoing.is_none() && write_due && !held.waiting.is_empty() {
                held.next_outgoing();
                write_due = false;
            }
            let seq = held.seq();
            let journaling = held.journaling;
            if let Some(out) = &mut held.outgoing {
                // A new batch is named in the journal before it is sent.
                let journal = journal
                    .clone()
                    .filter(|_| journaling && !out.journaled)
                    .map(|journal| (journal, seq, out.since));
                out.journaled |= journal.is_some();
                writing = Some(tokio::spawn(send(
                    store.clone(),
                    out.batch.clone(),
                    journal,
                    stats.clone(),
                )));
            }
        }
        held.say(&stats);
        if writing.is_none() && Instant::now() >= retention_at {
            if let Err(error) = store.enforce_retention(Utc::now()).await {
                tracing::warn!(store = %store.name(), %error, "cannot delete expired rows");
            }
            retention_at = Instant::now() + config.retention_every;
        }
        if closed {
            held.finish(&*store, &stats, journal.as_deref()).await;
            held.say(&stats);
            return;
        }
    }
}

/// Writes `batch`; while a store fails (a journal is given), first keeps
/// it in the journal under its name, so a batch the store may take is
/// always there to be sent again, and counts once if it is.
async fn send(
    store: Arc<dyn ActivityStore>,
    batch: Arc<Batch>,
    journal: Option<(Arc<Journal>, u64, Option<DateTime<Utc>>)>,
    stats: Arc<RecorderStats>,
) -> Result<(), StoreError> {
    if let Some((journal, seq, since)) = journal {
        let kept = {
            let batch = batch.clone();
            tokio::task::spawn_blocking(move || {
                journal.keep(seq, since, Some(&batch), &Batch::default())
            })
            .await
        };
        match kept {
            Ok(Ok(Some(bytes))) => stats.journal(bytes),
            Ok(Ok(None)) => {}
            Ok(Err(error)) => {
                tracing::error!(store = %store.name(), %error, "cannot keep the journal; writing without it");
            }
            Err(error) => {
                tracing::error!(store = %store.name(), %error, "keeping the journal failed abnormally");
            }
        }
    }
    store.record(&batch).await
}

/// What the writer holds: the batch being written (or to be written
/// again, unchanged and under the same name, after it failed) and the
/// rows waiting behind it, folded (more requests from the same visitors
/// cost no more memory).
#[derive(Debug, Default)]
struct Held {
    outgoing: Option<Outgoing>,
    waiting: PendingRows,
    /// When the first hit of `waiting` arrived.
    waiting_since: Option<DateTime<Utc>>,
    /// Whether the journal follows what is held (from a failed write
    /// until all it held is written).
    journaling: bool,
    /// The order of the journal's keeps.
    seq: u64,
    /// A keep of the journal running beside the draining.
    keeping: Option<JoinHandle<()>>,
    /// The journal an earlier run left, being read.
    taking_up: Option<JoinHandle<Result<Option<Left>, JournalError>>>,
}

/// The batch being written, and how its last try ended.
#[derive(Debug)]
struct Outgoing {
    batch: Arc<Batch>,
    /// What it takes in memory.
    bytes: usize,
    rows: u64,
    /// When its first hit arrived.
    since: Option<DateTime<Utc>>,
    /// How its last try failed, if it did.
    error: Option<StoreError>,
    /// Whether the journal holds it under its name.
    journaled: bool,
}

impl Held {
    /// Adds a fold to what waits.
    fn fold(&mut self, batch: Batch) {
        if self.waiting.is_empty() {
            self.waiting_since = Some(Utc::now());
        }
        self.waiting.add(batch);
    }

    /// The next number for a journal's keep.
    fn seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// What waits becomes the batch to write, under a new name.
    fn next_outgoing(&mut self) {
        let bytes = self.waiting.bytes();
        let mut batch = self.waiting.take();
        batch.id = Some(new_id());
        self.outgoing = Some(Outgoing {
            rows: batch.rows(),
            batch: Arc::new(batch),
            bytes,
            since: self.waiting_since.take(),
            error: None,
            journaled: false,
        });
    }

    /// Takes up what an earlier run left in the journal, once read: its
    /// batch under its name becomes the next write, its waiting rows join
    /// what waits. Returns whether it left anything.
    fn take_up(
        &mut self,
        read: Result<Result<Option<Left>, JournalError>, tokio::task::JoinError>,
        journal: Option<&Journal>,
        stats: &RecorderStats,
        store: &dyn ActivityStore,
    ) -> bool {
        let left = match read {
            Ok(Ok(Some(left))) => left,
            Ok(Ok(None)) => return false,
            Ok(Err(error)) => {
                tracing::error!(store = %store.name(), %error, "cannot take up the journal");
                return false;
            }
            Err(error) => {
                tracing::error!(store = %store.name(), %error, "reading the journal failed abnormally");
                return false;
            }
        };
        let hits = left.outgoing.as_ref().map_or(0, |batch| batch.hits) + left.waiting.hits;
        stats.recovered(hits);
        stats.journal(journal.map_or(0, Journal::size));
        tracing::info!(store = %store.name(), hits, "taking up the activity an earlier run left in the journal");
        if let Some(mut batch) = left.outgoing {
            batch.id.get_or_insert_with(new_id);
            self.outgoing = Some(Outgoing {
                rows: batch.rows(),
                bytes: PendingRows::bytes_of(&batch),
                batch: Arc::new(batch),
                since: left.since,
                error: None,
                journaled: true,
            });
        }
        let was_empty = self.waiting.is_empty();
        self.waiting.add(left.waiting);
        if !self.waiting.is_empty() {
            self.waiting_since = match (left.since, self.waiting_since) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b).or_else(|| Some(Utc::now())),
            };
        }
        self.journaling = true;
        self.outgoing.is_some() || (was_empty && !self.waiting.is_empty())
    }

    /// Gives up whole visitor-days of what waits while what is held takes
    /// more than `most` bytes (the batch being written is the store's to
    /// finish), and says so.
    fn give_up_beyond(&mut self, most: usize, stats: &RecorderStats, store: &dyn ActivityStore) {
        let outgoing = self.outgoing.as_ref().map_or(0, |out| out.bytes);
        if self.waiting.bytes() + outgoing <= most {
            return;
        }
        let given_up = self
            .waiting
            .give_up_beyond((most / 10 * 9).saturating_sub(outgoing));
        if given_up.hits > 0 || given_up.visitor_days > 0 {
            stats.lost(given_up.hits, 0);
            tracing::error!(store = %store.name(), visitor_days = given_up.visitor_days, hits = given_up.hits, held_bytes = self.waiting.bytes() + outgoing, "gave up the oldest held visitor-days: the rows held for the store reached the budget (--max-held-mb)");
        }
    }

    /// Takes a write's outcome: written, it goes (and, with nothing else
    /// held, so does the journal); failed, it stays to be sent again as it
    /// is; a write that panicked took its batch with it.
    fn settle(
        &mut self,
        outcome: Result<Result<(), StoreError>, tokio::task::JoinError>,
        stats: &RecorderStats,
        store: &dyn ActivityStore,
        journal: Option<&Journal>,
    ) {
        let Some(out) = self.outgoing.as_mut() else {
            return;
        };
        let batch = &out.batch;
        match outcome {
            Ok(Ok(())) => {
                stats.written(batch.hits, batch.files, out.rows);
                self.outgoing = None;
                if self.journaling && self.waiting.is_empty() {
                    self.journaling = false;
                    if let Some(journal) = journal {
                        let seq = self.seq();
                        match journal.clear(seq) {
                            Ok(()) => stats.journal(0),
                            Err(error) => {
                                tracing::error!(store = %store.name(), %error, "cannot remove the journal");
                            }
                        }
                    }
                }
            }
            Ok(Err(error)) => {
                stats.failed_write();
                tracing::warn!(store = %store.name(), %error, hits = batch.hits, "cannot write activity; will retry");
                out.error = Some(error);
            }
            Err(error) => {
                stats.lost(batch.hits, batch.files);
                tracing::error!(store = %store.name(), %error, hits = batch.hits, "a write of activity failed abnormally; its hits are lost");
                self.outgoing = None;
            }
        }
    }

    /// Keeps what is held in the journal, beside the draining (one keep
    /// at a time; a later one waits for the next interval).
    fn keep_in(&mut self, journal: &Arc<Journal>, stats: &Arc<RecorderStats>) {
        if self
            .keeping
            .as_ref()
            .is_some_and(|task| !task.is_finished())
        {
            return;
        }
        let seq = self.seq();
        let outgoing = self.outgoing.as_mut().map(|out| {
            out.journaled = true;
            out.batch.clone()
        });
        let waiting = self.waiting.to_batch();
        let since = self.since();
        let (journal, stats) = (journal.clone(), stats.clone());
        self.keeping = Some(tokio::task::spawn_blocking(move || {
            match journal.keep(seq, since, outgoing.as_deref(), &waiting) {
                Ok(Some(bytes)) => stats.journal(bytes),
                Ok(None) => {}
                Err(error) => tracing::error!(%error, "cannot keep the journal"),
            }
        }));
    }

    /// When the oldest held row's first hit arrived.
    fn since(&self) -> Option<DateTime<Utc>> {
        let outgoing = self.outgoing.as_ref().and_then(|out| out.since);
        match (outgoing, self.waiting_since) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Says what is held in the figures.
    fn say(&self, stats: &RecorderStats) {
        let outgoing = self.outgoing.as_ref();
        let rows = outgoing.map_or(0, |out| out.rows) + self.waiting.rows() as u64;
        let bytes = outgoing.map_or(0, |out| out.bytes) + self.waiting.bytes();
        stats.held(rows, bytes as u64, self.since());
    }

    /// The last writes at the stop: the batch being written (under its
    /// name), then what waits, a few quick tries each. What the store
    /// still refuses is left in the journal for the next start, if there
    /// is one; else it is lost.
    async fn finish(
        &mut self,
        store: &dyn ActivityStore,
        stats: &RecorderStats,
        journal: Option<&Journal>,
    ) {
        if let Some(task) = self.keeping.take() {
            let _ = task.await;
        }
        if self.outgoing.is_none() && !self.waiting.is_empty() {
            self.next_outgoing();
        }
        loop {
            let seq = self.seq();
            let Some(out) = &self.outgoing else {
                break;
            };
            if self.journaling {
                // Named in the journal before it is sent (see `send`).
                if let Some(journal) = journal
                    && let Err(error) =
                        journal.keep(seq, out.since, Some(&out.batch), &self.waiting.to_batch())
                {
                    tracing::error!(store = %store.name(), %error, "cannot keep the journal");
                }
            }
            // A store that has been failing gets one try: the journal
            // keeps what it does not take, and the stop is not held up.
            let tries = if self.journaling { 1 } else { 3 };
            if !write_at_stop(store, &out.batch, stats, tries).await {
                break;
            }
            stats.written(out.batch.hits, out.batch.files, out.rows);
            self.outgoing = None;
            if !self.waiting.is_empty() {
                self.next_outgoing();
            }
        }
        let seq = self.seq();
        let Some(out) = &self.outgoing else {
            if self.journaling
                && let Some(journal) = journal
                && journal.clear(seq).is_ok()
            {
                stats.journal(0);
            }
            return;
        };
        let hits = out.batch.hits + self.waiting.hits();
        let kept = journal.map(|journal| {
            journal.keep(
                seq,
                self.since(),
                Some(&out.batch),
                &self.waiting.to_batch(),
            )
        });
        match kept {
            Some(Ok(bytes)) => {
                stats.kept(hits);
                stats.journal(bytes.unwrap_or_default());
                tracing::warn!(store = %store.name(), hits, "the store still fails: what it did not take is in the journal, for the next start");
            }
            Some(Err(error)) => {
                stats.lost(hits, out.batch.files + self.waiting.files());
                tracing::error!(store = %store.name(), %error, hits, "activity lost at shutdown: the store kept failing and the journal could not keep it");
            }
            None => {
                stats.lost(hits, out.batch.files + self.waiting.files());
                tracing::error!(store = %store.name(), hits, "activity lost at shutdown: the store kept failing");
            }
        }
        self.outgoing = None;
        self.waiting = PendingRows::default();
        self.waiting_since = None;
    }
}

/// A new batch's name: 16 random bytes (or, without them, the time and the
/// process: names need only differ).
fn new_id() -> BatchId {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = Utc::now().timestamp_nanos_opt().unwrap_or_default();
        bytes[..8].copy_from_slice(&nanos.to_le_bytes());
        bytes[8..12].copy_from_slice(&std::process::id().to_le_bytes());
    }
    BatchId::from_bytes(bytes)
}

/// The wall-clock time `after` from now (the writer's clock is an
/// `Instant`; a reader is told a time it can show).
fn due_after(after: Duration) -> DateTime<Utc> {
    chrono::TimeDelta::from_std(after)
        .ok()
        .and_then(|after| Utc::now().checked_add_signed(after))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// How often what is queued is folded, at the least.
const FOLD_EVERY: Duration = Duration::from_secs(1);

/// How often an idle writer looks at the queue.
const TICK: Duration = Duration::from_millis(10);

/// Fills `buffer` until it holds `flush` hits or `deadline` passes, then takes
/// whatever else is already waiting, up to `most`. Returns `true` once the
/// queue is closed and empty (the server stopped: every sender is gone, or
/// `closing` says the writer is told to finish).
async fn collect(
    queue: &mut mpsc::Receiver<Seen>,
    closing: &AtomicBool,
    buffer: &mut Vec<Seen>,
    (flush, most): (usize, usize),
    deadline: Instant,
) -> bool {
    loop {
        if closing.load(Ordering::Acquire) {
            // Hits already queued are still received; new ones are refused.
            queue.close();
        }
        // Senders are gone for good once closed, so an empty closed queue stays empty.
        let closed = queue.is_closed();
        while !queue.is_empty() && buffer.len() < most {
            // Something is waiting, so this returns at once without parking a waker.
            queue.recv_many(buffer, most - buffer.len()).await;
        }
        if closed && queue.is_empty() {
            return true;
        }
        if buffer.len() >= flush || Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(TICK.min(deadline.saturating_duration_since(Instant::now()))).await;
    }
}

/// The longest wait between two tries of a failing write.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A write at the stop: `tries` quick tries; whether the store took it.
async fn write_at_stop(
    store: &dyn ActivityStore,
    batch: &Batch,
    stats: &RecorderStats,
    tries: u32,
) -> bool {
    for attempt in 0..tries {
        match store.record(batch).await {
            Ok(()) => return true,
            Err(error) => {
                stats.failed_write();
                tracing::warn!(store = %store.name(), %error, attempt, "cannot write activity at shutdown");
                tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt + 1))).await;
            }
        }
    }
    false
}
