//! The one preflight: [`Builder::check`] reads every setting that can be
//! wrong as written — the store URLs and names, the key given, the tab's
//! path, the rules, the funnel, an empty password, a private tab nobody
//! can sign in to, a connection limit of zero, an alert channel that cannot be opened — and refuses the first that is, before anything is written: no
//! data folder, day key, migration or `serving-PID` mark. A store that is
//! well-formed but cannot be reached is not checked here: that is a state
//! the site serves through (the store is tried again). What it returns,
//! [`Checked`], is all the start needs, read once.

use std::net::SocketAddr;
use std::path::PathBuf;

use activity::address::TrustedProxies;
use activity::recording::RecorderConfig;
use activity::store::Retention;
use activity::{Rules, RulesConfig, StoreName};
use admin::server::AdminConfig;
use admin::server::stats_api::keys as keys_api;

use crate::connections::ConnectionLimits;
use crate::keys::KeyScheme;
#[cfg(feature = "notify")]
use crate::notify::NotifySettings;
use crate::{BuildError, Builder};

/// Settings checked by [`Builder::check`], ready to
/// [`build`](Self::build). Nothing has been written yet.
#[must_use]
pub struct Checked {
    pub(crate) data_dir: PathBuf,
    pub(crate) store_url: String,
    pub(crate) store_name: StoreName,
    pub(crate) read_stores: Vec<(StoreName, String)>,
    pub(crate) seed: Option<Vec<u8>>,
    pub(crate) key_scheme: KeyScheme,
    pub(crate) rules: Rules,
    pub(crate) proxies: TrustedProxies,
    pub(crate) recorder: RecorderConfig,
    pub(crate) retention: Retention,
    pub(crate) counting: bool,
    pub(crate) tab: AdminConfig,
    pub(crate) limits: ConnectionLimits,
    pub(crate) metrics_addr: Option<SocketAddr>,
    #[cfg(feature = "notify")]
    pub(crate) notify: NotifySettings,
}

impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never a URL, the key or the password.
        f.debug_struct("Checked")
            .field("data_dir", &self.data_dir)
            .field("store_name", &self.store_name)
            .finish_non_exhaustive()
    }
}

impl Checked {
    /// The URL of the store hits are written to (it may hold a password:
    /// never log it).
    pub fn store_url(&self) -> &str {
        &self.store_url
    }

    /// The name the site's rows are kept under.
    pub fn store_name(&self) -> &StoreName {
        &self.store_name
    }
}

