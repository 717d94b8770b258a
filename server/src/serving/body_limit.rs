//! The largest request body the site takes. A body over [`MAX_BODY_BYTES`]
//! is answered 413 — at once when its length is declared, and when it
//! streams in chunks past the limit, in place of whatever the handler made
//! of the cut body (a server function would answer 500). The limit sits
//! inside the counting layer, so a refused request is still counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use http::StatusCode;
use http_body_util::{BodyExt as _, LengthLimitError, Limited};

/// The largest request body the site takes: its forms and server functions
/// send a few hundred bytes.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Refuses a request body over [`MAX_BODY_BYTES`] with 413.
pub async fn limit(request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return too_large();
    }
    let over = Arc::new(AtomicBool::new(false));
    let (parts, body) = request.into_parts();
    let body = Limited::new(body, MAX_BODY_BYTES).map_err({
        let over = over.clone();
        move |error| {
            if error.is::<LengthLimitError>() {
                over.store(true, Ordering::Relaxed);
            }
            error
        }
    });
    let response = next.run(Request::from_parts(parts, Body::new(body))).await;
    if over.load(Ordering::Relaxed) {
        return too_large();
    }
    response
}

fn too_large() -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("a request body is at most {MAX_BODY_BYTES} bytes\n"),
    )
        .into_response()
}
