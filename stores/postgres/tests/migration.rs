//! A store written under the previous schema (before migration 0005 named
//! the kinds' columns `bots` and `self_reads`) opens under the current one
//! and keeps every count. Needs a PostgreSQL (`TEST_DATABASE_URL`, which
//! `scripts/test` sets); without one it says why it skips.
#![allow(clippy::print_stdout)]

use activity::StoreName;
use activity::holdings;
use activity::store::{ActivityStore as _, Retention};
use chrono::{TimeZone, Utc};
use sqlx::Connection as _;
use whocomes_postgres::PostgresStore;

#[tokio::test]
async fn a_store_of_the_previous_schema_keeps_every_count() {
    let Some(url) = whocomes_postgres::testing::fresh_database().await else {
        println!(
            "SKIPPED: TEST_DATABASE_URL is not set (scripts/test starts a PostgreSQL and sets it)"
        );
        return;
    };
    let name = StoreName::parse("postgres").expect("a name");
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
        .single()
        .expect("a time");
    let store = PostgresStore::connect(&url, name.clone(), Retention::default())
        .await
        .expect("connects");
    let written = holdings::fill(&store, now).await;
    store.close().await;
    assert!(
        written.expired.iter().any(|(_, kinds)| kinds.total() > 0),
        "some days' visitor rows expired into day_kinds"
    );

    let mut old = sqlx::PgConnection::connect(&url).await.expect("connects");
    for sql in holdings::BEFORE_0005 {
        sqlx::query(sql).execute(&mut old).await.expect(sql);
    }
    old.close().await.expect("closes");

    let reopened = PostgresStore::connect(&url, name, Retention::default())
        .await
        .expect("migrates and connects");
    assert_eq!(holdings::read(&reopened, now).await, written);
    reopened.close().await;
}
