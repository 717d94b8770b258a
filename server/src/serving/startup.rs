//! Start-up: bind the listener, assemble the router, serve until told to stop.
//!
//! [`Application::build`] is the seam the tests use: it binds (port 0 picks a
//! free port), reports the address, and returns an app that serves only when
//! asked, so a test can start the real site in-process.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use activity::TokenKeys;
use activity::recording::{RecorderStats, WriterHandle};
use activity::store::{ActivityStore, NullStore};
use admin::server::{Admin, AdminConfig, ConnectionStats};
use anyhow::Context as _;
use axum::Router;
use leptos::config::LeptosOptions;
use tokio::net::TcpListener;

use crate::config::cli::ServeArgs;
use crate::serving::connections::ConnectionArgs;
use crate::{connections, headers, routes};

/// The file name wasm-bindgen's output is given (`pkg/whocomes.js`,
/// `pkg/whocomes.wasm`, `pkg/whocomes.css`): the `name` of the
/// `[[workspace.metadata.leptos]]` block in the workspace's Cargo.toml.
pub const OUTPUT_NAME: &str = "whocomes";

/// How long a stop waits for requests in flight before it goes on without
/// them (their hits, if any, are dropped and counted).
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// A bound, ready-to-serve whocomes site, counting into its store.
pub struct Application {
    listener: TcpListener,
    router: Router,
    local_addr: SocketAddr,
    store: Arc<dyn ActivityStore>,
    read_stores: Vec<Arc<dyn ActivityStore>>,
    writer: WriterHandle,
    limits: ConnectionArgs,
    connections: Arc<ConnectionStats>,
    /// This server's mark in the data folder, removed at a clean stop.
    serving: Option<crate::config::data_folder::Serving>,
}

/// The Admin tab's state: every store, the writer's counters, the password.
fn admin_tab(
    config: &ServeArgs,
    store: &Arc<dyn ActivityStore>,
    read_stores: &[Arc<dyn ActivityStore>],
    writer: &WriterHandle,
    connections: &Arc<ConnectionStats>,
) -> anyhow::Result<Admin> {
    let password = config.admin.password()?;
    if config.admin.private && password.is_none() {
        anyhow::bail!(
            "--private needs an admin password (--admin-password-file or WHOCOMES_ADMIN_PASSWORD), or nobody could read the tab"
        );
    }
    if password.is_none() {
        tracing::info!("no admin password: the visitor table stays closed");
    }
    let admin = Admin::new(AdminConfig {
        stores: std::iter::once(store.clone())
            .chain(read_stores.iter().cloned())
            .collect(),
        recorder: Some(writer.stats()),
        connections: Some(connections.clone()),
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
        // The app hydrates the tab among its own pages (frontend/).
        bundle: None,
    })
    .context("the Admin tab cannot be set up")?;
    Ok(admin)
}

/// Loads the demo history (`serve --demo`) and adds its store to those read.
async fn demo(config: &mut ServeArgs, served: &activity::StoreName) -> anyhow::Result<()> {
    let name = crate::commands::demo::store_name()?;
    anyhow::ensure!(
        *served != name,
        "--demo keeps made-up visits in the store named {name}: the site's own store needs another name"
    );
    let loaded = crate::commands::demo::load(
        &crate::commands::demo::DemoArgs {
            seed: config.demo_seed,
            days: crate::commands::demo::DEMO_DAYS,
            quiet: true,
            counting: config.counting.clone(),
            store: config.store.clone(),
            recorder: config.recorder.clone(),
        },
        chrono::Utc::now(),
    )
    .await
    .context("cannot load the demo history")?;
    tracing::info!(
        days = loaded.days.len(),
        counted = loaded.tally.counted(),
        seed = config.demo_seed,
        "demo history loaded into the store named {name} (made-up visits, drawn beside the site's own)"
    );
    config
        .store
        .read_stores
        .push(crate::config::storage::ReadStore {
            name,
            url: config.store.url(),
        });
    Ok(())
}

impl Application {
    /// Binds the listener and builds the router. Nothing is served until
    /// [`run_until_stopped`](Self::run_until_stopped) or [`run_until`](Self::run_until).
    pub async fn build(mut config: ServeArgs) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(config.addr)
            .await
            .with_context(|| format!("cannot listen on {}", config.addr))?;
        let local_addr = listener
            .local_addr()
            .context("cannot read the address the listener is bound to")?;

        let site_folder = config.site_root();
        let site_root = site_folder.to_str().with_context(|| {
            format!("the site root {} is not valid UTF-8", site_folder.display())
        })?;
        let options = LeptosOptions::builder()
            .output_name(OUTPUT_NAME)
            .site_root(site_root)
            .site_pkg_dir("pkg")
            .site_addr(local_addr)
            .build();

