//! The store that keeps activity in memory: the reference adapter the
//! contract is first run on, for tests, and for trying whocomes out.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
#[cfg(feature = "server")]
use std::time::Duration;
use std::time::Instant;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use crate::port::figures::CostMeter;
use crate::port::readers::{
    day_requests_from_hours, latest_of_all, page_of_hours, page_of_visitors, read_and_summarize,
};
use crate::port::rows::{Availability, Batch, BatchId, Cost, GoalHour, HourRow, VisitorDay};
use crate::port::store::{ActivityStore, Imported, Retention, StoreError};
use crate::request::bot_class::BotClass;
use crate::request::hit::StoreName;
use crate::sums::filter::Filter;
use crate::sums::report::{BotCount, FunnelStep, KindCounts, expiring_totals};
use crate::sums::summary::DaySummary;
use crate::visitor::token::VisitorToken;
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
    gone: Mutex<Option<Gone>>,
    /// The names of the batches it has added (each adds once).
    applied: Mutex<BTreeSet<BatchId>>,
    /// Writes still to be kept and then answered as failed.
    lost_replies: Mutex<u32>,
    /// How long each write takes before it is kept (tests of a slow store).
    #[cfg(feature = "server")]
    write_delay: Mutex<Duration>,
    /// How long each day's sum takes (tests of a slow read).
    #[cfg(feature = "server")]
    summary_delay: Mutex<Duration>,
}

