//! The flags that decide how requests are counted, shared by every command
//! that counts (`serve`, `import`, `demo`, `explain`), the keys each command
//! makes tokens with, and the [`Counter`] they build. One place turns flags
//! into rules.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use activity::address::{ForwardedHeader, TrustedProxies};
use activity::crawlers::Crawlers;
use activity::evidence::BrowserEvidence;
use activity::past::{FromSeed, PastKeys};
use activity::rules::GoalPath;
use activity::{Counter, Rules, RulesConfig, StoreName, TokenKeys, VisitorKey};
use whocomes::KeyScheme;
use whocomes::keys::KeyError;

use crate::commands::import_keys::ImportDayKeys;
use anyhow::Context as _;
use clap::Args;
use ipnet::IpNet;

/// How requests are counted: the key, the proxies, the site's own addresses
/// and marks, and the store's name.
#[derive(Clone, Debug, Args)]
pub struct CountingArgs {
    /// The site's secret key, as text (its UTF-8 bytes are the key). Sites
    /// that share a key give the same visitor the same token within a day.
    /// Never logged.
    #[arg(long, env = "WHOCOMES_KEY", hide_env_values = true)]
    pub key: Option<String>,

    /// A proxy the site runs behind (an address or a CIDR range); repeat for
    /// several, or separate them with commas. Only then is a forwarding
    /// header believed, read from the right past these proxies.
    #[arg(long = "trusted-proxy", env = "WHOCOMES_TRUSTED_PROXY", value_delimiter = ',', value_parser = parse_network)]
    pub trusted_proxies: Vec<IpNet>,

    /// The header the trusted proxies write the client's address into.
    #[arg(long, env = "WHOCOMES_FORWARDED_HEADER", default_value = "x-forwarded-for", value_parser = parse_forwarded_header)]
    pub forwarded_header: ForwardedHeader,

    /// A user agent containing this is the site reading itself (monitors,
    /// the site's own checks). Anybody can send it: it hides a visit from
    /// the count and reaches nothing else.
    #[arg(
        long,
        env = "WHOCOMES_SELF_READ_MARK",
        default_value = "whocomes-SelfRead"
    )]
    pub self_read_mark: String,

    /// An address or CIDR range that is the site itself (besides loopback);
    /// repeatable. `none` means no address is the site's own, not even
    /// loopback: for a local trial where your own visits should count as people.
    #[arg(
        long = "own-address",
        env = "WHOCOMES_OWN_ADDRESS",
        value_delimiter = ','
    )]
    pub own_addresses: Vec<String>,

    /// The site's own host name (besides the request's Host): a referrer from
    /// it is navigation inside the site. Repeatable.
    #[arg(long = "site-host", env = "WHOCOMES_SITE_HOST", value_delimiter = ',')]
    pub site_hosts: Vec<String>,

    /// A file holding the site's key (its bytes are the key, one trailing
    /// newline dropped), instead of `--key`.
    #[arg(long, env = "WHOCOMES_KEY_FILE")]
    pub key_file: Option<PathBuf>,

    /// How tokens are keyed. `day` (default): each day has its own key,
    /// made one way from the day before's and forgotten after the next day
    /// (kept in DATA_DIR/day-keys; `--key` only seeds it on first start).
    /// `static`: one key for every day, as first designed — whoever holds
    /// it can remake any day's tokens.
    #[arg(
        long,
        env = "WHOCOMES_TOKEN_KEYS",
        default_value = "day",
        value_parser = clap::builder::TypedValueParser::try_map(clap::builder::PossibleValuesParser::new(["day", "static"]), |text| text.parse::<KeyScheme>())
    )]
    pub token_keys: KeyScheme,

    /// What a person-looking visitor-day must show to count as people.
    /// `files` (default): it fetched one of the page's own files (stylesheet,
    /// script, wasm, image, favicon) or the app reported a navigation, and
    /// showed no impostor's sign (HTTP/1.0, a form posted within 2 s of its
    /// page, over 20 pages in 10 s). `off`: only the impostor's signs count
    /// against it — for a site whose files come from another host (a CDN).
    #[arg(
        long,
        env = "WHOCOMES_BROWSER_EVIDENCE",
        default_value = "files",
        value_parser = parse_browser_evidence
    )]
    pub browser_evidence: BrowserEvidence,

    /// The origin the public reaches the site at (`https://example.com`).
    /// Browsers send their client hints and fetch metadata to HTTPS only,
    /// so a browser's agent whose request lacks them is an impostor's only
    /// where the origin is known to be HTTPS. Without this flag a trusted
    /// proxy's `X-Forwarded-Proto` (or `Forwarded: proto=`) says per
    /// request; without either, nothing is inferred. Give `https://…` only
    /// if plain HTTP is never served (the proxy redirects it).
    #[arg(long, env = "WHOCOMES_PUBLIC_ORIGIN")]
    pub public_origin: Option<String>,

    /// A path prefix of the site's API routes or server functions, besides
    /// `/api/` (`/wp-json/`, `/_server/`); repeatable. Requests under it
    /// are counted as API requests, not pages: a page's script posting to
    /// one is never taken for a form. Must start with `/`.
    #[arg(long = "api-prefix", env = "WHOCOMES_API_PREFIX", value_delimiter = ',', value_parser = parse_api_prefix)]
    pub api_prefixes: Vec<String>,

    /// A file of crawler operators' address ranges to verify claimed
    /// crawlers with, instead of the ranges built in (same format as
    /// `activity/data/crawler-ranges.txt`; `scripts/refresh-crawler-ranges`
    /// writes one from the operators' files).
    #[arg(long, env = "WHOCOMES_CRAWLER_RANGES")]
    pub crawler_ranges: Option<PathBuf>,

    /// A goal reached by a path: `NAME=PATH` (`signup=/welcome`); a counted
    /// request for the path, exactly as kept (no query), answered with no
    /// error (under 400), reaches the goal.
    /// The name is a label: at most 64 letters, digits, spaces and -_.+, no
    /// @, no run of 6 digits. Repeatable; the Goals card counts each
    /// visitor-day once per goal, and a funnel step can name one
    /// (`--funnel-step signed-up=goal:signup`).
    #[arg(long = "goal", env = "WHOCOMES_GOAL", value_delimiter = ';', value_parser = parse_goal)]
    pub goals: Vec<GoalPath>,
}

