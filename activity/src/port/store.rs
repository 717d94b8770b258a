//! The port: what whocomes needs of a place that keeps activity
//! ([`ActivityStore`]), what it answers when it cannot ([`StoreError`]),
//! and what it is told to keep ([`Retention`]). The stores that need no
//! engine (`MemoryStore`, `NullStore`), the reference readers an adapter
//! may call, and the helpers for an adapter's own figures live beside it
//! and keep their 0.2 paths here; the SQL and Cosmos DB adapters live in
//! their own crates. `docs/STORES.md` is the page for a new adapter.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use crate::port::rows::{Availability, Batch, Cost, GoalHour, HourRow, VisitorDay};
use crate::request::bot_class::BotClass;
use crate::request::hit::StoreName;
use crate::sums::filter::Filter;
use crate::sums::report::{BotCount, FunnelStep, KindCounts};
use crate::sums::summary::DaySummary;
use crate::visitor::token::VisitorToken;

pub use crate::port::figures::{CostMeter, LastWrite, availability_of};
pub use crate::port::memory::{Gone, MemoryStore};
pub use crate::port::null::NullStore;
pub use crate::port::readers::{
    day_requests_from_hours, latest_of_all, page_of_hours, page_of_visitors, read_and_summarize,
};

/// Why a store could not do what was asked. The messages are safe to show
/// a signed-in admin: they never hold row contents (a stranger's page says
/// less, see the Admin tab).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The store is not reachable or not set up; it keeps nothing.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// The store is too busy to answer now: every connection stayed busy
    /// for longer than the store waits, or the service throttled the
    /// request (and said how long to wait, if it did).
    #[error("the store is busy{}", busy_wait(.retry_after))]
    Busy {
        /// How long the store asked to be left alone, if it said.
        retry_after: Option<Duration>,
    },
    /// The engine refused or failed a statement.
    #[error("the store failed: {0}")]
    Failed(String),
    /// A row read back is not one whocomes writes (a damaged or hand-edited
    /// store): the reason names the column, never its value.
    #[error("the store holds a row it cannot read: {0}")]
    Corrupt(String),
}

fn busy_wait(retry_after: &Option<Duration>) -> String {
    match retry_after {
        Some(wait) => format!(": asked to wait {} ms", wait.as_millis()),
        None => ": no connection came free in time".to_owned(),
    }
}

impl StoreError {
    /// How long the store asked the writer to wait before trying again.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Busy { retry_after } => *retry_after,
            _ => None,
        }
    }

    /// Whether trying again later may work: an unreachable, busy or failing
    /// store may recover; a damaged row will not.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            Self::Unavailable(_) | Self::Busy { .. } | Self::Failed(_)
        )
    }

    /// What kind of error it is, in words that hold nothing of its text: for
    /// a log line about a read whose filter came from a request (an engine's
    /// message may echo the values it was given).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Unavailable(_) => "unavailable",
            Self::Busy { .. } => "busy",
            Self::Failed(_) => "failed",
            Self::Corrupt(_) => "corrupt",
        }
    }
}

/// How long rows are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// Visitor-day rows older than this many days are deleted.
    pub visitor_days: u32,
    /// Hourly rows older than this many days are deleted; `None`: kept.
    pub hour_days: Option<u32>,
}

/// How many days hourly rows are kept by default: longer than the tab's
/// longest range (366 days), so that a year can be compared with itself,
/// and a bound on what the hourly rows can hold.
pub const DEFAULT_HOUR_DAYS: u32 = 400;

impl Default for Retention {
    fn default() -> Self {
        Self {
            visitor_days: 30,
            hour_days: Some(DEFAULT_HOUR_DAYS),
        }
    }
}

impl Retention {
    /// The oldest day whose visitor rows are kept as of `now`: the rows of
    /// earlier days expire, their counts by kind and class kept. This is the
    /// rule every store applies (in its engine or in memory).
    pub fn first_visitor_day(&self, now: DateTime<Utc>) -> NaiveDate {
        now.date_naive() - chrono::Days::new(u64::from(self.visitor_days))
    }

    /// The oldest instant whose hourly rows are kept as of `now` (`None`:
    /// hourly rows never expire).
    pub fn first_hour(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.hour_days
            .map(|days| now - chrono::Duration::days(i64::from(days)))
    }

    /// The retention in words, as the Admin tab says it.
    pub fn describe(&self) -> String {
        let hours = match self.hour_days {
            Some(days) => format!("hourly counts for {days} days"),
            None => "hourly counts without a time limit".to_owned(),
        };
        format!("visitor-days for {} days, {hours}", self.visitor_days)
    }
}

/// What a store has imported of one access log (`whocomes import`): the
/// log is known by `log`, the SHA-256 of its first 4 KiB; its first `bytes`
/// bytes were imported, and `digest` is their SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// The log's identity.
    pub log: String,
    /// How many of its bytes were imported.
    pub bytes: u64,
    /// The SHA-256 of those bytes, in hex.
    pub digest: String,
}

