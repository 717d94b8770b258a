//! What the recorder has done: hits queued, dropped, written, lost, and how
//! many hits arrived in each recent second. Shared between the layer, the
//! writer and whoever shows it (the Admin tab); plain counters, so a reader
//! needs none of the `server` feature's runtime to hold them.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use chrono::{DateTime, Utc};

use serde::{Deserialize, Serialize};

/// Counters the layer and the writer update as they go.
#[derive(Debug, Default)]
pub struct RecorderStats {
    queued: AtomicU64,
    dropped: AtomicU64,
    written: AtomicU64,
    /// Rows the writes upserted (hourly rows, visitor-days with their
    /// paths and sources, bot days, marks).
    rows_written: AtomicU64,
    failed_writes: AtomicU64,
    lost: AtomicU64,
    /// Requests from a local or private address that carried a forwarding
    /// header while no proxy is trusted (`--trusted-proxy` is missing).
    untrusted_forwarding: AtomicU64,
    /// Requests whose peer address the layer could not find (an app served
    /// without axum's `ConnectInfo`).
    without_peer: AtomicU64,
    /// Marks of file requests the full queue could not take.
    dropped_marks: AtomicU64,
    /// Marks of file requests handed to the queue.
    marks_queued: AtomicU64,
    /// Marks of file requests written (in a batch the store took).
    marks_written: AtomicU64,
    /// Marks of file requests given up with the hits they were held with.
    marks_lost: AtomicU64,
    /// Hits the writer has taken from the queue (the rest of `queued` is
    /// still in it).
    taken: AtomicU64,
    /// When the writer next writes what it holds (Unix milliseconds; 0:
    /// no writer has said).
    next_write_ms: AtomicI64,
    /// Hits an earlier run left in the journal, taken up by this one.
    recovered: AtomicU64,
    /// Hits left in the journal at the stop, for the next start.
    kept: AtomicU64,
    /// Rows held now: waiting for the next write, or for a store that fails.
    held_rows: AtomicU64,
    /// What they take in memory (the writer's estimate).
    held_bytes: AtomicU64,
    /// The journal's size on disk (0: none).
    journal_bytes: AtomicU64,
    /// When the oldest held row's first hit arrived (Unix milliseconds; 0:
    /// nothing held).
    held_since_ms: AtomicI64,
    /// Hits per second (Unix seconds, oldest first), for the last
    /// [`RECENT_SECONDS`]; only the writer adds to it.
    recent: Mutex<VecDeque<(i64, u64)>>,
}

/// How far back [`RecorderStats::recent`] can look.
pub const RECENT_SECONDS: i64 = 600;

/// The counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsSnapshot {
    /// Hits handed to the queue.
    pub queued: u64,
    /// Hits dropped because the queue was full (or the writer gone).
    pub dropped: u64,
    /// Hits written to the store.
    pub written: u64,
    /// Rows the writes upserted: hourly rows, visitor-days, their paths
    /// and sources, bot days and marks (each counted once per write).
    #[serde(default)]
    pub rows_written: u64,
    /// Writes that failed (and were retried).
    pub failed_writes: u64,
    /// Hits given up on after the store failed for too long.
    pub lost: u64,
    /// Requests from a local or private address with a forwarding header
    /// that was not believed, because no proxy is trusted.
    pub untrusted_forwarding: u64,
    /// Requests counted without their peer address: every one of them
    /// under no network, none taken for the site's own read.
    #[serde(default)]
    pub without_peer: u64,
    /// Marks of a visitor-day's file requests (a browser's evidence) that
    /// the full queue could not take (its next file tries again).
    #[serde(default)]
    pub dropped_marks: u64,
    /// Marks of a visitor-day's file requests handed to the queue.
    #[serde(default)]
    pub marks_queued: u64,
    /// Marks written to the store.
    #[serde(default)]
    pub marks_written: u64,
    /// Marks given up with the hits they were held with.
    #[serde(default)]
    pub marks_lost: u64,
    /// When the writer next writes what it holds (the end of its interval),
    /// if a writer runs.
    #[serde(default)]
    pub next_write_at: Option<DateTime<Utc>>,
    /// Hits an earlier run left in the journal, taken up at this start
    /// (written, or lost, like any other).
    #[serde(default)]
    pub recovered: u64,
    /// Hits left in the journal at the stop, for the next start (the
    /// store still failed).
    #[serde(default)]
    pub kept: u64,
    /// Rows held now: waiting for the next write or for a store that
    /// fails (hourly rows, visitor-days, bot days, marks, goals' hours).
    #[serde(default)]
    pub held_rows: u64,
    /// What the held rows take in memory, as the writer estimates it.
    #[serde(default)]
    pub held_bytes: u64,
    /// The journal's size on disk (0: no journal, or nothing in it).
    #[serde(default)]
    pub journal_bytes: u64,
    /// When the oldest held row's first hit arrived, if any is held.
    #[serde(default)]
    pub held_since: Option<DateTime<Utc>>,
}

