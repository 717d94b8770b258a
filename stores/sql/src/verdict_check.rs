//! The verdict's SQL twin checked in this store's own engine, for tests:
//! the verdict's whole table (`activity::verdict_table`: every evidence bit
//! pattern under every shape of counts) is written to the store's database,
//! the twin (`activity::kind_sql`) answers each row, and each answer is
//! compared with the rule itself. Behind the `testing` feature: it writes a
//! table of its own, so only into a throwaway database.

use activity::verdict_table::{self, COLUMNS, CREATE};

use crate::engine::Engine;
use crate::store::SqlStore;

impl<E: Engine> SqlStore<E> {
    /// Runs the check; `Ok` is how many cases agreed, `Err` names the first
    /// that did not (or the statement that failed).
    pub async fn check_verdict_sql(&self) -> Result<usize, String> {
        let pool = &self.pool;
        let mut connection = pool
            .acquire()
            .await
            .map_err(|error| format!("no connection: {error}"))?;
        for statement in std::iter::once(CREATE.to_owned()).chain(verdict_table::inserts()) {
            E::execute(&mut *connection, sqlx::query(&statement))
                .await
                .map_err(|error| format!("cannot fill the table: {error}"))?;
        }
        drop(connection);
        let select = verdict_table::select_sql();
        let rows = E::fetch_all(pool, sqlx::query(&select))
            .await
            .map_err(|error| format!("the rule does not run: {error}"))?;
        for row in &rows {
            let mut answer = [0; COLUMNS.len()];
            for (value, column) in answer.iter_mut().zip(COLUMNS) {
                *value = E::int(row, column).map_err(|error| error.to_string())?;
            }
            verdict_table::check(answer)?;
        }
        Ok(rows.len())
    }
}
