//! [`AdminLayer`]: hands [`Admin`] to the tab's server functions (as a
//! request extension) and answers the export downloads itself:
//! `GET {EXPORT_PREFIX}hours.csv|json?days=N` (public unless private) and
//! `GET {EXPORT_PREFIX}visitors.csv|json?days=N` (signed in only). A
//! request that changes something and comes from another site is refused.

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
use super::export::{ExportFormat, write_hours, write_visitors};
use super::origin::{FUNCTIONS, cross_site};
use super::overview::{first_day, midnight_of};
use crate::model::{EXPORT_PREFIX, range_or_default};

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

impl<S, B> Service<http::Request<B>> for AdminService<S>
where
    S: Service<http::Request<B>, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        if let Some(file) = request.uri().path().strip_prefix(EXPORT_PREFIX) {
            let admin = self.admin.clone();
            let file = file.to_owned();
            let (parts, _) = request.into_parts();
            return Box::pin(async move { Ok(export(&admin, &file, &parts).await) });
        }
        let writes = !matches!(*request.method(), http::Method::GET | http::Method::HEAD);
        if writes && request.uri().path().starts_with(FUNCTIONS) && cross_site(request.headers()) {
            return Box::pin(async {
                Ok(plain(
                    StatusCode::FORBIDDEN,
                    "the Admin tab refuses requests from other sites\n",
                ))
            });
        }
        request.extensions_mut().insert(self.admin.clone());
        Box::pin(self.inner.call(request))
    }
}

/// The `days` of a query (`days=90`), or the default range.
fn days_of(query: Option<&str>) -> u16 {
    let days = query
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("days="))
        .and_then(|days| days.parse().ok())
        .unwrap_or(0);
    range_or_default(days)
}

fn plain(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        message.to_owned(),
    )
        .into_response()
}

async fn export(admin: &Admin, file: &str, request: &http::request::Parts) -> Response {
    if request.method != http::Method::GET {
        return plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "exports are read with GET\n",
        );
    }
    let now = Utc::now();
    let (what, format) = match file.rsplit_once('.') {
        Some((what, "csv")) => (what, ExportFormat::Csv),
        Some((what, "json")) => (what, ExportFormat::Json),
        _ => return plain(StatusCode::NOT_FOUND, "no such export\n"),
    };
    let visitors = match what {
        "hours" => false,
        "visitors" => true,
        _ => return plain(StatusCode::NOT_FOUND, "no such export\n"),
    };
    let allowed = if visitors {
        admin.signed_in(&request.headers, now)
    } else {
        admin.may_read_aggregates(&request.headers, now)
    };
    if !allowed {
        return plain(StatusCode::UNAUTHORIZED, "sign in to the Admin tab first\n");
    }
    let range = days_of(request.uri.query());
    let since = first_day(now.date_naive(), range);
    let mut body = Vec::new();
    let written = if visitors {
        let mut rows = Vec::new();
        for store in admin.stores() {
            match store.visitors_since(since).await {
                Ok(more) => rows.extend(more),
                Err(error) => return plain(StatusCode::SERVICE_UNAVAILABLE, &format!("{error}\n")),
            }
        }
        write_visitors(&rows, format, &mut body)
    } else {
        let mut rows = Vec::new();
        for store in admin.stores() {
            match store.hours_since(midnight_of(since)).await {
                Ok(more) => rows.extend(more),
                Err(error) => return plain(StatusCode::SERVICE_UNAVAILABLE, &format!("{error}\n")),
            }
        }
        write_hours(&rows, format, &mut body)
    };
    if let Err(error) = written {
        return plain(StatusCode::INTERNAL_SERVER_ERROR, &format!("{error}\n"));
    }
    let (extension, media_type) = format.describe();
    let disposition = format!("attachment; filename=\"whocomes-{what}-{range}d.{extension}\"");
    Response::builder()
        .header(header::CONTENT_TYPE, media_type)
        .header(header::CONTENT_DISPOSITION, disposition)
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::from(body))
        .unwrap_or_else(|_| {
            plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot build the answer\n",
            )
        })
}
