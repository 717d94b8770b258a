//! When to stop: the first SIGTERM or Ctrl-C.
//!
//! The server stops accepting connections when this future completes, and
//! lets requests already in flight finish before the process exits.

use tracing::{info, warn};

/// Completes on the first SIGTERM or Ctrl-C (SIGINT).
///
/// If a signal handler cannot be installed, that signal is logged and ignored
/// rather than stopping the server at once.
pub async fn signal() {
    let ctrl_c = async {
        match tokio::signal::ctrl_c().await {
            Ok(()) => info!("Ctrl-C received: finishing requests in flight, then stopping"),
            Err(error) => {
                warn!(%error, "cannot listen for Ctrl-C; stop the server with SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };

    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut stream) => {
                stream.recv().await;
                info!("SIGTERM received: finishing requests in flight, then stopping");
            }
            Err(error) => {
                warn!(%error, "cannot listen for SIGTERM; stop the server with Ctrl-C");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();

    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
