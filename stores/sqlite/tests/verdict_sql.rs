//! The SQL twin of the visitor-day verdict, run by SQLite over the
//! verdict's whole table and compared row by row with the rule it twins
//! (`activity::verdict::rule`).

use activity::StoreName;
use activity::store::Retention;
use activity::verdict_table::cases;
use whocomes_sqlite::SqliteStore;

#[tokio::test]
async fn sqlite_reads_the_verdict_as_the_rule_does() {
    let folder = tempfile::tempdir().expect("a folder");
    let url = format!("sqlite://{}", folder.path().join("verdict.db").display());
    let name = StoreName::parse("sqlite").expect("a name");
    let store = SqliteStore::open(&url, name, Retention::default())
        .await
        .expect("opens");
    let agreed = store
        .check_verdict_sql()
        .await
        .unwrap_or_else(|why| panic!("{why}"));
    assert_eq!(agreed, cases().len());
}
