//! The security headers every response carries, whatever answered it:
//! `X-Content-Type-Options: nosniff` and `Referrer-Policy` (tower-http's
//! header layers, kept if a handler set its own), and HSTS only when the
//! request came over HTTPS as a trusted proxy says (a site served over
//! plain HTTP must never be told to insist on HTTPS). The Admin tab adds
//! its own: a Content-Security-Policy with `frame-ancestors 'none'`, and
//! `Cache-Control: no-store` on its answers and on anything a signed-in
//! admin reads.

use admin::server::Admin;
use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// What HSTS asks of a browser: HTTPS only, for a year.
const HSTS: HeaderValue = HeaderValue::from_static("max-age=31536000");

/// Adds the headers above to every response of `router`; `admin` tells
/// whether a request came over HTTPS through a trusted proxy.
pub fn secure(router: Router, admin: Admin) -> Router {
    router
        .layer(axum::middleware::from_fn_with_state(admin, hsts))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            HeaderName::from_static("referrer-policy"),
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        ))
}

async fn hsts(State(admin): State<Admin>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let https = admin.https(&parts);
    let mut response = next.run(Request::from_parts(parts, body)).await;
    if https {
        response
            .headers_mut()
            .insert(header::STRICT_TRANSPORT_SECURITY, HSTS);
    }
    response
}
