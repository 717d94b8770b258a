//! [`Whocomes`]: whocomes, set up and running in an app — the counting
//! layer to put in front of the app, the Admin tab's router, and the stop
//! that writes every hit before the process ends.

use std::net::SocketAddr;
use std::sync::Arc;

use activity::recording::{ActivityLayer, RecorderStats, StatsSnapshot, WriterHandle};
use activity::store::ActivityStore;
use admin::server::Admin;
use tokio::task::JoinHandle;

use crate::Builder;

/// whocomes in an app: made by [`Whocomes::builder`].
///
/// Serve the app with [`serve`](Self::serve) (it does all of the below), or
/// wire it yourself: put [`layer`](Self::layer) in front of the app, merge
/// [`tab_router`](Self::tab_router), serve with
/// `into_make_service_with_connect_info::<SocketAddr>()`, and once the
/// server has stopped (on [`signal`](crate::signal): SIGTERM or Ctrl-C),
/// await [`shutdown`](Self::shutdown).
pub struct Whocomes {
    pub(crate) layer: ActivityLayer,
    pub(crate) admin: Admin,
    pub(crate) tab_path: String,
    pub(crate) store: Arc<dyn ActivityStore>,
    pub(crate) writer: WriterHandle,
    /// The day keys' turning task, stopped with the rest.
    pub(crate) turning: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Whocomes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Whocomes")
            .field("tab_path", &self.tab_path)
            .field("store", &self.store.name())
            .finish_non_exhaustive()
    }
}

impl Whocomes {
    /// Starts setting whocomes up, with the binary's defaults.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The counting layer: put it in front of everything the app serves
    /// (outermost, so that every request passes it once).
    pub fn layer(&self) -> ActivityLayer {
        self.layer.clone()
    }

    /// The Admin tab at its path (server-rendered: the charts read without
    /// JavaScript), with its server functions and exports; merge it into
    /// the app's router.
    pub fn tab_router(&self) -> axum::Router {
        self.admin.router()
    }

    /// `/ready` and `/metrics` for monitors (readiness, OpenMetrics text),
    /// to serve on an address of their own that strangers cannot reach
    /// (loopback, as the binary's `--metrics-addr`). A signed-in admin
    /// reads the same at `{tab}/api/ready` and `{tab}/api/metrics`.
    pub fn monitor_router(&self) -> axum::Router {
        admin::server::operations::monitor_router(self.admin.clone())
    }

    /// Where the tab is served.
    pub fn tab_path(&self) -> &str {
        &self.tab_path
    }

    /// The tab's state (the stores it reads, the sign-in).
    pub fn admin(&self) -> &Admin {
        &self.admin
    }

    /// The store hits are written to.
    pub fn store(&self) -> Arc<dyn ActivityStore> {
        self.store.clone()
    }

    /// What the writer has queued, dropped and written so far.
    pub fn stats(&self) -> Arc<RecorderStats> {
        self.writer.stats()
    }

    /// Serves `app` with the tab and counting on `listener` until SIGTERM
    /// or Ctrl-C, lets requests in flight finish, then writes every hit
    /// (see [`shutdown`](Self::shutdown)).
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        app: axum::Router,
    ) -> std::io::Result<StatsSnapshot> {
        let app = app.merge(self.tab_router()).layer(self.layer());
        let stop = crate::signal();
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(stop)
        .await?;
        Ok(self.shutdown().await)
    }

    /// Writes every hit still queued or pending into the store and closes
    /// it. Call it once the server has stopped serving: a hit offered after
    /// this is dropped and counted.
    pub async fn shutdown(self) -> StatsSnapshot {
        if let Some(turning) = self.turning {
            turning.abort();
        }
        crate::write_and_close(self.writer, &[self.store]).await
    }
}

#[cfg(test)]
mod tests {
    use axum::body::{Body, to_bytes};
    use http::{Request, StatusCode};
    use tower::ServiceExt as _;

    use super::Whocomes;

    /// What a monitor reads of `path` on the embedder's monitor router.
    async fn read(whocomes: &Whocomes, path: &str) -> (StatusCode, String) {
        let answer = whocomes
            .monitor_router()
            .oneshot(Request::get(path).body(Body::empty()).expect("a request"))
            .await
            .expect("answers");
        let status = answer.status();
        let body = to_bytes(answer.into_body(), 1 << 20).await.expect("a body");
        (status, String::from_utf8(body.to_vec()).expect("text"))
    }

    /// An embedder gets the binary's monitor endpoints from the builder:
    /// ready while its SQLite store keeps activity, and the writer's
    /// figures in the OpenMetrics text.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_embedded_site_tells_a_monitor_it_is_ready_and_its_figures() {
        let folder = tempfile::tempdir().expect("a folder");
        let whocomes = Whocomes::builder()
            .data_dir(folder.path())
            .build()
            .await
            .expect("builds");
        let (status, text) = read(&whocomes, "/ready").await;
        assert_eq!(status, StatusCode::OK, "{text}");
        let (status, text) = read(&whocomes, "/metrics").await;
        assert_eq!(status, StatusCode::OK);
        assert!(text.contains("whocomes_hits_written_total 0"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
        whocomes.shutdown().await;
    }
}