impl Builder {
    /// The one preflight: checks every setting, reads the key file, and
    /// makes the rules, without touching the data folder or any store.
    pub fn check(self) -> Result<Checked, BuildError> {
        let tab_path = admin::server::check_path(&self.tab_path)
            .map_err(|_| BuildError::TabPath(self.tab_path.clone()))?;
        let store_url = self
            .store_url
            .unwrap_or_else(|| crate::stores::default_url(&self.data_dir));
        let kind = crate::stores::check_url(&store_url).map_err(BuildError::StoreUrl)?;
        let store_name = parse_name(self.store_name.as_deref().unwrap_or(kind.default_name()))?;
        let read_stores = self
            .read_stores
            .into_iter()
            .map(|(name, url)| {
                crate::stores::check_url(&url).map_err(|why| BuildError::ReadStoreUrl {
                    name: name.clone(),
                    why,
                })?;
                Ok((parse_name(&name)?, url))
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        let demo = self.demo_store.as_deref().map(parse_name).transpose()?;
        let seed = crate::keys::given_seed(self.key.as_deref(), self.key_file.as_deref())?;
        let proxies = TrustedProxies::new(self.proxies, self.forwarded_header);
        let rules = Rules::new(RulesConfig {
            admin_path: tab_path.clone(),
            ..self.rules
        })?;
        let rules = match self.crawlers {
            Some(crawlers) => rules.with_crawlers(crawlers),
            None => rules,
        };
        for (limit, zero) in [
            ("max_connections", self.limits.max_connections == 0),
            ("header_timeout", self.limits.header_timeout.is_zero()),
            ("request_timeout", self.limits.request_timeout.is_zero()),
            ("idle_timeout", self.limits.idle_timeout.is_zero()),
        ] {
            if zero {
                return Err(BuildError::ConnectionLimit(limit));
            }
        }
        if self.private && self.password.is_none() {
            return Err(BuildError::Private);
        }
        #[cfg(feature = "notify")]
        self.notify.check().map_err(BuildError::Notify)?;
        if self.api_per_hour == 0 {
            return Err(BuildError::ApiRequests);
        }
        let given = self
            .api_keys
            .iter()
            .map(|(name, key, stores)| keys_api::given(name, key, stores))
            .collect::<Result<Vec<_>, _>>()?;
        let tab = AdminConfig {
            visitor_days_kept: Some(self.retention.visitor_days),
            api_keys: keys_api::ApiKeys::new(
                Some(self.data_dir.join(keys_api::FILE)),
                given,
                self.api_per_hour,
            ),
            password: self.password,
            private: self.private,
            proxies: proxies.clone(),
            funnel: self.funnel,
            demo,
            path: Some(tab_path),
            host: self.host,
            loopback_as_people: !rules.config().loopback_is_self,
            bundle: self.bundle,
            ..AdminConfig::default()
        };
        tab.check()?;
        Ok(Checked {
            data_dir: self.data_dir,
            store_url,
            store_name,
            read_stores,
            seed,
            key_scheme: self.key_scheme,
            rules,
            proxies,
            recorder: self.recorder,
            retention: self.retention,
            counting: self.counting,
            tab,
            limits: self.limits,
            metrics_addr: self.metrics_addr,
            #[cfg(feature = "notify")]
            notify: self.notify,
        })
    }
}

/// A store's name, or the error that names it.
fn parse_name(name: &str) -> Result<StoreName, BuildError> {
    StoreName::parse(name).map_err(|_| BuildError::StoreName(name.to_owned()))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{BuildError, Builder, ConnectionLimits};

    /// Each setting wrong as written is refused by the one preflight with
    /// the setting's name, without a password or URL in the words, and
    /// before the data folder exists.
    #[test]
    fn settings_wrong_as_written_are_refused_before_anything_is_written() {
        let parent = tempfile::tempdir().expect("a folder");
        let data = parent.path().join("data");
        let missing = parent.path().join("missing-key");
        let at = |builder: Builder| builder.data_dir(&data);
        let cases: Vec<(Builder, &str)> = vec![
            (at(Builder::default()).store_url("garbage"), "store_url"),
            (
                at(Builder::default()).store_url("mysql://u:s3cret-pw@db/site"),
                "store_url",
            ),
            (
                at(Builder::default()).read_store("eu", "postgres://u:s3cret-pw@db:port/x"),
                "read_store eu",
            ),
            (
                at(Builder::default()).read_store("Bad Name", "sqlite://x.db"),
                "store_name",
            ),
            (at(Builder::default()).store_name("Bad Name"), "store_name"),
            (at(Builder::default()).key(""), "key: the key is empty"),
            (
                at(Builder::default()).key("k").key_file(&missing),
                "key: give the key once",
            ),
            (
                at(Builder::default()).key_file(&missing),
                "key: cannot read",
            ),
            (at(Builder::default()).private(true), "private"),
            (at(Builder::default()).admin_password(" "), "password"),
            (at(Builder::default()).tab_path("stats"), "tab_path"),
            (
                at(Builder::default()).funnel(vec![
                    "home=/".parse().expect("a step"),
                    "home=/about".parse().expect("a step"),
                ]),
                "funnel",
            ),
            (
                at(Builder::default()).connection_limits(ConnectionLimits {
                    max_connections: 0,
                    ..ConnectionLimits::default()
                }),
                "max_connections",
            ),
            (
                at(Builder::default()).connection_limits(ConnectionLimits {
                    idle_timeout: Duration::ZERO,
                    ..ConnectionLimits::default()
                }),
                "idle_timeout",
            ),
        ];
        for (builder, named) in cases {
            let error: BuildError = builder.check().expect_err(named);
            let words = error.to_string();
            assert!(words.to_lowercase().contains(named), "{named}: {words}");
            assert!(!words.contains("s3cret-pw"), "{words}");
        }
        assert!(!data.exists(), "the check wrote nothing");
    }

    /// What the check passes is what the start uses: the default store
    /// URL in the data folder, named after its kind; the key file's bytes.
    #[test]
    fn the_defaults_are_written_once_and_read_by_the_check() {
        let folder = tempfile::tempdir().expect("a folder");
        let key = folder.path().join("key.txt");
        std::fs::write(&key, "seed\n").expect("written");
        let checked = Builder::default()
            .data_dir(folder.path())
            .key_file(&key)
            .check()
            .expect("passes");
        assert_eq!(
            checked.store_url(),
            crate::stores::default_url(folder.path())
        );
        assert_eq!(checked.store_name().as_str(), "sqlite");
        assert_eq!(checked.seed.as_deref(), Some(&b"seed"[..]));
        assert!(!folder.path().join("activity.db").exists());
    }
}
