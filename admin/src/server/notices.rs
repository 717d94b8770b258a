//! [`NoticeStats`]: what the alerts' watch (`whocomes::notify`) has sent,
//! what failed and what is waiting, for `/metrics` and the tab's stores
//! card. It holds channels' words and failures in words safe for a
//! signed-in reader: never a URL's secret or a password.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::model::NoticesStatus;

/// Counters the alerts' watch updates.
#[derive(Debug, Default)]
pub struct NoticeStats {
    sent: AtomicU64,
    failed: AtomicU64,
    waiting: AtomicU64,
    words: Mutex<Words>,
}

#[derive(Debug, Default)]
struct Words {
    channels: Vec<String>,
    last_failure: Option<String>,
}

impl NoticeStats {
    /// The channels notices go to, in words (`mail through HOST:PORT to 2
    /// addresses`).
    pub fn set_channels(&self, channels: Vec<String>) {
        self.words().channels = channels;
    }

    /// One round of sending: how many a channel took, how many tries
    /// failed (the last one's words), and how many notices still wait.
    pub fn sent(&self, sent: u64, failed: u64, last_failure: Option<String>, waiting: u64) {
        self.sent.fetch_add(sent, Ordering::Relaxed);
        self.failed.fetch_add(failed, Ordering::Relaxed);
        self.waiting.store(waiting, Ordering::Relaxed);
        if let Some(failure) = last_failure {
            self.words().last_failure = Some(failure);
        } else if waiting == 0 {
            self.words().last_failure = None;
        }
    }

    /// Notices a channel took since start (one per channel).
    pub fn sent_count(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// Tries to send that failed since start.
    pub fn failed_count(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Notices some channel has not taken yet.
    pub fn waiting(&self) -> u64 {
        self.waiting.load(Ordering::Relaxed)
    }

    /// The figures as the tab shows them.
    pub fn status(&self) -> NoticesStatus {
        let words = self.words();
        NoticesStatus {
            channels: words.channels.clone(),
            sent: self.sent_count(),
            failed: self.failed_count(),
            waiting: self.waiting(),
            last_failure: words.last_failure.clone(),
        }
    }

    fn words(&self) -> std::sync::MutexGuard<'_, Words> {
        self.words
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
