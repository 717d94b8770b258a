//! Telling the owner without being asked: alerts (a store down, hits lost,
//! day keys that did not turn, a spike or a drop in people) sent once per
//! episode, with a recovery, to e-mail and webhooks.
//!
//! - `traffic` — the spike and drop rules on people by the hour;
//! - `episode` — once per episode, and a flap is one episode;
//! - `alerts` — what each look checks, and its words;
//! - `digest` — the daily or weekly digest by mail;
//! - `outbox` — what was sent and what is owed, kept in the store, retried;
//! - `watch` — the loop that looks every minute;
//! - `channel` — the port every channel is behind (`config` names and
//!   opens them), one file each:
//!   `mail` (SMTP), `webhook` (JSON), `slack`, `ntfy`.
//!
//! [`Checked::build`](crate::Checked::build) starts it when a channel is
//! set, so the binary and an embedder get the same.

mod alerts;
pub mod channel;
mod config;
pub mod digest;
pub mod episode;
mod mail;
pub mod notice;
mod ntfy;
pub mod outbox;
mod slack;
pub mod traffic;
mod watch;
mod webhook;

use std::time::Duration;

pub use config::ChannelConfig;
pub use traffic::TrafficThresholds;
pub(crate) use watch::start;

/// What to tell, when, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct NotifySettings {
    /// Where notices go; none: nothing is watched.
    pub channels: Vec<ChannelConfig>,
    /// When an hour's people are a spike or a drop.
    pub traffic: TrafficThresholds,
    /// How long a store may be unreachable before it is told (default 5
    /// minutes).
    pub store_down_after: Duration,
    /// How often the watch looks (default a minute).
    pub look_every: Duration,
    /// The digest by mail, if one is sent.
    pub digest: Option<digest::DigestSettings>,
}

impl Default for NotifySettings {
    fn default() -> Self {
        Self {
            channels: Vec::new(),
            traffic: TrafficThresholds::default(),
            store_down_after: Duration::from_secs(300),
            look_every: Duration::from_secs(60),
            digest: None,
        }
    }
}

impl NotifySettings {
    /// Whether a setting is wrong as written: a channel that cannot be
    /// opened, a threshold that means nothing.
    pub fn check(&self) -> Result<(), String> {
        for named in &self.channels {
            named.open()?;
        }
        let traffic = &self.traffic;
        if !(traffic.spike_factor.is_finite() && traffic.spike_factor > 1.0) {
            return Err("a spike is more than 1 times the usual level".to_owned());
        }
        if !(traffic.drop_usual.is_finite() && traffic.drop_usual > 0.0) {
            return Err("a drop's usual level is more than 0 people".to_owned());
        }
        if traffic.history_days == 0 || traffic.least_days > traffic.history_days {
            return Err(
                "the alerts' history is at least a day, and holds the days they need".to_owned(),
            );
        }
        if let Some(digest) = &self.digest {
            digest.check()?;
            if !self
                .channels
                .iter()
                .any(|c| matches!(c, ChannelConfig::Mail { .. }))
            {
                return Err(
                    "a digest is sent by mail: it needs --mail-url, --mail-from and --mail-to"
                        .to_owned(),
                );
            }
        }
        if self.look_every.is_zero() {
            return Err("the alerts look at least every few seconds".to_owned());
        }
        Ok(())
    }
}

#[cfg(test)]
mod replay_tests;
