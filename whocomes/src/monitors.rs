//! The monitors' address of its own ([`Builder::metrics_addr`](crate::Builder::metrics_addr),
//! the binary's `--metrics-addr`): `/ready` and `/metrics` served there
//! with the site's timeouts and a cap of their own, so a monitor that
//! leaks connections holds only its own.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use admin::server::{Admin, ConnectionStats};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::connections::{self, ConnectionLimits};

/// The most connections open at once on the monitors' address: a monitor
/// that leaks them is answered 503 beyond it, and holds nothing more.
const MONITOR_CONNECTIONS: u32 = 16;

/// Serves `/ready` and `/metrics` on `addr` until the task is aborted;
/// `None` (said in the log) if it cannot listen there: the site serves
/// on, and both stay behind the tab's sign-in.
pub(crate) async fn listen(
    addr: SocketAddr,
    admin: &Admin,
    limits: &ConnectionLimits,
) -> Option<(SocketAddr, JoinHandle<()>)> {
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
    let limits = ConnectionLimits {
        max_connections: MONITOR_CONNECTIONS,
        ..*limits
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
