//! The SQL twin of the visitor-day verdict, run by a real PostgreSQL over
//! the verdict's whole table and compared row by row with the rule it
//! twins (`activity::verdict::rule`). Without a server, it says why it skips.
#![allow(clippy::print_stdout)]

use activity::StoreName;
use activity::store::Retention;
use whocomes_postgres::PostgresStore;

#[tokio::test]
async fn postgres_reads_the_verdict_as_the_rule_does() {
    let Some(url) = whocomes_postgres::testing::fresh_database().await else {
        println!(
            "SKIPPED: TEST_DATABASE_URL is not set (scripts/test starts a PostgreSQL and sets it)"
        );
        return;
    };
    let name = StoreName::parse("postgres").expect("a name");
    let store = PostgresStore::open(&url, name, Retention::default())
        .await
        .expect("connects");
    match store.check_verdict_sql().await {
        Ok(agreed) => assert_eq!(agreed, activity::verdict_table::cases().len()),
        Err(why) => panic!("{why}"),
    }
}