        crate::serving::precompress::in_background(site_folder.join("pkg"));
        let store_name = config.store.store_name()?;
        // One server at a time makes the keys and brings the store up to date.
        let data_dir = config.store.data_dir.clone();
        let start_lock = crate::config::data_folder::lock(&data_dir).await;
        let serving = match &start_lock {
            Ok(_) => crate::config::data_folder::Serving::begin(
                &data_dir,
                config.recorder.config().flush_every,
            ),
            Err(reason) => {
                tracing::warn!(%reason, "the data folder cannot be written");
                None
            }
        };
        if config.demo {
            demo(&mut config, &store_name).await?;
        }
        // Without its day keys the site serves on, counting nothing, and says why.
        let (keys, not_counting) = match config.counting.site_keys(Some(&data_dir)) {
            Ok(site) => {
                let site = site.context("a site key is always given or made in the data folder")?;
                if let Some(kept) = site.kept {
                    // Turns for as long as the process runs.
                    drop(kept.keep_turning());
                }
                (site.keys, None)
            }
            Err(error) => {
                let reason = format!("not counting: {error:#}");
                tracing::error!("{reason}; the site is served all the same");
                let stand_in = TokenKeys::Static(whocomes::keys::random_key()?);
                (stand_in, Some(reason))
            }
        };
        let counter = config.counting.counter(keys, store_name.clone())?;
        let store: Arc<dyn ActivityStore> = match not_counting {
            Some(reason) => Arc::new(NullStore::new(store_name, reason)),
            None => config.store.open(store_name).await,
        };
        drop(start_lock);
        let read_stores = config.store.open_read_stores().await;
        let availability = store.availability().await;
        tracing::info!(store = %store.name(), available = availability.available, "{}; {}", availability.reason, availability.retention);
        let (layer, writer) =
            activity::recording::start(counter, store.clone(), config.recorder.config());
        let connections = Arc::new(ConnectionStats::default());
        let admin = admin_tab(&config, &store, &read_stores, &writer, &connections)?;
        tokio::spawn({
            let admin = admin.clone();
            async move { admin.warm_up().await }
        });
        let router = routes::router(options)
            .layer(admin.layer())
            .layer(axum::middleware::from_fn(crate::serving::body_limit::limit));
        let router = if config.no_counting {
            tracing::warn!("--no-counting: nothing is counted");
            router
        } else {
            router.layer(layer)
        };
        let router = router.layer(tower_http::timeout::TimeoutLayer::with_status_code(
            http::StatusCode::REQUEST_TIMEOUT,
            config.connections.request_timeout(),
        ));
        let router = crate::serving::revalidate::page_files(
            headers::secure(router, admin),
            config.files_max_age,
        );

        Ok(Self {
            listener,
            router,
            local_addr,
            store,
            read_stores,
            writer,
            limits: config.connections.clone(),
            connections,
            serving,
        })
    }

    /// Every store the Admin tab reads: the one written to, then the
    /// `--read-store`s.
    pub fn stores(&self) -> Vec<Arc<dyn ActivityStore>> {
        std::iter::once(self.store.clone())
            .chain(self.read_stores.iter().cloned())
            .collect()
    }

    /// The store the site counts into.
    pub fn store(&self) -> Arc<dyn ActivityStore> {
        self.store.clone()
    }

    /// The connections served, open and refused so far.
    pub fn connection_stats(&self) -> Arc<ConnectionStats> {
        self.connections.clone()
    }

    /// What the recorder has queued, dropped and written so far.
    pub fn recorder_stats(&self) -> Arc<RecorderStats> {
        self.writer.stats()
    }

    /// The address the site is served on (with the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Serves until SIGTERM or Ctrl-C, then lets requests in flight finish.
    /// (The signal handlers are installed when this is called, before the
    /// returned future is first polled.)
    pub fn run_until_stopped(self) -> impl Future<Output = std::io::Result<()>> {
        self.run_until(whocomes::signal())
    }

    /// Serves until `stop` completes, lets requests in flight finish (for
    /// at most [`SHUTDOWN_GRACE`]: a client that never sends the rest of its
    /// request must not hold the stop), then writes every queued hit into
    /// the store before returning.
    pub async fn run_until(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        // Connections still open after the grace are left behind (and said
        // so in the log): their hits, if any, are dropped and counted.
        let _left_open = connections::serve(
            self.listener,
            self.router,
            &self.limits,
            self.connections.clone(),
            stop,
            SHUTDOWN_GRACE,
        )
        .await;
        let stores: Vec<_> = std::iter::once(self.store)
            .chain(self.read_stores)
            .collect();
        whocomes::write_and_close(self.writer, &stores).await;
        if let Some(serving) = self.serving {
            serving.stopped();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::OUTPUT_NAME;

    /// cargo-leptos names the bundle after the metadata block; the server must
    /// ask for the same file names or the page never hydrates.
    #[test]
    fn output_name_matches_the_workspace_metadata() {
        let manifest = include_str!("../../../Cargo.toml");
        let expected = format!("name = \"{OUTPUT_NAME}\"");
        let metadata = manifest
            .split("[[workspace.metadata.leptos]]")
            .nth(1)
            .expect("the workspace has a leptos metadata block");
        assert!(
            metadata.lines().any(|line| line.trim() == expected),
            "expected `{expected}` in the leptos metadata block"
        );
    }
}
