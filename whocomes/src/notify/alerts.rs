//! The alerts: what each look checks, and the words it tells. A store
//! that cannot be reached for longer than the settings allow, hits the
//! writer dropped or lost, day keys that did not turn at midnight, and the
//! traffic rules' spike and drop (`traffic.rs`), each through the episode
//! machine (`episode.rs`): once when it begins, once when it is over.

use std::collections::HashMap;
use std::time::Duration as StdDuration;

use activity::filter::Filter;
use activity::recording::StatsSnapshot;
use chrono::{DateTime, Duration, DurationRound as _, NaiveDate, NaiveDateTime, Utc};
use reading::query::{Breakdown, Metric, Query};

use super::NotifySettings;
use super::episode::Change;
use super::notice::{Draft, State};
use super::outbox::Record;
use super::traffic::{HourLevel, Hours};

/// Looks in a row without lost hits that end their episode.
const HITS_CALM_LOOKS: u32 = 5;
/// Hours in a row back to usual that end a spike or a drop.
const TRAFFIC_CALM_HOURS: u32 = 2;
/// How long after an hour ends its people are judged (the writer's last
/// rows of it have landed by then).
const SETTLE: i64 = 5;
/// How many missed hours a look judges at most (after a long stop).
const CATCH_UP_HOURS: i64 = 48;
/// How long after midnight (UTC) day keys that have not turned are told.
const KEYS_GRACE: i64 = 10;
/// How long a store's availability may take to answer.
const ASK_STORE: StdDuration = StdDuration::from_secs(5);

fn told(topic: &str, state: State, subject: String, text: String) -> Draft {
    Draft {
        topic: topic.to_owned(),
        state,
        subject,
        text,
        html: None,
        chart: None,
    }
}

