//! What the recorder has done: hits queued, dropped, written, lost. Shared
//! between the layer, the writer and whoever shows it (the Admin tab).

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// Counters the layer and the writer update as they go.
#[derive(Debug, Default)]
pub struct RecorderStats {
    queued: AtomicU64,
    dropped: AtomicU64,
    written: AtomicU64,
    failed_writes: AtomicU64,
    lost: AtomicU64,
}

/// The counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsSnapshot {
    /// Hits handed to the queue.
    pub queued: u64,
    /// Hits dropped because the queue was full (or the writer gone).
    pub dropped: u64,
    /// Hits written to the store.
    pub written: u64,
    /// Writes that failed (and were retried).
    pub failed_writes: u64,
    /// Hits given up on after the store failed for too long.
    pub lost: u64,
}

impl RecorderStats {
    pub(crate) fn queued(&self) {
        self.queued.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn dropped(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn written(&self, hits: u64) {
        self.written.fetch_add(hits, Ordering::Relaxed);
    }

    pub(crate) fn failed_write(&self) {
        self.failed_writes.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn lost(&self, hits: u64) {
        self.lost.fetch_add(hits, Ordering::Relaxed);
    }

    /// The counters now.
    pub fn snapshot(&self) -> StatsSnapshot {
        StatsSnapshot {
            queued: self.queued.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            failed_writes: self.failed_writes.load(Ordering::Relaxed),
            lost: self.lost.load(Ordering::Relaxed),
        }
    }
}
