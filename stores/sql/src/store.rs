//! [`SqlStore`]: the [`ActivityStore`] of every SQL engine. Each method
//! is metered (operations, failures, time) and passed to the shared
//! statements in `read`, `summary` and `retention`, or to the engine's
//! writer; a failed write is remembered until one succeeds, so a file that
//! can be read but not written says it is not keeping activity.

use std::time::Instant;

use activity::StoreName;
use activity::VisitorToken;
use activity::bot_class::BotClass;
use activity::filter::Filter;
use activity::report::{BotCount, FunnelStep, KindCounts};
use activity::rows::{Availability, Batch, Cost, GoalHour, HourRow, VisitorDay};
use activity::store::{
    ActivityStore, CostMeter, Imported, LastWrite, Retention, StoreError, availability_of,
};
use activity::summary::{DaySummary, MAX_STEPS};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{ConnectOptions as _, Connection as _, Pool};

use crate::engine::Engine;
use crate::error::failed;
use crate::summary::DayColumn;
use crate::{count, int, read, retention, summary};

/// How long [`availability`](ActivityStore::availability) waits for the
/// engine to answer, and then for a connection of its own.
const REACH_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long [`availability`](ActivityStore::availability) waits for the
/// pool before it also asks over a connection of its own.
const POOL_FIRST: std::time::Duration = std::time::Duration::from_millis(250);

/// Activity kept by an SQL engine `E`.
pub struct SqlStore<E: Engine> {
    name: StoreName,
    pub(crate) pool: Pool<E::Db>,
    location: String,
    retention: Retention,
    meter: CostMeter,
    /// Why the last write failed, until a write succeeds again.
    last_write: LastWrite,
}

impl<E: Engine> std::fmt::Debug for SqlStore<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore")
            .field("engine", &E::TITLE)
            .field("name", &self.name)
            .field("location", &self.location)
            .field("retention", &self.retention)
            .finish_non_exhaustive()
    }
}

impl<E: Engine> SqlStore<E> {
    /// Opens the store at `url` (the engine says what an address looks
    /// like), bringing its schema up to date.
    pub async fn open(
        url: &str,
        name: StoreName,
        retention: Retention,
    ) -> Result<Self, StoreError> {
        let (pool, location) = E::connect(url).await?;
        E::migrate(&pool).await.map_err(|error| {
            StoreError::Unavailable(format!("cannot set up {} at {location}: {error}", E::TITLE))
        })?;
        Ok(Self {
            name,
            pool,
            location,
            retention,
            meter: CostMeter::default(),
            last_write: LastWrite::default(),
        })
    }

    /// Why the engine cannot be reached, if it cannot: a connection of
    /// its own, outside the pool, says at once what the pool would say
    /// only as "timed out" (`cannot reach PostgreSQL at db:5432/site:
    /// … Connection refused`). The words hold the location, never the
    /// password.
    async fn unreachable(&self) -> Option<String> {
        let options = self.pool.connect_options();
        match tokio::time::timeout(REACH_WAIT, options.connect()).await {
            Ok(Ok(connection)) => {
                let _ = connection.close().await;
                None
            }
            Ok(Err(error)) => Some(format!(
                "cannot reach {} at {}: {error}",
                E::TITLE,
                self.location
            )),
            Err(_) => Some(format!(
                "cannot reach {} at {}: no answer within {} s",
                E::TITLE,
                self.location,
                REACH_WAIT.as_secs()
            )),
        }
    }

    fn metered<T>(&self, started: Instant, result: Result<T, StoreError>) -> Result<T, StoreError> {
        self.meter.record(started, &result);
        result
    }
}

