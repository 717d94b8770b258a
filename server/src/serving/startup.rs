//! Start-up: bind the listener, assemble the router, serve until told to stop.
//!
//! [`Application::build`] is the seam the tests use: it binds (port 0 picks a
//! free port), reports the address, and returns an app that serves only when
//! asked, so a test can start the real site in-process.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use activity::Counter;
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
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// A bound, ready-to-serve whocomes site, counting into its store.
pub struct Application {
    listener: TcpListener,
    router: Router,
    local_addr: SocketAddr,
    store: Arc<dyn ActivityStore>,
    read_stores: Vec<Arc<dyn ActivityStore>>,
    /// The writer, if this server counts (not with `--no-counting`, nor
    /// without day keys).
    writer: Option<WriterHandle>,
    limits: ConnectionArgs,
    connections: Arc<ConnectionStats>,
    /// This server's mark in the data folder, removed at a clean stop.
    serving: Option<crate::config::data_folder::Serving>,
    /// The monitors' address and the task that answers there.
    monitors: Option<(SocketAddr, tokio::task::JoinHandle<()>)>,
}

/// The most connections open at once on the monitors' address: a monitor
/// that leaks them is answered 503 beyond it, and holds nothing more.
const MONITOR_CONNECTIONS: u32 = 16;

/// Serves `/ready` and `/metrics` on `addr`, with the site's timeouts and
/// a cap of its own; `None` (said in the log) if it cannot listen there:
/// the site serves on, and both stay behind the tab's sign-in.
async fn monitors(
    addr: SocketAddr,
    admin: &Admin,
    limits: &ConnectionArgs,
) -> Option<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = match TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(error) => {
            tracing::warn!(%error, "cannot listen on {addr} for monitors (--metrics-addr): /ready and /metrics are only behind the Admin tab's sign-in");
            return None;
        }
    };
    let local = listener.local_addr().ok()?;
    if !local.ip().is_loopback() {
        tracing::warn!(
            "monitors read /ready and /metrics on {local}, which is not loopback: keep it off the public network"
        );
    }
    tracing::info!("monitors read /ready and /metrics on http://{local}");
    let router = admin::server::operations::monitor_router(admin.clone());
    let limits = ConnectionArgs {
        max_connections: MONITOR_CONNECTIONS,
        ..limits.clone()
    };
    // Its connections are not the site's: counted apart, never shown.
    let stats = Arc::new(ConnectionStats::default());
    // Ended by aborting the task at the stop: nothing to finish there.
    let task = tokio::spawn(async move {
        connections::serve(
            listener,
            router,
            &limits,
            stats,
            std::future::pending(),
            Duration::ZERO,
        )
        .await;
    });
    Some((local, task))
}

/// Loads the demo history (`serve --demo`) and adds its store to those read.
async fn demo(config: &mut ServeArgs) -> anyhow::Result<()> {
    let name = crate::commands::demo::store_name()?;
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
        // Settings wrong as written stop the start before anything is written.
        let checked = crate::config::preflight::check(&config)?;
        let listener = TcpListener::bind(config.addr)
            .await
            .with_context(|| format!("cannot listen on {} (--addr, WHOCOMES_ADDR)", config.addr))?;
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
        let store_name = checked.store_name;
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
            demo(&mut config).await?;
        }
        // Without its day keys the site serves on, counting nothing (no
        // hit is queued, so none is held or lost), and says why once.
        let mut day_keys = None;
        let site_keys = match config.counting.site_keys(Some(&data_dir)) {
            Ok(site) => {
                let site = site.context("a site key is always given or made in the data folder")?;
                day_keys = site.kept.as_ref().map(|kept| kept.keys.clone());
                if let Some(kept) = site.kept {
                    // Turns for as long as the process runs.
                    drop(kept.keep_turning());
                }
                Ok(site.keys)
            }
            Err(error) => {
                let reason = format!("not counting: {error:#}");
                tracing::error!("{reason}; the site is served all the same");
                Err(reason)
            }
        };
        let store: Arc<dyn ActivityStore> = match &site_keys {
            Err(reason) => Arc::new(NullStore::new(store_name.clone(), reason.clone())),
            Ok(_) => config.store.open(store_name.clone()).await,
        };
        drop(start_lock);
        let read_stores = config.store.open_read_stores().await;
        let availability = store.availability().await;
        tracing::info!(store = %store.name(), available = availability.available, "{}; {}", availability.reason, availability.retention);
        let counting = match site_keys {
            Ok(keys) if !config.no_counting => {
                let counter =
                    Counter::with_keys(checked.rules, keys, config.counting.proxies(), store_name);
                Some(activity::recording::start(
                    counter,
                    store.clone(),
                    config.recorder.config(),
                ))
            }
            Ok(_) => {
                tracing::warn!("--no-counting: nothing is counted");
                None
            }
            Err(_) => None,
        };
        let (layer, writer) = counting.unzip();
        let connections = Arc::new(ConnectionStats::default());
        if checked.tab.password.is_none() {
            tracing::info!("no admin password: the visitor table stays closed");
        }
        let admin = Admin::new(AdminConfig {
            stores: std::iter::once(store.clone())
                .chain(read_stores.iter().cloned())
                .collect(),
            recorder: writer.as_ref().map(WriterHandle::stats),
            connections: Some(connections.clone()),
            day_keys,
            ..checked.tab
        })
        .context("the Admin tab cannot be set up")?;
        tokio::spawn({
            let admin = admin.clone();
            async move { admin.warm_up().await }
        });
        let monitors = match checked.metrics_addr {
            Some(addr) => monitors(addr, &admin, &config.connections).await,
            None => None,
        };
        let router = routes::router(options)
            .layer(admin.layer())
            .layer(axum::middleware::from_fn(crate::serving::body_limit::limit));
        let router = match layer {
            Some(layer) => router.layer(layer),
            None => router,
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
            monitors,
        })
    }

    /// Where monitors read `/ready` and `/metrics`, if they have an address
    /// of their own.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.monitors.as_ref().map(|(addr, _)| *addr)
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

    /// What the recorder has queued, dropped and written so far (all
    /// zero for a server that counts nothing).
    pub fn recorder_stats(&self) -> Arc<RecorderStats> {
        self.writer
            .as_ref()
            .map_or_else(Arc::default, WriterHandle::stats)
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
        match self.writer {
            Some(writer) => drop(whocomes::write_and_close(writer, &stores).await),
            None => {
                for store in &stores {
                    store.close().await;
                }
            }
        }
        if let Some((_, task)) = self.monitors {
            task.abort();
        }
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