/// A place that keeps activity.
///
/// Every method is required: a wrapper (a store that stands in for another,
/// a test double) must pass each one on by name, and an adapter that has
/// no quicker way than reading its rows says so by calling the helper that
/// does ([`read_and_summarize`], [`latest_of_all`], [`day_requests_from_hours`]).
/// A default body would let a wrapper miss a method silently and answer
/// for the store it wraps; the store contract (`contract`, behind the
/// `testing` feature) calls every one.
#[async_trait]
pub trait ActivityStore: Send + Sync {
    /// The name hits carry when this store serves them.
    fn name(&self) -> &StoreName;

    /// Whether it can keep activity right now, and why, in a sentence.
    async fn availability(&self) -> Availability;

    /// Adds a batch: hourly and visitor-day rows are added to what is kept.
    /// A batch with a name ([`Batch::id`]) the store has added before adds
    /// nothing, so the writer can send a batch again when it cannot know
    /// whether a try was taken (a lost reply, a restart); a store keeps
    /// the names at least as long as its visitor-days, in the same
    /// transaction as the rows.
    async fn record(&self, batch: &Batch) -> Result<(), StoreError>;

    /// Hourly rows from `since` on.
    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError>;

    /// Goals' hourly rows from `since` on (kept as long as the hourly rows).
    async fn goal_hours_since(&self, since: DateTime<Utc>) -> Result<Vec<GoalHour>, StoreError>;

    /// At most `limit` hourly rows from `since` on, in the order of hour
    /// and path, after the row of `after` (hour and path) if given: an
    /// export reads them a page at a time. [`page_of_hours`] cuts a page
    /// out of [`hours_since`](Self::hours_since).
    async fn hours_page(
        &self,
        since: DateTime<Utc>,
        after: Option<(DateTime<Utc>, String)>,
        limit: usize,
    ) -> Result<Vec<HourRow>, StoreError>;

    /// At most `limit` visitor-days from `since` on, with their paths and
    /// sources, in the order of day and token, after `after`'s if given.
    /// [`page_of_visitors`] cuts a page out of
    /// [`visitors_since`](Self::visitors_since).
    async fn visitors_page(
        &self,
        since: NaiveDate,
        after: Option<(NaiveDate, VisitorToken)>,
        limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError>;

    /// The paths this store keeps for the hour starting `hour`: what the
    /// writer's cap on an hour's paths starts from after a restart.
    async fn paths_in_hour(&self, hour: DateTime<Utc>) -> Result<Vec<String>, StoreError>;

    /// Visitor-day rows from `since` on, each with its paths and sources
    /// most first.
    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError>;

    /// The newest visitor-days from `since` on (newest day first, then by
    /// token, both descending: the key's order read backwards), at most
    /// `limit`, and how many there are in all: the visitor table's page.
    /// [`latest_of_all`] reads it through [`visitors_since`](Self::visitors_since).
    async fn latest_visitors(
        &self,
        since: NaiveDate,
        limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError>;

    /// The summaries of the days from `first` to `last` (both included)
    /// that have rows, oldest first, with the funnel of `steps`, of the
    /// visitor-days `filter` lets through (with a condition, only days
    /// with visitor rows: see `summary::summarize_filtered`). Stores should
    /// sum in their engine; [`read_and_summarize`] reads the rows and sums
    /// them, and is what the contract compares with.
    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
        filter: &Filter,
    ) -> Result<Vec<DaySummary>, StoreError>;

    /// All requests per day from `since` on, oldest first. A day's figure
    /// grows with every hit it gets, so a reader that kept a day's summary
    /// knows it is still current while the figure is the same. Stores
    /// should keep it apart from the hourly rows; [`day_requests_from_hours`]
    /// sums those.
    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError>;

    /// How many marks of a browser's evidence ([`Batch::marks`]) each day
    /// from `since` on has had, oldest first (days without one left out):
    /// a day's summary can change with a mark alone, so a reader that kept
    /// it looks at this too. Every mark recorded counts, whether or not it
    /// found its visitor-day.
    async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError>;

    /// Deletes rows older than the retention allows, as of `now`; a day's
    /// visitor-days by kind are kept when its visitor rows go.
    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError>;

    /// Visitor-days by kind of the days from `since` on whose visitor rows
    /// have expired (what [`enforce_retention`](Self::enforce_retention) kept), oldest first.
    async fn expired_kinds_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError>;

    /// Bot requests per day and class from `since` on, with the
    /// visitor-days per class of the days whose visitor rows have expired
    /// (kept by [`enforce_retention`](Self::enforce_retention)); oldest first.
    async fn bot_days_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError>;

    /// What was imported of the log known as `log`, if any of it was
    /// (`whocomes import` reads on from there).
    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError>;

    /// Notes what was imported of a log (replacing what was noted before).
    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError>;

    /// What the read side cached under `name`
    /// ([`keep_cached`](Self::keep_cached)), if it has.
    async fn cached(&self, name: &str) -> Result<Option<String>, StoreError>;

    /// The read side's cache, kept in the store: `body` under `name`,
    /// replacing what was kept — what a reader worked out and would rather
    /// not work out again after a restart (the Admin tab's day summaries,
    /// `reading/src/cache/saved.rs`). The only write a read makes; never a
    /// visitor's row.
    async fn keep_cached(&self, name: &str, body: &str) -> Result<(), StoreError>;

    /// What keeping activity has cost so far.
    fn cost(&self) -> Cost;

    /// Lets go of connections and files (after the last write).
    async fn close(&self);
}
