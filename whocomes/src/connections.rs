//! Accepting connections on the open internet: how many may be open at
//! once, how long a client may take, and stopping without waiting forever
//! ([`ConnectionLimits`], [`serve`]). The binary's flags name each limit:
//!
//! - `--max-connections`: beyond it a new connection gets a quick `503`
//!   (`Retry-After: 1`, then closed) and is counted; the others are served
//!   as before.
//! - `--header-timeout`: hyper's header read timeout. A request's line and
//!   headers must arrive within it, counted from the moment the connection
//!   is ready for that request: from the connect for the first one, and on
//!   a kept-alive connection from the end of the previous answer (so it is
//!   also how long an idle kept-alive connection is kept).
//! - `--request-timeout`: tower-http's timeouts. A request body must arrive,
//!   and the answer must be ready, within it (else `408`).
//! - `--idle-timeout`: a connection on which no byte moves either way for
//!   this long is closed (a client that stops reading an answer included).
//!
//! Each connection is served by hyper (HTTP/1.1) through the axum router,
//! with the peer address as `ConnectInfo`; a stop lets connections in
//! flight finish through hyper-util's graceful shutdown.

use std::sync::Arc;
use std::time::Duration;

use admin::server::ConnectionStats;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;
use tower_http::timeout::RequestBodyTimeoutLayer;

/// How connections are limited: the binary's `--max-connections`,
/// `--header-timeout`, `--request-timeout` and `--idle-timeout`, and the
/// builder's [`connection_limits`](crate::Builder::connection_limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// The most connections open at once; beyond it a new one gets a quick
    /// 503 and is closed (and counted on the Admin tab). At least 1.
    pub max_connections: u32,
    /// How long a client may take to send a request's line and headers,
    /// from when the connection is ready for it (for a kept-alive
    /// connection: from the end of the previous answer).
    pub header_timeout: Duration,
    /// How long a request may take, its body included, before it is
    /// answered 408.
    pub request_timeout: Duration,
    /// How long a connection may stay open with no byte moving either way.
    pub idle_timeout: Duration,
}

impl Default for ConnectionLimits {
    /// 1024 connections; 10 s for the headers, 30 s for the request, 60 s idle.
    fn default() -> Self {
        Self {
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// What a connection over the cap is told before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 37\r\nConnection: close\r\n\r\ntoo many connections; try again soon\n";

/// How long the busy answer may take to write before the connection is dropped.
const BUSY_WRITE: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `stop` completes, then lets the
/// connections in flight finish for at most `grace`. Returns how many were
/// still open when it gave up on them.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: &ConnectionLimits,
    stats: Arc<ConnectionStats>,
    stop: impl Future<Output = ()>,
    grace: Duration,
) -> usize {
    stats.keep();
    let slots = Arc::new(Semaphore::new(limits.max_connections as usize));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let graceful = GracefulShutdown::new();
    let idle = limits.idle_timeout;
    let request_timeout = limits.request_timeout;
    let mut accept_errors: u64 = 0;
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, say: wait a moment, keep serving.
                    if accept_errors.is_multiple_of(1000) {
                        tracing::warn!(%error, "cannot accept a connection");
                    }
                    accept_errors += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            stats.refused();
            tokio::spawn(busy(stream));
            continue;
        };
        stats.opened();
        // Answers go out as soon as they are written, not after Nagle's wait.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let mut io = TimeoutStream::new(stream);
        io.set_read_timeout(Some(idle));
        io.set_write_timeout(Some(idle));
        let io = TokioIo::new(Box::pin(io));
        let service = tower::ServiceBuilder::new()
            .map_request(move |mut request: http::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            })
            .layer(RequestBodyTimeoutLayer::new(request_timeout))
            .service(router.clone());
        let connection = builder.serve_connection(io, TowerToHyperService::new(service));
        let watched = graceful.watch(connection);
        let stats = stats.clone();
        tokio::spawn(async move {
            // A connection ends by closing, timing out or failing: all the same here.
            let _ended = watched.await;
            stats.closed();
            drop(slot);
        });
    }
    drop(listener);
    let open = graceful.count();
    tokio::select! {
        () = graceful.shutdown() => 0,
        () = tokio::time::sleep(grace) => {
            tracing::warn!(
                open,
                "connections still open {} s after the stop: stopping without them",
                grace.as_secs()
            );
            open
        }
    }
}

/// Tells a connection over the cap to come back later, and closes it.
async fn busy(mut stream: TcpStream) {
    let _answered = tokio::time::timeout(BUSY_WRITE, async {
        stream.write_all(BUSY).await?;
        stream.shutdown().await
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::BUSY;

    #[test]
    fn the_busy_answer_says_its_length_right() {
        let text = std::str::from_utf8(BUSY).expect("ASCII");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        assert!(
            head.contains(&format!("Content-Length: {}", body.len())),
            "{head}"
        );
    }
}
