//! What both engines do alike on their sqlx database: bind a text or an
//! integer, read a text or an integer that may be NULL back, run a statement. Written once, for every
//! database whose types allow it; the bounds are checked where an engine
//! names its database, so the shared code needs none.

use std::future::Future;
use std::pin::Pin;

use activity::store::StoreError;
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Pool, Row as _, Type};

use crate::error::invalid;

/// A statement of database `DB` with its parameters bound so far.
pub type Statement<'q, DB> = sqlx::query::Query<'q, DB, <DB as Database>::Arguments<'q>>;

/// A future that may cross threads (what a store's methods await).
pub type Sending<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A column of type `T`, or an error naming the column (never its value).
pub fn column<'r, DB, T>(row: &'r DB::Row, column: &str) -> Result<T, StoreError>
where
    DB: Database,
    T: Decode<'r, DB> + Type<DB>,
    for<'a> &'a str: ColumnIndex<DB::Row>,
{
    row.try_get(column).map_err(|_| invalid(column))
}

/// Binding, reading and running, alike on every database here.
pub trait Basics: Database {
    /// Binds a text.
    fn bind_text<'q>(query: Statement<'q, Self>, value: &'q str) -> Statement<'q, Self>;
    /// Binds an integer.
    fn bind_int<'q>(query: Statement<'q, Self>, value: i64) -> Statement<'q, Self>;
    /// A column as text, or an error naming the column.
    fn text(row: &Self::Row, column: &str) -> Result<String, StoreError>;
    /// A column as text or NULL, or an error naming the column.
    fn optional_text(row: &Self::Row, column: &str) -> Result<Option<String>, StoreError>;
    /// A 64-bit integer column or NULL, or an error naming the column.
    fn optional_int(row: &Self::Row, column: &str) -> Result<Option<i64>, StoreError>;
    /// Runs a statement on the pool and returns its rows.
    fn fetch_all<'a, 'q: 'a>(
        pool: &'a Pool<Self>,
        query: Statement<'q, Self>,
    ) -> Sending<'a, Result<Vec<Self::Row>, sqlx::Error>>;
    /// Runs a statement on one connection (a transaction's).
    fn execute<'a, 'q: 'a>(
        connection: &'a mut Self::Connection,
        query: Statement<'q, Self>,
    ) -> Sending<'a, Result<(), sqlx::Error>>;
}

impl<DB> Basics for DB
where
    DB: Database,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'r> String: Decode<'r, DB> + Type<DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    for<'q> <DB as Database>::Arguments<'q>: IntoArguments<'q, DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'a> &'a str: ColumnIndex<DB::Row>,
{
    fn bind_text<'q>(query: Statement<'q, Self>, value: &'q str) -> Statement<'q, Self> {
        query.bind(value)
    }

    fn bind_int<'q>(query: Statement<'q, Self>, value: i64) -> Statement<'q, Self> {
        query.bind(value)
    }

    fn text(row: &DB::Row, name: &str) -> Result<String, StoreError> {
        column::<DB, _>(row, name)
    }

    fn optional_text(row: &DB::Row, name: &str) -> Result<Option<String>, StoreError> {
        column::<DB, _>(row, name)
    }

    fn optional_int(row: &DB::Row, name: &str) -> Result<Option<i64>, StoreError> {
        column::<DB, _>(row, name)
    }

    fn fetch_all<'a, 'q: 'a>(
        pool: &'a Pool<Self>,
        query: Statement<'q, Self>,
    ) -> Sending<'a, Result<Vec<DB::Row>, sqlx::Error>> {
        Box::pin(query.fetch_all(pool))
    }

    fn execute<'a, 'q: 'a>(
        connection: &'a mut DB::Connection,
        query: Statement<'q, Self>,
    ) -> Sending<'a, Result<(), sqlx::Error>> {
        Box::pin(async move { query.execute(connection).await.map(|_| ()) })
    }
}
