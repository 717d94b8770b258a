//! [`BuildError`]: why [`Builder::check`](crate::Builder::check) (and so
//! [`Builder::build`](crate::Builder::build)) refused the settings. Each
//! says which setting; none holds a URL, key or password.

use crate::keys::KeyError;

/// Why whocomes cannot be set up as asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The store URL names no store whocomes knows, or its engine cannot
    /// read it (the words never hold the URL).
    #[error("store_url: {0}")]
    StoreUrl(String),
    /// A store read besides the site's own has a URL that cannot be used
    /// (the words never hold the URL).
    #[error("read_store {name}: {why}")]
    ReadStoreUrl {
        /// The read store's name.
        name: String,
        /// Why its URL cannot be used.
        why: String,
    },
    /// The store's name is refused.
    #[error("store_name: {0:?} is not a store name: 1 to 40 characters of a-z, 0-9, '-' and '_'")]
    StoreName(String),
    /// The tab's path is refused.
    #[error("tab_path: {0:?} is not a path of its own, like /stats")]
    TabPath(String),
    /// A stats API key given to the builder is refused.
    #[error("api_key: {0}")]
    ApiKey(#[from] admin::server::stats_api::keys::KeyError),
    /// Zero stats API requests an hour.
    #[error("api_requests_per_hour: at least 1 (the default is 600)")]
    ApiRequests,
    /// The counting rules are refused.
    #[error("rules: {0}")]
    Rules(#[from] activity::rules::RulesError),
    /// The key given (as text or as a file) cannot be used.
    #[error("key: {0}")]
    Key(#[from] KeyError),
    /// The whole tab is sign-in only, and nobody can sign in (no password).
    #[error("private: the tab is sign-in only, and without an admin_password nobody could read it")]
    Private,
    /// A connection limit of zero (it would refuse or cut off everyone).
    #[error("connection_limits: {0} cannot be zero")]
    ConnectionLimit(&'static str),
    /// An alert channel or threshold is refused (the words never hold a
    /// URL).
    #[error("notify: {0}")]
    Notify(String),
    /// The tab cannot be set up (the password, the funnel).
    #[error(transparent)]
    Tab(#[from] admin::server::SetupError),
}