fn clock(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// What the looks remember between them (not kept across restarts: a
/// store's outage is timed again from the start).
#[derive(Default)]
pub struct Memory {
    down_since: HashMap<String, DateTime<Utc>>,
    lost: Option<u64>,
}

/// Each store's availability: down for longer than the settings allow is
/// an episode, per store.
pub async fn stores(
    admin: &admin::server::Admin,
    settings: &NotifySettings,
    memory: &mut Memory,
    record: &mut Record,
    now: DateTime<Utc>,
) -> Vec<Draft> {
    let mut told_now = Vec::new();
    for store in admin.stores() {
        if admin.is_demo(store.name()) {
            continue;
        }
        let name = store.name().as_str().to_owned();
        let (available, reason) = match tokio::time::timeout(ASK_STORE, store.availability()).await
        {
            Ok(availability) => (availability.available, availability.reason),
            Err(_) => (
                false,
                format!("it did not answer within {} s", ASK_STORE.as_secs()),
            ),
        };
        let since = if available {
            memory.down_since.remove(&name);
            None
        } else {
            Some(*memory.down_since.entry(name.clone()).or_insert(now))
        };
        let after = Duration::from_std(settings.store_down_after).unwrap_or(Duration::MAX);
        let holds = since.is_some_and(|since| now - since >= after);
        let topic = format!("store-down:{name}");
        match record.episodes.look(&topic, holds, 1, now) {
            Some(Change::Raised) => told_now.push(told(
                &topic,
                State::Raised,
                format!("whocomes: the store {name} is down"),
                format!(
                    "The store {name} could not be reached from {} on: {reason}\n\
                     Hits are held by the writer while it can, and the Admin tab shows the \
                     figures as they were last read.",
                    clock(since.unwrap_or(now))
                ),
            )),
            Some(Change::Recovered { since }) => told_now.push(told(
                &topic,
                State::Recovered,
                format!("whocomes: the store {name} is back"),
                format!(
                    "The store {name} can be reached again ({}). It was told down at {}.",
                    clock(now),
                    clock(since)
                ),
            )),
            None => {}
        }
    }
    told_now
}

/// Hits the writer dropped (its queue full) or lost (a store that would
/// not take them): any since the last look is an episode, over after
/// [`HITS_CALM_LOOKS`] looks without.
/// `stats`: the writer's figures now (`None`: this server does not count).
pub fn hits(
    stats: Option<StatsSnapshot>,
    memory: &mut Memory,
    record: &mut Record,
    now: DateTime<Utc>,
) -> Vec<Draft> {
    let Some(stats) = stats else {
        return Vec::new();
    };
    let lost = stats.dropped + stats.lost;
    let before = memory.lost.replace(lost);
    let new = before.map_or(0, |before| lost.saturating_sub(before));
    let topic = "hits-lost";
    match record.episodes.look(topic, new > 0, HITS_CALM_LOOKS, now) {
        Some(Change::Raised) => vec![told(
            topic,
            State::Raised,
            "whocomes: hits are being lost".to_owned(),
            format!(
                "{new} hits were not counted in the last minute ({} dropped with the writer's \
                 queue full, {} lost by a store that would not take them, since the start). \
                 /metrics has the figures.",
                stats.dropped, stats.lost
            ),
        )],
        Some(Change::Recovered { since }) => vec![told(
            topic,
            State::Recovered,
            "whocomes: no hits lost any more".to_owned(),
            format!(
                "No hit has been lost for {HITS_CALM_LOOKS} looks; hits were lost from {} on.",
                clock(since)
            ),
        )],
        None => Vec::new(),
    }
}

/// Day keys that have not turned to today by [`KEYS_GRACE`] minutes past
/// midnight (UTC): visitors are then counted with yesterday's key.
/// `keys_day`: the day the keys are turned to (`None`: no day keys).
pub fn day_keys(
    keys_day: Option<NaiveDate>,
    record: &mut Record,
    now: DateTime<Utc>,
) -> Vec<Draft> {
    let Some(day) = keys_day else {
        return Vec::new();
    };
    let today = now.date_naive();
    let late = now - Duration::minutes(KEYS_GRACE);
    let holds = day < today && late.date_naive() == today;
    let topic = "day-keys";
    match record.episodes.look(topic, holds, 1, now) {
        Some(Change::Raised) => vec![told(
            topic,
            State::Raised,
            "whocomes: the day key did not turn".to_owned(),
            format!(
                "It is {} and the day key is still {day}'s: the data folder may not be \
                 writable. The log says why.",
                clock(now)
            ),
        )],
        Some(Change::Recovered { since }) => vec![told(
            topic,
            State::Recovered,
            "whocomes: the day key turned".to_owned(),
            format!(
                "The day key is today's again; it was late from {}.",
                clock(since)
            ),
        )],
        None => Vec::new(),
    }
}

/// People by the hour they arrived in, over the days the rules read, from
/// the read side's one query (the stats API's `time:hour`).
async fn people_by_hour(
    reading: &reading::Reading,
    settings: &NotifySettings,
    now: DateTime<Utc>,
) -> Option<Hours> {
    let last = now.date_naive();
    let first = last - chrono::Days::new(u64::from(settings.traffic.history_days) + 1);
    let query = Query {
        first,
        last,
        filter: Filter::none(),
        metrics: vec![Metric::Visitors],
        by: Some(Breakdown::Hour),
        limit: usize::MAX,
        offset: 0,
    };
    let rows = match reading.query(&query).await {
        Ok(rows) => rows,
        Err(error) => {
            tracing::warn!("the traffic alerts could not read the hours: {error}");
            return None;
        }
    };
    let mut hours = Hours::new();
    for row in rows {
        let (Some(value), Some(&people)) = (row.value, row.figures.first()) else {
            continue;
        };
        if let Ok(hour) = NaiveDateTime::parse_from_str(&value, "%Y-%m-%d %H:%M:%S") {
            hours.insert(hour.and_utc(), people as u64);
        }
    }
    Some(hours)
}

/// Judges every hour that ended (and settled) since the last judged one.
pub async fn traffic(
    admin: &admin::server::Admin,
    settings: &NotifySettings,
    record: &mut Record,
    now: DateTime<Utc>,
) -> Vec<Draft> {
    let settled = now - Duration::minutes(SETTLE);
    let Ok(current) = settled.duration_trunc(Duration::hours(1)) else {
        return Vec::new();
    };
    let last_ended = current - Duration::hours(1);
    let first = match record.judged_hour {
        Some(judged) if judged >= last_ended => return Vec::new(),
        Some(judged) => {
            (judged + Duration::hours(1)).max(last_ended - Duration::hours(CATCH_UP_HOURS - 1))
        }
        None => last_ended,
    };
    let Some(hours) = people_by_hour(admin.reading(), settings, now).await else {
        return Vec::new();
    };
    let mut told_now = Vec::new();
    let mut hour = first;
    while hour <= last_ended {
        told_now.extend(judge(settings, &hours, hour, record, now));
        hour += Duration::hours(1);
    }
    record.judged_hour = Some(last_ended);
    told_now
}

/// One hour through the spike and drop episodes.
pub fn judge(
    settings: &NotifySettings,
    hours: &Hours,
    hour: DateTime<Utc>,
    record: &mut Record,
    now: DateTime<Utc>,
) -> Vec<Draft> {
    let level = settings.traffic.level(hours, hour);
    let people = hours.get(&hour).copied().unwrap_or(0);
    let span = format!(
        "{}–{}",
        hour.format("%Y-%m-%d %H:00"),
        (hour + Duration::hours(1)).format("%H:00 UTC")
    );
    let mut told_now = Vec::new();
    let spike = matches!(level, HourLevel::Spike { .. });
    match record
        .episodes
        .look("spike", spike, TRAFFIC_CALM_HOURS, now)
    {
        Some(Change::Raised) => {
            let usual = match level {
                HourLevel::Spike { usual, .. } => usual,
                _ => 0.0,
            };
            told_now.push(told(
                "spike",
                State::Raised,
                format!("whocomes: a spike, {people} people in an hour"),
                format!(
                    "{people} people arrived in the hour {span}, where that hour has had \
                     {usual:.1} on average over the past {} days.",
                    settings.traffic.history_days
                ),
            ));
        }
        Some(Change::Recovered { since }) => told_now.push(told(
            "spike",
            State::Recovered,
            "whocomes: the spike is over".to_owned(),
            format!(
                "{people} people arrived in the hour {span}, back to the usual level; the \
                 spike was told at {}.",
                clock(since)
            ),
        )),
        None => {}
    }
    let drop = matches!(level, HourLevel::Drop { .. });
    match record.episodes.look("drop", drop, TRAFFIC_CALM_HOURS, now) {
        Some(Change::Raised) => {
            let usual = match level {
                HourLevel::Drop { usual } => usual,
                _ => 0.0,
            };
            told_now.push(told(
                "drop",
                State::Raised,
                "whocomes: no people for an hour".to_owned(),
                format!(
                    "No people arrived in the hour {span}, where that hour has had {usual:.1} \
                     on average over the past {} days. The site may be down, or its requests \
                     may no longer reach whocomes.",
                    settings.traffic.history_days
                ),
            ));
        }
        Some(Change::Recovered { since }) => told_now.push(told(
            "drop",
            State::Recovered,
            "whocomes: people are coming again".to_owned(),
            format!(
                "{people} people arrived in the hour {span}; the drop was told at {}.",
                clock(since)
            ),
        )),
        None => {}
    }
    told_now
}
