//! The store that keeps nothing, and says why: what a store becomes when
//! it cannot start (no key, a read-only folder), so the site still serves.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use crate::port::rows::{Availability, Batch, Cost, GoalHour, HourRow, VisitorDay};
use crate::port::store::{ActivityStore, Imported, StoreError};
use crate::request::bot_class::BotClass;
use crate::request::hit::StoreName;
use crate::sums::filter::Filter;
use crate::sums::report::{BotCount, FunnelStep, KindCounts};
use crate::sums::summary::DaySummary;
use crate::visitor::token::VisitorToken;
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

    async fn goal_hours_since(&self, _since: DateTime<Utc>) -> Result<Vec<GoalHour>, StoreError> {
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
        _filter: &Filter,
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

    async fn cached(&self, _name: &str) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    async fn keep_cached(&self, _name: &str, _body: &str) -> Result<(), StoreError> {
        Err(StoreError::Unavailable(self.reason.clone()))
    }

    fn cost(&self) -> Cost {
        Cost::default()
    }

    async fn close(&self) {}
}
