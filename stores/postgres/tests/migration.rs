//! A store written under an older schema (before migration 0005 named the
//! kinds' columns `bots` and `self_reads`, and before 0007 numbered the
//! visitor-days) opens under the current one and keeps every count. Needs a PostgreSQL (`TEST_DATABASE_URL`, which
//! `scripts/test` sets); without one it says why it skips.
#![allow(clippy::print_stdout)]

use activity::StoreName;
use activity::holdings;
use activity::store::{ActivityStore as _, Retention};
use chrono::{TimeZone, Utc};
use sqlx::Connection as _;
use whocomes_postgres::PostgresStore;

/// Migration 0007 undone: paths and sources kept under the visitor-day's
/// key, the visitor-days without their numbers.
const BEFORE_0007: [&str; 10] = [
    "CREATE TABLE keyed_paths (store TEXT NOT NULL, day DATE NOT NULL, visitor TEXT NOT NULL, \
     path TEXT NOT NULL, requests BIGINT NOT NULL, PRIMARY KEY (store, day, visitor, path))",
    "INSERT INTO keyed_paths SELECT v.store, v.day, v.visitor, p.path, p.requests \
     FROM visitor_paths p JOIN visitor_days v ON v.id = p.visitor_day",
    "DROP TABLE visitor_paths",
    "ALTER TABLE keyed_paths RENAME TO visitor_paths",
    "CREATE TABLE keyed_sources (store TEXT NOT NULL, day DATE NOT NULL, visitor TEXT NOT NULL, \
     source TEXT NOT NULL, page_loads BIGINT NOT NULL, PRIMARY KEY (store, day, visitor, source))",
    "INSERT INTO keyed_sources SELECT v.store, v.day, v.visitor, s.source, s.page_loads \
     FROM visitor_sources s JOIN visitor_days v ON v.id = s.visitor_day",
    "DROP TABLE visitor_sources",
    "ALTER TABLE keyed_sources RENAME TO visitor_sources",
    "ALTER TABLE visitor_days DROP COLUMN id",
    "DELETE FROM _sqlx_migrations WHERE version = 7",
];

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
    let store = PostgresStore::open(&url, name.clone(), Retention::default())
        .await
        .expect("connects");
    let written = holdings::fill(&store, now).await;
    store.close().await;
    assert!(
        written.expired.iter().any(|(_, kinds)| kinds.total() > 0),
        "some days' visitor rows expired into day_kinds"
    );

    let mut old = sqlx::PgConnection::connect(&url).await.expect("connects");
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

    let reopened = PostgresStore::open(&url, name, Retention::default())
        .await
        .expect("migrates and connects");
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
