//! Start-up: the flags become the `whocomes` builder's settings, checked
//! by its one preflight; then the listener is bound, the demo loaded if
//! asked, whocomes started, and the site's router assembled around it.
//!
//! [`Application::build`] is the seam the tests use: it binds (port 0 picks a
//! free port), reports the address, and returns an app that serves only when
//! asked, so a test can start the real site in-process.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use activity::recording::RecorderStats;
use activity::store::ActivityStore;
use admin::server::ConnectionStats;
use anyhow::Context as _;
use axum::Router;
use leptos::config::LeptosOptions;
use tokio::net::TcpListener;
use whocomes::Whocomes;

use crate::config::cli::ServeArgs;
use crate::{headers, routes};

/// The file name wasm-bindgen's output is given (`pkg/whocomes.js`,
/// `pkg/whocomes.wasm`, `pkg/whocomes.css`): the `name` of the
/// `[[workspace.metadata.leptos]]` block in the workspace's Cargo.toml.
pub const OUTPUT_NAME: &str = "whocomes";

/// A bound, ready-to-serve whocomes site, counting into its store.
pub struct Application {
    listener: TcpListener,
    router: Router,
    local_addr: SocketAddr,
    whocomes: Whocomes,
}

/// Loads the demo history (`serve --demo`) into the site's store URL,
/// under the demo's own name, holding the data folder's start lock as the
/// build does (two servers started at once do not both load it).
async fn load_demo(config: &ServeArgs) -> anyhow::Result<()> {
    let name = crate::commands::demo::store_name()?;
    let start_lock = whocomes::data_folder::lock(&config.store.data_dir).await;
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
    drop(start_lock);
    tracing::info!(
        days = loaded.days.len(),
        counted = loaded.tally.counted(),
        seed = config.demo_seed,
        "demo history loaded into the store named {name} (made-up visits, drawn beside the site's own)"
    );
    Ok(())
}

impl Application {
    /// Checks the settings, binds the listener, starts whocomes and builds
    /// the router. Nothing is served until
    /// [`run_until_stopped`](Self::run_until_stopped) or [`run_until`](Self::run_until).
    pub async fn build(config: ServeArgs) -> anyhow::Result<Self> {
        // Settings wrong as written stop the start before anything is written.
        let checked = crate::config::to_builder::check(&config)?;
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
        if config.demo {
            load_demo(&config).await?;
        }
        let whocomes = checked
            .build()
            .await
            .context("the Admin tab cannot be set up")?;
        // The app's pages mount the tab (app::pages); its functions and
        // exports are answered by the tab's layer. Counting is outermost
        // but for the request timeout, then the site's headers and files.
        let admin = whocomes.admin().clone();
        let router = routes::router(options)
            .layer(admin.layer())
            .layer(axum::middleware::from_fn(crate::serving::body_limit::limit))
            .layer(whocomes.layer())
            .layer(whocomes.request_timeout());
        let router = crate::serving::revalidate::page_files(
            headers::secure(router, admin),
            config.files_max_age,
        );
        Ok(Self {
            listener,
            router,
            local_addr,
            whocomes,
        })
    }

    /// Where monitors read `/ready` and `/metrics`, if they have an address
    /// of their own.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.whocomes.metrics_addr()
    }

    /// Every store the Admin tab reads: the one written to, then the
    /// `--read-store`s.
    pub fn stores(&self) -> Vec<Arc<dyn ActivityStore>> {
        self.whocomes.stores()
    }

    /// The store the site counts into.
    pub fn store(&self) -> Arc<dyn ActivityStore> {
        self.whocomes.store()
    }

    /// The connections served, open and refused so far.
    pub fn connection_stats(&self) -> Arc<ConnectionStats> {
        self.whocomes.connection_stats()
    }

    /// What the recorder has queued, dropped and written so far (all
    /// zero for a server that counts nothing).
    pub fn recorder_stats(&self) -> Arc<RecorderStats> {
        self.whocomes.stats()
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
    /// at most [`whocomes::SHUTDOWN_GRACE`]), then writes every queued hit
    /// into the store before returning.
    pub async fn run_until(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        self.whocomes
            .serve_until(self.listener, self.router, stop)
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::OUTPUT_NAME;

    /// Whether the workspace's `[[workspace.metadata.leptos]]` block has
    /// the line `line` (trimmed).
    fn leptos_metadata_has(line: &str) -> bool {
        let manifest = include_str!("../../../Cargo.toml");
        let metadata = manifest
            .split("[[workspace.metadata.leptos]]")
            .nth(1)
            .expect("the workspace has a leptos metadata block");
        metadata.lines().any(|found| found.trim() == line)
    }

    /// The server and the wasm bundle agree on `--cfg erase_components`
    /// (a bundle that does not cannot hydrate the page): it comes from
    /// .cargo/config.toml for every build, and cargo-leptos is told not
    /// to add a copy of its own.
    #[test]
    fn every_build_erases_components_from_one_place() {
        // As this build was made (a test, not a compile error: a build
        // without it still runs every other test).
        let erased = std::hint::black_box(cfg!(erase_components));
        assert!(
            erased,
            "built without .cargo/config.toml's --cfg erase_components (a RUSTFLAGS of the caller's replaces it)"
        );
        let config = include_str!("../../../.cargo/config.toml");
        assert!(
            config.contains(r#"rustflags = ["--cfg", "erase_components"]"#),
            "{config}"
        );
        assert!(
            leptos_metadata_has("disable-erase-components = true"),
            "cargo-leptos would add a second --cfg erase_components"
        );
    }

    /// cargo-leptos names the bundle after the metadata block; the server must
    /// ask for the same file names or the page never hydrates.
    #[test]
    fn output_name_matches_the_workspace_metadata() {
        let expected = format!("name = \"{OUTPUT_NAME}\"");
        assert!(
            leptos_metadata_has(&expected),
            "expected `{expected}` in the leptos metadata block"
        );
    }
}
