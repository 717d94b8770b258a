//! # activity-sqlite — activity kept in one SQLite file
//!
//! whocomes' embedded default: one file in the data folder (WAL mode), no
//! server. Hours and visitor-days are added with multi-row upserts in one
//! transaction per batch; the schema lives in `migrations/` and is brought up
//! to date on open. Rows hold what `activity`'s records hold, nothing more.
#![forbid(unsafe_code)]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

mod chunks;
mod read;
mod rule;
mod summary;
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
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

/// Activity kept in a SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    name: StoreName,
    pool: SqlitePool,
    location: String,
    retention: Retention,
    meter: CostMeter,
    /// Why the last write failed, until a write succeeds again (a file
    /// that can be read but not written — read-only, disk full — is not
    /// keeping activity, though it answers reads).
    write_error: std::sync::Mutex<Option<String>>,
}

/// A database error in words safe to show (sqlx never puts row values in them).
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

impl SqliteStore {
    /// Opens the database at `url` (`sqlite://data/activity.db`, or a plain
    /// path), creating the file if it is missing, and brings its schema up
    /// to date.
    pub async fn open(
        url: &str,
        name: StoreName,
        retention: Retention,
    ) -> Result<Self, StoreError> {
        let url = if url.starts_with("sqlite:") {
            url.to_owned()
        } else {
            format!("sqlite://{url}")
        };
        let options = SqliteConnectOptions::from_str(&url)
            .map_err(|error| StoreError::Unavailable(format!("not a SQLite address: {error}")))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5));
        let location = options.get_filename().display().to_string();
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(|error| {
                StoreError::Unavailable(format!("cannot open SQLite at {location}: {error}"))
            })?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|error| {
                StoreError::Unavailable(format!("cannot set up SQLite at {location}: {error}"))
            })?;
        Ok(Self {
            name,
            pool,
            location,
            retention,
            meter: CostMeter::default(),
            write_error: std::sync::Mutex::default(),
        })
    }

    fn metered<T>(&self, started: Instant, result: Result<T, StoreError>) -> Result<T, StoreError> {
        self.meter.record(started, &result);
        result
    }
}

#[async_trait]
impl ActivityStore for SqliteStore {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn availability(&self) -> Availability {
        let reachable = sqlx::query("SELECT 1").execute(&self.pool).await;
        let write_error = self
            .write_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let (available, reason) = match (reachable, write_error) {
            (Err(error), _) => (
                false,
                format!("SQLite at {} cannot be used: {error}", self.location),
            ),
            (Ok(_), Some(error)) => (
                false,
                format!("SQLite at {} cannot be written: {error}", self.location),
            ),
            (Ok(_), None) => (true, format!("kept in SQLite at {}", self.location)),
        };
        Availability {
            available,
            reason,
            retention: self.retention.describe(),
        }
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let result = write::record(&self.pool, batch).await;
        *self
            .write_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            result.as_ref().err().map(ToString::to_string);
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
            sqlx::query_as("SELECT bytes, digest FROM imports WHERE store = ?1 AND log = ?2")
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
            "INSERT INTO imports (store, log, bytes, digest) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (store, log) DO UPDATE SET bytes = excluded.bytes, digest = excluded.digest",
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
        let result = sqlx::query_scalar("SELECT body FROM notes WHERE store = ?1 AND name = ?2")
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
            "INSERT INTO notes (store, name, body) VALUES (?1, ?2, ?3) \
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

    /// Closes the connections (the WAL is checkpointed into the file).
    async fn close(&self) {
        self.pool.close().await;
    }
}
