//! # activity-postgres — activity kept in PostgreSQL
//!
//! What several instances (or sites) share when a site outgrows one machine:
//! each names its store, all write to one database. Hours and visitor-days
//! are added with multi-row upserts in one transaction per batch; the schema
//! lives in `migrations/` and is brought up to date on connect. The address
//! of the database is never logged or shown with its password.
#![forbid(unsafe_code)]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

mod read;
mod summary;
#[cfg(feature = "testing")]
pub mod testing;
mod write;

use std::str::FromStr;
use std::time::{Duration, Instant};

use activity::StoreName;
use activity::bot_class::BotClass;
use activity::report::{BotCount, FunnelStep, KindCounts};
use activity::rows::{Availability, Batch, Cost, HourRow, VisitorDay};
use activity::store::{ActivityStore, CostMeter, Imported, Retention, StoreError};
use activity::summary::{DaySummary, MAX_STEPS};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

/// Activity kept in a PostgreSQL database.
#[derive(Debug)]
pub struct PostgresStore {
    name: StoreName,
    pool: PgPool,
    location: String,
    retention: Retention,
    meter: CostMeter,
}

/// A database error in words safe to show (sqlx never puts row values or
/// passwords in them).
pub(crate) fn failed(error: sqlx::Error) -> StoreError {
    match error {
        sqlx::Error::PoolTimedOut => StoreError::Busy,
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::PoolClosed => {
            StoreError::Unavailable(error.to_string())
        }
        sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::Decode(_)
        | sqlx::Error::ColumnNotFound(_)
        | sqlx::Error::TypeNotFound { .. } => StoreError::Corrupt(error.to_string()),
        _ => StoreError::Failed(error.to_string()),
    }
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`) and
    /// brings the schema up to date.
    pub async fn connect(
        url: &str,
        name: StoreName,
        retention: Retention,
    ) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|_| {
                StoreError::Unavailable("the PostgreSQL address is not a valid URL".to_owned())
            })?
            // Statements are prepared once per connection; a generic plan
            // (chosen after five runs) guesses at `LIMIT $3` and day ranges
            // and read the visitor table's page for minutes. Plan each run
            // for its own values instead: planning costs well under 1 ms.
            .options([("plan_cache_mode", "force_custom_plan")]);
        let location = format!(
            "{}:{}/{}",
            options.get_host(),
            options.get_port(),
            options.get_database().unwrap_or("postgres")
        );
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options)
            .await
            .map_err(|error| {
                StoreError::Unavailable(format!("cannot reach PostgreSQL at {location}: {error}"))
            })?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|error| {
                StoreError::Unavailable(format!("cannot set up PostgreSQL at {location}: {error}"))
            })?;
        Ok(Self {
            name,
            pool,
            location,
            retention,
            meter: CostMeter::default(),
        })
    }

    fn metered<T>(&self, started: Instant, result: Result<T, StoreError>) -> Result<T, StoreError> {
        self.meter.record(started, &result);
        result
    }
}

#[async_trait]
impl ActivityStore for PostgresStore {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn availability(&self) -> Availability {
        let reachable = sqlx::query("SELECT 1").execute(&self.pool).await;
        Availability {
            available: reachable.is_ok(),
            reason: match reachable {
                Ok(_) => format!("kept in PostgreSQL at {}", self.location),
                Err(error) => format!("PostgreSQL at {} cannot be used: {error}", self.location),
            },
            retention: self.retention.describe(),
        }
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let result = write::record(&self.pool, batch).await;
        self.metered(started, result)
    }

    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        let started = Instant::now();
        let result = read::hours_since(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        let started = Instant::now();
        let result = read::visitors_since(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn latest_visitors(
        &self,
        since: NaiveDate,
        limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        let started = Instant::now();
        let result = read::latest_visitors(&self.pool, &self.name, since, limit).await;
        self.metered(started, result)
    }

    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
    ) -> Result<Vec<DaySummary>, StoreError> {
        if steps.len() > MAX_STEPS {
            return activity::store::read_and_summarize(self, first, last, steps).await;
        }
        let started = Instant::now();
        let result = summary::day_summaries(&self.pool, &self.name, first, last, steps).await;
        self.metered(started, result)
    }

    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let started = Instant::now();
        let result =
            summary::day_requests(&self.pool, &self.name, since, summary::DayColumn::Requests)
                .await;
        self.metered(started, result)
    }

    async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let started = Instant::now();
        let result =
            summary::day_requests(&self.pool, &self.name, since, summary::DayColumn::Marks).await;
        self.metered(started, result)
    }

    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        let started = Instant::now();
        let result = write::enforce_retention(&self.pool, &self.name, self.retention, now).await;
        self.metered(started, result)
    }

    async fn expired_kinds_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
        let started = Instant::now();
        let result = read::expired_kinds_since(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn bot_days_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
        let started = Instant::now();
        let result = read::bot_days_since(&self.pool, &self.name, since).await;
        self.metered(started, result)
    }

    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError> {
        let started = Instant::now();
        let row: Result<Option<(i64, String)>, StoreError> =
            sqlx::query_as("SELECT bytes, digest FROM imports WHERE store = $1 AND log = $2")
                .bind(self.name.as_str())
                .bind(log)
                .fetch_optional(&self.pool)
                .await
                .map_err(failed);
        let result = row.map(|row| {
            row.map(|(bytes, digest)| Imported {
                log: log.to_owned(),
                bytes: u64::try_from(bytes).unwrap_or(0),
                digest,
            })
        });
        self.metered(started, result)
    }

    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError> {
        let started = Instant::now();
        let result = sqlx::query(
            "INSERT INTO imports (store, log, bytes, digest) VALUES ($1, $2, $3, $4) ON CONFLICT (store, log) DO UPDATE SET bytes = excluded.bytes, digest = excluded.digest",
        )
        .bind(self.name.as_str())
        .bind(&imported.log)
        .bind(i64::try_from(imported.bytes).unwrap_or(i64::MAX))
        .bind(&imported.digest)
        .execute(&self.pool)
        .await
        .map(|_| ())
        .map_err(failed);
        self.metered(started, result)
    }

    async fn note(&self, name: &str) -> Result<Option<String>, StoreError> {
        let started = Instant::now();
        let result = sqlx::query_scalar("SELECT body FROM notes WHERE store = $1 AND name = $2")
            .bind(self.name.as_str())
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(failed);
        self.metered(started, result)
    }

    async fn keep_note(&self, name: &str, body: &str) -> Result<(), StoreError> {
        let started = Instant::now();
        let result = sqlx::query(
            "INSERT INTO notes (store, name, body) VALUES ($1, $2, $3) \
             ON CONFLICT (store, name) DO UPDATE SET body = excluded.body",
        )
        .bind(self.name.as_str())
        .bind(name)
        .bind(body)
        .execute(&self.pool)
        .await
        .map(|_| ())
        .map_err(failed);
        self.metered(started, result)
    }

    fn cost(&self) -> Cost {
        self.meter.snapshot()
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}
