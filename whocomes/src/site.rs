//! [`Whocomes`]: whocomes, set up and running in an app — the counting
//! layer to put in front of the app, the Admin tab's router, and serving
//! the app with the connection limits, the monitors' address and a stop
//! that writes every hit before the process ends.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use activity::recording::{ActivityLayer, RecorderStats, StatsSnapshot, WriterHandle};
use activity::store::ActivityStore;
use admin::server::{Admin, ConnectionStats};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tower_http::timeout::TimeoutLayer;

use crate::connections::ConnectionLimits;
use crate::data_folder::Serving;
use crate::layer::CountingLayer;

/// How long a stop waits for requests in flight before it goes on without
/// them (their hits, if any, are dropped and counted).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// whocomes in an app: made by [`Whocomes::builder`].
///
/// Serve the app with [`serve`](Self::serve) (it does all of the below), or
/// wire it yourself: put [`layer`](Self::layer) in front of the app, merge
/// [`tab_router`](Self::tab_router), and hand the router to
/// [`serve_until`](Self::serve_until) — or serve it yourself with
/// `into_make_service_with_connect_info::<SocketAddr>()` and, once the
/// server has stopped (on [`signal`](crate::signal): SIGTERM or Ctrl-C),
/// await [`shutdown`](Self::shutdown).
pub struct Whocomes {
    /// The counting layer and its writer: `None` when counting is off.
    pub(crate) layer: Option<ActivityLayer>,
    pub(crate) writer: Option<WriterHandle>,
    pub(crate) admin: Admin,
    /// The store hits are written to, then the stores read besides it.
    pub(crate) store: Arc<dyn ActivityStore>,
    pub(crate) read_stores: Vec<Arc<dyn ActivityStore>>,
    pub(crate) connections: Arc<ConnectionStats>,
    pub(crate) limits: ConnectionLimits,
    /// The monitors' address and the task that answers there.
    pub(crate) monitors: Option<(SocketAddr, JoinHandle<()>)>,
    /// The day keys' turning task, stopped with the rest.
    pub(crate) turning: Option<JoinHandle<()>>,
    /// The alerts' watch, stopped with the rest.
    pub(crate) notifying: Option<JoinHandle<()>>,
    /// This server's mark in the data folder, removed at a clean stop.
    pub(crate) serving: Option<Serving>,
}

impl std::fmt::Debug for Whocomes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Whocomes")
            .field("tab_path", &self.admin.path())
            .field("store", &self.store.name())
            .finish_non_exhaustive()
    }
}

impl Whocomes {
    /// The counting layer: put it in front of everything the app serves
    /// (outermost but for [`request_timeout`](Self::request_timeout), so
    /// that every request passes it once). With counting off it passes
    /// every request through.
    pub fn layer(&self) -> CountingLayer {
        CountingLayer(self.layer.clone())
    }

    /// The request timeout of the [connection limits](crate::Builder::connection_limits)
    /// (a request not answered within it, its body included, is answered
    /// 408), as a layer to put around the counting layer.
    pub fn request_timeout(&self) -> TimeoutLayer {
        TimeoutLayer::with_status_code(
            http::StatusCode::REQUEST_TIMEOUT,
            self.limits.request_timeout,
        )
    }

    /// The Admin tab at its path (server-rendered: the charts read without
    /// JavaScript), with its server functions and exports; merge it into
    /// the app's router.
    pub fn tab_router(&self) -> axum::Router {
        self.admin.router()
    }

    /// `/ready` and `/metrics` for monitors (readiness, OpenMetrics text),
    /// to serve on an address of their own that strangers cannot reach
    /// (loopback, as the binary's `--metrics-addr`; the builder's
    /// [`metrics_addr`](crate::Builder::metrics_addr) serves them so). A
    /// signed-in admin reads the same at `{tab}/api/ready` and
    /// `{tab}/api/metrics`.
    pub fn monitor_router(&self) -> axum::Router {
        admin::server::operations::monitor_router(self.admin.clone())
    }

