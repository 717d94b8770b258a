//! The tab's server side: [`Admin`] (the stores it reads, the password,
//! the sessions) and [`AdminLayer`], the one layer an app adds to make the
//! tab's server functions work and to serve its exports. Behind the `ssr`
//! feature, which an embedder's server build turns on.
//!
//! ```no_run
//! # use activity as whocomes_activity; // the workspace's name for it
//! # async fn mount(store: std::sync::Arc<dyn whocomes_activity::store::ActivityStore>) -> Result<(), Box<dyn std::error::Error>> {
//! use whocomes_admin::server::{Admin, AdminConfig};
//!
//! let admin = Admin::new(AdminConfig {
//!     stores: vec![store],
//!     password: Some("a long passphrase".into()),
//!     // The funnel card's steps, in order: NAME=PATH[,PATH…].
//!     funnel: vec!["landing=/".parse()?, "pricing=/pricing".parse()?, "signup=/signup,/signup/done".parse()?],
//!     ..AdminConfig::default()
//! })?;
//! let router: axum::Router = axum::Router::new() /* .leptos_routes(…) with <AdminTab/> at /admin */;
//! let router = router.layer(admin.layer());
//! # Ok(()) }
//! ```

pub mod auth;
pub mod csp;
mod edge;
mod layer;
mod notices;
pub mod operations;
pub mod origin;
pub mod overview;
mod page;
pub mod stats_api;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use activity::StoreName;
use activity::address::{Network, TrustedProxies};
use activity::funnel::{FunnelError, FunnelStep, check_funnel};
use activity::recorder_stats::RecorderStats;
use activity::store::ActivityStore;
use chrono::{DateTime, Utc};

pub use crate::model::Host;
pub use page::Bundle;
use reading::Reading;

pub use auth::PasswordError;
pub use edge::ConnectionStats;
pub use layer::{AdminLayer, AdminService};
pub use notices::NoticeStats;

use auth::{Attempts, Checker, Password, Sessions};

/// How the tab is set up.
#[derive(Default)]
pub struct AdminConfig {
    /// The stores to read: the one written to first, then any others.
    pub stores: Vec<Arc<dyn ActivityStore>>,
    /// The writer's counters (queued, dropped, recent hits), if this server counts.
    pub recorder: Option<Arc<RecorderStats>>,
    /// The server's connection counters (open, refused at the cap), if it keeps them.
    pub connections: Option<Arc<ConnectionStats>>,
    /// What the alerts sent, if this server sends them.
    pub notices: Option<Arc<NoticeStats>>,
    /// The admin password; without one nobody can sign in.
    pub password: Option<String>,
    /// Make the whole tab (aggregates too) sign-in only.
    pub private: bool,
    /// The proxies whose forwarding headers are believed (the counter's):
    /// used to find a client's network for the sign-in limit, and whether
    /// it came over TLS.
    pub proxies: TrustedProxies,
    /// The funnel's steps, in order (checked by [`check_funnel`]). None:
    /// the funnel card says how to name them.
    pub funnel: Vec<FunnelStep>,
    /// The store that holds made-up demo visits, if one is read: the tab
    /// labels it as demo data wherever it shows it.
    pub demo: Option<StoreName>,
    /// Where the tab is mounted (`None`: `/admin`): its functions and
    /// exports are answered beside it, at `{path}/api/…`. The counter must
    /// leave the path out (`RulesConfig::admin_path`).
    pub path: Option<String>,
    /// Who sets the tab up: its sentences name the binary's flags or the
    /// builder's settings (default: an embedding app).
    pub host: Host,
    /// The day keys this server counts with, if it keeps them: `/metrics`
    /// says how old today's key is (past a day, turning them has failed).
    pub day_keys: Option<Arc<std::sync::RwLock<activity::ratchet::DayKeys>>>,
    /// Whether visits from this machine (loopback) are counted as people:
    /// the counter's `RulesConfig::loopback_is_self` is off (`--own-address
    /// none`). The empty tab's hint then says so instead of telling the
    /// reader how to turn it off.
    pub loopback_as_people: bool,
    /// The wasm bundle that hydrates the tab's page of its own
    /// ([`Admin::router`]), if there is one: without, the page is served
    /// whole and works without JavaScript.
    pub bundle: Option<Bundle>,
    /// How many days the site's store keeps visitor-day rows, if known (its
    /// retention): a filtered view says which days it can count.
    pub visitor_days_kept: Option<u32>,
    /// The keys the stats API takes (`{path}/api/v1/…`, `{path}/api/v2/query`):
    /// none, unless given, and so the API answers nobody.
    pub api_keys: stats_api::keys::ApiKeys,
}

