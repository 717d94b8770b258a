//! The port: what whocomes needs of a place that keeps activity, and the two
//! adapters that need no engine (in-memory for tests, null for "keeps
//! nothing"). SQLite and PostgreSQL adapters live in their own crates.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use crate::bot_class::BotClass;
use crate::hit::StoreName;
use crate::report::{BotCount, FunnelStep, KindCounts, merge_visitors, visitor_kind};
use crate::rows::{Availability, Batch, Cost, HourRow, VisitorDay};
use crate::summary::{self, DaySummary};
use crate::token::VisitorToken;

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
    async fn record(&self, batch: &Batch) -> Result<(), StoreError>;

    /// Hourly rows from `since` on.
    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError>;

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
    /// that have rows, oldest first, with the funnel of `steps`. Stores
    /// should sum in their engine; [`read_and_summarize`] reads the rows
    /// and sums them, and is what the contract compares with.
    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
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

    /// The note a reader kept under `name` ([`keep_note`](Self::keep_note)),
    /// if there is one.
    async fn note(&self, name: &str) -> Result<Option<String>, StoreError>;

    /// Keeps `body` under `name`, replacing what was kept: what a reader
    /// worked out and would rather not work out again after a restart
    /// (the Admin tab's day summaries). Never a visitor's row.
    async fn keep_note(&self, name: &str, body: &str) -> Result<(), StoreError>;

    /// What keeping activity has cost so far.
    fn cost(&self) -> Cost;

    /// Lets go of connections and files (after the last write).
    async fn close(&self);
}

/// [`ActivityStore::hours_page`] for a store with no quicker way: reads
/// every row from `since` on and keeps the page.
pub async fn page_of_hours(
    store: &(impl ActivityStore + ?Sized),
    since: DateTime<Utc>,
    after: Option<(DateTime<Utc>, String)>,
    limit: usize,
) -> Result<Vec<HourRow>, StoreError> {
    let mut rows = store.hours_since(since).await?;
    rows.sort_by(|a, b| (a.hour, &a.path).cmp(&(b.hour, &b.path)));
    Ok(rows
        .into_iter()
        .filter(|row| {
            after
                .as_ref()
                .is_none_or(|(hour, path)| (row.hour, &row.path) > (*hour, path))
        })
        .take(limit)
        .collect())
}

/// [`ActivityStore::visitors_page`] for a store with no quicker way: reads
/// every row from `since` on and keeps the page.
pub async fn page_of_visitors(
    store: &(impl ActivityStore + ?Sized),
    since: NaiveDate,
    after: Option<(NaiveDate, VisitorToken)>,
    limit: usize,
) -> Result<Vec<VisitorDay>, StoreError> {
    let mut rows = store.visitors_since(since).await?;
    rows.sort_by(|a, b| (a.day, &a.visitor).cmp(&(b.day, &b.visitor)));
    Ok(rows
        .into_iter()
        .filter(|row| {
            after
                .as_ref()
                .is_none_or(|(day, visitor)| (row.day, &row.visitor) > (*day, visitor))
        })
        .take(limit)
        .collect())
}

/// Counts operations, failures and time for a store's [`Cost`].
#[derive(Debug, Default)]
pub struct CostMeter(Mutex<Cost>);

impl CostMeter {
    /// Records one operation that started at `started`.
    pub fn record<T, E>(&self, started: Instant, result: &Result<T, E>) {
        let mut cost = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cost.operations += 1;
        cost.time += started.elapsed();
        if result.is_err() {
            cost.failures += 1;
        }
    }

