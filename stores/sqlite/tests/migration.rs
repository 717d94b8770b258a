//! A store written under an older schema (before migration 0005 named the
//! kinds' columns `bots` and `self_reads`, and before 0007 numbered the
//! visitor-days, and before 0008 kept a country) opens under the current one
//! and keeps every count.

use activity::StoreName;
use activity::holdings;
use activity::store::{ActivityStore as _, Retention};
use chrono::{TimeZone, Utc};
use sqlx::Connection as _;
use whocomes_sqlite::SqliteStore;

/// Migration 0007 undone: paths and sources kept under the visitor-day's
/// key, the visitor-days without their numbers.
const BEFORE_0007: [&str; 11] = [
    "CREATE TABLE keyed_paths (store TEXT NOT NULL, day TEXT NOT NULL, visitor TEXT NOT NULL, \
     path TEXT NOT NULL, requests INTEGER NOT NULL, PRIMARY KEY (store, day, visitor, path)) WITHOUT ROWID",
    "INSERT INTO keyed_paths SELECT v.store, v.day, v.visitor, p.path, p.requests \
     FROM visitor_paths p JOIN visitor_days v ON v.id = p.visitor_day",
    "DROP TABLE visitor_paths",
    "ALTER TABLE keyed_paths RENAME TO visitor_paths",
    "CREATE TABLE keyed_sources (store TEXT NOT NULL, day TEXT NOT NULL, visitor TEXT NOT NULL, \
     source TEXT NOT NULL, page_loads INTEGER NOT NULL, PRIMARY KEY (store, day, visitor, source)) WITHOUT ROWID",
    "INSERT INTO keyed_sources SELECT v.store, v.day, v.visitor, s.source, s.page_loads \
     FROM visitor_sources s JOIN visitor_days v ON v.id = s.visitor_day",
    "DROP TABLE visitor_sources",
    "ALTER TABLE keyed_sources RENAME TO visitor_sources",
    "DROP INDEX visitor_days_id",
    "ALTER TABLE visitor_days DROP COLUMN id",
    "DELETE FROM _sqlx_migrations WHERE version = 7",
];

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
    for sql in holdings::BEFORE_0010
        .into_iter()
        .chain(holdings::BEFORE_0009)
        .chain(holdings::BEFORE_0008)
        .chain(BEFORE_0007)
        .chain(holdings::BEFORE_0005)
    {
        sqlx::query(sql).execute(&mut old).await.expect(sql);
    }
    old.close().await.expect("closes");

    let reopened = SqliteStore::open(path, name, Retention::default())
        .await
        .expect("migrates and opens");
    assert!(
        written.visitors.iter().any(|v| v.country.is_some()),
        "countries were kept before the schema was put back"
    );
    assert_eq!(
        holdings::read(&reopened, now).await,
        written.without_countries(),
        "every count kept; the visitor-days of before 0008 have no country, of before 0009 no page loads"
    );
    reopened.close().await;
}

/// Rows kept before the evidence rule waive the files' evidence by its bit.
#[test]
fn older_rows_waive_the_files_evidence_by_its_own_bit() {
    let migration = include_str!("../migrations/0004_evidence.sql");
    assert!(
        activity::verdict_table::waives_files(migration),
        "{migration}"
    );
}
