//! The hit: the one record a counted request leaves, and the [`Counter`]
//! that makes it. Its fields are the whole privacy decision: a field that
//! does not exist cannot leak.
//!
//! | field | holds | never holds |
//! |---|---|---|
//! | `at` | when the request arrived (UTC) | — |
//! | `visitor` | a keyed hash of day and address, rotating daily | the address |
//! | `network` | the address cut to /24 (IPv4) or /48 (IPv6) | the rest of the address |
//! | `path` | the path, `@` as `%40`, bad bytes encoded, ≤ 256 bytes; a path the site did not have kept as `(not found)` | query, fragment |
//! | `store` | the store's name | — |
//! | `kind` | person, bot or self-read | the user agent it was read from |
//! | `source` | on a page load: the referrer's host or the link's tag | the referrer's path or query, the rest of the query |
//! | `goal` | a label its handler or the operator gave ([`Goal`]: checked, ≤ 64 characters, no `@`, no long numbers) | anything the request carried |
//! | `shape` | page load, form post, other page or API request | the method, the headers |
//! | `evidence` | a few bits: a browser's or an impostor's sign ([`Evidence`]) | the protocol, the agent |
//! | `bot_class` | for a bot: which kind ([`BotClass`]) | the agent's text |
//!
//! There is no field for a user agent, a cookie, a header, an account or an
//! email: they cannot be stored because a hit cannot carry them.

use std::net::IpAddr;
use std::sync::{Arc, RwLock};

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::request::bot_class::BotClass;
use crate::request::campaign::Campaign;
use crate::request::classify::{
    Counted, Kind, KindReason, NavigationReport, RequestView, Skip, counted, is_page_load,
    is_prefetch, is_script, is_script_request, kind_of, navigation_report, shows_files,
};
use crate::request::consistency::Contradiction;
use crate::request::evidence::{BrowserEvidence, Evidence, Shape};
use crate::request::goal::Goal;
use crate::request::mark::FilesMark;
use crate::request::path::{answered_path, clean_path, query_of};
use crate::request::rules::{Probe, Rules};
use crate::request::source::{Source, source_of};
use crate::visitor::address::{ForwardedHeader, Network, TrustedProxies};
use crate::visitor::countries::CountryTable;
use crate::visitor::country::Country;
use crate::visitor::past::PastKeys;
use crate::visitor::ratchet::DayKeys;
use crate::visitor::token::{VisitorKey, VisitorToken, visitor_token};
// The store's name keeps its 0.2 path here too.
pub use crate::request::store_name::{StoreName, StoreNameError};

/// One counted request, as kept. See the module docs for what each field
/// may and may not hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// When the request arrived (UTC).
    pub at: DateTime<Utc>,
    /// The visitor token of the client's address on that UTC day.
    pub visitor: VisitorToken,
    /// The client's network.
    pub network: Network,
    /// The country the client's address is in, if the table knows one
    /// (looked up before the address is cut; only the code is kept).
    #[serde(default)]
    pub country: Option<Country>,
    /// The path, cleaned.
    pub path: String,
    /// The store that served the request.
    pub store: StoreName,
    /// Person, bot or self-read.
    pub kind: Kind,
    /// On a page load: where it came from; otherwise `None`.
    pub source: Option<Source>,
    /// On a page load whose link carried campaign labels: those labels.
    #[serde(default)]
    pub campaign: Option<Campaign>,
    /// The goal the request reached, if its handler marked one or its path
    /// is one (see [`Goal`]).
    #[serde(default)]
    pub goal: Option<Goal>,
    /// What the request was, for the signs that need time (a form posted
    /// at once, a rate no reader keeps).
    pub shape: Shape,
    /// What this request itself showed of a browser or of an impostor.
    pub evidence: Evidence,
    /// For a bot: which kind of bot.
    pub bot_class: Option<BotClass>,
}

