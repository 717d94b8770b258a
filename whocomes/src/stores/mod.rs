//! Opening a store from its URL: which engine a URL names, opening it once
//! (for commands that read a store and stop), and opening it for a site
//! that keeps serving whatever the store does — a store that cannot be
//! reached now is stood in for and tried again ([`ReconnectingStore`]), and
//! a SQLite file removed or replaced under the running site is opened
//! again ([`watched_file`]). The binary's `--store-url` and the builder's
//! [`store_url`](crate::Builder::store_url) both come here.

pub mod health;
pub mod reconnect;
pub mod watched_file;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use activity::StoreName;
use activity::store::{ActivityStore, NullStore, Retention};
use activity_sqlite::SqliteStore;

pub use reconnect::{Opener, ReconnectingStore};

/// The kinds of store a URL can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// `sqlite://…`
    Sqlite,
    /// `postgres://…` or `postgresql://…`
    Postgres,
    /// `cosmos+https://…` (or the emulator's `cosmos+emulator://…`, in tests)
    Cosmos,
}

/// What a store URL must start with, in words for an error.
pub const SCHEMES: &str = "sqlite://, postgres:// or cosmos+https://";

impl StoreKind {
    /// The kind of store `url` names (`None`: a scheme whocomes does not know).
    pub fn of(url: &str) -> Option<Self> {
        if url.starts_with("sqlite:") {
            Some(Self::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(Self::Postgres)
        } else if url.starts_with("cosmos+https://") || url.starts_with("cosmos+emulator://") {
            Some(Self::Cosmos)
        } else {
            None
        }
    }

    /// The default store name for this kind.
    pub fn default_name(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres => "postgres",
            Self::Cosmos => "cosmos",
        }
    }

    /// Why this build cannot open this kind, if it cannot: SQLite is
    /// always built, PostgreSQL and Cosmos DB with the `whocomes` features
    /// of their names. The words say which feature to turn on.
    pub fn not_built(self) -> Option<String> {
        let feature = match self {
            Self::Postgres if !cfg!(feature = "postgres") => "postgres",
            Self::Cosmos if !cfg!(feature = "cosmos") => "cosmos",
            _ => return None,
        };
        Some(format!(
            "this build has no {feature} store: turn on the `{feature}` feature of the whocomes crate"
        ))
    }
}

/// The store a site keeps its activity in unless told otherwise: the
/// SQLite file `activity.db` in its data folder.
pub fn default_url(data_dir: &std::path::Path) -> String {
    format!("sqlite://{}", data_dir.join("activity.db").display())
}

/// The kind of store `url` names, if it is a store URL whocomes can open
/// as written: a known scheme, and an address its engine can read. Nothing
/// is opened or connected to; the words never hold the URL.
pub fn check_url(url: &str) -> Result<StoreKind, String> {
    let kind =
        StoreKind::of(url).ok_or_else(|| format!("the store URL must start with {SCHEMES}"))?;
    if let Some(why) = kind.not_built() {
        return Err(why);
    }
    let checked = match kind {
        StoreKind::Sqlite => activity_sqlite::check_address(url),
        #[cfg(feature = "postgres")]
        StoreKind::Postgres => activity_postgres::check_address(url),
        #[cfg(feature = "cosmos")]
        StoreKind::Cosmos => activity_cosmos::Location::parse(url).map(drop),
        #[allow(unreachable_patterns)] // refused by `not_built` above
        _ => Ok(()),
    };
    checked.map_err(|error| match error {
        activity::store::StoreError::Unavailable(why) => why,
        other => other.to_string(),
    })?;
    Ok(kind)
}

/// The SQLite file a store URL names (`None` for another engine, or an
/// in-memory database).
pub fn sqlite_file(url: &str) -> Option<PathBuf> {
    (StoreKind::of(url) == Some(StoreKind::Sqlite))
        .then(|| activity_sqlite::file_of(url))
        .flatten()
}

