//! The tower layer: every request passes through once, is decided by the
//! [`Counter`], and, if counted, leaves a hit on the queue with `try_send`.
//! Nothing here waits: a full queue drops the hit and counts the drop.

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use chrono::Utc;
use http::HeaderName;
use tokio::sync::mpsc;
use tower_layer::Layer;
use tower_service::Service;

use crate::classify::RequestView;
use crate::evidence::FilesSeen;
use crate::hit::Counter;
use crate::recorder_stats::RecorderStats;
use crate::rows::Seen;

/// Finds the connection's peer address in a request's extensions. With
/// axum: `|ext| ext.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())`.
pub type PeerAddress = fn(&http::Extensions) -> Option<IpAddr>;

/// The default [`PeerAddress`]: a `std::net::SocketAddr` in the extensions.
pub fn socket_addr_extension(extensions: &http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<std::net::SocketAddr>()
        .map(std::net::SocketAddr::ip)
}

/// Counts every request of the service it wraps. Cheap to clone.
#[derive(Clone)]
pub struct ActivityLayer {
    shared: Arc<Shared>,
}

struct Shared {
    counter: Counter,
    queue: mpsc::Sender<Seen>,
    stats: Arc<RecorderStats>,
    peer: PeerAddress,
    files_seen: FilesSeen,
}

impl std::fmt::Debug for ActivityLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActivityLayer").finish_non_exhaustive()
    }
}

impl ActivityLayer {
    pub(crate) fn new(
        counter: Counter,
        queue: mpsc::Sender<Seen>,
        stats: Arc<RecorderStats>,
        peer: PeerAddress,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                counter,
                queue,
                stats,
                peer,
                files_seen: FilesSeen::new(),
            }),
        }
    }
}

impl<S> Layer<S> for ActivityLayer {
    type Service = ActivityService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ActivityService {
            inner,
            shared: self.shared.clone(),
        }
    }
}

/// The service [`ActivityLayer`] wraps around another.
#[derive(Clone)]
pub struct ActivityService<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S, B> Service<http::Request<B>> for ActivityService<S>
where
    S: Service<http::Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        self.shared.observe(&request);
        self.inner.call(request)
    }
}

/// Whether a peer is on this machine or a private network: where a reverse
/// proxy that was not named with `--trusted-proxy` would be.
fn is_local(peer: IpAddr) -> bool {
    match peer {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
        IpAddr::V6(v6) => {
            v6.is_loopback()
                || v6.is_unique_local()
                || v6.is_unicast_link_local()
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| is_local(IpAddr::V4(v4)))
        }
    }
}

// Made once, not parsed from text on every request.
const SEC_FETCH_DEST: HeaderName = HeaderName::from_static("sec-fetch-dest");
const SEC_PURPOSE: HeaderName = HeaderName::from_static("sec-purpose");
const PURPOSE: HeaderName = HeaderName::from_static("purpose");
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// A header's value as text; bytes that are not UTF-8 are replaced.
fn text(value: &http::HeaderValue) -> Cow<'_, str> {
    // Visible ASCII (nearly every header) is checked fastest by `to_str`.
    value
        .to_str()
        .map_or_else(|_| String::from_utf8_lossy(value.as_bytes()), Cow::Borrowed)
}

impl Shared {
    fn observe<B>(&self, request: &http::Request<B>) {
        let headers = request.headers();
        let one = |name: HeaderName| headers.get(name).map(text);
        let all = |name: HeaderName| headers.get_all(name).iter().map(text).collect::<Vec<_>>();
        let user_agent = one(http::header::USER_AGENT);
        let referer = one(http::header::REFERER);
        let accept = one(http::header::ACCEPT);
        let host = one(http::header::HOST);
        let dest = headers.get(SEC_FETCH_DEST).map(text);
        let x_forwarded_for = all(X_FORWARDED_FOR);
        let forwarded = all(http::header::FORWARDED);
        let purpose = one(SEC_PURPOSE).or_else(|| one(PURPOSE));
        let target = request
            .uri()
            .path_and_query()
            .map_or_else(|| request.uri().path(), http::uri::PathAndQuery::as_str);
        let view = RequestView {
            method: request.method().as_str(),
            target: target.as_bytes(),
            user_agent: user_agent.as_deref(),
            referer: referer.as_deref(),
            accept: accept.as_deref(),
            sec_fetch_dest: dest.as_deref(),
            host: host.as_deref(),
            x_forwarded_for: x_forwarded_for.iter().map(AsRef::as_ref).collect(),
            forwarded: forwarded.iter().map(AsRef::as_ref).collect(),
            protocol: Some(protocol(request.version())),
            sec_purpose: purpose.as_deref(),
        };
        let peer = (self.peer)(request.extensions());
        if (!view.x_forwarded_for.is_empty() || !view.forwarded.is_empty())
            && self.counter.trusts_no_proxy()
            && peer.is_some_and(is_local)
        {
            self.stats.untrusted_forwarding();
        }
        let now = Utc::now();
        let decision = self.counter.count(&view, peer, now);
        if let Some(hit) = decision.hit {
            match self.queue.try_send(Seen::Hit(hit)) {
                Ok(()) => self.stats.queued(),
                Err(_) => self.stats.dropped(),
            }
        } else if decision.shows_files {
            // The first file of a visitor-day marks it; the rest cost no token.
            let client = self.counter.client_address(&view, peer);
            if self.files_seen.first(now.date_naive(), client) {
                // Marks never take the queue's last half: a flood of file
                // requests from many addresses cannot crowd out the hits.
                let room = self.queue.capacity() * 2 >= self.queue.max_capacity();
                let mark = || Seen::Files(self.counter.files_mark_of(client, now));
                if room && self.queue.try_send(mark()).is_ok() {
                    self.stats.queued_mark();
                } else {
                    self.stats.dropped_mark();
                    self.files_seen.forget(now.date_naive(), client);
                }
            }
        }
    }
}

/// The request line's protocol as text.
fn protocol(version: http::Version) -> &'static str {
    match version {
        http::Version::HTTP_09 => "HTTP/0.9",
        http::Version::HTTP_10 => "HTTP/1.0",
        http::Version::HTTP_2 => "HTTP/2",
        http::Version::HTTP_3 => "HTTP/3",
        _ => "HTTP/1.1",
    }
}