impl StatsSnapshot {
    /// Whether everything queued so far has been written or given up: a
    /// reader that waits for this (a test, an operator before a backup)
    /// waits for the writer itself, not for a guess at how long it takes.
    pub fn settled(&self) -> bool {
        self.written + self.lost + self.kept >= self.queued + self.recovered
            && self.marks_written + self.marks_lost >= self.marks_queued
    }

    /// Hits counted (or taken up from the journal) and not yet written
    /// nor given up: they wait for the writer's next write (or for a store
    /// that fails to answer again).
    pub fn waiting(&self) -> u64 {
        (self.queued + self.recovered).saturating_sub(self.written + self.lost + self.kept)
    }
}

/// The layer and the writer count as they go.
#[cfg(feature = "server")]
impl RecorderStats {
    pub(crate) fn queued(&self) {
        self.queued.fetch_add(1, Ordering::Relaxed);
    }

    /// Notes a forwarding header from a local address that no trusted proxy
    /// vouches for; the first one is logged with the flag that fixes it.
    pub(crate) fn untrusted_forwarding(&self) {
        if self.untrusted_forwarding.fetch_add(1, Ordering::Relaxed) == 0 {
            tracing::warn!(
                "requests from this machine or a private network carry X-Forwarded-For or Forwarded, and no proxy is trusted: every visitor behind that proxy counts as one address (on this machine: as the site's own read). Name the proxy with --trusted-proxy (e.g. --trusted-proxy 127.0.0.1)"
            );
        }
    }

    /// Notes a request without its peer address; the first one is logged
    /// with what fixes it.
    pub(crate) fn without_peer(&self) {
        if self.without_peer.fetch_add(1, Ordering::Relaxed) == 0 {
            tracing::warn!(
                "a request came without its peer address: it is counted, but visitors cannot be told apart by network and the site's own reads are not recognised; with axum, serve with `into_make_service_with_connect_info::<SocketAddr>()` and read `ConnectInfo` (the `whocomes` builder does both), or set `RecorderConfig::peer_address`"
            );
        }
    }

