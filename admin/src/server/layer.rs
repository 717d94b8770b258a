//! [`AdminLayer`]: answers everything beside the tab, at `{tab}/api/…`:
//! its server functions (`{tab}/api/{name}`, handed [`Admin`] as a request
//! extension) and the export downloads,
//! `GET {tab}/api/export/hours.csv|json?range=N` (public unless private) and
//! `GET {tab}/api/export/visitors.csv|json?range=N` (signed in only), or
//! `?from=YYYY-MM-DD&to=YYYY-MM-DD` for the tab's custom range; and
//! Plausible's Stats API (`{tab}/api/v1/stats/…`, `{tab}/api/v2/query`,
//! with a key: `stats_api`). A call
//! that changes something and comes from another site is refused. The
//! functions' registered paths (`/_whocomes/…`, which a Leptos app's
//! routes list) answer nothing. Every other request passes on with
//! [`Admin`] in its extensions, for the tab's page as the app renders it.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::{IntoResponse as _, Response};
use chrono::Utc;
use http::{StatusCode, header};
use tower_layer::Layer;
use tower_service::Service;

use super::Admin;
use super::origin::cross_site;
use crate::api::client::INTERNAL;
use crate::model::EXPORTS;
use crate::span::Span;
use reading::{ExportError, ExportFormat, Rows};

/// The layer an app adds to serve the Admin tab.
#[derive(Clone, Debug)]
pub struct AdminLayer(Admin);

impl AdminLayer {
    pub(super) fn new(admin: Admin) -> Self {
        Self(admin)
    }
}

impl<S> Layer<S> for AdminLayer {
    type Service = AdminService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AdminService {
            inner,
            admin: self.0.clone(),
        }
    }
}

/// The service [`AdminLayer`] wraps around an app.
#[derive(Clone, Debug)]
pub struct AdminService<S> {
    inner: S,
    admin: Admin,
}

impl<S> Service<http::Request<Body>> for AdminService<S>
where
    S: Service<http::Request<Body>, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        if request.uri().path().starts_with(INTERNAL) {
            return Box::pin(async {
                Ok(plain(
                    StatusCode::NOT_FOUND,
                    "the Admin tab's functions are answered beside the tab\n",
                ))
            });
        }
        if request.uri().path() == self.admin.style_path() {
            return Box::pin(async { Ok(crate::style::answer()) });
        }
        if let Some(name) = self.admin.beside_tab(request.uri().path()) {
            let admin = self.admin.clone();
            if matches!(name, "metrics" | "ready") {
                let name = name.to_owned();
                let (parts, _) = request.into_parts();
                return Box::pin(async move { Ok(monitor(&admin, &name, &parts.headers).await) });
            }
            if super::stats_api::is_stats_api(name) {
                let name = name.to_owned();
                return Box::pin(async move {
                    Ok(super::stats_api::answer(&admin, &name, request).await)
                });
            }
            if let Some(file) = name.strip_prefix(EXPORTS) {
                let file = file.to_owned();
                let (parts, _) = request.into_parts();
                return Box::pin(async move { Ok(export(&admin, &file, &parts).await) });
            }
            return Box::pin(function(admin, name.to_owned(), request));
        }
        // Anything a signed-in admin reads is never kept by a cache.
        // (The tab's page itself says so as it renders: `csp::send`.)
        let private = self.admin.signed_in(request.headers(), Utc::now());
        request.extensions_mut().insert(self.admin.clone());
        let answer = self.inner.call(request);
        Box::pin(async move {
            let mut response = answer.await?;
            if private {
                response.headers_mut().insert(
                    header::CACHE_CONTROL,
                    http::HeaderValue::from_static("no-store"),
                );
            }
            Ok(response)
        })
    }
}

/// Calls the tab's function `name` with this request: a call that changes
/// something from another site is refused; the answer is never kept by a
/// cache.
async fn function(
    admin: Admin,
    name: String,
    mut request: http::Request<Body>,
) -> Result<Response, Infallible> {
    let writes = !matches!(*request.method(), http::Method::GET | http::Method::HEAD);
    if writes && cross_site(request.headers()) {
        return Ok(plain(
            StatusCode::FORBIDDEN,
            "the Admin tab refuses requests from other sites\n",
        ));
    }
    let registered = match request.uri().query() {
        Some(query) => format!("{INTERNAL}{name}?{query}"),
        None => format!("{INTERNAL}{name}"),
    };
    let Ok(uri) = registered.parse::<http::Uri>() else {
        return Ok(plain(StatusCode::NOT_FOUND, "no such function\n"));
    };
    *request.uri_mut() = uri;
    request.extensions_mut().insert(admin);
    let mut response = leptos_axum::handle_server_fns(request)
        .await
        .into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
    Ok(response)
}

