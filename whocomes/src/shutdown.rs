//! When to stop, and what a stop does: the first SIGTERM or Ctrl-C
//! ([`signal`]); once the server has stopped, every hit written and the
//! stores closed ([`write_and_close`]).
//!
//! The server stops accepting connections when the signal's future
//! completes, and lets requests already in flight finish before the
//! process exits.

use std::sync::Arc;

use activity::recording::{StatsSnapshot, WriterHandle};
use activity::store::ActivityStore;
use tracing::{info, warn};

/// Once the server has stopped (a request it gave up waiting for may still
/// hold a sender): the writer closes its queue, writes what is queued and
/// pending, and ends; then each of `stores` is closed. Says in the log what
/// was written, dropped, kept in the journal for the next start, and lost.
pub async fn write_and_close(
    writer: WriterHandle,
    stores: &[Arc<dyn ActivityStore>],
) -> StatsSnapshot {
    let stats = writer.finish().await;
    info!(
        written = stats.written,
        rows = stats.rows_written,
        dropped = stats.dropped,
        kept = stats.kept,
        lost = stats.lost,
        "activity written"
    );
    for store in stores {
        store.close().await;
    }
    stats
}

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
