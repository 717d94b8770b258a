//! The tower layer: every request passes through once, is decided by the
//! [`Counter`], and, if counted, leaves a hit on the queue with `try_send`.
//! Nothing here waits: a full queue drops the hit and counts the drop.
//! A counted request's hit, and a file's decision that needs the answer
//! (under `/wp-includes/`: a browser's sign only if the site has it), ride
//! along with the response future and are queued when the status is known:
//! a request for what the site does not have is kept under one path
//! (`(not found)`), and a `*.php` or `/wp-login.php` request answered 4xx
//! is a probe. A request dropped before its answer is queued with no
//! status (kept as asked, not a probe). A [`Goal`] the handler put in its
//! response's extensions marks the counted request's hit.

use std::borrow::Cow;
use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use chrono::Utc;
use http::HeaderName;
use tokio::sync::mpsc;
use tower_layer::Layer;
use tower_service::Service;

use crate::recording::recorder_stats::RecorderStats;
use crate::request::evidence::FilesSeen;
use crate::request::goal::Goal;
use crate::request::hit::{Counter, Decision};
use crate::request::seen::Seen;
use crate::request::view::RequestView;

/// Finds the connection's peer address in a request's extensions. With
/// axum: `|ext| ext.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())`
/// (the `whocomes` crate's builder sets exactly that).
pub type PeerAddress = fn(&http::Extensions) -> Option<IpAddr>;

/// The default [`PeerAddress`]: a `std::net::SocketAddr` in the extensions.
/// axum keeps its peer as `ConnectInfo<SocketAddr>` instead, which this
/// crate cannot name: a request without a peer is counted all the same
/// (under no network), counted as such (`StatsSnapshot::without_peer`) and
/// said in the log once.
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

impl<S, B, R> Service<http::Request<B>> for ActivityService<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answered<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let waiting = self.shared.observe(&request);
        Answered {
            inner: self.inner.call(request),
            waiting: waiting.map(|decision| Waiting {
                decision,
                shared: self.shared.clone(),
            }),
        }
    }
}

pin_project_lite::pin_project! {
    /// The wrapped service's response future, carrying a decision that
    /// waits for the answer's status (a counted request's; a file's, most
    /// carry none).
    pub struct Answered<F> {
        #[pin]
        inner: F,
        waiting: Option<Waiting>,
    }
}

/// A decision waiting for its answer. Dropped unanswered (the request was
/// dropped, or the service failed), it is queued with no status.
struct Waiting {
    decision: Pending,
    shared: Arc<Shared>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.shared.answered(&mut self.decision, None, None);
    }
}

impl<F, R, E> Future for Answered<F>
where
    F: Future<Output = Result<http::Response<R>, E>>,
{
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let output = std::task::ready!(this.inner.poll(cx));
        if let Some(mut waiting) = this.waiting.take() {
            let (status, goal) = match output.as_ref() {
                Ok(response) => (
                    Some(response.status().as_u16()),
                    response.extensions().get::<Goal>().cloned(),
                ),
                Err(_) => (None, None),
            };
            waiting.shared.answered(&mut waiting.decision, status, goal);
        }
        Poll::Ready(output)
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
const SEC_FETCH_MODE: HeaderName = HeaderName::from_static("sec-fetch-mode");
const SEC_PURPOSE: HeaderName = HeaderName::from_static("sec-purpose");
const PURPOSE: HeaderName = HeaderName::from_static("purpose");
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
const SEC_FETCH_SITE: HeaderName = HeaderName::from_static("sec-fetch-site");
const SEC_CH_UA: HeaderName = HeaderName::from_static("sec-ch-ua");
const SEC_CH_UA_MOBILE: HeaderName = HeaderName::from_static("sec-ch-ua-mobile");
const SEC_CH_UA_PLATFORM: HeaderName = HeaderName::from_static("sec-ch-ua-platform");

/// A header's value as text; bytes that are not UTF-8 are replaced.
fn text(value: &http::HeaderValue) -> Cow<'_, str> {
    // Visible ASCII (nearly every header) is checked fastest by `to_str`.
    value
        .to_str()
        .map_or_else(|_| String::from_utf8_lossy(value.as_bytes()), Cow::Borrowed)
}

/// Every value of a header as text, in order: borrowed when each is
/// visible ASCII (nearly always: one allocation, the list's), else read
/// with bad bytes replaced into `lossy`.
fn all<'a>(
    headers: &'a http::HeaderMap,
    name: HeaderName,
    lossy: &'a mut Vec<String>,
) -> Vec<&'a str> {
    let values = headers.get_all(name);
    if let Some(borrowed) = values
        .iter()
        .map(|value| value.to_str().ok())
        .collect::<Option<Vec<_>>>()
    {
        return borrowed;
    }
    *lossy = values
        .iter()
        .map(|value| text(value).into_owned())
        .collect();
    let lossy: &'a Vec<String> = lossy;
    lossy.iter().map(String::as_str).collect()
}

/// A decision that waits for the answer, with what queuing it needs.
struct Pending {
    decision: Option<Decision>,
    client: Option<IpAddr>,
    at: chrono::DateTime<Utc>,
}

