//! The background writer: drains the queue in batches (every second, or
//! every `flush_hits` hits, and under load everything waiting up to
//! `max_batch_hits`), folds each batch into rows and adds them to the rows
//! pending ([`PendingRows`]); once every `flush_every` it writes what is
//! pending, so each row is written at most once an interval however many
//! requests its visitor made (sooner only when more than
//! `max_pending_rows` are pending: memory stays bounded, nothing is dropped).
//! It looks at the queue every few milliseconds instead of waiting on it, so
//! a request that queues a hit never has to wake another thread. A write
//! runs as a task of its own beside the draining and folding: a write that
//! takes seconds (an interval's rows to a remote database under load) never
//! leaves the queue to fill; one write at a time.
//! A failed write is retried with backoff, together with what arrives
//! meanwhile, as long as it holds at most `max_pending_hits`; beyond that
//! the oldest batches are given up, one at a time, until what is held fits
//! again, and their hits are counted as lost (the newest are kept: when the
//! store comes back, the recent past is what the tab shows first). What
//! waits behind a write still in flight (a store that succeeds, slowly) is
//! bounded the same way; the write's own batches are never given up. When
//! [`WriterHandle::finish`] is called (the server stopped), or every sender
//! is gone (an import's feed dropped), it closes the queue, writes what is
//! left and ends. Before folding, it caps the paths each hour keeps
//! ([`PathBudget`]) and works out the signs that need a
//! visitor-day's recent past (`verdict::watch::Watch`: a file before the page, a
//! form posted at once, a rate no reader keeps), in arrival order.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::port::rows::Batch;
use crate::port::store::{ActivityStore, StoreError};
use crate::recording::budget::PathBudget;
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
    /// Hits held while the store fails, or waiting behind a slow write;
    /// beyond this the oldest are lost.
    pub max_pending_hits: u64,
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
            max_pending_hits: 1_000_000,
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
    let (feed, writer) = start_feed(store, config);
    let layer = ActivityLayer::new(counter, feed.sender, writer.stats(), config.peer_address);
    (layer, writer)
}

/// Starts a writer fed by hand rather than by requests (an import, a
/// benchmark): [`HitFeed::send`] waits for room instead of dropping.
pub fn start_feed(
    store: Arc<dyn ActivityStore>,
    config: RecorderConfig,
) -> (HitFeed, WriterHandle) {
    let (sender, receiver) = mpsc::channel(config.queue.max(1));
    let stats = Arc::new(RecorderStats::default());
    let closing = Arc::new(AtomicBool::new(false));
    let task = tokio::spawn(run(receiver, store, config, stats.clone(), closing.clone()));
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
) {
    let flush_hits = config.flush_hits.max(1);
    let max_batch = config.max_batch_hits.max(flush_hits);
    let mut buffer: Vec<Seen> = Vec::with_capacity(flush_hits);
    let mut watch = Watch::default();
    let mut budget = PathBudget::new(config.paths_per_hour);
    let mut pending = PendingRows::default();
    let mut write_at = Instant::now() + config.flush_every;
    stats.next_write(due_after(config.flush_every));
    let mut held = Held::default();
    let mut backoff = Duration::from_millis(100);
    let mut retry_at: Option<Instant> = None;
    let mut retention_at = Instant::now();
    let mut writing: Option<InFlight> = None;
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
            pending.add(Batch::fold_all(&buffer));
            buffer.clear();
        }
        // Once an interval (or early, past the cap; or at the stop), what
        // is pending becomes a write.
        let now = Instant::now();
        if now >= write_at || pending.rows() >= config.max_pending_rows || closed {
            if !pending.is_empty() {
                held.push(pending.take());
                // What waits behind a write in flight (a slow store that
                // still succeeds) or a retry is bounded as after a failure;
                // a write's own batches are its to finish.
                if writing.is_some() || retry_at.is_some() {
                    let from = writing.as_ref().map_or(0, |flight| flight.upto);
                    give_up(&mut held, from, config.max_pending_hits, &stats, &*store);
                }
            }
            write_at = now + config.flush_every;
            stats.next_write(due_after(config.flush_every));
        }
        // A write runs beside the draining (the queue never waits on the
        // store: a long write under load would fill it); its outcome is
        // taken once it is done, or waited for at the stop.
        if let Some(flight) = writing.take_if(|flight| closed || flight.task.is_finished()) {
            match flight.task.await {
                Ok((_, Ok(()))) => {
                    stats.written(flight.hits, flight.files, flight.rows);
                    held.written(flight.upto);
                    backoff = Duration::from_millis(100);
                    retry_at = None;
                }
                Ok((batch, Err(error))) => {
                    stats.failed_write();
                    tracing::warn!(store = %store.name(), %error, hits = batch.hits, "cannot write activity; will retry");
                    // A throttled store said how long to wait: no sooner.
                    retry_at =
                        Some(Instant::now() + backoff.max(error.retry_after().unwrap_or_default()));
                    // A store that will not recover soon is asked again
                    // only at the longest wait.
                    backoff = if error.is_transient() {
                        (backoff * 2).min(MAX_BACKOFF)
                    } else {
                        MAX_BACKOFF
                    };
                    held.keep_merged(batch, flight.upto);
                    give_up(&mut held, 0, config.max_pending_hits, &stats, &*store);
                }
                Err(error) => {
                    // The write panicked: its batch went with it.
                    stats.lost(flight.hits, flight.files);
                    held.written(flight.upto);
                    tracing::error!(store = %store.name(), %error, hits = flight.hits, "a write of activity failed abnormally; its hits are lost");
                }
            }
        }
        let due = retry_at.is_none_or(|at| Instant::now() >= at);
        if writing.is_none() && !held.is_empty() && due && !closed {
            let upto = held.len();
            let batch = held.merged();
            let (hits, files, rows) = (batch.hits, batch.files, batch.rows());
            let store = store.clone();
            writing = Some(InFlight {
                task: tokio::spawn(async move {
                    let result = store.record(&batch).await;
                    (batch, result)
                }),
                upto,
                hits,
                files,
                rows,
            });
        }
        if writing.is_none() && Instant::now() >= retention_at {
            if let Err(error) = store.enforce_retention(Utc::now()).await {
                tracing::warn!(store = %store.name(), %error, "cannot delete expired rows");
            }
            retention_at = Instant::now() + config.retention_every;
        }
        if closed {
            finish(&*store, held.merged(), &stats).await;
            return;
        }
    }
}

