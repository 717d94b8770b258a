//! The SQL twin of the visitor-day verdict, run by a real PostgreSQL over
//! the verdict's whole table (every evidence bit pattern under every shape
//! of counts) and compared row by row with the rule it twins
//! (`activity::verdict::rule`). Without a server, the test says why it skips.
#![allow(clippy::print_stdout)]

use activity::verdict_table::{self, CREATE, check};
use sqlx::{Connection as _, PgConnection, Row as _};

#[tokio::test]
async fn postgres_reads_the_verdict_as_the_rule_does() {
    let Some(url) = whocomes_postgres::testing::fresh_database().await else {
        println!(
            "SKIPPED: TEST_DATABASE_URL is not set (scripts/test starts a PostgreSQL and sets it)"
        );
        return;
    };
    let mut db = PgConnection::connect(&url).await.expect("connects");
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