/// A goal's `NAME=PATH`.
fn parse_goal(text: &str) -> Result<GoalPath, String> {
    text.parse()
}

/// An API prefix: a path that starts with `/`.
fn parse_api_prefix(text: &str) -> Result<String, String> {
    let text = text.trim();
    if !text.starts_with('/') {
        return Err(format!(
            "'{text}' does not start with '/': an API prefix is a path, like /wp-json/"
        ));
    }
    Ok(text.to_owned())
}

fn parse_browser_evidence(text: &str) -> Result<BrowserEvidence, String> {
    text.parse()
}

pub use whocomes::keys::random_key;

/// A CIDR range, or a single address (as /32 or /128).
fn parse_network(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| "expected an address or a CIDR range like 10.0.0.0/8".to_owned())
}

fn parse_forwarded_header(text: &str) -> Result<ForwardedHeader, String> {
    text.parse()
}

/// The name the counted requests are kept under.
#[derive(Clone, Debug, Args)]
pub struct StoreNameArg {
    /// The name the counted requests are kept under (default: the kind of
    /// store, `sqlite` or `postgres`). Sites sharing one database need
    /// different names.
    #[arg(long = "store-name", env = "WHOCOMES_STORE_NAME", value_parser = parse_store_name)]
    pub name: Option<StoreName>,
}

impl StoreNameArg {
    /// The name given, or `default`.
    pub fn or(&self, default: &str) -> anyhow::Result<StoreName> {
        match &self.name {
            Some(name) => Ok(name.clone()),
            None => Ok(StoreName::parse(default)?),
        }
    }
}

fn parse_store_name(text: &str) -> Result<StoreName, String> {
    StoreName::parse(text).map_err(|error| error.to_string())
}

impl CountingArgs {
    /// The rules these flags describe (with the crawler ranges read).
    pub fn rules(&self) -> anyhow::Result<Rules> {
        let rules = Rules::new(self.rules_config()?).context("the counting rules are not valid")?;
        Ok(match self.crawlers()? {
            Some(crawlers) => rules.with_crawlers(crawlers),
            None => rules,
        })
    }

    /// The rules' settings these flags give (the crawler ranges apart).
    pub fn rules_config(&self) -> anyhow::Result<RulesConfig> {
        let mut config = RulesConfig {
            self_read_mark: self.self_read_mark.clone(),
            site_hosts: self
                .site_hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .collect(),
            browser_evidence: self.browser_evidence,
            public_origin: self.public_origin.clone(),
            goal_paths: self.goals.clone(),
            ..RulesConfig::default()
        };
        let none = self
            .own_addresses
            .iter()
            .any(|a| a.trim().eq_ignore_ascii_case("none"));
        if none {
            anyhow::ensure!(
                self.own_addresses.len() == 1,
                "--own-address none cannot be combined with addresses"
            );
            config.loopback_is_self = false;
        } else {
            config.own_addresses = self
                .own_addresses
                .iter()
                .map(|a| parse_network(a).map_err(|e| anyhow::anyhow!("--own-address: {e}")))
                .collect::<anyhow::Result<_>>()?;
        }
        config
            .api_prefixes
            .extend(self.api_prefixes.iter().cloned());
        Ok(config)
    }