#[async_trait]
impl<E: Engine> ActivityStore for SqlStore<E> {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn availability(&self) -> Availability {
        let pooled = E::fetch_all(&self.pool, sqlx::query("SELECT 1"));
        let mut pooled = std::pin::pin!(tokio::time::timeout(REACH_WAIT, pooled));
        // An engine that is up answers the pool at once. One that does not
        // is asked over a connection of the store's own, which says at once
        // whether it can be reached at all (a pool goes on trying a refused
        // connection for seconds); a busy one is waited for.
        let asked = match tokio::time::timeout(POOL_FIRST, &mut pooled).await {
            Ok(asked) => asked,
            Err(_) => {
                if let Some(unreachable) = self.unreachable().await {
                    return Availability {
                        available: false,
                        reason: unreachable,
                        retention: self.retention.describe(),
                    };
                }
                pooled.await
            }
        };
        let reachable = match asked {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!(
                "no pooled connection answered within {} s",
                REACH_WAIT.as_secs()
            )),
        };
        if let Err(error) = &reachable
            && let Some(unreachable) = self.unreachable().await
        {
            tracing::debug!(%error, "the pool's own words");
            return Availability {
                available: false,
                reason: unreachable,
                retention: self.retention.describe(),
            };
        }
        availability_of(
            (E::TITLE, &self.location),
            reachable,
            &self.last_write,
            &self.retention,
        )
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let result = E::record(&self.pool, batch).await;
        self.last_write.note(&result);
        self.metered(started, result)
    }

    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        let started = Instant::now();
        let result = read::hours_since::<E>(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn goal_hours_since(&self, since: DateTime<Utc>) -> Result<Vec<GoalHour>, StoreError> {
        let started = Instant::now();
        let result = read::goal_hours_since::<E>(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn hours_page(
        &self,
        since: DateTime<Utc>,
        after: Option<(DateTime<Utc>, String)>,
        limit: usize,
    ) -> Result<Vec<HourRow>, StoreError> {
        let started = Instant::now();
        let result = read::hours_page::<E>(&self.pool, &self.name, since, after, limit).await;
        self.metered(started, result)
    }

    async fn visitors_page(
        &self,
        since: NaiveDate,
        after: Option<(NaiveDate, VisitorToken)>,
        limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        let started = Instant::now();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // A token is never empty, so `(since, "")` is before the first row.
        let (day, visitor) = after.map_or((since, String::new()), |(day, visitor)| {
            (day, visitor.as_str().to_owned())
        });
        let which = read::Which::After(day, &visitor, limit);
        let result = read::visitors::<E>(&self.pool, &self.name, since, which).await;
        self.metered(started, result)
    }

    async fn paths_in_hour(&self, hour: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        let started = Instant::now();
        let result = read::paths_in_hour::<E>(&self.pool, &self.name, hour).await;
        self.metered(started, result)
    }

    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        let started = Instant::now();
        let result = read::visitors::<E>(&self.pool, &self.name, since, read::Which::All).await;
        self.metered(started, result)
    }

    async fn latest_visitors(
        &self,
        since: NaiveDate,
        limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        let started = Instant::now();
        let result = read::latest_visitors::<E>(&self.pool, &self.name, since, limit).await;
        self.metered(started, result)
    }

    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
        filter: &Filter,
    ) -> Result<Vec<DaySummary>, StoreError> {
        if steps.len() > MAX_STEPS {
            return activity::store::read_and_summarize(self, first, last, steps, filter).await;
        }
        let started = Instant::now();
        let result =
            summary::day_summaries::<E>(&self.pool, &self.name, (first, last), steps, filter).await;
        self.metered(started, result)
    }

    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let started = Instant::now();
        let result =
            summary::day_counts::<E>(&self.pool, &self.name, since, DayColumn::Requests).await;
        self.metered(started, result)
    }

    async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let started = Instant::now();
        let result =
            summary::day_counts::<E>(&self.pool, &self.name, since, DayColumn::Marks).await;
        self.metered(started, result)
    }

    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        let started = Instant::now();
        let result = retention::enforce::<E>(&self.pool, &self.name, self.retention, now).await;
        self.metered(started, result)
    }

    async fn expired_kinds_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
        let started = Instant::now();
        let result = read::expired_kinds_since::<E>(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn bot_days_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
        let started = Instant::now();
        let result = read::bot_days_since::<E>(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError> {
        let started = Instant::now();
        let query = sqlx::query("SELECT bytes, digest FROM imports WHERE store = $1 AND log = $2");
        let query = E::bind_text(E::bind_text(query, self.name.as_str()), log);
        let result = match E::fetch_all(&self.pool, query).await.map_err(failed) {
            Ok(rows) => rows
                .first()
                .map(|row| {
                    Ok(Imported {
                        log: log.to_owned(),
                        bytes: count(E::int(row, "bytes")?),
                        digest: E::text(row, "digest")?,
                    })
                })
                .transpose(),
            Err(error) => Err(error),
        };
        self.metered(started, result)
    }

    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError> {
        let started = Instant::now();
        let query = sqlx::query(
            "INSERT INTO imports (store, log, bytes, digest) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (store, log) DO UPDATE SET bytes = excluded.bytes, digest = excluded.digest",
        );
        let query = E::bind_text(query, self.name.as_str());
        let query = E::bind_text(query, &imported.log);
        let query = E::bind_int(query, int(imported.bytes));
        let query = E::bind_text(query, &imported.digest);
        let result = E::fetch_all(&self.pool, query)
            .await
            .map(|_| ())
            .map_err(failed);
        self.metered(started, result)
    }

    async fn cached(&self, name: &str) -> Result<Option<String>, StoreError> {
        let started = Instant::now();
        let query = sqlx::query("SELECT body FROM notes WHERE store = $1 AND name = $2");
        let query = E::bind_text(E::bind_text(query, self.name.as_str()), name);
        let result = match E::fetch_all(&self.pool, query).await.map_err(failed) {
            Ok(rows) => rows.first().map(|row| E::text(row, "body")).transpose(),
            Err(error) => Err(error),
        };
        self.metered(started, result)
    }

    async fn keep_cached(&self, name: &str, body: &str) -> Result<(), StoreError> {
        let started = Instant::now();
        let query = sqlx::query(
            "INSERT INTO notes (store, name, body) VALUES ($1, $2, $3) \
             ON CONFLICT (store, name) DO UPDATE SET body = excluded.body",
        );
        let query = E::bind_text(E::bind_text(query, self.name.as_str()), name);
        let query = E::bind_text(query, body);
        let result = E::fetch_all(&self.pool, query)
            .await
            .map(|_| ())
            .map_err(failed);
        self.metered(started, result)
    }

    fn cost(&self) -> Cost {
        self.meter.snapshot()
    }

    /// Closes the connections (SQLite checkpoints its WAL into the file).
    async fn close(&self) {
        self.pool.close().await;
    }
}