impl Shared {
    /// Decides a request; returns the decision if it waits for the answer
    /// (every counted one does).
    fn observe<B>(&self, request: &http::Request<B>) -> Option<Pending> {
        let headers = request.headers();
        let one = |name: HeaderName| headers.get(name).map(text);
        let user_agent = one(http::header::USER_AGENT);
        let referer = one(http::header::REFERER);
        let accept = one(http::header::ACCEPT);
        let host = one(http::header::HOST);
        let dest = headers.get(SEC_FETCH_DEST).map(text);
        let mode = headers.get(SEC_FETCH_MODE).map(text);
        let (mut x_forwarded_for, mut forwarded) = (Vec::new(), Vec::new());
        let x_forwarded_for = all(headers, X_FORWARDED_FOR, &mut x_forwarded_for);
        let forwarded = all(headers, http::header::FORWARDED, &mut forwarded);
        let purpose = one(SEC_PURPOSE).or_else(|| one(PURPOSE));
        let site = one(SEC_FETCH_SITE);
        let (brands, mobile, platform) = (
            one(SEC_CH_UA),
            one(SEC_CH_UA_MOBILE),
            one(SEC_CH_UA_PLATFORM),
        );
        let proto = one(X_FORWARDED_PROTO);
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
            sec_fetch_mode: mode.as_deref(),
            status: None,
            host: host.as_deref(),
            x_forwarded_for,
            forwarded,
            protocol: Some(protocol(request.version())),
            sec_purpose: purpose.as_deref(),
            sec_fetch_site: site.as_deref(),
            sec_ch_ua: brands.as_deref(),
            sec_ch_ua_mobile: mobile.as_deref(),
            sec_ch_ua_platform: platform.as_deref(),
            x_forwarded_proto: proto.as_deref(),
            scheme: request.uri().scheme_str(),
        };
        let peer = (self.peer)(request.extensions());
        if peer.is_none() {
            self.stats.without_peer();
        }
        if (!view.x_forwarded_for.is_empty() || !view.forwarded.is_empty())
            && self.counter.trusts_no_proxy()
            && peer.is_some_and(is_local)
        {
            self.stats.untrusted_forwarding();
        }
        let now = Utc::now();
        let decision = self.counter.count(&view, peer, now);
        let client = (decision.hit.is_none() && decision.shows_files)
            .then(|| self.counter.client_address(&view, peer))
            .flatten();
        let mut pending = Pending {
            decision: Some(decision),
            client,
            at: now,
        };
        if pending
            .decision
            .as_ref()
            .is_some_and(|decision| decision.awaits_answer || decision.hit.is_some())
        {
            return Some(pending);
        }
        self.queue_decision(&mut pending);
        None
    }

    /// Completes a waiting decision with the answer's status and the goal
    /// its handler marked (on a counted request), and queues it.
    fn answered(&self, pending: &mut Pending, status: Option<u16>, goal: Option<Goal>) {
        if let Some(decision) = pending.decision.as_mut() {
            decision.answered(status);
            if let (Some(hit), Some(goal)) = (decision.hit.as_mut(), goal) {
                hit.goal = Some(goal);
            }
        }
        self.queue_decision(pending);
    }

    /// Queues what a decision leaves: its hit, or the mark of the first
    /// file (and of the first script) of a visitor-day.
    fn queue_decision(&self, pending: &mut Pending) {
        let Some(decision) = pending.decision.take() else {
            return;
        };
        if let Some(hit) = decision.hit {
            match self.queue.try_send(Seen::Hit(hit)) {
                Ok(()) => self.stats.queued(),
                Err(_) => self.stats.dropped(),
            }
            return;
        }
        if decision.shows_scripts {
            self.mark(pending.client, pending.at, true);
        } else if decision.shows_files {
            self.mark(pending.client, pending.at, false);
        }
    }

    /// The first file (or script) of a visitor-day marks it; the rest cost
    /// no token.
    fn mark(&self, client: Option<IpAddr>, now: chrono::DateTime<Utc>, scripts: bool) {
        let day = now.date_naive();
        if !self.files_seen.first(day, client, scripts) {
            return;
        }
        // Marks never take the queue's last half: a flood of file
        // requests from many addresses cannot crowd out the hits.
        let room = self.queue.capacity() * 2 >= self.queue.max_capacity();
        let seen = Seen::mark(self.counter.files_mark_of(client, now), scripts);
        if room && self.queue.try_send(seen).is_ok() {
            self.stats.queued_mark();
        } else {
            self.stats.dropped_mark();
            self.files_seen.forget(day, client, scripts);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_of_a_header_is_read_in_order_even_with_bad_bytes() {
        let mut headers = http::HeaderMap::new();
        headers.append(
            X_FORWARDED_FOR,
            "203.0.113.9, 10.0.0.1".parse().expect("a value"),
        );
        headers.append(X_FORWARDED_FOR, "10.0.0.2".parse().expect("a value"));
        let mut lossy = Vec::new();
        assert_eq!(
            all(&headers, X_FORWARDED_FOR, &mut lossy),
            ["203.0.113.9, 10.0.0.1", "10.0.0.2"]
        );
        assert!(lossy.is_empty(), "borrowed, not copied");
        let bad = http::HeaderValue::from_bytes(b"198.51.100.7\xff").expect("a value");
        headers.append(X_FORWARDED_FOR, bad);
        let mut lossy = Vec::new();
        assert_eq!(
            all(&headers, X_FORWARDED_FOR, &mut lossy),
            ["203.0.113.9, 10.0.0.1", "10.0.0.2", "198.51.100.7\u{fffd}"]
        );
        let mut none = Vec::new();
        assert!(all(&headers, http::header::FORWARDED, &mut none).is_empty());
    }
}
