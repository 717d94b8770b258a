//! When to stop: the first SIGTERM or Ctrl-C.
//!
//! The server stops accepting connections when this future completes, and
//! lets requests already in flight finish before the process exits.

use tracing::{info, warn};

/// Listens for SIGTERM and Ctrl-C (SIGINT) from the moment it is called, and
/// returns a future that completes on the first of them. Call it before
/// telling anyone the server is up, so that no early signal kills the process.
///
/// If a signal handler cannot be installed, that signal is logged and ignored
/// rather than stopping the server at once.
pub fn signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let listen = |kind: SignalKind, name: &'static str| {
            let stream = signal(kind)
                .inspect_err(|error| warn!(%error, "cannot listen for {name}; it will be ignored"))
                .ok();
            async move {
                match stream {
                    Some(mut stream) => {
                        stream.recv().await;
                        info!("{name} received: finishing what is in flight, then stopping");
                    }
                    None => std::future::pending::<()>().await,
                }
            }
        };
        let terminate = listen(SignalKind::terminate(), "SIGTERM");
        let interrupt = listen(SignalKind::interrupt(), "Ctrl-C");
        async move {
            tokio::select! {
                () = terminate => {},
                () = interrupt => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        match tokio::signal::ctrl_c().await {
            Ok(()) => info!("Ctrl-C received: finishing what is in flight, then stopping"),
            Err(error) => {
                warn!(%error, "cannot listen for Ctrl-C");
                std::future::pending::<()>().await;
            }
        }
    }
}