fn plain(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        message.to_owned(),
    )
        .into_response()
}

/// A store that cannot be read: the reason goes to the server log only
/// (it may name a host, a database or a file).
fn refused(unreadable: &reading::Unreadable) -> Response {
    let (store, error) = (&unreadable.store, &unreadable.error);
    tracing::warn!(%store, %error, "an export could not read a store");
    plain(
        StatusCode::SERVICE_UNAVAILABLE,
        &format!("the store {store} cannot be read right now; the server log says why\n"),
    )
}

/// `/metrics` or `/ready` beside the tab: a monitor's figures, for a
/// signed-in admin only.
async fn monitor(admin: &Admin, name: &str, headers: &http::HeaderMap) -> Response {
    if !admin.signed_in(headers, Utc::now()) {
        return plain(StatusCode::UNAUTHORIZED, "sign in to the Admin tab first\n");
    }
    if name == "metrics" {
        super::operations::metrics_answer(admin).await
    } else {
        super::operations::ready_answer(admin).await
    }
}

async fn export(admin: &Admin, file: &str, request: &http::request::Parts) -> Response {
    if request.method != http::Method::GET {
        return plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "exports are read with GET\n",
        );
    }
    let now = Utc::now();
    let Some((Ok(rows), Ok(format))) = file
        .rsplit_once('.')
        .map(|(what, extension)| (what.parse::<Rows>(), extension.parse::<ExportFormat>()))
    else {
        return plain(StatusCode::NOT_FOUND, "no such export\n");
    };
    let allowed = match rows {
        Rows::Visitors => admin.signed_in(&request.headers, now),
        Rows::Hours | Rows::Notes | Rows::Goals => admin.may_read_aggregates(&request.headers, now),
    };
    if !allowed {
        return plain(StatusCode::UNAUTHORIZED, "sign in to the Admin tab first\n");
    }
    let today = now.date_naive();
    let span = match Span::read_export(request.uri.query().unwrap_or(""), today) {
        Ok(span) => span,
        Err(error) => return plain(StatusCode::BAD_REQUEST, &format!("{error}\n")),
    };
    let (since, until) = (span.first(today), span.call().1);
    // Read and written a page at a time on a task of its own; the answer
    // holds at most a few pages, however big the export.
    let (chunks, mut received) = tokio::sync::mpsc::channel::<Vec<u8>>(2);
    let reading = admin.reading().clone();
    let mut writing = tokio::spawn(async move {
        reading
            .export_pages(rows, format, since, until, chunks)
            .await
    });
    // The first page decides the answer: a store that cannot be read is
    // said with its status, not as a cut file.
    let mut ended_early = false;
    let first = tokio::select! {
        first = received.recv() => first,
        ended = &mut writing => {
            ended_early = true;
            let ended = ended.unwrap_or_else(|error| {
                Err(ExportError::Io(std::io::Error::other(error.to_string())))
            });
            match ended {
                Err(ExportError::Unreadable(unreadable)) => return refused(&unreadable),
                Err(error) => {
                    tracing::error!(%error, "cannot write an export");
                    return plain(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "the export could not be written; the server log says why\n",
                    );
                }
                Ok(_) => received.recv().await,
            }
        }
    };
    if !ended_early {
        tokio::spawn(async move {
            if let Ok(Err(error)) = writing.await {
                tracing::error!(%error, "an export stopped part way");
            }
        });
    }
    let body = Body::new(Chunks {
        first,
        rest: received,
    });
    let what = rows.as_str();
    let (extension, media_type) = format.describe();
    let days = match span {
        Span::Last(days) => format!("{days}d"),
        Span::Between { from, to } => format!("{from}-to-{to}"),
    };
    let disposition = format!("attachment; filename=\"whocomes-{what}-{days}.{extension}\"");
    Response::builder()
        .header(header::CONTENT_TYPE, media_type)
        .header(header::CONTENT_DISPOSITION, disposition)
        .header(header::CACHE_CONTROL, "no-store")
        .body(body)
        .unwrap_or_else(|_| {
            plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot build the answer\n",
            )
        })
}

/// An export's body: its chunks as the writing task hands them over. If
/// the task stops part way, the body ends short (the log says why).
struct Chunks {
    first: Option<Vec<u8>>,
    rest: tokio::sync::mpsc::Receiver<Vec<u8>>,
}

impl http_body::Body for Chunks {
    type Data = axum::body::Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(http_body::Frame::data(first.into()))));
        }
        self.rest
            .poll_recv(cx)
            .map(|chunk| chunk.map(|chunk| Ok(http_body::Frame::data(chunk.into()))))
    }
}