impl std::fmt::Debug for AdminConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminConfig")
            .field("stores", &self.stores.len())
            .field("password", &self.password.as_ref().map(|_| "redacted"))
            .field("private", &self.private)
            .finish_non_exhaustive()
    }
}

/// Why the tab cannot be set up as configured.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The password cannot be hashed.
    #[error(transparent)]
    Password(#[from] PasswordError),
    /// The funnel is refused.
    #[error(transparent)]
    Funnel(#[from] FunnelError),
    /// The tab's path is refused.
    #[error("the tab's path {0:?} is not a path of its own, like /stats")]
    Path(String),
}

/// The tab's path as given: `/` and a path of its own (not `/` alone),
/// without a query or a pattern; a trailing `/` is dropped.
pub fn check_path(path: &str) -> Result<String, SetupError> {
    let trimmed = path.trim_end_matches('/');
    let fine = trimmed.starts_with('/')
        && !trimmed.contains(['?', '#', '{', '}', '*'])
        && !trimmed.contains("//");
    if fine {
        Ok(trimmed.to_owned())
    } else {
        Err(SetupError::Path(path.to_owned()))
    }
}

/// The Admin tab's state, shared by its server functions and exports.
#[derive(Clone, Debug)]
pub struct Admin(Arc<Inner>);

struct Inner {
    reading: Reading,
    recorder: Option<Arc<RecorderStats>>,
    connections: Option<Arc<ConnectionStats>>,
    notices: Option<Arc<NoticeStats>>,
    password: Option<Password>,
    sessions: Sessions,
    attempts: Attempts,
    checker: Checker,
    /// Sign-in attempts refused over a budget, before any check.
    sign_ins_refused: std::sync::atomic::AtomicU64,
    private: bool,
    proxies: TrustedProxies,
    demo: Option<StoreName>,
    /// Where the tab is, without a trailing `/`.
    path: String,
    /// Where its stylesheet is served (made once, compared on every request).
    style: String,
    host: Host,
    loopback_as_people: bool,
    day_keys: Option<Arc<std::sync::RwLock<activity::ratchet::DayKeys>>>,
    bundle: Option<Bundle>,
    api_keys: stats_api::keys::ApiKeys,
    visitor_days_kept: Option<u32>,
}

/// Where the tab is unless its config says otherwise.
pub const DEFAULT_PATH: &str = "/admin";

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("reading", &self.reading)
            .field("private", &self.private)
            .finish_non_exhaustive()
    }
}

impl AdminConfig {
    /// Checks what can be wrong as written (the funnel, an empty password,
    /// the tab's path) without hashing or making anything: what a start
    /// checks before it writes anything. [`Admin::new`] checks it again.
    pub fn check(&self) -> Result<(), SetupError> {
        check_funnel(&self.funnel)?;
        if self
            .password
            .as_deref()
            .is_some_and(|p| p.trim().is_empty())
        {
            return Err(PasswordError::Empty.into());
        }
        check_path(self.path.as_deref().unwrap_or(DEFAULT_PATH))?;
        Ok(())
    }
}

impl Admin {
    /// Checks the funnel, hashes the password and makes the session key.
    pub fn new(config: AdminConfig) -> Result<Self, SetupError> {
        config.check()?;
        let password = config.password.as_deref().map(Password::new).transpose()?;
        let path = check_path(config.path.as_deref().unwrap_or(DEFAULT_PATH))?;
        let path = path.as_str();
        Ok(Self(Arc::new(Inner {
            reading: Reading::new(config.stores, config.funnel),
            recorder: config.recorder,
            connections: config.connections,
            notices: config.notices,
            password,
            sessions: Sessions::new()?,
            attempts: Attempts::default(),
            checker: Checker::default(),
            sign_ins_refused: std::sync::atomic::AtomicU64::new(0),
            private: config.private,
            proxies: config.proxies,
            demo: config.demo,
            path: path.to_owned(),
            style: crate::style::href(path),
            host: config.host,
            loopback_as_people: config.loopback_as_people,
            day_keys: config.day_keys,
            bundle: config.bundle,
            api_keys: config.api_keys,
            visitor_days_kept: config.visitor_days_kept,
        })))
    }

