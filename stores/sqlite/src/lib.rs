//! # whocomes-sqlite — activity kept in one SQLite file
//!
//! whocomes' embedded default: one file in the data folder (WAL mode), no
//! server. [`SqliteStore`] is the store the SQL adapters share
//! (`whocomes-sql`) on the [`SqliteEngine`]: what is SQLite's own is here —
//! opening the file and bringing its schema (`migrations/`) up to date,
//! days kept as `YYYY-MM-DD` text and times as Unix seconds (hours) or
//! milliseconds (first and last seen), lists bound as JSON, and a batch
//! written as multi-row upserts in one transaction. Rows hold what
//! `activity`'s records hold, nothing more.
#![forbid(unsafe_code)]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

mod chunks;
mod write;

use std::str::FromStr;
use std::time::Duration;

use activity::rows::Batch;
use activity::store::StoreError;
use activity_sql::basics::column;
use activity_sql::{Engine, Pairs, Query, invalid};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::{Connection, SqliteConnection, SqlitePool};

/// Activity kept in a SQLite file: open it with
/// `SqliteStore::open("data/activity.db", name, retention)` (a plain path
/// or a `sqlite://` address); the file is made if it is missing.
pub type SqliteStore = activity_sql::SqlStore<SqliteEngine>;

/// A plain path as a `sqlite://` address; an address as it is.
fn address(url: &str) -> String {
    if url.starts_with("sqlite:") {
        url.to_owned()
    } else {
        format!("sqlite://{url}")
    }
}

/// Whether `url` is a SQLite address this store can open, without
/// touching the file: what a start checks before it writes anything.
pub fn check_address(url: &str) -> Result<(), StoreError> {
    SqliteConnectOptions::from_str(&address(url))
        .map(drop)
        .map_err(|error| StoreError::Unavailable(format!("not a SQLite address: {error}")))
}

/// The file a SQLite address (or a plain path) names, if it names one.
pub fn file_of(url: &str) -> Option<std::path::PathBuf> {
    SqliteConnectOptions::from_str(&address(url))
        .ok()
        .map(|options| options.get_filename().to_owned())
        .filter(|path| !path.as_os_str().is_empty() && path.as_os_str() != ":memory:")
}

/// Whether a connection given back to the pool may be lent again. An error
/// such as a full disk can roll a transaction back under the driver, whose
/// own rollback then fails: it would still count the transaction open and
/// begin the next one as a savepoint inside it, so a write could answer
/// "done" (or "added already") for rows it never committed. Once the
/// rollback a dropped transaction queued has run (the ping waits for it),
/// a connection that still counts one open is closed.
async fn still_sound(connection: &mut SqliteConnection) -> Result<bool, sqlx::Error> {
    connection.ping().await?;
    Ok(!connection.is_in_transaction())
}

/// SQLite under the shared SQL store.
#[derive(Debug)]
pub struct SqliteEngine;

#[async_trait]
impl Engine for SqliteEngine {
    type Db = sqlx::Sqlite;
    const TITLE: &'static str = "SQLite";

    async fn connect(url: &str) -> Result<(SqlitePool, String), StoreError> {
        let options = SqliteConnectOptions::from_str(&address(url))
            .map_err(|error| StoreError::Unavailable(format!("not a SQLite address: {error}")))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5));
        let location = options.get_filename().display().to_string();
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .after_release(|connection, _| Box::pin(still_sound(connection)))
            .connect_with(options)
            .await
            .map_err(|error| {
                StoreError::Unavailable(format!("cannot open SQLite at {location}: {error}"))
            })?;
        Ok((pool, location))
    }

    async fn migrate(pool: &SqlitePool) -> Result<(), sqlx::migrate::MigrateError> {
        sqlx::migrate!("./migrations").run(pool).await
    }

    async fn record(pool: &SqlitePool, batch: &Batch) -> Result<(), StoreError> {
        write::record(pool, batch).await
    }

    fn bind_day<'q>(query: Query<'q, Self>, value: NaiveDate) -> Query<'q, Self> {
        query.bind(value.to_string())
    }

    fn bind_hour<'q>(query: Query<'q, Self>, value: DateTime<Utc>) -> Query<'q, Self> {
        query.bind(value.timestamp())
    }

    fn bind_pairs<'q>(query: Query<'q, Self>, pairs: Vec<(String, i64)>) -> Query<'q, Self> {
        // `[["/about", 2], …]`: a list of strings and integers always serialises.
        query.bind(serde_json::to_string(&pairs).unwrap_or_else(|_| "[]".to_owned()))
    }

    /// `[name, bit]` lists read in place by `json_each`.
    fn pairs(n: usize, alias: &str) -> Pairs {
        Pairs {
            table: format!("json_each(${n}) AS {alias}"),
            name: format!("{alias}.value->>0"),
            bit: format!("{alias}.value->>1"),
        }
    }

    fn day_of_hour(column: &str) -> String {
        format!("date({column}, 'unixepoch')")
    }

    fn contains(haystack: &str, needle: &str) -> String {
        format!("(instr({haystack}, {needle}) > 0)")
    }

    fn int(row: &SqliteRow, name: &str) -> Result<i64, StoreError> {
        column::<Self::Db, _>(row, name)
    }

    fn day(row: &SqliteRow, name: &str) -> Result<NaiveDate, StoreError> {
        column::<Self::Db, &str>(row, name)?
            .parse()
            .map_err(|_| invalid(name))
    }

    fn hour(row: &SqliteRow, name: &str) -> Result<DateTime<Utc>, StoreError> {
        DateTime::from_timestamp(column::<Self::Db, _>(row, name)?, 0).ok_or_else(|| invalid(name))
    }

    fn moment(row: &SqliteRow, name: &str) -> Result<DateTime<Utc>, StoreError> {
        DateTime::from_timestamp_millis(column::<Self::Db, _>(row, name)?)
            .ok_or_else(|| invalid(name))
    }
}
