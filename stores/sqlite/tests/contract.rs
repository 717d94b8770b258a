//! The store contract against a real SQLite file in a temporary folder, and
//! what only a file can show: the data survives closing and reopening.

use activity::StoreName;
use activity::contract::store_contract;
use activity::store::{ActivityStore, Retention};
use chrono::{TimeZone, Utc};
use whocomes_sqlite::SqliteStore;

fn name() -> StoreName {
    StoreName::parse("sqlite").expect("a name")
}

#[tokio::test]
async fn sqlite_meets_the_store_contract() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("activity.db");
    let store = SqliteStore::open(path.to_str().expect("UTF-8"), name(), Retention::default())
        .await
        .expect("opens");
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
        .single()
        .expect("a time");
    let availability = store.availability().await;
    assert!(
        availability.reason.contains("activity.db"),
        "{}",
        availability.reason
    );
    assert_eq!(
        availability.retention,
        "visitor-days for 30 days, hourly counts for 400 days"
    );
    // The contract ends by closing the store.
    store_contract(&store, now).await;
    let closed = store.availability().await;
    assert!(
        !closed.available,
        "a closed store keeps nothing: {}",
        closed.reason
    );

    let reopened = SqliteStore::open(
        &format!("sqlite://{}", path.display()),
        name(),
        Retention::default(),
    )
    .await
    .expect("reopens");
    let written: u64 = reopened
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads")
        .iter()
        .map(|h| h.requests)
        .sum();
    assert!(
        written > 6,
        "what the contract wrote is still there: {written}"
    );
}

#[tokio::test]
async fn a_folder_that_cannot_hold_the_file_is_a_clear_error() {
    let error = SqliteStore::open(
        "/proc/no-such-folder/activity.db",
        name(),
        Retention::default(),
    )
    .await
    .expect_err("cannot open");
    let message = error.to_string();
    assert!(
        message.starts_with("the store is unavailable: cannot open SQLite at"),
        "{message}"
    );
}
