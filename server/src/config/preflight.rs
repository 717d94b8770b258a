//! What `serve` checks before it writes anything: every setting that is
//! wrong as written — a store URL of no known scheme or that its engine
//! cannot read, an empty key, a key or password file that cannot be read,
//! crawler ranges or a funnel that cannot be used, a demo store named like
//! the site's — stops the start with its flag and variable named, before a
//! day key is made, a migration run or a `serving-PID` mark left. A store
//! that is well-formed but cannot be reached is not checked here: that is
//! a state the site serves through (the store is tried again).

use activity::{Rules, StoreName};
use admin::server::{AdminConfig, PasswordError, SetupError};
use anyhow::Context as _;

use crate::config::cli::ServeArgs;

/// What the checks read, for the start to use rather than read again.
pub struct Checked {
    /// The name the site's rows are kept under.
    pub store_name: StoreName,
    /// The counting rules (the crawler ranges read once).
    pub rules: Rules,
    /// Where monitors read `/ready` and `/metrics` (`None`: only behind
    /// the tab's sign-in).
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// The tab's settings, checked; its stores and counters are filled in
    /// once they exist.
    pub tab: AdminConfig,
}

/// Checks `config` without touching the data folder or any store.
pub fn check(config: &ServeArgs) -> anyhow::Result<Checked> {
    whocomes::stores::check_url(&config.store.url())
        .map_err(|why| anyhow::anyhow!("--store-url (WHOCOMES_STORE_URL): {why}"))?;
    for read in &config.store.read_stores {
        whocomes::stores::check_url(&read.url).map_err(|why| {
            anyhow::anyhow!("--read-store {} (WHOCOMES_READ_STORE): {why}", read.name)
        })?;
    }
    let metrics_addr = match config.metrics_addr.trim() {
        "none" => None,
        text => Some(text.parse().map_err(|_| {
            anyhow::anyhow!(
                "--metrics-addr (WHOCOMES_METRICS_ADDR): {text:?} is not an address and port like 127.0.0.1:9464, nor none"
            )
        })?),
    };
    let store_name = config.store.store_name()?;
    if config.demo {
        let demo = crate::commands::demo::store_name()?;
        anyhow::ensure!(
            store_name != demo,
            "--demo keeps made-up visits in the store named {demo}: the site's own store needs another name (--store-name)"
        );
    }
    config.counting.check_key()?;
    let rules = config.counting.rules()?;
    let password = config.admin.password()?;
    if config.admin.private && password.is_none() {
        anyhow::bail!(
            "--private needs an admin password (--admin-password-file or WHOCOMES_ADMIN_PASSWORD), or nobody could read the tab"
        );
    }
    let tab = AdminConfig {
        password,
        private: config.admin.private,
        proxies: config.counting.proxies(),
        funnel: if config.admin.funnel_steps.is_empty() && config.demo {
            crate::commands::demo::funnel()
        } else {
            config.admin.funnel_steps.clone()
        },
        demo: config
            .demo
            .then(crate::commands::demo::store_name)
            .transpose()
            .context("the demo store's name")?,
        // The app's route for the tab (app::pages), where the counter's
        // `admin_path` is too.
        path: Some(admin::server::DEFAULT_PATH.to_owned()),
        host: admin::server::Host::Binary,
        loopback_as_people: !rules.config().loopback_is_self,
        // The app hydrates the tab among its own pages (frontend/).
        bundle: None,
        ..AdminConfig::default()
    };
    tab.check().map_err(|error| match error {
        SetupError::Funnel(why) => anyhow::anyhow!("--funnel-step (WHOCOMES_FUNNEL): {why}"),
        SetupError::Password(PasswordError::Empty) => anyhow::anyhow!(
            "the admin password (--admin-password-file, WHOCOMES_ADMIN_PASSWORD_FILE or WHOCOMES_ADMIN_PASSWORD) is empty"
        ),
        other => anyhow::Error::new(other).context("the Admin tab cannot be set up"),
    })?;
    Ok(Checked {
        metrics_addr,
        store_name,
        rules,
        tab,
    })
}