    /// The bundle that hydrates the tab's page of its own, if any.
    pub fn bundle(&self) -> Option<&Bundle> {
        self.0.bundle.as_ref()
    }

    /// The first day whose visitor-day rows the site's store still keeps
    /// as of `now`, if its retention is known.
    pub fn first_visitor_day(&self, now: DateTime<Utc>) -> Option<chrono::NaiveDate> {
        let visitor_days = self.0.visitor_days_kept?;
        let retention = activity::store::Retention {
            visitor_days,
            hour_days: None,
        };
        Some(retention.first_visitor_day(now))
    }

    /// The keys the stats API takes.
    pub fn api_keys(&self) -> &stats_api::keys::ApiKeys {
        &self.0.api_keys
    }

    /// Who set the tab up.
    pub fn host(&self) -> Host {
        self.0.host
    }

    /// The day the keys are turned to, if this server keeps day keys.
    pub fn day_keys_day(&self) -> Option<chrono::NaiveDate> {
        let keys = self.0.day_keys.as_ref()?;
        Some(
            keys.read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .day(),
        )
    }

    /// Whether visits from this machine are counted as people.
    pub fn loopback_as_people(&self) -> bool {
        self.0.loopback_as_people
    }

    /// Where the tab is mounted.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// Where the tab's stylesheet is served.
    pub(crate) fn style_path(&self) -> &str {
        &self.0.style
    }

