//! The loop: every [`look_every`](super::NotifySettings::look_every) it
//! asks each alert, posts what changed, tries what is owed, and keeps the
//! record in the site's store.

use std::sync::Arc;

use activity::store::ActivityStore;
use admin::server::Admin;
use chrono::Utc;
use tokio::task::JoinHandle;

use super::NotifySettings;
use super::alerts::{self, Memory};
use super::channel::Channel;
use super::digest::{self, DigestSettings, schedule};
use super::outbox::{Record, channel_key};

/// Posts the latest digest due, unless the record says it was sent.
async fn digest_due(
    admin: &Admin,
    settings: &DigestSettings,
    record: &mut Record,
    mail: Vec<String>,
    now: chrono::DateTime<Utc>,
) {
    let period = schedule::latest(settings.every, settings.hour, settings.zone, now);
    let every = settings.every.word();
    if record.digests.get(every) == Some(&period.first) {
        return;
    }
    let made = match settings.stores(admin.stores()) {
        Ok(stores) if settings.store.is_none() => {
            let site = stores
                .first()
                .map_or("the site", |store| store.name().as_str());
            digest::make(admin.reading(), settings.every, site, &period).await
        }
        Ok(stores) => {
            let reading = reading::Reading::new(stores, admin.funnel().to_vec());
            let site = settings.store.as_deref().unwrap_or_default();
            digest::make(&reading, settings.every, site, &period).await
        }
        Err(reason) => Err(reason),
    };
    match made {
        Ok(draft) => {
            record.post(draft, mail, now);
            record.digests.insert(every.to_owned(), period.first);
        }
        Err(reason) => tracing::warn!("the {every} digest waits: {reason}"),
    }
}

/// Starts the watch, if there is a channel to tell (needs a Tokio runtime).
pub(crate) fn start(
    settings: NotifySettings,
    admin: Admin,
    store: Arc<dyn ActivityStore>,
) -> Option<JoinHandle<()>> {
    let mut channels: Vec<(String, Box<dyn Channel>)> = Vec::new();
    for (index, named) in settings.channels.iter().enumerate() {
        match named.open() {
            Ok(channel) => channels.push((channel_key(index, channel.as_ref()), channel)),
            // Checked before the start: only a channel that could not be
            // opened twice in a row gets here.
            Err(reason) => tracing::error!("a notice channel could not be opened: {reason}"),
        }
    }
    if channels.is_empty() {
        return None;
    }
    for (key, _) in &channels {
        tracing::info!("notices go to {key}");
    }
    if let Some(stats) = admin.notices() {
        stats.set_channels(
            channels
                .iter()
                .map(|(_, channel)| channel.describe())
                .collect(),
        );
    }
    Some(tokio::spawn(async move {
        let mut record = Record::load(&store).await;
        let mut memory = Memory::default();
        let mut saved = true;
        loop {
            let now = Utc::now();
            let before = record.clone();
            let mut told = alerts::stores(&admin, &settings, &mut memory, &mut record, now).await;
            let stats = admin.recorder().map(|recorder| recorder.snapshot());
            told.extend(alerts::hits(stats, &mut memory, &mut record, now));
            told.extend(alerts::day_keys(admin.day_keys_day(), &mut record, now));
            told.extend(alerts::traffic(&admin, &settings, &mut record, now).await);
            let owed: Vec<String> = channels.iter().map(|(key, _)| key.clone()).collect();
            for told in told {
                record.post(told, owed.clone(), now);
            }
            if let Some(digest) = &settings.digest {
                let mail: Vec<String> = channels
                    .iter()
                    .filter(|(_, channel)| channel.takes_digests())
                    .map(|(key, _)| key.clone())
                    .collect();
                digest_due(&admin, digest, &mut record, mail, now).await;
            }
            let sent = record.send_due(&channels, Utc::now()).await;
            if let Some(stats) = admin.notices() {
                let waiting = record.waiting.len() as u64;
                stats.sent(sent.sent, sent.failed, sent.last_failure, waiting);
            }
            if record != before || !saved {
                saved = record.save(&store).await;
            }
            let mut wait = settings.look_every;
            if let Some(due) = record.next_due() {
                let until = (due - Utc::now()).to_std().unwrap_or_default();
                wait = wait.min(until.max(std::time::Duration::from_millis(200)));
            }
            tokio::time::sleep(wait).await;
        }
    }))
}
