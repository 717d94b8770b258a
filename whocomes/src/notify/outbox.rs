//! What was told and what is still owed: the open episodes, the last hour
//! the traffic rules judged, and each notice not yet taken by every
//! channel, kept as one note in the site's store (`notify`, through
//! `ActivityStore::keep_cached`) after every change, so a restart sends
//! nothing twice and forgets nothing owed. A channel that fails is tried
//! again after 2 s, 4 s, 8 s… (at most 10 minutes apart); at most
//! [`WAITING`] notices wait, the oldest given up first (and logged).

use std::sync::Arc;

use activity::store::ActivityStore;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::channel::Channel;
use super::episode::Episodes;
use super::notice::{Draft, Notice};

/// The note's name in the store.
pub const NOTE: &str = "notify";

/// The most notices that wait for a channel at once.
pub const WAITING: usize = 200;

/// The longest wait between two tries of one channel.
const LONGEST_WAIT: i64 = 600;

/// What is kept between looks and restarts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The episodes open now.
    pub episodes: Episodes,
    /// The last hour the traffic rules judged (its start).
    pub judged_hour: Option<DateTime<Utc>>,
    /// The last digest period sent, by schedule (its first day).
    #[serde(default)]
    pub digests: std::collections::BTreeMap<String, chrono::NaiveDate>,
    /// The number the next notice gets.
    pub next_id: u64,
    /// Notices some channel has not taken yet.
    pub waiting: Vec<Waiting>,
}

/// A notice and the channels that still owe it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Waiting {
    /// The notice.
    pub notice: Notice,
    /// The channels (by [`channel_key`]) that have not taken it.
    pub owed: Vec<String>,
    /// Tries so far.
    pub tries: u32,
    /// Not tried again before this.
    pub next_try: DateTime<Utc>,
}

/// A channel's key in the record: its place and its words, so a channel
/// removed from the settings is owed nothing after a restart.
pub fn channel_key(index: usize, channel: &dyn Channel) -> String {
    format!("{index}: {}", channel.describe())
}

/// What one round of sending did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// Notices taken by a channel.
    pub sent: u64,
    /// Tries that failed.
    pub failed: u64,
    /// Why the last one failed, naming its channel.
    pub last_failure: Option<String>,
}

impl Record {
    /// Reads the record from `store`; a store that cannot be read or a
    /// note that does not parse gives an empty one (and says so).
    pub async fn load(store: &Arc<dyn ActivityStore>) -> Self {
        match store.cached(NOTE).await {
            Ok(Some(body)) => serde_json::from_str(&body).unwrap_or_else(|error| {
                tracing::warn!("the notices' record could not be read ({error}); starting afresh");
                Self::default()
            }),
            Ok(None) => Self::default(),
            Err(error) => {
                tracing::warn!("the notices' record could not be read ({error}); starting afresh");
                Self::default()
            }
        }
    }

    /// Writes the record to `store`; `false` if it could not (tried again
    /// at the next change or look).
    pub async fn save(&self, store: &Arc<dyn ActivityStore>) -> bool {
        let body = match serde_json::to_string(self) {
            Ok(body) => body,
            Err(error) => {
                tracing::error!("the notices' record could not be written out: {error}");
                return false;
            }
        };
        match store.keep_cached(NOTE, &body).await {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!("the notices' record could not be kept: {error}");
                false
            }
        }
    }

    /// Numbers and dates `draft`, owed by every channel in `owed`.
    pub fn post(&mut self, draft: Draft, owed: Vec<String>, now: DateTime<Utc>) {
        let Draft {
            topic,
            state,
            subject,
            text,
            html,
            chart,
        } = draft;
        let notice = Notice {
            id: self.next_id,
            topic,
            state,
            at: now,
            subject,
            text,
            html,
            chart,
        };
        self.next_id += 1;
        tracing::info!(
            topic = notice.topic,
            state = state.word(),
            "notice: {}",
            notice.subject
        );
        if owed.is_empty() {
            return;
        }
        if self.waiting.len() >= WAITING {
            let oldest = self.waiting.remove(0);
            tracing::warn!(
                "notice {} ({}) given up: {WAITING} notices are waiting for a channel",
                oldest.notice.id,
                oldest.notice.subject
            );
        }
        self.waiting.push(Waiting {
            notice,
            owed,
            tries: 0,
            next_try: now,
        });
    }

    /// Tries every notice that is due on each channel that owes it.
    pub async fn send_due(
        &mut self,
        channels: &[(String, Box<dyn Channel>)],
        now: DateTime<Utc>,
    ) -> Sent {
        let mut sent = Sent::default();
        for waiting in &mut self.waiting {
            if waiting.next_try > now {
                continue;
            }
            waiting
                .owed
                .retain(|key| channels.iter().any(|(known, _)| known == key));
            let mut owed = Vec::new();
            for key in std::mem::take(&mut waiting.owed) {
                let Some((_, channel)) = channels.iter().find(|(known, _)| *known == key) else {
                    continue;
                };
                match channel.send(&waiting.notice).await {
                    Ok(()) => sent.sent += 1,
                    Err(reason) => {
                        sent.failed += 1;
                        let failure = format!("{}: {reason}", channel.describe());
                        tracing::warn!("notice {} not sent by {failure}", waiting.notice.id);
                        sent.last_failure = Some(failure);
                        owed.push(key);
                    }
                }
            }
            waiting.owed = owed;
            if !waiting.owed.is_empty() {
                waiting.tries += 1;
                let wait = 2_i64.saturating_pow(waiting.tries).min(LONGEST_WAIT);
                waiting.next_try = now + Duration::seconds(wait);
            }
        }
        self.waiting.retain(|waiting| !waiting.owed.is_empty());
        sent
    }

    /// The soonest a waiting notice is due.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        self.waiting.iter().map(|waiting| waiting.next_try).min()
    }
}
