//! What a store holds, read every way the port reads it: a migration, a
//! backup or a move between engines must keep all of it. Behind the
//! `testing` feature: test support, not production code.

use chrono::{DateTime, Days, NaiveDate, Utc};

use crate::port::rows::{HourRow, VisitorDay};
use crate::port::store::ActivityStore;
use crate::request::bot_class::BotClass;
use crate::sums::report::{BotCount, KindCounts};
use crate::sums::summary::{DaySummary, midnight};
use crate::testing::sample;

/// Migration 0010 (both stores) undone: visitor-days without their goals.
/// A store put back to it reads as [`Holdings::without_goals`].
pub const BEFORE_0010: [&str; 3] = [
    "DROP TABLE visitor_goals",
    "DROP TABLE hour_goals",
    "DELETE FROM _sqlx_migrations WHERE version = 10",
];

/// Migration 0009 (both stores) undone: visitor-days without their page
/// loads. A store put back to it reads as [`Holdings::without_page_loads`].
pub const BEFORE_0009: [&str; 12] = [
    "ALTER TABLE visitor_days DROP COLUMN campaign_at",
    "ALTER TABLE visitor_days DROP COLUMN utm_source",
    "ALTER TABLE visitor_days DROP COLUMN utm_medium",
    "ALTER TABLE visitor_days DROP COLUMN utm_campaign",
    "ALTER TABLE visitor_days DROP COLUMN page_loads",
    "ALTER TABLE visitor_days DROP COLUMN entry_at",
    "ALTER TABLE visitor_days DROP COLUMN entry_page",
    "ALTER TABLE visitor_days DROP COLUMN exit_at",
    "ALTER TABLE visitor_days DROP COLUMN exit_page",
    "ALTER TABLE visitor_days DROP COLUMN stay_ms",
    "ALTER TABLE visitor_days DROP COLUMN visits",
    "DELETE FROM _sqlx_migrations WHERE version = 9",
];

/// Migration 0008 (both stores) undone: visitor-days without a country.
/// A store put back to it reads as [`Holdings::without_countries`] (which
/// is without page loads too: 0009 came later).
pub const BEFORE_0008: [&str; 2] = [
    "ALTER TABLE visitor_days DROP COLUMN country",
    "DELETE FROM _sqlx_migrations WHERE version = 8",
];

/// Migrations 0006 and 0005 (both stores) undone: the schema before the
/// kinds' columns were named `bots` and `self_reads` and before a reader's
/// notes were kept. A test puts a filled store back to it and opens it again.
pub const BEFORE_0005: [&str; 5] = [
    // 0006 undone first: the notes a reader keeps.
    "DROP TABLE notes",
    "DELETE FROM _sqlx_migrations WHERE version = 6",
    "ALTER TABLE day_kinds RENAME COLUMN bots TO scanners",
    "ALTER TABLE day_kinds RENAME COLUMN self_reads TO own_reads",
    "DELETE FROM _sqlx_migrations WHERE version = 5",
];

/// How many days back [`fill`] writes; the oldest are past the default
/// visitor retention of 30 days, so their counts by kind are kept apart.
pub const DAYS_BACK: u64 = 40;

/// Everything a store gives back, in a fixed order.
#[derive(Debug, PartialEq, Eq)]
pub struct Holdings {
    /// The day summaries of the whole span, with [`crate::testing::sample::funnel`].
    pub summaries: Vec<DaySummary>,
    /// Visitor-days by kind of the days whose visitor rows expired.
    pub expired: Vec<(NaiveDate, KindCounts)>,
    /// Bot requests and visitor-days per class and day.
    pub bot_days: Vec<(NaiveDate, BotClass, BotCount)>,
    /// Requests per day.
    pub day_requests: Vec<(NaiveDate, u64)>,
    /// Hourly rows, by hour and path.
    pub hours: Vec<HourRow>,
    /// Visitor-day rows, by day and token.
    pub visitors: Vec<VisitorDay>,
}

impl Holdings {
    /// The same holdings as a store kept before countries were: no
    /// visitor-day has one, every day's people are of no known country.
    pub fn without_countries(mut self) -> Self {
        for visitor in &mut self.visitors {
            visitor.country = None;
        }
        self = self.without_page_loads();
        for summary in &mut self.summaries {
            let known: u64 = summary.countries.values().sum();
            summary.countries.clear();
            summary.no_country += known;
        }
        self
    }

    /// What a store of the schema before migration 0010 gives back: no
    /// visitor-day's goals, and no goal taken as a funnel step.
    pub fn without_goals(mut self) -> Self {
        for visitor in &mut self.visitors {
            visitor.goals.clear();
        }
        for summary in &mut self.summaries {
            summary.goals.clear();
        }
        self
    }

    /// What a store of the schema before migration 0009 gives back: no
    /// visitor-day's page loads (a page's readers come from the paths,
    /// which were kept before it), and no goals (0010 came later).
    pub fn without_page_loads(mut self) -> Self {
        self = self.without_goals();
        for visitor in &mut self.visitors {
            visitor.pages = Default::default();
        }
        for summary in &mut self.summaries {
            summary.visits = visits_with_readers_only(&summary.visits);
        }
        self
    }
}

/// Writes made-up days from [`DAYS_BACK`] days before `now` to `now`'s day,
/// 20 visitor-days every fifth day, expires what the retention lets go, and
/// reads what the store holds. Panics if the store fails.
pub async fn fill(store: &dyn ActivityStore, now: DateTime<Utc>) -> Holdings {
    let today = now.date_naive();
    for back in (0..=DAYS_BACK).step_by(5) {
        let day = today - Days::new(back);
        let rows = sample::day_rows(store.name(), day, 20, back);
        store.record(&rows).await.expect("the store keeps the rows");
    }
    store
        .enforce_retention(now)
        .await
        .expect("the store expires old rows");
    read(store, now).await
}

/// Reads what the store holds of the days up to `now`'s day. Panics if the
/// store fails.
pub async fn read(store: &dyn ActivityStore, now: DateTime<Utc>) -> Holdings {
    let today = now.date_naive();
    let first = today - Days::new(DAYS_BACK);
    let mut hours = store
        .hours_since(midnight(first))
        .await
        .unwrap_or_else(|error| panic!("the store reads hours: {error}"));
    hours.sort_by(|a, b| (a.hour, &a.path).cmp(&(b.hour, &b.path)));
    let mut visitors = store
        .visitors_since(first)
        .await
        .unwrap_or_else(|error| panic!("the store reads visitor-days: {error}"));
    visitors.sort_by(|a, b| (a.day, &a.visitor).cmp(&(b.day, &b.visitor)));
    Holdings {
        summaries: store
            .day_summaries(
                first,
                today,
                &sample::funnel(),
                &crate::filter::Filter::none(),
            )
            .await
            .unwrap_or_else(|error| panic!("the store reads summaries: {error}")),
        expired: store
            .expired_kinds_since(first)
            .await
            .unwrap_or_else(|error| panic!("the store reads expired kinds: {error}")),
        bot_days: store
            .bot_days_since(first)
            .await
            .unwrap_or_else(|error| panic!("the store reads bot days: {error}")),
        day_requests: store
            .day_requests(first)
            .await
            .unwrap_or_else(|error| panic!("the store reads day requests: {error}")),
        hours,
        visitors,
    }
}

/// No visits' sums but the readers of each path.
fn visits_with_readers_only(
    visits: &crate::sums::visits::VisitSums,
) -> crate::sums::visits::VisitSums {
    crate::sums::visits::VisitSums {
        readers: visits.readers.clone(),
        ..Default::default()
    }
}