/// Everything the rules decided about one request, with the hit it leaves
/// if it is counted. This is what `whocomes explain` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// Counted as a page or an API request, or not counted and why.
    pub counted: Counted,
    /// Whether it was a top-level document load.
    pub page_load: bool,
    /// Its kind and why; `None` when it is not counted (the kind of a
    /// request that is not counted is never decided, which keeps assets cheap).
    pub reason: Option<KindReason>,
    /// The record kept, if counted.
    pub hit: Option<Hit>,
    /// Not counted, but a file a page is made of: evidence of a browser
    /// for its visitor-day ([`Counter::files_mark`] makes the mark).
    pub shows_files: bool,
    /// The file is one of the page's scripts (see [`Evidence::SCRIPTS`]).
    pub shows_scripts: bool,
    /// The decision waits for the answer's status (software a site may or
    /// may not run, not yet answered): see [`Decision::answered`].
    pub awaits_answer: bool,
    /// How the request contradicts its own agent, if it does: on a counted
    /// person-looking request, an impostor's sign
    /// ([`Evidence::CONTRADICTED`]); on a file, no browser's evidence.
    pub contradiction: Option<Contradiction>,
}

impl Decision {
    /// Why, in words an operator can check: `not counted: asset (.css)`,
    /// `bot: user agent matches 'bot'`, `self-read: loopback`, `person`.
    pub fn why(&self) -> String {
        match (&self.counted, &self.reason) {
            (Counted::Not(skip), _) => format!("not counted: {skip}"),
            (_, Some(reason)) => reason.to_string(),
            (_, None) => "counted".to_owned(),
        }
    }

    /// The request's kind, when it is counted.
    pub fn kind(&self) -> Option<Kind> {
        self.reason.as_ref().map(KindReason::kind)
    }

    /// Completes a decision with the answer's status (`None`: no answer
    /// came). A counted request for what the site does not have keeps the
    /// answer's fold as its path ([`answered_path`]: a flood of made-up
    /// paths is one row, not one per path). A decision that
    /// [awaited the answer](Self::awaits_answer) learns its kind too:
    /// software the site answered 4xx is a probe (a scanner's), and a file
    /// under its path no browser's evidence.
    pub fn answered(&mut self, status: Option<u16>) {
        if let (Some(hit), Some(fold)) = (self.hit.as_mut(), answered_path(status)) {
            fold.clone_into(&mut hit.path);
        }
        // A path's goal is reached only by an answer that is not an error.
        if let (Some(hit), Some(400..)) = (self.hit.as_mut(), status) {
            hit.goal = None;
        }
        if !std::mem::take(&mut self.awaits_answer) {
            return;
        }
        let absent = crate::request::classify::is_absent(status);
        if let Some(KindReason::Software { status: known, .. }) = self.reason.as_mut() {
            *known = status;
        }
        if self.hit.is_none() {
            self.shows_files &= !absent;
            self.shows_scripts &= !absent;
        }
        let kind = self.reason.as_ref().map(KindReason::kind);
        if let (Some(hit), Some(kind)) = (self.hit.as_mut(), kind) {
            hit.kind = kind;
            if absent {
                hit.bot_class = Some(BotClass::Scanner);
            }
        }
    }
}

/// Where a counter takes each day's token key from.
#[derive(Clone, Debug)]
pub enum TokenKeys {
    /// One key for every day: whoever holds it can make any day's tokens
    /// (the original scheme, for sites that need it).
    Static(VisitorKey),
    /// Day keys that forget ([`DayKeys`]), turned at midnight by whoever
    /// shares them (the live site). A day they no longer make gets its key
    /// from `past`.
    Ratchet {
        /// Today's and yesterday's keys.
        keys: Arc<RwLock<DayKeys>>,
        /// The key of any other day.
        past: Arc<dyn PastKeys>,
    },
    /// A key per day from one place, whichever day (an import: a history
    /// split across runs must give each day the same key every run).
    PerDay(Arc<dyn PastKeys>),
}

impl TokenKeys {
    /// The token of `client` on `day`.
    pub fn token(&self, day: NaiveDate, client: Option<IpAddr>) -> VisitorToken {
        match self {
            Self::Static(key) => visitor_token(key, day, client),
            Self::Ratchet { keys, past } => keys
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .token_for(day, |key| visitor_token(key, day, client))
                .unwrap_or_else(|| visitor_token(&past.key(day), day, client)),
            Self::PerDay(keys) => visitor_token(&keys.key(day), day, client),
        }
    }
}

/// The whole decision for a site: rules, key, trusted proxies and store
/// name. The live layer, the log importer and `whocomes explain` all count
/// through [`Counter::count`], so there is one implementation of every rule.
#[derive(Clone, Debug)]
pub struct Counter {
    rules: Rules,
    keys: TokenKeys,
    proxies: TrustedProxies,
    store: StoreName,
    countries: &'static CountryTable,
}