    /// The cost so far.
    pub fn snapshot(&self) -> Cost {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// Keeps nothing, and says why. What a store becomes when it cannot start.
#[derive(Debug)]
pub struct NullStore {
    name: StoreName,
    reason: String,
}

impl NullStore {
    /// A store named `name` that keeps nothing because of `reason` (one sentence).
    pub fn new(name: StoreName, reason: impl Into<String>) -> Self {
        Self {
            name,
            reason: reason.into(),
        }
    }
}

#[async_trait]
impl ActivityStore for NullStore {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn availability(&self) -> Availability {
        Availability {
            available: false,
            reason: self.reason.clone(),
            retention: "nothing is kept".to_owned(),
        }
    }

    async fn record(&self, _batch: &Batch) -> Result<(), StoreError> {
        Err(StoreError::Unavailable(self.reason.clone()))
    }

    async fn hours_since(&self, _since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        Ok(Vec::new())
    }

    async fn paths_in_hour(&self, _hour: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    async fn hours_page(
        &self,
        _since: DateTime<Utc>,
        _after: Option<(DateTime<Utc>, String)>,
        _limit: usize,
    ) -> Result<Vec<HourRow>, StoreError> {
        Ok(Vec::new())
    }

    async fn visitors_page(
        &self,
        _since: NaiveDate,
        _after: Option<(NaiveDate, VisitorToken)>,
        _limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        Ok(Vec::new())
    }

    async fn visitors_since(&self, _since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        Ok(Vec::new())
    }

    async fn latest_visitors(
        &self,
        _since: NaiveDate,
        _limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        Ok((Vec::new(), 0))
    }

    async fn day_summaries(
        &self,
        _first: NaiveDate,
        _last: NaiveDate,
        _steps: &[FunnelStep],
    ) -> Result<Vec<DaySummary>, StoreError> {
        Ok(Vec::new())
    }

    async fn day_requests(&self, _since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        Ok(Vec::new())
    }

    async fn day_marks(&self, _since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        Ok(Vec::new())
    }

    async fn enforce_retention(&self, _now: DateTime<Utc>) -> Result<(), StoreError> {
        Ok(())
    }

    async fn expired_kinds_since(
        &self,
        _since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
        Ok(Vec::new())
    }

    async fn bot_days_since(
        &self,
        _since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
        Ok(Vec::new())
    }

    /// Nothing was imported here, so a log would be read from its start;
    /// the import's writes fail as every write does, saying why.
    async fn imported(&self, _log: &str) -> Result<Option<Imported>, StoreError> {
        Ok(None)
    }

    async fn mark_imported(&self, _imported: &Imported) -> Result<(), StoreError> {
        Err(StoreError::Unavailable(self.reason.clone()))
    }

    async fn note(&self, _name: &str) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    async fn keep_note(&self, _name: &str, _body: &str) -> Result<(), StoreError> {
        Err(StoreError::Unavailable(self.reason.clone()))
    }

    fn cost(&self) -> Cost {
        Cost::default()
    }

    async fn close(&self) {}
}

/// Keeps activity in memory: for tests, and for trying whocomes out.
#[derive(Debug)]
pub struct MemoryStore {
    name: StoreName,
    retention: Retention,
    kept: Mutex<Batch>,
    expired: Mutex<BTreeMap<NaiveDate, KindCounts>>,
    expired_classes: Mutex<BTreeMap<(NaiveDate, BotClass), BotCount>>,
    marks: Mutex<BTreeMap<NaiveDate, u64>>,
    imports: Mutex<BTreeMap<String, Imported>>,
    notes: Mutex<BTreeMap<String, String>>,
    meter: CostMeter,
    failing: Mutex<Option<String>>,
    /// How long each write takes before it is kept (tests of a slow store).
    #[cfg(feature = "server")]
    write_delay: Mutex<Duration>,
}

impl MemoryStore {
    /// An empty store named `name`.
    pub fn new(name: StoreName, retention: Retention) -> Self {
        Self {
            name,
            imports: Mutex::default(),
            notes: Mutex::default(),
            retention,
            kept: Mutex::new(Batch::default()),
            expired: Mutex::new(BTreeMap::new()),
            expired_classes: Mutex::default(),
            marks: Mutex::default(),
            meter: CostMeter::default(),
            failing: Mutex::new(None),
            #[cfg(feature = "server")]
            write_delay: Mutex::default(),
        }
    }

    /// Makes every later write take `delay` before it is kept. For tests of
    /// a slow store (a big write to a remote database, a busy disk). Needs
    /// the `server` feature (a Tokio timer).
    #[cfg(feature = "server")]
    #[cfg_attr(docsrs, doc(cfg(feature = "server")))]
    pub fn set_write_delay(&self, delay: Duration) {
        *self
            .write_delay
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = delay;
    }

    /// Makes every later write fail with `reason` (`None`: work again). For
    /// tests of what happens when a store goes away.
    pub fn set_failing(&self, reason: Option<&str>) {
        *self
            .failing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = reason.map(str::to_owned);
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Batch> {
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl ActivityStore for MemoryStore {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn availability(&self) -> Availability {
        let failing = self
            .failing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Availability {
            available: failing.is_none(),
            reason: failing.unwrap_or_else(|| "kept in memory until the server stops".to_owned()),
            retention: self.retention.describe(),
        }
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        let started = Instant::now();
        #[cfg(feature = "server")]
        {
            let delay = *self
                .write_delay
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }
        let failing = self
            .failing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let result = match failing {
            Some(reason) => Err(StoreError::Unavailable(reason)),
            None => {
                let mut marks = self
                    .marks
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                for mark in &batch.marks {
                    *marks.entry(mark.day).or_default() += 1;
                }
                let mut kept = self.kept();
                let mut merged = std::mem::take(&mut *kept).merge(batch.clone());
                // A mark for a visitor-day this store has no row of marks nothing.
                merged.marks.clear();
                *kept = merged;
                Ok(())
            }
        };
        self.meter.record(started, &result);
        result
    }

    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        Ok(self
            .kept()
            .hours
            .iter()
            .filter(|row| row.hour >= since)
            .cloned()
            .collect())
    }

    async fn paths_in_hour(&self, hour: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        Ok(self
            .kept()
            .hours
            .iter()
            .filter(|row| row.hour == hour && row.store == self.name)
            .map(|row| row.path.clone())
            .collect())
    }

    async fn hours_page(
        &self,
        since: DateTime<Utc>,
        after: Option<(DateTime<Utc>, String)>,
        limit: usize,
    ) -> Result<Vec<HourRow>, StoreError> {
        page_of_hours(self, since, after, limit).await
    }

    async fn visitors_page(
        &self,
        since: NaiveDate,
        after: Option<(NaiveDate, VisitorToken)>,
        limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        page_of_visitors(self, since, after, limit).await
    }

    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        Ok(self
            .kept()
            .visitors
            .iter()
            .filter(|row| row.day >= since)
            .cloned()
            .collect())
    }

    async fn latest_visitors(
        &self,
        since: NaiveDate,
        limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        latest_of_all(self, since, limit).await
    }

    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
    ) -> Result<Vec<DaySummary>, StoreError> {
        read_and_summarize(self, first, last, steps).await
    }

    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        day_requests_from_hours(self, since).await
    }

    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        let mut kept = self.kept();
        let visitor_cutoff = self.retention.first_visitor_day(now);
        let mut expired = self
            .expired
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut classes = self
            .expired_classes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for row in kept.visitors.iter().filter(|row| row.day < visitor_cutoff) {
            expired.entry(row.day).or_default().add(visitor_kind(
                row.requests,
                row.bots,
                row.self_reads,
                row.evidence,
            ));
            for (class, count) in crate::report::class_visitor_days(&merge_visitors([row])) {
                // Verified crawlers are counted while their rows are kept.
                let count = BotCount {
                    verified: 0,
                    ..count
                };
                *classes.entry((row.day, class)).or_default() += count;
            }
        }
        kept.visitors.retain(|row| row.day >= visitor_cutoff);
        if let Some(hour_cutoff) = self.retention.first_hour(now) {
            kept.hours.retain(|row| row.hour >= hour_cutoff);
        }
        Ok(())
    }

    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError> {
        Ok(self
            .imports
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(log)
            .cloned())
    }

    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError> {
        self.imports
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(imported.log.clone(), imported.clone());
        Ok(())
    }

    async fn note(&self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned())
    }

