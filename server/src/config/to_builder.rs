//! `serve`'s flags and variables as one [`whocomes::Builder`]: the binary
//! builds the site through the library, as an embedding app does, so every
//! setting, default and check has one home there. What only a command line
//! has stays here: reading the password file and the crawler ranges, the
//! `none` of `--metrics-addr`, the demo's store, and saying each refusal of
//! the library's one preflight ([`whocomes::Builder::check`]) in the words
//! of the flag and variable that set it.

use admin::server::{PasswordError, SetupError};
use whocomes::{BuildError, Builder, Checked, Host};

use crate::config::cli::ServeArgs;

/// `config` as builder calls. Reads the files the flags name (the
/// password, the crawler ranges) and refuses what only flags can get
/// wrong; nothing is written.
pub fn builder(config: &ServeArgs) -> anyhow::Result<Builder> {
    let counting = &config.counting;
    let mut builder = Builder::default()
        .host(Host::Binary)
        .data_dir(&config.store.data_dir)
        .key_scheme(counting.token_keys)
        .trusted_proxies(counting.trusted_proxies.iter().copied())
        .forwarded_header(counting.forwarded_header)
        .rules(counting.rules_config()?)
        .recorder(config.recorder.config())
        .retention(config.store.retention())
        .counting(!config.no_counting)
        .private(config.admin.private)
        .api_requests_per_hour(config.admin.api_requests_per_hour)
        .connection_limits(config.connections.limits())
        .notify(config.notify.settings()?);
    if let Some(url) = &config.store.store_url {
        builder = builder.store_url(url);
    }
    if let Some(name) = &config.store.name.name {
        builder = builder.store_name(name.as_str());
    }
    for read in &config.store.read_stores {
        builder = builder.read_store(read.name.as_str(), &read.url);
    }
    if let Some(key) = &counting.key {
        builder = builder.key(key);
    }
    if let Some(file) = &counting.key_file {
        builder = builder.key_file(file);
    }
    if let Some(crawlers) = counting.crawlers()? {
        builder = builder.crawlers(crawlers);
    }
    if let Some(password) = config.admin.password()? {
        builder = builder.admin_password(password);
    }
    if let Some(addr) = metrics_addr(&config.metrics_addr)? {
        builder = builder.metrics_addr(addr);
    }
    let mut funnel = config.admin.funnel_steps.clone();
    if config.demo {
        let demo = crate::commands::demo::store_name()?;
        let own = config.store.store_name()?;
        anyhow::ensure!(
            own != demo,
            "--demo keeps made-up visits in the store named {demo}: the site's own store needs another name (--store-name)"
        );
        // The demo history is loaded into the site's own store URL, under
        // its own name (serving::startup loads it before the build).
        builder = builder
            .read_store(demo.as_str(), config.store.url())
            .demo_store(demo.as_str());
        if funnel.is_empty() {
            funnel = crate::commands::demo::funnel();
        }
    }
    Ok(builder.funnel(funnel))
}

/// `config` built and checked by the library's one preflight, each refusal
/// named by its flag and variable.
pub fn check(config: &ServeArgs) -> anyhow::Result<Checked> {
    builder(config)?.check().map_err(flag_words)
}

/// `--metrics-addr`: an address and port, or `none`.
fn metrics_addr(text: &str) -> anyhow::Result<Option<std::net::SocketAddr>> {
    match text.trim() {
        "none" => Ok(None),
        text => text.parse().map(Some).map_err(|_| {
            anyhow::anyhow!(
                "--metrics-addr (WHOCOMES_METRICS_ADDR): {text:?} is not an address and port like 127.0.0.1:9464, nor none"
            )
        }),
    }
}

/// A refusal of the library's preflight, in the words of the flag and
/// variable that set what it refuses.
fn flag_words(error: BuildError) -> anyhow::Error {
    match error {
        BuildError::StoreUrl(why) => anyhow::anyhow!("--store-url (WHOCOMES_STORE_URL): {why}"),
        BuildError::ReadStoreUrl { name, why } => {
            anyhow::anyhow!("--read-store {name} (WHOCOMES_READ_STORE): {why}")
        }
        BuildError::StoreName(name) => {
            anyhow::anyhow!("--store-name (WHOCOMES_STORE_NAME): {name:?} is not a store name")
        }
        BuildError::Key(error) => crate::config::counting::key_words(error),
        BuildError::Rules(error) => {
            anyhow::Error::new(error).context("the counting rules are not valid")
        }
        BuildError::Private => anyhow::anyhow!(
            "--private needs an admin password (--admin-password-file or WHOCOMES_ADMIN_PASSWORD), or nobody could read the tab"
        ),
        BuildError::Tab(SetupError::Funnel(why)) => {
            anyhow::anyhow!("--funnel-step (WHOCOMES_FUNNEL): {why}")
        }
        BuildError::Tab(SetupError::Password(PasswordError::Empty)) => anyhow::anyhow!(
            "the admin password (--admin-password-file, WHOCOMES_ADMIN_PASSWORD_FILE or WHOCOMES_ADMIN_PASSWORD) is empty"
        ),
        BuildError::Tab(other) => {
            anyhow::Error::new(other).context("the Admin tab cannot be set up")
        }
        BuildError::Notify(why) => anyhow::anyhow!(
            "the alerts (--mail-url, --mail-from, --mail-to, --webhook, --alert-*): {why}"
        ),
        BuildError::ApiRequests => anyhow::anyhow!(
            "--api-requests-per-hour (WHOCOMES_API_REQUESTS_PER_HOUR): at least 1 (the default is 600)"
        ),
        // The tab's path and the limits are the binary's own or refused by
        // clap before they get here; said as the library says them.
        other => anyhow::Error::new(other),
    }
}
