//! # whocomes-postgres — activity kept in PostgreSQL
//!
//! What several instances (or sites) share when a site outgrows one machine:
//! each names its store, all write to one database. [`PostgresStore`] is
//! the store the SQL adapters share (`whocomes-sql`) on the
//! [`PostgresEngine`]: what is PostgreSQL's own is here — connecting and
//! bringing the schema (`migrations/`) up to date, days as `DATE` and times
//! as `TIMESTAMPTZ`, lists bound as arrays, and a batch written one
//! statement per table with its columns as arrays. The address of the
//! database is never logged or shown with its password.
#![forbid(unsafe_code)]
// docs.rs marks each item behind a feature with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
mod write;

use std::str::FromStr;
use std::time::Duration;

use activity::rows::Batch;
use activity::store::StoreError;
use activity_sql::basics::column;
use activity_sql::{Engine, Pairs, Query};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgRow};

/// Activity kept in a PostgreSQL database: open it with
/// `PostgresStore::open("postgres://user:password@host:port/database", name, retention)`.
pub type PostgresStore = activity_sql::SqlStore<PostgresEngine>;

/// The words for an address that cannot be read (never the address: it
/// may hold a password).
const NOT_A_URL: &str =
    "the PostgreSQL address is not a valid URL (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)";

/// Whether `url` is a PostgreSQL address, without connecting: what a
/// start checks before it writes anything.
pub fn check_address(url: &str) -> Result<(), StoreError> {
    PgConnectOptions::from_str(url)
        .map(drop)
        .map_err(|_| StoreError::Unavailable(NOT_A_URL.to_owned()))
}

/// PostgreSQL under the shared SQL store.
#[derive(Debug)]
pub struct PostgresEngine;

#[async_trait]
impl Engine for PostgresEngine {
    type Db = sqlx::Postgres;
    const TITLE: &'static str = "PostgreSQL";

    async fn connect(url: &str) -> Result<(PgPool, String), StoreError> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|_| StoreError::Unavailable(NOT_A_URL.to_owned()))?
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
        Ok((pool, location))
    }

    async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
        sqlx::migrate!("./migrations").run(pool).await
    }

    async fn record(pool: &PgPool, batch: &Batch) -> Result<(), StoreError> {
        write::record(pool, batch).await
    }

    fn bind_day<'q>(query: Query<'q, Self>, value: NaiveDate) -> Query<'q, Self> {
        query.bind(value)
    }

    fn bind_hour<'q>(query: Query<'q, Self>, value: DateTime<Utc>) -> Query<'q, Self> {
        query.bind(value)
    }

    fn bind_pairs<'q>(query: Query<'q, Self>, pairs: Vec<(String, i64)>) -> Query<'q, Self> {
        let (names, bits): (Vec<String>, Vec<i64>) = pairs.into_iter().unzip();
        query.bind(names).bind(bits)
    }

    /// Two arrays, as the columns `name` and `bit`.
    fn pairs(n: usize, alias: &str) -> Pairs {
        Pairs {
            table: format!(
                "UNNEST(${n}::text[], ${}::int8[]) AS {alias}(name, bit)",
                n + 1
            ),
            name: format!("{alias}.name"),
            bit: format!("{alias}.bit"),
        }
    }

    fn day_of_hour(column: &str) -> String {
        format!("({column} AT TIME ZONE 'UTC')::date")
    }

    fn contains(haystack: &str, needle: &str) -> String {
        format!("(strpos({haystack}, {needle}) > 0)")
    }

    /// BIGINT, INTEGER or SMALLINT alike (evidence and classes are INTEGER).
    fn int(row: &PgRow, name: &str) -> Result<i64, StoreError> {
        column::<Self::Db, i64>(row, name)
            .or_else(|_| column::<Self::Db, i32>(row, name).map(i64::from))
            .or_else(|_| column::<Self::Db, i16>(row, name).map(i64::from))
    }

    fn day(row: &PgRow, name: &str) -> Result<NaiveDate, StoreError> {
        column::<Self::Db, _>(row, name)
    }

    fn hour(row: &PgRow, name: &str) -> Result<DateTime<Utc>, StoreError> {
        column::<Self::Db, _>(row, name)
    }

    fn moment(row: &PgRow, name: &str) -> Result<DateTime<Utc>, StoreError> {
        column::<Self::Db, _>(row, name)
    }
}
