//! The counting rules as data: which requests are counted, which are bots,
//! which are the site reading itself. Every list is configuration with the
//! defaults of SPEC §1 and §3; [`Rules`] is the compiled form, built once.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use crate::request::bot_class::BotClasses;
use crate::request::bots::{BotPatterns, BotWordsError};
use crate::request::consistency::Consistency;
use crate::request::crawlers::Crawlers;
use crate::request::evidence::BrowserEvidence;
use crate::request::goal::Goal;

/// Why a set of rules could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RulesError {
    /// A bot word that is empty would match every agent.
    #[error("a bot word is empty; it would match every user agent")]
    EmptyBotWord,
    /// A probe path must start with `/` (it matches whole segments).
    #[error("a probe path must start with '/'")]
    ProbePathWithoutSlash,
    /// The self-read mark is empty: every request would be a self-read.
    #[error("the self-read mark is empty; every request would be a self-read")]
    EmptySelfReadMark,
    /// The public origin is not `http(s)://host[:port]`.
    #[error("--public-origin: {0}")]
    PublicOrigin(String),
    /// The pattern compiler refused the lists.
    #[error("cannot compile the patterns: {0}")]
    Patterns(String),
}

impl From<BotWordsError> for RulesError {
    fn from(error: BotWordsError) -> Self {
        match error {
            BotWordsError::Empty => Self::EmptyBotWord,
            BotWordsError::Compile(why) => Self::Patterns(why),
        }
    }
}

/// The rules as plain lists, with documented defaults. Compile them with
/// [`Rules::new`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RulesConfig {
    /// Extensions of the files a page is made of; never counted.
    pub asset_extensions: Vec<String>,
    /// Path prefixes of the build output (cargo-leptos' `/pkg/`); never counted.
    pub build_prefixes: Vec<String>,
    /// Extensions of root files (`/robots.txt`, `/sitemap.xml`, any `/*.txt`
    /// or `/*.xml` directly under `/`); never counted.
    pub root_file_extensions: Vec<String>,
    /// Path prefixes of root metadata (`/.well-known/…`); never counted.
    pub root_prefixes: Vec<String>,
    /// The Admin tab's page and everything under it (its functions and
    /// exports are answered beside it, at `{admin_path}/api/…`); never counted.
    pub admin_path: String,
    /// Other path prefixes of the Admin tab; never counted. By default the
    /// names its functions are registered under (`/_whocomes/`), which a
    /// Leptos app's router lists and the tab's layer refuses.
    pub admin_prefixes: Vec<String>,
    /// Path prefixes of API routes and server functions (the rest are pages).
    pub api_prefixes: Vec<String>,
    /// A user agent containing this is the site reading itself.
    pub self_read_mark: String,
    /// Whether requests from loopback are the site's own reads. Turn off to
    /// count a local trial as people.
    pub loopback_is_self: bool,
    /// Addresses and networks the operator lists as the site's own.
    pub own_addresses: Vec<IpNet>,
    /// Paths no site serves in public (secrets, backups, VCS folders,
    /// install scripts): a probe whatever the answer. Matched
    /// case-insensitively at the start of any segment and ending at a
    /// segment or extension boundary: `/.git` matches `/.git/config` and
    /// `/old/.git`, not `/.github-tips`.
    pub probe_paths: Vec<String>,
    /// Extensions no site serves in public (`.env`, `.bak`, `.sql`): a probe
    /// whatever the answer.
    pub probe_extensions: Vec<String>,
    /// Paths of software a site may or may not run (`/wp-login.php`,
    /// `/cgi-bin/`), matched as [`probe_paths`](Self::probe_paths) are: a
    /// probe only when the site answered it 4xx (it has no such thing); the
    /// same request a site that runs the software answered is a reader's.
    pub software_paths: Vec<String>,
    /// Extensions of software a site may or may not run (`php`, `asp`,
    /// `cgi`): a probe only when answered 4xx, as for
    /// [`software_paths`](Self::software_paths).
    pub software_extensions: Vec<String>,
    /// Words in a user agent that make it a bot (case-insensitive substrings).
    pub bot_words: Vec<String>,
    /// The site's own host names: a referrer from one of them is internal
    /// navigation. The request's `Host` is always one of them.
    pub site_hosts: Vec<String>,
    /// Query parameters that carry a link's tag, in order of preference.
    pub tag_parameters: Vec<String>,
    /// Where the hydrated app reports a navigation inside it
    /// (`POST PATH?to=/new/path`): counted as a page load of the new path.
    pub navigation_report_path: String,
    /// Whether a person-looking visitor-day must show the files' evidence
    /// to count as people (`off` for a site whose files come from elsewhere).
    pub browser_evidence: BrowserEvidence,
    /// The origin the public reaches the site at (`https://example.com`):
    /// its scheme says whether browsers send the site their client hints
    /// and fetch metadata (they do to HTTPS), for every request
    /// (`request::consistency`). Give `https://…` only when the site is
    /// never served over plain HTTP (the proxy redirects it). `None`: a
    /// trusted proxy's `X-Forwarded-Proto` (or `Forwarded: proto=`) says,
    /// per request; else a log line's scheme; else a browser on this
    /// machine talking to loopback; else nothing is inferred.
    pub public_origin: Option<String>,
    /// Paths whose counted requests reach a goal (`--goal signup=/welcome`):
    /// the cleaned path, exactly, answered with no error (under 400). A
    /// handler can mark its own requests instead (see [`Goal`]).
    pub goal_paths: Vec<GoalPath>,
}