    /// Where monitors read `/ready` and `/metrics`, if they have an
    /// address of their own.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.monitors.as_ref().map(|(addr, _)| *addr)
    }

    /// Where the tab is served.
    pub fn tab_path(&self) -> &str {
        self.admin.path()
    }

    /// The tab's state (the stores it reads, the sign-in).
    pub fn admin(&self) -> &Admin {
        &self.admin
    }

    /// The store hits are written to.
    pub fn store(&self) -> Arc<dyn ActivityStore> {
        self.store.clone()
    }

    /// Every store the tab reads: the one written to, then the read stores.
    pub fn stores(&self) -> Vec<Arc<dyn ActivityStore>> {
        std::iter::once(self.store.clone())
            .chain(self.read_stores.iter().cloned())
            .collect()
    }

    /// What the writer has queued, dropped and written so far (all zero
    /// when counting is off).
    pub fn stats(&self) -> Arc<RecorderStats> {
        self.writer
            .as_ref()
            .map_or_else(Arc::default, WriterHandle::stats)
    }

    /// The connections served, open and refused so far.
    pub fn connection_stats(&self) -> Arc<ConnectionStats> {
        self.connections.clone()
    }

    /// Serves `app` with the tab and counting on `listener` until SIGTERM
    /// or Ctrl-C (see [`serve_until`](Self::serve_until)).
    pub async fn serve(
        self,
        listener: TcpListener,
        app: axum::Router,
    ) -> std::io::Result<StatsSnapshot> {
        let app = app
            .merge(self.tab_router())
            .layer(self.layer())
            .layer(self.request_timeout());
        let stop = crate::signal();
        self.serve_until(listener, app, stop).await
    }

    /// Serves `router` as it is (the counting layer where the app put it)
    /// on `listener` with the [connection limits](crate::Builder::connection_limits),
    /// each request's peer as axum's `ConnectInfo`, until `stop` completes;
    /// lets requests in flight finish (for at most [`SHUTDOWN_GRACE`]: a
    /// client that never sends the rest of its request must not hold the
    /// stop), then [shuts down](Self::shutdown).
    pub async fn serve_until(
        self,
        listener: TcpListener,
        router: axum::Router,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<StatsSnapshot> {
        // Connections still open after the grace are left behind (and said
        // so in the log): their hits, if any, are dropped and counted.
        let _left_open = crate::connections::serve(
            listener,
            router,
            &self.limits,
            self.connections.clone(),
            stop,
            SHUTDOWN_GRACE,
        )
        .await;
        Ok(self.shutdown().await)
    }

    /// Writes every hit still queued or pending into the store and closes
    /// the stores; stops the monitors, the day keys' turning and the
    /// alerts' watch, and
    /// removes this server's mark from the data folder. Call it once the
    /// server has stopped serving: a hit offered after this is dropped and
    /// counted.
    pub async fn shutdown(self) -> StatsSnapshot {
        if let Some(turning) = self.turning {
            turning.abort();
        }
        if let Some(notifying) = self.notifying {
            notifying.abort();
        }
        let stores: Vec<_> = std::iter::once(self.store)
            .chain(self.read_stores)
            .collect();
        let stats = match self.writer {
            Some(writer) => crate::write_and_close(writer, &stores).await,
            None => {
                for store in &stores {
                    store.close().await;
                }
                StatsSnapshot::default()
            }
        };
        if let Some((_, task)) = self.monitors {
            task.abort();
        }
        if let Some(serving) = self.serving {
            serving.stopped();
        }
        stats
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

    /// An embedded app served by `serve_until` gets the binary's
    /// connection cap: beyond it a connection is answered 503 and closed,
    /// counted on the tab (shown only once whocomes serves), and the stop
    /// still writes and closes everything.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_embedded_app_is_served_under_the_connection_cap() {
        use std::time::Duration;
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

        let folder = tempfile::tempdir().expect("a folder");
        let whocomes = Whocomes::builder()
            .data_dir(folder.path())
            .connection_limits(crate::ConnectionLimits {
                max_connections: 1,
                ..crate::ConnectionLimits::default()
            })
            .build()
            .await
            .expect("builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let addr = listener.local_addr().expect("an address");
        let app = axum::Router::new().route("/", axum::routing::get(|| async { "hello" }));
        // Not served by whocomes yet: no connection figures to show.
        let admin = whocomes.admin().clone();
        assert!(admin.connections().is_none());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(whocomes.serve_until(listener, app, async {
            let _ = stopped.await;
        }));
        // The one slot, held by a connection that says nothing yet.
        let mut first = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut second = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        let mut answer = String::new();
        tokio::time::timeout(Duration::from_secs(10), second.read_to_string(&mut answer))
            .await
            .expect("answered at once")
            .expect("reads");
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        let figures = admin.connections().expect("kept while served");
        assert_eq!((figures.open(), figures.refused_count()), (1, 1));
        first
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .expect("writes");
        let mut answer = String::new();
        first.read_to_string(&mut answer).await.expect("reads");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("hello"), "{answer}");
        stop.send(()).expect("stops");
        let stats = served.await.expect("runs").expect("serves");
        assert_eq!(stats.lost, 0);
    }
}
