//! [`Builder`]: what an app says about its whocomes (where it keeps its
//! data, which store, which proxies it runs behind, where the tab goes),
//! with the binary's defaults for everything it does not say, and
//! [`Builder::build`], which opens the store, makes or loads the day keys
//! and starts the writer.

use std::path::PathBuf;
use std::sync::Arc;

use activity::address::{ForwardedHeader, TrustedProxies};
use activity::funnel::FunnelStep;
use activity::recording::RecorderConfig;
use activity::store::{ActivityStore, Retention};
use activity::{Counter, Rules, RulesConfig, StoreName};
use admin::server::{Admin, AdminConfig, Bundle};
use ipnet::IpNet;

use crate::site::Whocomes;
use crate::{BuildError, keys, peer};

/// Sets up whocomes for an app; [`Whocomes::builder`] makes one.
///
/// Every setting has the binary's default: data in `./data`, activity in
/// `sqlite://DATA_DIR/activity.db`, day keys that forget kept in the data
/// folder (seeded from [`key`](Self::key) if given), no trusted proxy, the
/// tab at `/admin` with nobody able to sign in.
#[must_use]
pub struct Builder {
    data_dir: PathBuf,
    store_url: Option<String>,
    store_name: Option<String>,
    key: Option<Vec<u8>>,
    proxies: Vec<IpNet>,
    forwarded_header: ForwardedHeader,
    rules: RulesConfig,
    recorder: RecorderConfig,
    retention: Retention,
    tab_path: String,
    password: Option<String>,
    private: bool,
    funnel: Vec<FunnelStep>,
    bundle: Option<Bundle>,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL (it may hold a password), the key or the password.
        f.debug_struct("Builder")
            .field("data_dir", &self.data_dir)
            .field("tab_path", &self.tab_path)
            .field("proxies", &self.proxies)
            .finish_non_exhaustive()
    }
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            data_dir: PathBuf::from("data"),
            store_url: None,
            store_name: None,
            key: None,
            proxies: Vec::new(),
            forwarded_header: ForwardedHeader::XForwardedFor,
            rules: RulesConfig::default(),
            recorder: RecorderConfig {
                peer_address: peer::connect_info,
                ..RecorderConfig::default()
            },
            retention: Retention::default(),
            tab_path: "/admin".to_owned(),
            password: None,
            private: false,
            funnel: Vec::new(),
            bundle: None,
        }
    }
}

impl Builder {
    /// The folder for the day keys and the SQLite file (default `data`).
    pub fn data_dir(mut self, folder: impl Into<PathBuf>) -> Self {
        self.data_dir = folder.into();
        self
    }

    /// Where activity is kept: `sqlite://PATH`, `postgres://USER@HOST/DB`
    /// or `cosmos+https://ACCOUNT.documents.azure.com/?database=DB&container=C`
    /// (default: `activity.db` in the data folder). A store that cannot be
    /// reached is tried again while the app serves; a SQLite file replaced
    /// under the app is opened again.
    pub fn store_url(mut self, url: impl Into<String>) -> Self {
        self.store_url = Some(url.into());
        self
    }

    /// The name this site's rows are kept under (default: the kind of
    /// store, `sqlite`, `postgres` or `cosmos`). Sites sharing a database
    /// need names of their own.
    pub fn store_name(mut self, name: impl Into<String>) -> Self {
        self.store_name = Some(name.into());
        self
    }

    /// Seeds the day keys on the first start (sites that share a seed give
    /// a visitor the same token within a day). Without it the first start
    /// seeds them from random bytes. Either way the keys are then kept in
    /// the data folder and forget each day as it passes.
    pub fn key(mut self, seed: impl AsRef<[u8]>) -> Self {
        self.key = Some(seed.as_ref().to_vec());
        self
    }

    /// The proxies the app runs behind (addresses or ranges, e.g.
    /// `"10.0.0.0/8".parse()?`): only their forwarding headers are
    /// believed, by the counter and the tab's sign-in alike.
    pub fn trusted_proxies(mut self, proxies: impl IntoIterator<Item = IpNet>) -> Self {
        self.proxies = proxies.into_iter().collect();
        self
    }

    /// The header the trusted proxies write the client's address into
    /// (default `X-Forwarded-For`).
    pub fn forwarded_header(mut self, header: ForwardedHeader) -> Self {
        self.forwarded_header = header;
        self
    }

    /// The origin the public reaches the app at (`"https://example.org"`):
    /// HTTPS tells the counter that browsers send it their client hints and
    /// fetch metadata, so a browser's agent without them is a tool's (SPEC
    /// §3). Without it, a trusted proxy's `X-Forwarded-Proto` says per
    /// request. Give `https://…` only if plain HTTP is never served. Sets
    /// [`RulesConfig::public_origin`]; call it after [`rules`](Self::rules).
    pub fn public_origin(mut self, origin: impl Into<String>) -> Self {
        self.rules.public_origin = Some(origin.into());
        self
    }