impl Counter {
    /// A counter for one store, with one key for every day.
    pub fn new(rules: Rules, key: VisitorKey, proxies: TrustedProxies, store: StoreName) -> Self {
        Self::with_keys(rules, TokenKeys::Static(key), proxies, store)
    }

    /// A counter for one store that takes each day's key from `keys`.
    pub fn with_keys(
        rules: Rules,
        keys: TokenKeys,
        proxies: TrustedProxies,
        store: StoreName,
    ) -> Self {
        Self {
            rules,
            keys,
            proxies,
            store,
            countries: crate::visitor::countries::built_in(),
        }
    }

    /// The same counter, looking countries up in `countries` (a table of
    /// one's own, or [`CountryTable::empty`] to keep none).
    pub fn with_countries(self, countries: &'static CountryTable) -> Self {
        Self { countries, ..self }
    }

    /// The rules this counter applies.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Whether no proxy's forwarding header is believed.
    pub fn trusts_no_proxy(&self) -> bool {
        self.proxies.is_empty()
    }

    /// The client's address: the peer, or what trusted proxies say it is.
    pub fn client_address(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
    ) -> Option<IpAddr> {
        let peer = peer?;
        let values = match self.proxies.header() {
            ForwardedHeader::XForwardedFor => &request.x_forwarded_for,
            ForwardedHeader::Forwarded => &request.forwarded,
        };
        self.proxies.client_address(peer, values)
    }

    /// Decides one request that arrived at `at` from `peer` (`None`: the
    /// peer address is unknown or unreadable).
    pub fn count(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
        at: DateTime<Utc>,
    ) -> Decision {
        match navigation_report(request, &self.rules) {
            NavigationReport::NotOne => self.decide(request, peer, at),
            NavigationReport::To(target) => {
                // The app's own report of a navigation inside it: a page load
                // of the new path, from the same client.
                // The browser's own page load, which asked for HTML.
                let navigation = RequestView {
                    method: "GET",
                    target: target.as_bytes(),
                    sec_fetch_dest: Some("document"),
                    accept: Some("text/html"),
                    ..request.clone()
                };
                let mut decision = self.decide(&navigation, peer, at);
                if let Some(hit) = decision.hit.as_mut() {
                    // Only the hydrated app sends it: a browser ran the page.
                    hit.evidence |= Evidence::FILES;
                }
                decision
            }
            NavigationReport::Drawn => Decision {
                // The hydrated app ran a page whose files came from the
                // browser's cache: the files' evidence, without a file request.
                shows_files: true,
                shows_scripts: true,
                ..Decision::not(Skip::DrawnReport)
            },
            NavigationReport::Malformed => Decision::not(Skip::BadNavigationReport),
        }
    }

    /// The mark a file request leaves on its visitor-day (see
    /// [`Decision::shows_files`]): it costs the token, so a live layer
    /// asks only for the first file of a visitor-day.
    pub fn files_mark(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
        at: DateTime<Utc>,
    ) -> FilesMark {
        let client = self.client_address(request, peer);
        self.files_mark_of(client, at)
    }

    /// [`files_mark`](Self::files_mark) for a client address already read.
    pub fn files_mark_of(&self, client: Option<IpAddr>, at: DateTime<Utc>) -> FilesMark {
        FilesMark {
            store: self.store.clone(),
            day: at.date_naive(),
            visitor: self.keys.token(at.date_naive(), client),
        }
    }