/// How a [`MemoryStore`] has gone away, for tests of a store that cannot
/// be reached ([`MemoryStore::set_gone`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gone {
    /// Every call fails at once with this reason: a server that went away.
    Failing(String),
    /// No call ever answers: a server that stopped answering without
    /// closing its connections.
    Silent,
    /// Every read and write waits without end, as a pool that keeps
    /// trying a refused connection does, while the store's availability
    /// says at once that it cannot be reached, with this reason: a
    /// PostgreSQL that was stopped.
    Refused(String),
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
            gone: Mutex::new(None),
            applied: Mutex::default(),
            lost_replies: Mutex::default(),
            #[cfg(feature = "server")]
            write_delay: Mutex::default(),
            #[cfg(feature = "server")]
            summary_delay: Mutex::default(),
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
        *lock(&self.failing) = reason.map(str::to_owned);
    }

    /// Makes the next `writes` writes keep their batch and then fail, as a
    /// write whose reply was lost on the way does. For tests of a writer
    /// that cannot know whether a failed write was taken.
    pub fn set_lost_replies(&self, writes: u32) {
        *lock(&self.lost_replies) = writes;
    }

    /// Makes every later call (its availability, every read and write) fail
    /// or never answer as `gone` says (`None`: answer again). For tests of
    /// a store that cannot be reached.
    pub fn set_gone(&self, gone: Option<Gone>) {
        *lock(&self.gone) = gone;
    }

    /// Makes every later day's sum ([`ActivityStore::day_summaries`]) and
    /// every later page of visitor rows ([`ActivityStore::visitors_page`])
    /// take `delay` first, as a big store's reads of every row do. For
    /// tests of a slow read. Needs the `server` feature
    /// (a Tokio timer).
    #[cfg(feature = "server")]
    #[cfg_attr(docsrs, doc(cfg(feature = "server")))]
    pub fn set_summary_delay(&self, delay: Duration) {
        *lock(&self.summary_delay) = delay;
    }

    /// Waits as [`set_summary_delay`](Self::set_summary_delay) said.
    async fn slow_read(&self) {
        #[cfg(feature = "server")]
        {
            let delay = *lock(&self.summary_delay);
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }
    }

    /// Answers as a store that is there, or as [`set_gone`](Self::set_gone) said.
    async fn reachable(&self) -> Result<(), StoreError> {
        let gone = lock(&self.gone).clone();
        match gone {
            None => Ok(()),
            Some(Gone::Failing(reason)) => Err(StoreError::Unavailable(reason)),
            Some(Gone::Silent | Gone::Refused(_)) => std::future::pending().await,
        }
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
        if let Some(Gone::Refused(reason)) = lock(&self.gone).clone() {
            return Availability {
                available: false,
                reason,
                retention: self.retention.describe(),
            };
        }
        let failing = match self.reachable().await {
            Err(gone) => Some(gone.to_string()),
            Ok(()) => lock(&self.failing).clone(),
        };
        Availability {
            available: failing.is_none(),
            reason: failing.unwrap_or_else(|| "kept in memory until the server stops".to_owned()),
            retention: self.retention.describe(),
        }
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        self.reachable().await?;
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
        let failing = lock(&self.failing).clone();
        let result = match failing {
            Some(reason) => Err(StoreError::Unavailable(reason)),
            // A batch it has added already (sent again) adds nothing.
            None if batch
                .id
                .as_ref()
                .is_some_and(|id| !lock(&self.applied).insert(id.clone())) =>
            {
                Ok(())
            }
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
                let mut lost_replies = lock(&self.lost_replies);
                if *lost_replies > 0 {
                    *lost_replies -= 1;
                    Err(StoreError::Unavailable("the reply was lost".to_owned()))
                } else {
                    Ok(())
                }
            }
        };
        self.meter.record(started, &result);
        result
    }

    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        self.reachable().await?;
        Ok(self
            .kept()
            .hours
            .iter()
            .filter(|row| row.hour >= since)
            .cloned()
            .collect())
    }

    async fn goal_hours_since(&self, since: DateTime<Utc>) -> Result<Vec<GoalHour>, StoreError> {
        self.reachable().await?;
        Ok(self
            .kept()
            .goal_hours
            .iter()
            .filter(|row| row.hour >= since)
            .cloned()
            .collect())
    }

    async fn paths_in_hour(&self, hour: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        self.reachable().await?;
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
        self.reachable().await?;
        page_of_hours(self, since, after, limit).await
    }

    async fn visitors_page(
        &self,
        since: NaiveDate,
        after: Option<(NaiveDate, VisitorToken)>,
        limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        self.reachable().await?;
        self.slow_read().await;
        page_of_visitors(self, since, after, limit).await
    }

    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        self.reachable().await?;
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
        self.reachable().await?;
        latest_of_all(self, since, limit).await
    }

    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
        filter: &Filter,
    ) -> Result<Vec<DaySummary>, StoreError> {
        self.reachable().await?;
        self.slow_read().await;
        read_and_summarize(self, first, last, steps, filter).await
    }

    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        self.reachable().await?;
        day_requests_from_hours(self, since).await
    }

    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.reachable().await?;
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
        let mut by_day: BTreeMap<NaiveDate, Vec<&VisitorDay>> = BTreeMap::new();
        for row in kept.visitors.iter().filter(|row| row.day < visitor_cutoff) {
            by_day.entry(row.day).or_default().push(row);
        }
        for (day, rows) in by_day {
            let (kinds, day_classes) = expiring_totals(rows);
            *expired.entry(day).or_default() += kinds;
            for (class, count) in day_classes {
                *classes.entry((day, class)).or_default() += count;
            }
        }
        kept.visitors.retain(|row| row.day >= visitor_cutoff);
        if let Some(hour_cutoff) = self.retention.first_hour(now) {
            kept.hours.retain(|row| row.hour >= hour_cutoff);
            kept.goal_hours.retain(|row| row.hour >= hour_cutoff);
        }
        Ok(())
    }

    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError> {
        self.reachable().await?;
        Ok(self
            .imports
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(log)
            .cloned())
    }

    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError> {
        self.reachable().await?;
        self.imports
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(imported.log.clone(), imported.clone());
        Ok(())
    }

    async fn cached(&self, name: &str) -> Result<Option<String>, StoreError> {
        self.reachable().await?;
        Ok(self
            .notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned())
    }

    async fn keep_cached(&self, name: &str, body: &str) -> Result<(), StoreError> {
        self.reachable().await?;
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
        self.reachable().await?;
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
        self.reachable().await?;
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
        self.reachable().await?;
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

/// A lock that a panic elsewhere does not poison for good.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