    /// The counting rules, for what the other settings do not cover (the
    /// site's own addresses and host names, API prefixes, the self-read
    /// mark). Its `admin_path` is replaced by [`tab_path`](Self::tab_path).
    pub fn rules(mut self, rules: RulesConfig) -> Self {
        self.rules = rules;
        self
    }

    /// How hits are queued and written. Its `peer_address` is kept as
    /// given: the builder's default reads axum's `ConnectInfo<SocketAddr>`.
    pub fn recorder(mut self, recorder: RecorderConfig) -> Self {
        self.recorder = recorder;
        self
    }

    /// How long rows are kept (default: visitor-days 30 days, hours 400).
    pub fn retention(mut self, retention: Retention) -> Self {
        self.retention = retention;
        self
    }

    /// Where the Admin tab is served (default `/admin`); the tab's own
    /// reads there are never counted.
    pub fn tab_path(mut self, path: impl Into<String>) -> Self {
        self.tab_path = path.into();
        self
    }

    /// The admin password: without one nobody can sign in, and the visitor
    /// table stays closed.
    pub fn admin_password(mut self, password: impl Into<String>) -> Self {
        self.password = Some(password.into());
        self
    }

    /// Makes the whole tab (aggregates too) sign-in only.
    pub fn private(mut self, private: bool) -> Self {
        self.private = private;
        self
    }

    /// The funnel card's steps, in order (`"signup=/signup,/signup/done".parse()?`).
    pub fn funnel(mut self, steps: impl IntoIterator<Item = FunnelStep>) -> Self {
        self.funnel = steps.into_iter().collect();
        self
    }

    /// The wasm bundle that hydrates the tab: the folder wasm-bindgen wrote
    /// and the `--out-name` it was given (the README's steps). The tab's
    /// views then change in place and its charts are drawn at the page's
    /// width; without it the tab is served whole and works without
    /// JavaScript.
    pub fn tab_bundle(mut self, folder: impl Into<PathBuf>, name: impl Into<String>) -> Self {
        self.bundle = Some(Bundle {
            folder: folder.into(),
            name: name.into(),
        });
        self
    }

    /// Checks the settings, makes or loads the day keys, opens the store
    /// and starts the writer (needs a Tokio runtime). Every setting that
    /// is wrong as written (the store URL, the store's name, the tab's
    /// path, the rules, the funnel, an empty password) is refused before
    /// anything is written to the data folder. A store that cannot be
    /// reached now is not an error: the app serves, and the store is tried
    /// again until it answers.
    pub async fn build(self) -> Result<Whocomes, BuildError> {
        let tab_path = admin::server::check_path(&self.tab_path)
            .map_err(|_| BuildError::TabPath(self.tab_path.clone()))?;
        let url = self
            .store_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}", self.data_dir.join("activity.db").display()));
        let kind = crate::stores::check_url(&url).map_err(BuildError::StoreUrl)?;
        let name = self.store_name.as_deref().unwrap_or(kind.default_name());
        let name = StoreName::parse(name).map_err(|_| BuildError::StoreName(name.to_owned()))?;
        let proxies = TrustedProxies::new(self.proxies, self.forwarded_header);
        let rules = Rules::new(RulesConfig {
            admin_path: tab_path.clone(),
            ..self.rules
        })?;
        let mut tab = AdminConfig {
            password: self.password,
            private: self.private,
            proxies: proxies.clone(),
            funnel: self.funnel,
            path: Some(tab_path.clone()),
            bundle: self.bundle,
            loopback_as_people: !rules.config().loopback_is_self,
            ..AdminConfig::default()
        };
        tab.check()?;
        // Checked: from here on the data folder is written.
        let site_keys = keys::live_day_keys(self.key, Some(&self.data_dir))
            .map_err(|error| BuildError::Keys(error.into()))?
            .ok_or_else(|| BuildError::Keys("no day keys were made".into()))?;
        let counter = Counter::with_keys(rules, site_keys.keys, proxies, name.clone());
        let store: Arc<dyn ActivityStore> = crate::stores::open(&url, name, self.retention).await;
        let (layer, writer) = activity::recording::start(counter, store.clone(), self.recorder);
        tab.stores = vec![store.clone()];
        tab.recorder = Some(writer.stats());
        tab.day_keys = site_keys.kept.as_ref().map(|kept| kept.keys.clone());
        let admin = Admin::new(tab)?;
        let turning = site_keys.kept.map(keys::KeptDayKeys::keep_turning);
        Ok(Whocomes {
            layer,
            admin,
            tab_path,
            store,
            writer,
            turning,
        })
    }
}
