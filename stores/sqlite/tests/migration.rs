//! A store written under the previous schema (before migration 0005 named
//! the kinds' columns `bots` and `self_reads`) opens under the current one
//! and keeps every count.

use activity::StoreName;
use activity::holdings;
use activity::store::{ActivityStore as _, Retention};
use chrono::{TimeZone, Utc};
use sqlx::Connection as _;
use whocomes_sqlite::SqliteStore;

#[tokio::test]
async fn a_store_of_the_previous_schema_keeps_every_count() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("activity.db");
    let path = path.to_str().expect("UTF-8");
    let name = StoreName::parse("sqlite").expect("a name");
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
        .single()
        .expect("a time");
    let store = SqliteStore::open(path, name.clone(), Retention::default())
        .await
        .expect("opens");
    let written = holdings::fill(&store, now).await;
    store.close().await;
    assert!(
        written.expired.iter().any(|(_, kinds)| kinds.total() > 0),
        "some days' visitor rows expired into day_kinds"
    );

    let mut old = sqlx::SqliteConnection::connect(&format!("sqlite://{path}"))
        .await
        .expect("opens the file");
    for sql in holdings::BEFORE_0005 {
        sqlx::query(sql).execute(&mut old).await.expect(sql);
    }
    old.close().await.expect("closes");

    let reopened = SqliteStore::open(path, name, Retention::default())
        .await
        .expect("migrates and opens");
    assert_eq!(holdings::read(&reopened, now).await, written);
    reopened.close().await;
}
