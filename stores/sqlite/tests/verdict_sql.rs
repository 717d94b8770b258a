//! The SQL twin of the visitor-day verdict, run by SQLite over the
//! verdict's whole table (every evidence bit pattern under every shape of
//! counts) and compared row by row with the rule it twins
//! (`activity::verdict::rule`).

use activity::verdict_table::{self, CREATE, check};
use sqlx::{Connection as _, Row as _, SqliteConnection};

#[tokio::test]
async fn sqlite_reads_the_verdict_as_the_rule_does() {
    let mut db = SqliteConnection::connect("sqlite::memory:")
        .await
        .expect("an in-memory database");
    sqlx::query(CREATE).execute(&mut db).await.expect("the table");
    for insert in verdict_table::inserts() {
        sqlx::query(&insert).execute(&mut db).await.expect("the rows");
    }
    let rows = sqlx::query(&verdict_table::select_sql())
        .fetch_all(&mut db)
        .await
        .expect("the rule runs");
    assert_eq!(rows.len(), verdict_table::cases().len());
    for row in rows {
        let answer: [i64; 10] = std::array::from_fn(|index| row.get(index));
        if let Err(why) = check(answer) {
            panic!("{why}");
        }
    }
}
