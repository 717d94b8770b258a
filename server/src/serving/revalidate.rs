//! `Cache-Control: no-cache` on the files every page is made of (the build
//! output under `/pkg/` — stylesheet, script, wasm — and the favicon): a
//! browser keeps them but asks again on each visit (a `304 Not Modified`
//! against their `Last-Modified`), so a returning reader with a warm cache
//! still shows the counter a browser's evidence (SPEC §3). The build's file
//! names carry no hash, so this is also what keeps a deploy from leaving
//! readers on yesterday's wasm. A handler's own `Cache-Control` is kept.
//! `serve --files-max-age N` sends `max-age=N` instead: the browser keeps
//! the files without asking, and the hydrated app reports a page drawn from
//! its cache (the browser's sign the server did not see).

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderValue, header};

/// The paths whose answers are revalidated.
fn revalidated(path: &str) -> bool {
    path.starts_with("/pkg/") || path == "/favicon.ico"
}

/// Adds the header above to the answers for the page's files in `router`:
/// `no-cache` when `max_age` is 0, else `public, max-age=MAX_AGE`.
pub fn page_files(router: Router, max_age: u32) -> Router {
    let value = if max_age == 0 {
        HeaderValue::from_static("no-cache")
    } else {
        HeaderValue::from_str(&format!("public, max-age={max_age}"))
            .unwrap_or(HeaderValue::from_static("no-cache"))
    };
    router.layer(axum::middleware::from_fn(move |request, next| {
        cache_control(value.clone(), request, next)
    }))
}

async fn cache_control(value: HeaderValue, request: Request, next: Next) -> Response {
    let files = revalidated(request.uri().path());
    let mut response = next.run(request).await;
    if files && !response.headers().contains_key(header::CACHE_CONTROL) {
        response.headers_mut().insert(header::CACHE_CONTROL, value);
    }
    response
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_files_are_revalidated_and_pages_are_not() {
        assert!(super::revalidated("/pkg/whocomes.css"));
        assert!(super::revalidated("/pkg/whocomes.wasm"));
        assert!(super::revalidated("/favicon.ico"));
        assert!(!super::revalidated("/about"));
        assert!(!super::revalidated("/resume.pdf"));
    }
}
