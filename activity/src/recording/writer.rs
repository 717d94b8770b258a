//! The background writer: drains the queue in batches (every `flush_every`
//! or every `flush_hits` hits, and under load everything waiting up to
//! `max_batch_hits`), folds each batch into rows, and writes it.
//! It looks at the queue every few milliseconds instead of waiting on it, so
//! a request that queues a hit never has to wake another thread.
//! A failed write is retried with backoff, together with what arrives
//! meanwhile, as long as it holds at most `max_pending_hits`; beyond that
//! the oldest batch is given up and counted as lost. When every sender is
//! gone (the server stopped), it writes what is left and ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::Utc;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::hit::{Counter, Hit};
use crate::recording::layer::{ActivityLayer, PeerAddress, socket_addr_extension};
use crate::recording::stats::{RecorderStats, StatsSnapshot};
use crate::rows::Batch;
use crate::store::ActivityStore;

/// How the recorder queues and writes.
#[derive(Clone, Copy, Debug)]
pub struct RecorderConfig {
    /// Hits the queue holds before new ones are dropped.
    pub queue: usize,
    /// Write at least this often when hits are waiting.
    pub flush_every: Duration,
    /// Write as soon as this many hits are waiting.
    pub flush_hits: usize,
    /// The most hits one write takes when more are waiting: a store that
    /// falls behind gets bigger batches, which fold into fewer rows per hit.
    pub max_batch_hits: usize,
    /// Hits held for retrying while the store fails; beyond this they are lost.
    pub max_pending_hits: u64,
    /// How often to delete rows past their retention.
    pub retention_every: Duration,
    /// How the layer finds a request's peer address.
    pub peer_address: PeerAddress,
}

impl Default for RecorderConfig {
    fn default() -> Self {
        Self {
            queue: 65_536,
            flush_every: Duration::from_secs(1),
            flush_hits: 1_000,
            max_batch_hits: 50_000,
            max_pending_hits: 1_000_000,
            retention_every: Duration::from_secs(3_600),
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
    sender: mpsc::Sender<Hit>,
    stats: Arc<RecorderStats>,
}

impl HitFeed {
    /// Queues one hit; waits while the queue is full. Fails only if the
    /// writer has stopped.
    pub async fn send(&self, hit: Hit) -> Result<(), WriterStopped> {
        self.sender.send(hit).await.map_err(|_| WriterStopped)?;
        self.stats.queued();
        Ok(())
    }
}

/// The writer task is gone, so a hit could not be queued.
#[derive(Debug, thiserror::Error)]
#[error("the activity writer has stopped")]
pub struct WriterStopped;

async fn run(
    mut queue: mpsc::Receiver<Hit>,
    store: Arc<dyn ActivityStore>,
    config: RecorderConfig,
    stats: Arc<RecorderStats>,
    closing: Arc<AtomicBool>,
) {
    let flush_hits = config.flush_hits.max(1);
    let max_batch = config.max_batch_hits.max(flush_hits);
    let mut buffer: Vec<Hit> = Vec::with_capacity(flush_hits);
    let mut pending = Batch::default();
    let mut backoff = Duration::from_millis(100);
    let mut retry_at: Option<Instant> = None;
    let mut retention_at = Instant::now();
    loop {
        let closed = collect(
            &mut queue,
            &closing,
            &mut buffer,
            (flush_hits, max_batch),
            Instant::now() + config.flush_every,
        )
        .await;
        if !buffer.is_empty() {
            stats.arrived(buffer.iter().map(|hit| hit.at));
            pending = std::mem::take(&mut pending).merge(Batch::fold(&buffer));
            buffer.clear();
        }
        let due = retry_at.is_none_or(|at| Instant::now() >= at);
        if !pending.is_empty() && (due || closed) {
            match store.record(&pending).await {
                Ok(()) => {
                    stats.written(pending.hits);
                    pending = Batch::default();
                    backoff = Duration::from_millis(100);
                    retry_at = None;
                }
                Err(error) => {
                    stats.failed_write();
                    tracing::warn!(store = %store.name(), %error, hits = pending.hits, "cannot write activity; will retry");
                    retry_at = Some(Instant::now() + backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(30));
                    if pending.hits > config.max_pending_hits {
                        stats.lost(pending.hits);
                        pending = Batch::default();
                    }
                }
            }
        }
        if Instant::now() >= retention_at {
            if let Err(error) = store.enforce_retention(Utc::now()).await {
                tracing::warn!(store = %store.name(), %error, "cannot delete expired rows");
            }
            retention_at = Instant::now() + config.retention_every;
        }
        if closed {
            finish(&*store, pending, &stats).await;
            return;
        }
    }
}

/// How often an idle writer looks at the queue.
const TICK: Duration = Duration::from_millis(10);

/// Fills `buffer` until it holds `flush` hits or `deadline` passes, then takes
/// whatever else is already waiting, up to `most`. Returns `true` once the
/// queue is closed and empty (the server stopped: every sender is gone, or
/// `closing` says the writer is told to finish).
async fn collect(
    queue: &mut mpsc::Receiver<Hit>,
    closing: &AtomicBool,
    buffer: &mut Vec<Hit>,
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

/// The last write at shutdown: a few quick tries, then what is left is lost.
async fn finish(store: &dyn ActivityStore, pending: Batch, stats: &RecorderStats) {
    if pending.is_empty() {
        return;
    }
    for attempt in 0..3u32 {
        match store.record(&pending).await {
            Ok(()) => {
                stats.written(pending.hits);
                return;
            }
            Err(error) => {
                stats.failed_write();
                tracing::warn!(store = %store.name(), %error, attempt, "cannot write activity at shutdown");
                tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt + 1))).await;
            }
        }
    }
    stats.lost(pending.hits);
    tracing::error!(store = %store.name(), hits = pending.hits, "activity lost at shutdown: the store kept failing");
}
