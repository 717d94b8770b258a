//! [`Builder`]: what an app says about its whocomes (where it keeps its
//! data, which stores, which proxies it runs behind, where the tab goes,
//! how connections are limited), with the binary's defaults for
//! everything it does not say. The binary's flags become these calls
//! (`server/src/config/to_builder.rs`); [`Builder::check`] is the one
//! preflight (`check.rs`), and [`Checked::build`](crate::Checked::build)
//! starts what was checked (`start.rs`).

use std::net::SocketAddr;
use std::path::PathBuf;

use activity::RulesConfig;
use activity::address::ForwardedHeader;
use activity::crawlers::Crawlers;
use activity::funnel::FunnelStep;
use activity::recording::RecorderConfig;
use activity::store::Retention;
use admin::server::{Bundle, Host};
use ipnet::IpNet;

use crate::connections::ConnectionLimits;
use crate::keys::KeyScheme;
#[cfg(feature = "notify")]
use crate::notify::NotifySettings;
use crate::site::Whocomes;
use crate::{BuildError, peer};

/// Sets up whocomes for an app; [`Whocomes::builder`] makes one.
///
/// Every setting has the binary's default: data in `./data`, activity in
/// `sqlite://DATA_DIR/activity.db` ([`stores::default_url`](crate::stores::default_url)),
/// day keys that forget kept in the data folder (seeded from
/// [`key`](Self::key) if given), no trusted proxy, the tab at `/admin` with
/// nobody able to sign in, at most 1024 connections with the binary's
/// timeouts, no address of its own for monitors.
#[must_use]
pub struct Builder {
    pub(crate) data_dir: PathBuf,
    pub(crate) store_url: Option<String>,
    pub(crate) store_name: Option<String>,
    pub(crate) read_stores: Vec<(String, String)>,
    pub(crate) demo_store: Option<String>,
    pub(crate) key: Option<Vec<u8>>,
    pub(crate) key_file: Option<PathBuf>,
    pub(crate) key_scheme: KeyScheme,
    pub(crate) proxies: Vec<IpNet>,
    pub(crate) forwarded_header: ForwardedHeader,
    pub(crate) rules: RulesConfig,
    pub(crate) crawlers: Option<Crawlers>,
    pub(crate) recorder: RecorderConfig,
    pub(crate) retention: Retention,
    pub(crate) counting: bool,
    pub(crate) tab_path: String,
    pub(crate) password: Option<String>,
    pub(crate) private: bool,
    pub(crate) funnel: Vec<FunnelStep>,
    pub(crate) bundle: Option<Bundle>,
    pub(crate) host: Host,
    pub(crate) limits: ConnectionLimits,
    pub(crate) metrics_addr: Option<SocketAddr>,
    pub(crate) api_keys: Vec<(String, String, Vec<String>)>,
    pub(crate) api_per_hour: u32,
    #[cfg(feature = "notify")]
    pub(crate) notify: NotifySettings,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never a URL (it may hold a password), the key or the password.
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
            read_stores: Vec::new(),
            demo_store: None,
            key: None,
            api_keys: Vec::new(),
            api_per_hour: admin::server::stats_api::keys::PER_HOUR,
            key_file: None,
            key_scheme: KeyScheme::Day,
            proxies: Vec::new(),
            forwarded_header: ForwardedHeader::XForwardedFor,
            rules: RulesConfig::default(),
            crawlers: None,
            recorder: RecorderConfig {
                peer_address: peer::connect_info,
                ..RecorderConfig::default()
            },
            retention: Retention::default(),
            counting: true,
            tab_path: admin::server::DEFAULT_PATH.to_owned(),
            password: None,
            private: false,
            funnel: Vec::new(),
            bundle: None,
            host: Host::Embedded,
            limits: ConnectionLimits::default(),
            metrics_addr: None,
            #[cfg(feature = "notify")]
            notify: NotifySettings::default(),
        }
    }
}

