//! The store contract against a real PostgreSQL: the server `scripts/test`
//! starts on a free loopback port (or any `TEST_DATABASE_URL`), with a fresh
//! database per test. Without one, the tests print why they skip.
#![allow(clippy::print_stdout)]

use activity::StoreName;
use activity::contract::store_contract;
use activity::store::{ActivityStore, Retention};
use chrono::{TimeZone, Utc};
use whocomes_postgres::PostgresStore;

/// A fresh database, or `None` after saying why the test skips.
async fn fresh_database() -> Option<String> {
    let url = whocomes_postgres::testing::fresh_database().await;
    if url.is_none() {
        println!(
            "SKIPPED: TEST_DATABASE_URL is not set (scripts/test starts a PostgreSQL and sets it)"
        );
    }
    url
}

#[tokio::test]
async fn postgres_meets_the_store_contract() {
    let Some(url) = fresh_database().await else {
        return;
    };
    let name = StoreName::parse("postgres").expect("a name");
    let store = PostgresStore::open(&url, name, Retention::default())
        .await
        .expect("connects");
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
        .single()
        .expect("a time");
    let availability = store.availability().await;
    assert!(
        availability
            .reason
            .starts_with("kept in PostgreSQL at 127.0.0.1:"),
        "{}",
        availability.reason
    );
    // The contract ends by closing the store.
    store_contract(&store, now).await;
    let closed = store.availability().await;
    assert!(
        !closed.available,
        "a closed store keeps nothing: {}",
        closed.reason
    );
}

#[tokio::test]
async fn two_stores_share_one_database_without_mixing_rows() {
    let Some(url) = fresh_database().await else {
        return;
    };
    let a = PostgresStore::open(
        &url,
        StoreName::parse("site-a").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("connects");
    let b = PostgresStore::open(
        &url,
        StoreName::parse("site-b").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("connects again (migrations already applied)");
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
        .single()
        .expect("a time");
    store_contract(&a, now).await;
    assert!(
        b.hours_since(chrono::DateTime::UNIX_EPOCH)
            .await
            .expect("reads")
            .is_empty()
    );
    store_contract(&b, now).await;
}

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error_without_the_password() {
    let error = PostgresStore::open(
        "postgres://whocomes:hunter2secret@127.0.0.1:1/none",
        StoreName::parse("postgres").expect("a name"),
        Retention::default(),
    )
    .await
    .expect_err("nothing listens on port 1");
    let message = error.to_string();
    assert!(
        message.contains("cannot reach PostgreSQL at 127.0.0.1:1/none"),
        "{message}"
    );
    assert!(!message.contains("hunter2secret"), "{message}");
}