/// Opens the store `url` names once, or says why it cannot (the words
/// never hold the URL: it may hold a password). A SQLite file's folder is
/// made if it is missing.
pub async fn open_once(
    url: &str,
    name: StoreName,
    retention: Retention,
) -> Result<Arc<dyn ActivityStore>, String> {
    match StoreKind::of(url) {
        Some(StoreKind::Sqlite) => {
            if let Some(folder) = sqlite_file(url)
                .as_deref()
                .and_then(std::path::Path::parent)
                && !folder.as_os_str().is_empty()
            {
                std::fs::create_dir_all(folder).map_err(|error| {
                    format!(
                        "cannot create the data folder {}: {error}",
                        folder.display()
                    )
                })?;
            }
            SqliteStore::open(url, name, retention)
                .await
                .map(|store| Arc::new(store) as Arc<dyn ActivityStore>)
                .map_err(|error| error.to_string())
        }
        #[cfg(feature = "postgres")]
        Some(StoreKind::Postgres) => activity_postgres::PostgresStore::open(url, name, retention)
            .await
            .map(|store| Arc::new(store) as Arc<dyn ActivityStore>)
            .map_err(|error| error.to_string()),
        #[cfg(feature = "cosmos")]
        Some(StoreKind::Cosmos) => activity_cosmos::CosmosStore::open(url, name, retention)
            .await
            .map(|store| Arc::new(store) as Arc<dyn ActivityStore>)
            .map_err(|error| error.to_string()),
        #[allow(unreachable_patterns)] // with every feature on
        Some(kind) => Err(kind.not_built().unwrap_or_default()),
        None => Err(format!("the store URL must start with {SCHEMES}")),
    }
}

/// Opens the store for a site that serves on whatever it does. If it
/// cannot be opened now, a stand-in keeps nothing and says why, and the
/// store is tried again in the background until it answers; a SQLite
/// store's file is watched: removed or replaced while the site runs, it is
/// opened again (see [`ReconnectingStore`]). A URL of no known scheme is
/// never retried.
pub async fn open(url: &str, name: StoreName, retention: Retention) -> Arc<dyn ActivityStore> {
    let opener: Opener = {
        let (url, name) = (url.to_owned(), name.clone());
        Arc::new(move || {
            let (url, name) = (url.clone(), name.clone());
            Box::pin(async move { open_once(&url, name, retention).await })
        })
    };
    match open_once(url, name.clone(), retention).await {
        Ok(store) => match sqlite_file(url) {
            Some(file) => ReconnectingStore::watching(store, file, opener),
            None => ReconnectingStore::answering(store),
        },
        Err(reason) => {
            tracing::error!(%reason, "cannot open the store; keeping nothing until it answers");
            if StoreKind::of(url).is_none() {
                return Arc::new(NullStore::new(name, format!("keeping nothing: {reason}")));
            }
            ReconnectingStore::start(name, reason, opener, Duration::from_secs(5))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_its_kind_and_its_file() {
        assert_eq!(StoreKind::of("sqlite://data/a.db"), Some(StoreKind::Sqlite));
        assert_eq!(
            StoreKind::of("postgresql://u@h/db"),
            Some(StoreKind::Postgres)
        );
        assert_eq!(StoreKind::of("mysql://u@h/db"), None);
        assert_eq!(
            sqlite_file("sqlite://data/a.db"),
            Some(PathBuf::from("data/a.db"))
        );
        assert_eq!(sqlite_file("postgres://u@h/db"), None);
    }

    #[test]
    fn a_url_is_checked_without_opening_anything() {
        assert_eq!(check_url("sqlite://data/a.db"), Ok(StoreKind::Sqlite));
        #[cfg(feature = "postgres")]
        assert_eq!(
            check_url("postgres://u:pw@h:5432/db"),
            Ok(StoreKind::Postgres)
        );
        // Without its feature, a store's URL is refused for that reason.
        let postgres = if cfg!(feature = "postgres") {
            "not a valid URL"
        } else {
            "`postgres` feature"
        };
        let cosmos = if cfg!(feature = "cosmos") {
            "account host"
        } else {
            "`cosmos` feature"
        };
        for (url, words) in [
            ("garbage", "must start with"),
            ("mysql://u:secret@h/db", "must start with"),
            ("postgres://u:secret@h:notaport/db", postgres),
            ("cosmos+https://?database=d", cosmos),
        ] {
            let error = check_url(url).expect_err(url);
            assert!(error.contains(words), "{url}: {error}");
            assert!(!error.contains("secret"), "{error}");
        }
        assert!(!std::path::Path::new("data/a.db").exists(), "nothing made");
    }

    #[tokio::test]
    async fn a_sqlite_store_is_opened_in_a_folder_made_for_it() {
        let folder = tempfile::tempdir().expect("a folder");
        let file = folder.path().join("new/activity.db");
        let url = format!("sqlite://{}", file.display());
        let name = StoreName::parse("sqlite").expect("a name");
        let store = open(&url, name, Retention::default()).await;
        assert!(store.availability().await.available);
        assert!(file.exists());
        let unknown = open_once(
            "mysql://u:secret@h/db",
            StoreName::parse("x").expect("a name"),
            Retention::default(),
        )
        .await
        .err()
        .expect("refused");
        assert!(!unknown.contains("secret"), "{unknown}");
    }
}
