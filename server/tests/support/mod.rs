//! What more than one import test needs: the store an import wrote.

use std::path::Path;

use activity::StoreName;
use activity::store::Retention;

/// The SQLite store an import into `data` wrote.
pub async fn open_store(data: &Path) -> activity_sqlite::SqliteStore {
    activity_sqlite::SqliteStore::open(
        data.join("activity.db").to_str().expect("UTF-8"),
        StoreName::parse("sqlite").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("opens")
}