    async fn keep_note(&self, name: &str, body: &str) -> Result<(), StoreError> {
        self.notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(name.to_owned(), body.to_owned());
        Ok(())
    }

    async fn expired_kinds_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
        let expired = self
            .expired
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(expired
            .range(since..)
            .map(|(day, kinds)| (*day, *kinds))
            .collect())
    }

    async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let marks = self
            .marks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(marks.range(since..).map(|(day, n)| (*day, *n)).collect())
    }

    async fn bot_days_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
        let mut days: BTreeMap<(NaiveDate, BotClass), BotCount> = BTreeMap::new();
        for row in self.kept().bot_days.iter().filter(|row| row.day >= since) {
            days.entry((row.day, row.class)).or_default().requests += row.requests;
        }
        let classes = self
            .expired_classes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for ((day, class), count) in classes.range((since, BotClass::SearchEngine)..) {
            *days.entry((*day, *class)).or_default() += *count;
        }
        Ok(days
            .into_iter()
            .map(|((day, class), count)| (day, class, count))
            .collect())
    }

    fn cost(&self) -> Cost {
        self.meter.snapshot()
    }

    async fn close(&self) {}
}

/// The newest visitor-days from `since` on, at most `limit`, and how many
/// there are in all, read through [`ActivityStore::visitors_since`]: for a
/// store with no quicker way to the visitor table's page.
pub async fn latest_of_all<S: ActivityStore + ?Sized>(
    store: &S,
    since: NaiveDate,
    limit: usize,
) -> Result<(Vec<VisitorDay>, u64), StoreError> {
    let mut rows = store.visitors_since(since).await?;
    let total = rows.len() as u64;
    rows.sort_by(|a, b| (&b.day, &b.visitor).cmp(&(&a.day, &a.visitor)));
    rows.truncate(limit);
    Ok((rows, total))
}

/// Requests per day from `since` on, summed from the hourly rows: for a
/// store that keeps no day totals of its own.
pub async fn day_requests_from_hours<S: ActivityStore + ?Sized>(
    store: &S,
    since: NaiveDate,
) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
    Ok(summary::day_requests(
        &store.hours_since(summary::midnight(since)).await?,
    ))
}

/// Reads a store's rows from `first` on and summarizes the days from
/// `first` to `last`: what every store's own `day_summaries` must equal.
pub async fn read_and_summarize<S: ActivityStore + ?Sized>(
    store: &S,
    first: NaiveDate,
    last: NaiveDate,
    steps: &[FunnelStep],
) -> Result<Vec<DaySummary>, StoreError> {
    let visitors = store.visitors_since(first).await?;
    let expired = store.expired_kinds_since(first).await?;
    let hours = store.hours_since(summary::midnight(first)).await?;
    let bot_days = store.bot_days_since(first).await?;
    Ok(summary::summarize(
        first,
        last,
        &merge_visitors(&visitors),
        &expired,
        &hours,
        &bot_days,
        steps,
    ))
}