/// What the writer holds while the store fails: batches in the order they
/// arrived, so that the oldest is the one given up first. A failed write
/// keeps its merge beside them, so a long outage does not merge the same
/// batches again at every retry.
#[derive(Debug, Default)]
struct Held {
    batches: VecDeque<Batch>,
    merged: Option<(usize, Batch)>,
}

impl Held {
    fn push(&mut self, batch: Batch) {
        self.batches.push_back(batch);
    }

    fn is_empty(&self) -> bool {
        self.batches.iter().all(Batch::is_empty)
    }

    /// How many batches it holds (a write of [`merged`](Self::merged)
    /// covers this many).
    fn len(&self) -> usize {
        self.batches.len()
    }

    /// The first `upto` batches are written: they go.
    fn written(&mut self, upto: usize) {
        self.batches.drain(..upto.min(self.batches.len()));
        self.merged = None;
    }

    /// Every held batch as one write (the merge kept from the last failed
    /// try, plus what arrived since). Hand it back with
    /// [`keep_merged`](Self::keep_merged) if the write fails.
    fn merged(&mut self) -> Batch {
        match self.merged.take() {
            // The common case, a store that keeps up: one batch, no copy.
            None if self.batches.len() == 1 => std::mem::take(&mut self.batches[0]),
            None => self
                .batches
                .iter()
                .cloned()
                .fold(Batch::default(), Batch::merge),
            Some((from, base)) => self
                .batches
                .iter()
                .skip(from)
                .cloned()
                .fold(base, Batch::merge),
        }
    }

    /// Keeps the merge of the first `upto` held batches (a failed write's)
    /// for the next try; batches held since are merged into it then.
    fn keep_merged(&mut self, batch: Batch, upto: usize) {
        if upto == 1 {
            self.batches[0] = batch;
        } else {
            self.merged = Some((upto, batch));
        }
    }

    /// The hits of the batches from the `from`th on.
    fn hits_from(&self, from: usize) -> u64 {
        self.batches.iter().skip(from).map(|batch| batch.hits).sum()
    }

    /// Gives up the oldest batches from the `from`th on (the first `from`
    /// are a write's in flight, 0 when none is) until those hold at most
    /// `most` hits; returns the hits and the marks given up.
    fn give_up_oldest_beyond(&mut self, from: usize, most: u64) -> (u64, u64) {
        let mut given_up = (0, 0);
        while self.hits_from(from) > most {
            let Some(oldest) = self.batches.remove(from) else {
                break;
            };
            given_up.0 += oldest.hits;
            given_up.1 += oldest.files;
            // A kept merge that holds the batch given up is merged again next time.
            if self
                .merged
                .as_ref()
                .is_some_and(|(covers, _)| from < *covers)
            {
                self.merged = None;
            }
        }
        given_up
    }
}

/// Gives up the oldest held batches from the `from`th on beyond `most`
/// hits, and says so (counted as lost, logged once).
fn give_up(
    held: &mut Held,
    from: usize,
    most: u64,
    stats: &RecorderStats,
    store: &dyn ActivityStore,
) {
    let (given_up, files) = held.give_up_oldest_beyond(from, most);
    if given_up > 0 {
        stats.lost(given_up, files);
        tracing::error!(store = %store.name(), hits = given_up, "gave up the oldest held activity: the store has failed or fallen behind too long");
    }
}

/// A write running beside the draining: what it covers.
struct InFlight {
    /// The write; it hands its batch back, to be kept if it failed.
    task: JoinHandle<(Batch, Result<(), StoreError>)>,
    /// The held batches it writes (the first this many).
    upto: usize,
    hits: u64,
    files: u64,
    rows: u64,
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

/// The last write at shutdown: a few quick tries, then what is left is lost.
async fn finish(store: &dyn ActivityStore, pending: Batch, stats: &RecorderStats) {
    if pending.is_empty() {
        return;
    }
    for attempt in 0..3u32 {
        match store.record(&pending).await {
            Ok(()) => {
                stats.written(pending.hits, pending.files, pending.rows());
                return;
            }
            Err(error) => {
                stats.failed_write();
                tracing::warn!(store = %store.name(), %error, attempt, "cannot write activity at shutdown");
                tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt + 1))).await;
            }
        }
    }
    stats.lost(pending.hits, pending.files);
    tracing::error!(store = %store.name(), hits = pending.hits, "activity lost at shutdown: the store kept failing");
}