impl Whocomes {
    /// Starts setting whocomes up, with the binary's defaults.
    pub fn builder() -> Builder {
        Builder::default()
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

    /// Another store the tab reads besides the one written to (another
    /// site's, another region's), by the name its rows are kept under and
    /// its URL; repeat for several. The tab draws them all in one chart.
    pub fn read_store(mut self, name: impl Into<String>, url: impl Into<String>) -> Self {
        self.read_stores.push((name.into(), url.into()));
        self
    }

    /// The read store that holds made-up demo visits: the tab labels it
    /// as demo data wherever it shows it.
    pub fn demo_store(mut self, name: impl Into<String>) -> Self {
        self.demo_store = Some(name.into());
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

    /// The key as a file's bytes (one trailing newline dropped), instead
    /// of [`key`](Self::key).
    pub fn key_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.key_file = Some(file.into());
        self
    }

    /// How tokens are keyed (default [`KeyScheme::Day`]).
    pub fn key_scheme(mut self, scheme: KeyScheme) -> Self {
        self.key_scheme = scheme;
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

    /// Crawler operators' address ranges to verify claimed crawlers with,
    /// instead of the ranges built in.
    pub fn crawlers(mut self, crawlers: Crawlers) -> Self {
        self.crawlers = Some(crawlers);
        self
    }

    /// How hits are queued and written. Its `peer_address` is kept as
    /// given: the builder's default reads axum's `ConnectInfo<SocketAddr>`.
    pub fn recorder(mut self, recorder: RecorderConfig) -> Self {
        self.recorder = recorder;
        self
    }

    /// How often counted requests are written to the store (default 10 s;
    /// at least 1 ms). Until then the tab says how many wait and when the
    /// next write is due; a shorter interval shows counts sooner and
    /// writes the same rows more often. It is also the most a crash
    /// (SIGKILL) can lose: a stop (SIGTERM) writes everything.
    pub fn write_every(mut self, interval: std::time::Duration) -> Self {
        self.recorder.flush_every = interval.max(std::time::Duration::from_millis(1));
        self
    }

    /// The most memory the rows held for a store that fails (or writes
    /// slowly) may take (default 256 MiB): more requests from the same
    /// visitors cost nothing more; past it whole visitor-days are given
    /// up, the oldest first, and counted as lost. For a remote store
    /// (PostgreSQL, Cosmos DB) they are kept in a journal in the data
    /// folder too (at most [`RecorderConfig::max_journal_bytes`], 1 GiB by
    /// default), so a stop or a crash during an outage loses none of them.
    pub fn max_held_bytes(mut self, bytes: u64) -> Self {
        self.recorder.max_held_bytes = bytes.max(1);
        self
    }

    /// How long rows are kept (default: visitor-days 30 days, hours 400).
    pub fn retention(mut self, retention: Retention) -> Self {
        self.retention = retention;
        self
    }

    /// Whether requests are counted (default `true`). Off, no layer counts
    /// and no writer runs; the stores are still opened and the tab reads
    /// them (to measure what counting costs, side by side).
    pub fn counting(mut self, on: bool) -> Self {
        self.counting = on;
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

    /// Who sets whocomes up, for the tab's sentences: the builder's
    /// settings (default), or the `whocomes` binary's flags.
    pub fn host(mut self, host: Host) -> Self {
        self.host = host;
        self
    }

    /// How connections are limited when whocomes serves the app
    /// ([`Whocomes::serve`]): the cap and the timeouts.
    pub fn connection_limits(mut self, limits: ConnectionLimits) -> Self {
        self.limits = limits;
        self
    }

    /// An address of its own where monitors read `/ready` and `/metrics`
    /// (keep it off the public network: loopback, as the binary's
    /// `--metrics-addr`). Port 0 picks a free one
    /// ([`Whocomes::metrics_addr`] says which). An address that cannot be
    /// listened on is said in the log, and the app serves on.
    pub fn metrics_addr(mut self, addr: SocketAddr) -> Self {
        self.metrics_addr = Some(addr);
        self
    }

    /// A key the stats API takes (`Authorization: Bearer KEY` at
    /// `{tab}/api/v1/stats/…` and `{tab}/api/v2/query`), named `name`,
    /// reading `stores` (none: every store). `key` is one `whocomes
    /// api-key create` would make (`wck_` and 43 characters); only its hash
    /// is kept. Keys made by `whocomes api-key create` in the data folder
    /// are taken too, without this.
    pub fn api_key(
        mut self,
        name: impl Into<String>,
        key: impl Into<String>,
        stores: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let stores = stores.into_iter().map(Into::into).collect();
        self.api_keys.push((name.into(), key.into(), stores));
        self
    }

    /// How many requests each stats API key may make in an hour (default
    /// 600); past it the API answers 429 with `Retry-After`.
    pub fn api_requests_per_hour(mut self, requests: u32) -> Self {
        self.api_per_hour = requests;
        self
    }

    /// Where alerts go and when they are sent (the binary's `--mail-*`,
    /// `--webhook` and `--alert-*`): with a channel, a store down, hits
    /// lost, day keys that did not turn and a spike or drop in people are
    /// told once each, with a recovery ([`notify`](crate::notify)).
    #[cfg(feature = "notify")]
    #[cfg_attr(docsrs, doc(cfg(feature = "notify")))]
    pub fn notify(mut self, settings: NotifySettings) -> Self {
        self.notify = settings;
        self
    }

    /// Checks the settings and starts whocomes: see [`check`](Self::check)
    /// and [`Checked::build`](crate::Checked::build).
    pub async fn build(self) -> Result<Whocomes, BuildError> {
        self.check()?.build().await
    }
}