    /// What a request path names beside the tab (`{tab}/api/{name}`): a
    /// function or an export.
    pub(crate) fn beside_tab<'a>(&self, path: &'a str) -> Option<&'a str> {
        path.strip_prefix(self.0.path.as_str())?
            .strip_prefix("/api/")
            .filter(|name| !name.is_empty())
    }

    /// The layer that gives the tab's server functions this state and serves
    /// its exports. Add it to the router that serves the tab.
    pub fn layer(&self) -> AdminLayer {
        AdminLayer::new(self.clone())
    }

    /// The stores the tab reads, read as one.
    pub fn reading(&self) -> &Reading {
        &self.0.reading
    }

    /// The stores the tab reads.
    pub fn stores(&self) -> &[Arc<dyn ActivityStore>] {
        self.0.reading.stores()
    }

    /// The writer's counters, if this server counts.
    pub fn recorder(&self) -> Option<&RecorderStats> {
        self.0.recorder.as_deref()
    }

    /// The server's connection counters, if it keeps them (a server that
    /// was given them and counts there: [`ConnectionStats::kept`]).
    pub fn connections(&self) -> Option<&ConnectionStats> {
        self.0.connections.as_deref().filter(|stats| stats.kept())
    }

    /// What the alerts sent, if this server sends them.
    pub fn notices(&self) -> Option<&NoticeStats> {
        self.0.notices.as_deref()
    }

    /// Sign-in attempts refused over a budget since start.
    pub fn sign_ins_refused(&self) -> u64 {
        self.0
            .sign_ins_refused
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Sums every day the longest range shows, so that the first view after
    /// a start does not wait for it: with 90 days of a busy site that takes
    /// seconds, so run it in a background task. It is not held to the
    /// tab's read deadline (`Reading::warm`): a first sum that takes longer
    /// than a reader waits is finished here and kept.
    pub async fn warm_up(&self) {
        let longest = crate::model::RANGES.iter().copied().max().unwrap_or(365);
        if let Err(error) = self.0.reading.warm(longest, Utc::now().date_naive()).await {
            tracing::warn!(%error, "the day summaries could not be made at start; the tab sums them when read");
        }
    }

    /// The funnel's steps.
    pub fn funnel(&self) -> &[FunnelStep] {
        self.0.reading.steps()
    }

    /// Whether `store` holds made-up demo visits.
    pub fn is_demo(&self, store: &StoreName) -> bool {
        self.0.demo.as_ref() == Some(store)
    }

    /// Whether the aggregates need a session too.
    pub fn private(&self) -> bool {
        self.0.private
    }

    /// Whether anybody can sign in at all.
    pub fn sign_in_possible(&self) -> bool {
        self.0.password.is_some()
    }

    /// Whether a request with these headers holds a valid session.
    pub fn signed_in(&self, headers: &http::HeaderMap, now: DateTime<Utc>) -> bool {
        let cookies = headers
            .get_all(http::header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok());
        self.0.sessions.valid(cookies, now)
    }

    /// Whether a request with these headers may read the aggregates.
    pub fn may_read_aggregates(&self, headers: &http::HeaderMap, now: DateTime<Utc>) -> bool {
        !self.0.private || self.signed_in(headers, now)
    }

    /// Checks a sign-in attempt from `client`; on success, the `Set-Cookie`
    /// value of a new session. Over a budget (this network's, or the global
    /// one of attempts in progress) it is refused before argon2 runs; the
    /// check itself runs on the blocking pool, one at a time.
    pub async fn sign_in(
        &self,
        attempt: &str,
        request: &http::request::Parts,
        now: DateTime<Utc>,
    ) -> Result<String, SignInError> {
        let password = self.0.password.as_ref().ok_or(SignInError::NoPassword)?;
        let network = Network::of(self.client(request));
        let refused = |error| {
            self.0
                .sign_ins_refused
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            error
        };
        self.0
            .attempts
            .allow(network.as_str(), std::time::Instant::now())
            .map_err(|wait| refused(SignInError::TooMany(wait.as_secs().max(1))))?;
        let admitted = self
            .0
            .checker
            .admit()
            .ok_or_else(|| refused(SignInError::Busy(BUSY_RETRY_SECONDS)))?;
        let matched = self
            .0
            .checker
            .check(&admitted, password, attempt)
            .await
            .ok_or_else(|| refused(SignInError::Busy(BUSY_RETRY_SECONDS)))?;
        if !matched {
            tracing::info!(network = %network, "admin sign-in refused");
            return Err(SignInError::Wrong);
        }
        tracing::info!(network = %network, "admin signed in");
        self.0
            .sessions
            .start(now, self.over_tls(request))
            .map_err(|_| SignInError::Busy(BUSY_RETRY_SECONDS))
    }

    /// Ends the request's session on the server (a copied cookie stops
    /// working too); the `Set-Cookie` value that clears it.
    pub fn sign_out(&self, request: &http::request::Parts) -> String {
        let cookies = request
            .headers
            .get_all(http::header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok());
        self.0.sessions.end(cookies, self.over_tls(request))
    }

    /// Whether the request came over TLS as its proxy says (for HSTS and
    /// the cookie's Secure flag).
    pub fn https(&self, request: &http::request::Parts) -> bool {
        self.over_tls(request)
    }

    /// The client's address: the peer, or what a trusted proxy says.
    fn client(&self, request: &http::request::Parts) -> Option<IpAddr> {
        let peer = peer_of(&request.extensions)?;
        let header = match self.0.proxies.header() {
            activity::address::ForwardedHeader::XForwardedFor => "x-forwarded-for",
            activity::address::ForwardedHeader::Forwarded => "forwarded",
        };
        let values: Vec<&str> = request
            .headers
            .get_all(header)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        self.0.proxies.client_address(peer, &values)
    }

    /// Whether the request came over TLS: to this server, or to a trusted
    /// proxy that says so (`X-Forwarded-Proto: https` or `Forwarded: proto=https`).
    fn over_tls(&self, request: &http::request::Parts) -> bool {
        if request.uri.scheme() == Some(&http::uri::Scheme::HTTPS) {
            return true;
        }
        let from_trusted_proxy =
            peer_of(&request.extensions).is_some_and(|peer| self.0.proxies.trusts(peer));
        from_trusted_proxy && says_https(&request.headers)
    }
}

fn peer_of(extensions: &http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
        .or_else(|| extensions.get::<SocketAddr>().map(SocketAddr::ip))
}

fn says_https(headers: &http::HeaderMap) -> bool {
    let proto = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"));
    let forwarded = headers
        .get_all(http::header::FORWARDED)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split([';', ','])
                .any(|pair| pair.trim().eq_ignore_ascii_case("proto=https"))
        });
    proto || forwarded
}

pub use crate::model::SignInError;

/// How long a client refused over the global budget is asked to wait.
const BUSY_RETRY_SECONDS: u64 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_path_is_a_path_of_its_own() {
        assert_eq!(check_path("/stats/").expect("fine"), "/stats");
        assert_eq!(check_path("/site/stats").expect("fine"), "/site/stats");
        for wrong in ["", "/", "stats", "/stats?x=1", "/{id}", "/a//b"] {
            assert!(check_path(wrong).is_err(), "{wrong:?}");
        }
    }
}