    pub(crate) fn queued_mark(&self) {
        self.marks_queued.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn dropped_mark(&self) {
        self.dropped_marks.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn dropped(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
    }

    /// A batch of `hits` hits and `files` marks is written, `rows` rows.
    pub(crate) fn written(&self, hits: u64, files: u64, rows: u64) {
        self.written.fetch_add(hits, Ordering::Relaxed);
        self.rows_written.fetch_add(rows, Ordering::Relaxed);
        self.marks_written.fetch_add(files, Ordering::Relaxed);
    }

    /// The writer's next write is due at `at`.
    pub(crate) fn next_write(&self, at: DateTime<Utc>) {
        self.next_write_ms
            .store(at.timestamp_millis(), Ordering::Relaxed);
    }

    /// `hits` hits an earlier run left in the journal are taken up.
    pub(crate) fn recovered(&self, hits: u64) {
        self.recovered.fetch_add(hits, Ordering::Relaxed);
    }

    /// `hits` hits are left in the journal for the next start.
    pub(crate) fn kept(&self, hits: u64) {
        self.kept.fetch_add(hits, Ordering::Relaxed);
    }

    /// What the writer holds now: rows, their bytes, and when the oldest
    /// arrived.
    pub(crate) fn held(&self, rows: u64, bytes: u64, since: Option<DateTime<Utc>>) {
        self.held_rows.store(rows, Ordering::Relaxed);
        self.held_bytes.store(bytes, Ordering::Relaxed);
        self.held_since_ms.store(
            since.map_or(0, |at| at.timestamp_millis()),
            Ordering::Relaxed,
        );
    }

    /// The journal's size on disk now.
    pub(crate) fn journal(&self, bytes: u64) {
        self.journal_bytes.store(bytes, Ordering::Relaxed);
    }

    pub(crate) fn failed_write(&self) {
        self.failed_writes.fetch_add(1, Ordering::Relaxed);
    }

    /// `hits` hits and `files` marks are given up.
    pub(crate) fn lost(&self, hits: u64, files: u64) {
        self.lost.fetch_add(hits, Ordering::Relaxed);
        self.marks_lost.fetch_add(files, Ordering::Relaxed);
    }

    /// Notes the times of hits the writer has taken from the queue.
    pub(crate) fn arrived(&self, times: impl Iterator<Item = DateTime<Utc>>) {
        let mut recent = self
            .recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut taken = 0;
        for at in times {
            taken += 1;
            let second = at.timestamp();
            // Older than what is kept (an imported log's past): it would
            // only be dropped again below.
            if recent
                .back()
                .is_some_and(|&(newest, _)| second <= newest - RECENT_SECONDS)
            {
                continue;
            }
            // Oldest first, so a binary search: a live hit lands at the back
            // at once, and an import's hits out of order cost no scan.
            match recent.binary_search_by_key(&second, |&(s, _)| s) {
                Ok(place) => recent[place].1 += 1,
                Err(place) => recent.insert(place, (second, 1)),
            }
        }
        self.taken.fetch_add(taken, Ordering::Relaxed);
        if let Some(&(newest, _)) = recent.back() {
            while recent
                .front()
                .is_some_and(|(s, _)| *s <= newest - RECENT_SECONDS)
            {
                recent.pop_front();
            }
        }
    }
}

/// What a reader sees.
impl RecorderStats {
    /// Hits that arrived in the `seconds` before `now` (at most
    /// `RECENT_SECONDS`; hits still in the queue are not in it yet).
    pub fn recent(&self, now: DateTime<Utc>, seconds: i64) -> u64 {
        let since = now.timestamp() - seconds.min(RECENT_SECONDS);
        let recent = self
            .recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        recent
            .iter()
            .filter(|(second, _)| *second > since)
            .map(|(_, count)| count)
            .sum()
    }

    /// Hits counted in the `seconds` before `now`, written or not: those
    /// the writer has taken ([`recent`](Self::recent)) and those still in
    /// the queue (it takes them within a second; they are this second's).
    pub fn counted_recently(&self, now: DateTime<Utc>, seconds: i64) -> u64 {
        let in_queue = self
            .queued
            .load(Ordering::Relaxed)
            .saturating_sub(self.taken.load(Ordering::Relaxed));
        self.recent(now, seconds) + in_queue
    }

    /// The counters now.
    pub fn snapshot(&self) -> StatsSnapshot {
        StatsSnapshot {
            queued: self.queued.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            rows_written: self.rows_written.load(Ordering::Relaxed),
            failed_writes: self.failed_writes.load(Ordering::Relaxed),
            lost: self.lost.load(Ordering::Relaxed),
            untrusted_forwarding: self.untrusted_forwarding.load(Ordering::Relaxed),
            without_peer: self.without_peer.load(Ordering::Relaxed),
            dropped_marks: self.dropped_marks.load(Ordering::Relaxed),
            marks_queued: self.marks_queued.load(Ordering::Relaxed),
            marks_written: self.marks_written.load(Ordering::Relaxed),
            marks_lost: self.marks_lost.load(Ordering::Relaxed),
            next_write_at: match self.next_write_ms.load(Ordering::Relaxed) {
                0 => None,
                ms => DateTime::from_timestamp_millis(ms),
            },
            recovered: self.recovered.load(Ordering::Relaxed),
            kept: self.kept.load(Ordering::Relaxed),
            held_rows: self.held_rows.load(Ordering::Relaxed),
            held_bytes: self.held_bytes.load(Ordering::Relaxed),
            journal_bytes: self.journal_bytes.load(Ordering::Relaxed),
            held_since: match self.held_since_ms.load(Ordering::Relaxed) {
                0 => None,
                ms => DateTime::from_timestamp_millis(ms),
            },
        }
    }
}

#[cfg(all(test, feature = "server"))]
mod tests {
    use super::*;

    fn at(second: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(second, 0).unwrap_or_default()
    }

    #[test]
    fn recent_hits_are_counted_by_second_and_old_ones_forgotten() {
        let stats = RecorderStats::default();
        let now = 1_764_374_400;
        stats.arrived(
            [now - 700, now - 299, now - 10, now - 10, now]
                .into_iter()
                .map(at),
        );
        assert_eq!(stats.recent(at(now), 300), 4, "the last five minutes");
        assert_eq!(stats.recent(at(now), 5), 1);
        // Older than RECENT_SECONDS: gone, whatever the window asked.
        assert_eq!(stats.recent(at(now), 10_000), 4);
        // Out of order arrivals land in their second.
        stats.arrived([now - 20].into_iter().map(at));
        assert_eq!(stats.recent(at(now), 30), 4);
    }

    /// What the layer queued and the writer has not taken yet counts too.
    #[test]
    fn hits_still_in_the_queue_are_counted_recently() {
        let stats = RecorderStats::default();
        let now = 1_764_374_400;
        for _ in 0..3 {
            stats.queued();
        }
        assert_eq!(stats.recent(at(now), 300), 0, "none taken yet");
        assert_eq!(stats.counted_recently(at(now), 300), 3);
        stats.arrived([now - 1, now].into_iter().map(at));
        assert_eq!(stats.recent(at(now), 300), 2);
        assert_eq!(stats.counted_recently(at(now), 300), 3, "each once");
    }

    /// An import's hits: two days of a log, far out of order.
    #[test]
    fn an_imported_past_keeps_only_the_last_ten_minutes() {
        let stats = RecorderStats::default();
        let now = 1_764_374_400;
        let seconds: Vec<i64> = (0..20_000).map(|i| now - (i * 7_919) % 172_800).collect();
        stats.arrived(seconds.iter().copied().map(at));
        let expected = seconds
            .iter()
            .filter(|&&second| second > now - RECENT_SECONDS)
            .count() as u64;
        assert!(expected > 0, "some fall in the last ten minutes");
        assert_eq!(stats.recent(at(now), RECENT_SECONDS), expected);
        let kept = stats.recent.lock().map(|recent| recent.len()).unwrap_or(0);
        assert!(kept <= RECENT_SECONDS as usize, "{kept} seconds kept");
    }
}