/// A path that reaches a goal when it is counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalPath {
    /// The goal.
    pub goal: Goal,
    /// The cleaned path (`/welcome`), compared exactly.
    pub path: String,
}

impl std::str::FromStr for GoalPath {
    type Err = String;

    /// `NAME=PATH`, as the binary's `--goal` takes it.
    fn from_str(text: &str) -> Result<Self, String> {
        let (name, path) = text
            .split_once('=')
            .ok_or_else(|| "a goal is NAME=PATH, like signup=/welcome".to_owned())?;
        let goal = Goal::new(name).map_err(|error| error.to_string())?;
        let path = path.trim();
        if !path.starts_with('/') {
            return Err(format!(
                "the goal {goal}'s path does not start with '/': give a path, like /welcome"
            ));
        }
        Ok(Self {
            goal,
            path: path.to_owned(),
        })
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|&item| item.to_owned()).collect()
}

impl Default for RulesConfig {
    fn default() -> Self {
        Self {
            asset_extensions: strings(&[
                "js", "mjs", "css", "map", "wasm", "woff", "woff2", "ttf", "otf", "eot", "png",
                "jpg", "jpeg", "gif", "svg", "webp", "avif", "ico", "bmp", "mp4", "webm", "mp3",
                "ogg",
            ]),
            build_prefixes: strings(&["/pkg/"]),
            root_file_extensions: strings(&["txt", "xml"]),
            root_prefixes: strings(&["/.well-known/"]),
            admin_path: "/admin".to_owned(),
            admin_prefixes: strings(&["/_whocomes/"]),
            api_prefixes: strings(&["/api/"]),
            self_read_mark: "whocomes-SelfRead".to_owned(),
            loopback_is_self: true,
            own_addresses: Vec::new(),
            probe_paths: strings(&[
                "/.env",
                "/.git",
                "/.svn",
                "/.hg",
                "/.aws",
                "/.ssh",
                "/.ds_store",
                "/.htaccess",
                "/.htpasswd",
                "/.vscode",
                "/.idea",
                "/wp-config.php",
                "/wp-admin/install.php",
                "/wp-admin/setup-config.php",
                "/phpinfo.php",
                "/vendor/phpunit",
            ]),
            probe_extensions: strings(&["env", "bak", "sql", "old", "orig", "swp"]),
            software_paths: strings(&[
                "/wp-login.php",
                "/xmlrpc.php",
                "/wp-admin",
                "/wp-content",
                "/wp-includes",
                "/wp-json",
                "/wordpress",
                "/phpmyadmin",
                "/myadmin",
                "/cgi-bin/",
                "/administrator",
                "/owa/",
                "/ecp/",
                "/autodiscover",
                "/actuator",
                "/boaform",
                "/hnap1",
                "/solr/",
                "/manager/html",
                "/config.json",
                "/server-status",
                "/telescope",
                "/_ignition",
                "/remote/login",
                "/geoserver",
            ]),
            software_extensions: strings(&["php", "asp", "aspx", "jsp", "cgi", "pl"]),
            bot_words: BotPatterns::default_words(),
            site_hosts: Vec::new(),
            tag_parameters: strings(&["ref", "utm_source"]),
            navigation_report_path: "/api/whocomes/navigation".to_owned(),
            browser_evidence: BrowserEvidence::Files,
            public_origin: None,
            goal_paths: Vec::new(),
        }
    }
}