    /// The crawler ranges of `--crawler-ranges`, read and parsed (`None`:
    /// the ranges built in).
    pub fn crawlers(&self) -> anyhow::Result<Option<Crawlers>> {
        let Some(path) = &self.crawler_ranges else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path).with_context(|| {
            format!(
                "--crawler-ranges (WHOCOMES_CRAWLER_RANGES): cannot read {}",
                path.display()
            )
        })?;
        let crawlers = Crawlers::parse(&text).with_context(|| {
            format!(
                "--crawler-ranges (WHOCOMES_CRAWLER_RANGES) {}",
                path.display()
            )
        })?;
        Ok(Some(crawlers))
    }

    /// The key given with `--key` or `--key-file`, else the one in
    /// `data_dir` (made on first run); `None` when neither was given and
    /// there is no data folder to keep one in.
    pub fn site_key(&self, data_dir: Option<&Path>) -> anyhow::Result<Option<VisitorKey>> {
        let seed = self.seed()?;
        if seed.is_none() && data_dir.is_none() {
            return Ok(None);
        }
        whocomes::keys::site_key::site_key(seed, data_dir.unwrap_or(Path::new("."))).map(Some)
    }

    /// The seed given with `--key` or `--key-file`, if any, read and
    /// checked by the library (one reader of a key file); its errors in
    /// the flags' words.
    pub fn seed(&self) -> anyhow::Result<Option<Vec<u8>>> {
        whocomes::keys::given_seed(
            self.key.as_deref().map(str::as_bytes),
            self.key_file.as_deref(),
        )
        .map_err(key_words)
    }

    /// The keys an import (or the demo) counts with: every day, whichever,
    /// gets the same key in every run, so a history split across runs
    /// counts each visitor-day once. With day keys, that is the day's key
    /// from the seed (`--key`: the live site's own key of that day), or
    /// without a seed a key per day kept in `DATA_DIR/import-day-keys`
    /// while that day's visitor rows live (`keep_days`). With a static key,
    /// that key.
    pub fn import_keys(&self, data_dir: &Path, keep_days: u32) -> anyhow::Result<TokenKeys> {
        if self.token_keys == KeyScheme::Static {
            let key = self
                .site_key(Some(data_dir))?
                .context("a static key is always given or made in the data folder")?;
            return Ok(TokenKeys::Static(key));
        }
        let keys: Arc<dyn PastKeys> = match self.seed()? {
            Some(seed) => Arc::new(FromSeed::new(&seed).context("--key / WHOCOMES_KEY")?),
            None => Arc::new(ImportDayKeys::open(
                data_dir,
                chrono::Utc::now().date_naive(),
                keep_days,
            )?),
        };
        Ok(TokenKeys::PerDay(keys))
    }

    /// The keys `explain` can make tokens with: the seed's (every day's
    /// right key), or the static key given. `None` when no key was given:
    /// then there is no token to show.
    pub fn explain_keys(&self) -> anyhow::Result<Option<TokenKeys>> {
        if self.token_keys == KeyScheme::Static {
            return Ok(self.site_key(None)?.map(TokenKeys::Static));
        }
        self.seed()?
            .map(|seed| -> anyhow::Result<TokenKeys> {
                Ok(TokenKeys::PerDay(Arc::new(
                    FromSeed::new(&seed).context("--key / WHOCOMES_KEY")?,
                )))
            })
            .transpose()
    }

    /// The counter these flags describe, with `keys`, for the store `store`.
    pub fn counter(&self, keys: TokenKeys, store: StoreName) -> anyhow::Result<Counter> {
        Ok(Counter::with_keys(
            self.rules()?,
            keys,
            self.proxies(),
            store,
        ))
    }

    /// The proxies whose forwarding headers are believed.
    pub fn proxies(&self) -> TrustedProxies {
        TrustedProxies::new(self.trusted_proxies.clone(), self.forwarded_header)
    }
}

/// A key that cannot be used, in the words of the flags that gave it.
pub fn key_words(error: KeyError) -> anyhow::Error {
    match error {
        KeyError::Twice => anyhow::anyhow!(
            "give the key once: --key (WHOCOMES_KEY) or --key-file (WHOCOMES_KEY_FILE)"
        ),
        KeyError::Empty => anyhow::anyhow!(
            "--key (WHOCOMES_KEY) is empty: give the site's secret key, or leave it out to have one made in the data folder"
        ),
        other => anyhow::anyhow!("--key-file (WHOCOMES_KEY_FILE): {other}"),
    }
}
