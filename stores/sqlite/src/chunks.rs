//! Rows bound as parameters: a statement takes [`ROWS`] rows at a time as
//! one multi-row `VALUES` list of `?`s, the last chunk padded with rows of
//! NULLs that the statement skips. So each table's statement has one text
//! whatever the batch's size, and is prepared once per connection (sqlx
//! keeps it), and no row is turned into text (JSON) to be parsed again.

use sqlx::sqlite::{SqliteArguments, SqliteConnection, SqliteRow};
use sqlx::{Sqlite, query::Query};

use activity::store::StoreError;

use activity_sql::failed;

/// Rows per statement: 128 rows of at most 24 columns is 3,072 parameters,
/// far below SQLite's limit of 32,766; a small batch pads at most 127 rows.
pub(crate) const ROWS: usize = 128;

/// A statement that takes a chunk of rows: its text, with [`ROWS`] rows of
/// parameters, and the parameters per row.
pub(crate) struct Chunked {
    text: String,
    columns: usize,
}

/// One statement with its parameters, ready to have a row bound.
pub(crate) type Bound<'q> = Query<'q, Sqlite, SqliteArguments<'q>>;

impl Chunked {
    /// `sql` names `{rows}` where the rows go: `… FROM (VALUES {rows}) WHERE
    /// column1 IS NOT NULL …`, so that the padding rows are skipped.
    pub(crate) fn new(sql: &str, columns: usize) -> Self {
        let row = format!("({})", vec!["?"; columns].join(","));
        Self {
            text: sql.replace("{rows}", &vec![row; ROWS].join(",")),
            columns,
        }
    }

    /// Runs the statement over `rows`, one chunk at a time, binding each
    /// row's `columns` values with `bind`.
    pub(crate) async fn run<'q, T>(
        &'q self,
        connection: &mut SqliteConnection,
        rows: &'q [T],
        bind: impl Fn(Bound<'q>, &'q T) -> Bound<'q>,
    ) -> Result<(), StoreError> {
        for chunk in rows.chunks(ROWS) {
            self.bound(chunk, &bind)
                .execute(&mut *connection)
                .await
                .map_err(failed)?;
        }
        Ok(())
    }

    /// Like [`run`](Self::run), for a statement with `RETURNING`: the rows
    /// it returns, every chunk's.
    pub(crate) async fn fetch<'q, T>(
        &'q self,
        connection: &mut SqliteConnection,
        rows: &'q [T],
        bind: impl Fn(Bound<'q>, &'q T) -> Bound<'q>,
    ) -> Result<Vec<SqliteRow>, StoreError> {
        let mut returned = Vec::with_capacity(rows.len());
        for chunk in rows.chunks(ROWS) {
            returned.extend(
                self.bound(chunk, &bind)
                    .fetch_all(&mut *connection)
                    .await
                    .map_err(failed)?,
            );
        }
        Ok(returned)
    }

    /// The statement with `chunk`'s rows bound, padded to [`ROWS`] rows.
    fn bound<'q, T>(
        &'q self,
        chunk: &'q [T],
        bind: &impl Fn(Bound<'q>, &'q T) -> Bound<'q>,
    ) -> Bound<'q> {
        let mut query = sqlx::query(&self.text);
        for row in chunk {
            query = bind(query, row);
        }
        for _ in 0..(ROWS - chunk.len()) * self.columns {
            query = query.bind(None::<i64>);
        }
        query
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_has_a_row_of_parameters_per_row() {
        let text = Chunked::new("INSERT INTO t SELECT * FROM (VALUES {rows})", 3).text;
        assert_eq!(text.matches("(?,?,?)").count(), ROWS);
        assert_eq!(text.matches('?').count(), ROWS * 3);
        assert!(text.starts_with("INSERT INTO t SELECT * FROM (VALUES (?,?,?),(?,?,?),"));
        assert!(text.ends_with("(?,?,?))"));
    }
}