    fn decide(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
        at: DateTime<Utc>,
    ) -> Decision {
        let path = clean_path(request.target);
        let counted = counted(request.method, &path, &self.rules);
        if let Counted::Not(_) = counted {
            if !shows_files(request.method, &counted) {
                return Decision::not_counted(counted);
            }
            // A file under a path no site serves is a scanner's, not a
            // browser's; under software's (`/wp-includes/….js`), the answer
            // tells: the site's own file, or a probe for what it lacks.
            let probe = self.rules.probe_path(&path);
            let awaits = matches!(probe, Some(Probe::Software(_)));
            let mut decision = Decision {
                shows_files: !matches!(probe, Some(Probe::Always(_))),
                shows_scripts: is_script(&path),
                awaits_answer: awaits,
                ..Decision::not_counted(counted)
            };
            // A file without the fetch metadata its browser sends is a
            // tool's (a browser's sends it: one header test).
            if decision.shows_files {
                decision.contradiction =
                    self.rules.consistency.of_file(request, peer, &self.proxies);
                decision.shows_files = decision.contradiction.is_none();
            }
            decision.shows_scripts &= decision.shows_files;
            if awaits && request.status.is_some() {
                decision.answered(request.status);
            }
            return decision;
        }
        if is_prefetch(request) {
            return Decision::not(Skip::Prefetch);
        }
        let page_load = is_page_load(&counted, request);
        let client = self.client_address(request, peer);
        let reason = kind_of(
            &path,
            request.user_agent,
            client,
            request.status,
            &self.rules,
        );
        let kind = reason.kind();
        let awaits_answer = matches!(reason, KindReason::Software { status: None, .. });
        // Only a person-looking request can be an impostor's.
        let contradiction = (kind == Kind::Person)
            .then(|| {
                self.rules
                    .consistency
                    .of_page(request, peer, &self.proxies, page_load)
            })
            .flatten();
        let hit = Hit {
            at,
            visitor: self.keys.token(at.date_naive(), client),
            network: Network::of(client),
            country: client.and_then(|address| self.countries.lookup(address)),
            source: page_load
                .then(|| {
                    source_of(
                        query_of(request.target),
                        request.referer,
                        request.host,
                        &self.rules,
                    )
                })
                .flatten(),
            campaign: page_load
                .then(|| query_of(request.target).and_then(Campaign::of))
                .flatten(),
            goal: self.rules.goal_of(&path),
            shape: shape_of(&counted, page_load, request),
            evidence: self.evidence_of(request, peer, &reason, contradiction.is_some()),
            bot_class: (kind == Kind::Bot)
                .then(|| {
                    self.rules
                        .classes
                        .class_of(&reason, request.user_agent)
                        .map(|(class, _)| class)
                })
                .flatten(),
            path,
            store: self.store.clone(),
            kind,
        };
        let mut decision = Decision {
            counted,
            page_load,
            reason: Some(reason),
            hit: Some(hit),
            shows_files: false,
            shows_scripts: false,
            awaits_answer,
            contradiction,
        };
        if request.status.is_some() {
            // A log line's answer is known already (a live request's comes later).
            decision.answered(request.status);
        }
        decision
    }

    /// What a counted request shows by itself: a page's script calling
    /// the site (the browser's fetch metadata says so), an HTTP/1.0 request
    /// line from a client (a proxy's own protocol says nothing of its
    /// client), headers that contradict its agent, a crawler verified by
    /// its address, and whether the files' evidence is asked for at all.
    fn evidence_of(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
        reason: &KindReason,
        contradicted: bool,
    ) -> Evidence {
        let mut evidence = Evidence::NONE;
        if contradicted {
            evidence |= Evidence::CONTRADICTED;
        }
        if is_script_request(request) {
            evidence |= Evidence::CALLED;
        }
        if matches!(reason, KindReason::VerifiedCrawler(_)) {
            evidence |= Evidence::VERIFIED;
        }
        if self.rules.config.browser_evidence == BrowserEvidence::Off {
            evidence |= Evidence::WAIVED;
        }
        let old = request.protocol.is_some_and(|p| {
            p.eq_ignore_ascii_case("HTTP/1.0") || p.eq_ignore_ascii_case("HTTP/0.9")
        });
        if old && !peer.is_some_and(|peer| self.proxies.trusts(peer)) {
            evidence |= Evidence::OLD_PROTOCOL;
        }
        evidence
    }
}

/// What a counted request was: a page load, a form post, a page's script
/// calling the site, another page request, or an API request.
fn shape_of(counted: &Counted, page_load: bool, request: &RequestView<'_>) -> Shape {
    match counted {
        Counted::Api | Counted::Not(_) => Shape::Api,
        Counted::Page if page_load => Shape::PageLoad,
        Counted::Page if is_script_request(request) => Shape::Script,
        Counted::Page if request.method.eq_ignore_ascii_case("POST") => Shape::FormPost,
        Counted::Page => Shape::OtherPage,
    }
}

impl Decision {
    fn not(skip: Skip) -> Self {
        Self::not_counted(Counted::Not(skip))
    }

    fn not_counted(counted: Counted) -> Self {
        Self {
            counted,
            page_load: false,
            reason: None,
            hit: None,
            shows_files: false,
            shows_scripts: false,
            awaits_answer: false,
            contradiction: None,
        }
    }
}