/// The rules, compiled: what the request path consults. Build once, share.
#[derive(Clone, Debug)]
pub struct Rules {
    pub(crate) config: RulesConfig,
    pub(crate) bots: BotPatterns,
    pub(crate) probes: AhoCorasick,
    pub(crate) classes: BotClasses,
    pub(crate) crawlers: std::sync::Arc<Crawlers>,
    /// Whether a request contradicts its agent, with the public origin's
    /// scheme and the agents already read (shared by clones).
    pub(crate) consistency: Consistency,
}

impl Rules {
    /// Compiles the lists. Fails on lists that would match everything.
    pub fn new(config: RulesConfig) -> Result<Self, RulesError> {
        if config.self_read_mark.is_empty() {
            return Err(RulesError::EmptySelfReadMark);
        }
        if config
            .probe_paths
            .iter()
            .chain(&config.software_paths)
            .any(|path| !path.starts_with('/'))
        {
            return Err(RulesError::ProbePathWithoutSlash);
        }
        let consistency =
            Consistency::new(config.public_origin.as_deref()).map_err(RulesError::PublicOrigin)?;
        let bots = BotPatterns::new(config.bot_words.clone())?;
        let probes = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(config.probe_paths.iter().chain(&config.software_paths))
            .map_err(|error| RulesError::Patterns(error.to_string()))?;
        let classes =
            BotClasses::new_default().map_err(|error| RulesError::Patterns(error.to_string()))?;
        Ok(Self {
            config,
            bots,
            probes,
            classes,
            crawlers: std::sync::Arc::new(Crawlers::shipped()),
            consistency,
        })
    }

    /// These rules, verifying claimed crawlers against `crawlers` instead
    /// of the ranges shipped with whocomes.
    pub fn with_crawlers(mut self, crawlers: Crawlers) -> Self {
        self.crawlers = std::sync::Arc::new(crawlers);
        self
    }

    /// Whether a request contradicts its agent, as these rules decide it.
    pub fn consistency(&self) -> &Consistency {
        &self.consistency
    }

    /// The crawlers whose claims these rules verify.
    pub fn crawlers(&self) -> &Crawlers {
        &self.crawlers
    }

    /// The lists these rules were built from.
    pub fn config(&self) -> &RulesConfig {
        &self.config
    }

    /// The bot classes these rules tell bots apart by.
    pub fn bot_classes(&self) -> &BotClasses {
        &self.classes
    }

    /// The goal a counted request for the cleaned `path` reaches by its
    /// path ([`RulesConfig::goal_paths`]), if any.
    pub(crate) fn goal_of(&self, path: &str) -> Option<Goal> {
        self.config
            .goal_paths
            .iter()
            .find(|goal| goal.path == path)
            .map(|goal| goal.goal.clone())
    }

    /// The probe path `path` asks for, if any: one of
    /// [`RulesConfig::probe_paths`] before one of
    /// [`RulesConfig::software_paths`].
    pub(crate) fn probe_path(&self, path: &str) -> Option<Probe<'_>> {
        let bytes = path.as_bytes();
        let always = self.config.probe_paths.len();
        let mut software = None;
        // Every probe path starts with `/`, so every hit starts a segment.
        let hits = self
            .probes
            .find_overlapping_iter(path)
            .filter(|hit| matches!(bytes.get(hit.end()), None | Some(b'/' | b'.' | b'~')));
        for hit in hits {
            let index = hit.pattern().as_usize();
            match index.checked_sub(always) {
                None => return Some(Probe::Always(&self.config.probe_paths[index])),
                Some(at) => software = software.or(Some(at)),
            }
        }
        software.map(|at| Probe::Software(self.config.software_paths[at].as_str()))
    }
}

/// A path only scanners ask for, and whether the site's answer decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Probe<'a> {
    /// No site serves it in public: a probe whatever the answer.
    Always(&'a str),
    /// Software a site may run: a probe only when answered 4xx.
    Software(&'a str),
}

impl Default for Rules {
    /// The default rules. The defaults are known to compile.
    fn default() -> Self {
        match Self::new(RulesConfig::default()) {
            Ok(rules) => rules,
            Err(error) => unreachable!("the default rules compile: {error}"),
        }
    }
}
