//! [`BuildError`]: why [`Builder::build`](crate::Builder::build) refused
//! the settings. Each says which setting; none holds a URL, key or password.

/// Why whocomes cannot be set up as asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The store URL names no store whocomes knows, or its engine cannot
    /// read it (the words never hold the URL).
    #[error("store_url: {0}")]
    StoreUrl(String),
    /// The store's name is refused.
    #[error("store_name: {0:?} is not a store name: 1 to 40 characters of a-z, 0-9, '-' and '_'")]
    StoreName(String),
    /// The tab's path is refused.
    #[error("tab_path: {0:?} is not a path of its own, like /stats")]
    TabPath(String),
    /// The counting rules are refused.
    #[error("rules: {0}")]
    Rules(#[from] activity::rules::RulesError),
    /// The day keys cannot be made or read in the data folder.
    #[error("data_dir: the day keys: {0}")]
    Keys(Box<dyn std::error::Error + Send + Sync>),
    /// The tab cannot be set up (the password, the funnel).
    #[error(transparent)]
    Tab(#[from] admin::server::SetupError),
}
