//! What an SQL engine brings to the shared store: its sqlx database, how it
//! binds and reads a day, an hour and a list, the little SQL it spells its
//! own way, how it opens, and how it writes a batch fastest.

use activity::rows::Batch;
use activity::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{Database, Pool};

use crate::basics::{Basics, Sending};

/// `(name, bit)` pairs as a statement reads them: the table to join, and
/// the expressions of a row's name and bit (the engine's own: SQLite reads
/// a JSON list in place, PostgreSQL names the columns of two arrays).
#[derive(Clone, Debug)]
pub struct Pairs {
    /// The table, with its alias: `… JOIN {table} ON …`.
    pub table: String,
    /// A row's name.
    pub name: String,
    /// A row's bit.
    pub bit: String,
}

/// A statement of engine `E` with its parameters bound so far.
pub type Query<'q, E> =
    sqlx::query::Query<'q, <E as Engine>::Db, <<E as Engine>::Db as Database>::Arguments<'q>>;

/// A row read back from engine `E`.
pub type Row<E> = <<E as Engine>::Db as Database>::Row;

/// An SQL engine under [`SqlStore`](crate::SqlStore). What every sqlx
/// database does alike (binding a text, running a statement) comes with
/// its database ([`Basics`]); the rest is a few lines each on the engine's
/// concrete types, so the shared code needs no bounds beyond this trait.
#[async_trait]
pub trait Engine: Send + Sync + 'static {
    /// The engine's sqlx database.
    type Db: Basics;

    /// The engine's name in a sentence ("kept in SQLite at …").
    const TITLE: &'static str;

    /// Connects to `url`; returns the pool and where it is, in words safe
    /// to show (never a password).
    async fn connect(url: &str) -> Result<(Pool<Self::Db>, String), StoreError>;

    /// Brings the schema up to date (the engine's own `migrations/`).
    async fn migrate(pool: &Pool<Self::Db>) -> Result<(), sqlx::migrate::MigrateError>;

    /// Writes a batch in one transaction (see [`upsert`](crate::upsert)).
    async fn record(pool: &Pool<Self::Db>, batch: &Batch) -> Result<(), StoreError>;

    /// Binds a text.
    fn bind_text<'q>(query: Query<'q, Self>, value: &'q str) -> Query<'q, Self> {
        Self::Db::bind_text(query, value)
    }
    /// Binds an integer.
    fn bind_int<'q>(query: Query<'q, Self>, value: i64) -> Query<'q, Self> {
        Self::Db::bind_int(query, value)
    }
    /// Binds a day as the engine keeps days.
    fn bind_day<'q>(query: Query<'q, Self>, value: NaiveDate) -> Query<'q, Self>;
    /// Binds an instant as the engine keeps hours.
    fn bind_hour<'q>(query: Query<'q, Self>, value: DateTime<Utc>) -> Query<'q, Self>;
    /// Binds `(name, bit)` pairs that [`pairs`](Self::pairs) reads as a table.
    fn bind_pairs<'q>(query: Query<'q, Self>, pairs: Vec<(String, i64)>) -> Query<'q, Self>;

    /// A table named `alias` of the pairs bound from parameter `$n` on (one
    /// parameter or two, as the engine binds them: bind them last), and
    /// how a statement names a pair's name and bit.
    fn pairs(n: usize, alias: &str) -> Pairs;
    /// The UTC day of an hour column, as the engine keeps days.
    fn day_of_hour(column: &str) -> String;
    /// Whether text `haystack` holds `needle` (case and all, byte for
    /// byte); NULL when `haystack` is.
    fn contains(haystack: &str, needle: &str) -> String;

    /// A column as an integer (any integer width the engine keeps).
    fn int(row: &Row<Self>, column: &str) -> Result<i64, StoreError>;
    /// A column as text.
    fn text(row: &Row<Self>, column: &str) -> Result<String, StoreError> {
        Self::Db::text(row, column)
    }
    /// A column as text, or NULL.
    fn optional_text(row: &Row<Self>, column: &str) -> Result<Option<String>, StoreError> {
        Self::Db::optional_text(row, column)
    }
    /// A 64-bit integer column, or NULL.
    fn optional_int(row: &Row<Self>, column: &str) -> Result<Option<i64>, StoreError> {
        Self::Db::optional_int(row, column)
    }
    /// A day column.
    fn day(row: &Row<Self>, column: &str) -> Result<NaiveDate, StoreError>;
    /// An hour column (the start of an hour).
    fn hour(row: &Row<Self>, column: &str) -> Result<DateTime<Utc>, StoreError>;
    /// A visitor-day's first or last seen.
    fn moment(row: &Row<Self>, column: &str) -> Result<DateTime<Utc>, StoreError>;

    /// Runs a statement on the pool and returns its rows.
    fn fetch_all<'a, 'q: 'a>(
        pool: &'a Pool<Self::Db>,
        query: Query<'q, Self>,
    ) -> Sending<'a, Result<Vec<Row<Self>>, sqlx::Error>> {
        Self::Db::fetch_all(pool, query)
    }
    /// Runs a statement on one connection (a transaction's).
    fn execute<'a, 'q: 'a>(
        connection: &'a mut <Self::Db as Database>::Connection,
        query: Query<'q, Self>,
    ) -> Sending<'a, Result<(), sqlx::Error>> {
        Self::Db::execute(connection, query)
    }
}
