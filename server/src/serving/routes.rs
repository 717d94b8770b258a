//! The router: the JSON API, the Leptos pages and server functions, and the
//! static files of the built site, with the 404 page for everything else.
//! The page's own files (`/pkg/…`, the favicon) are served by tower-http's
//! `ServeDir`, which answers a browser's `If-Modified-Since` with `304`: they
//! are revalidated on every visit (`revalidate.rs`), so that costs a round
//! trip, not the files again; each is sent as its brotli or gzip copy when
//! the browser takes one (`precompress.rs` makes them at start). A file
//! without its copies yet (the first seconds after a start on a fresh build,
//! or a folder the server cannot write) is compressed as it is sent, so no
//! browser ever fetches the bundle raw. Pages, server functions and the API
//! are compressed as they are sent.

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::http::StatusCode;
use axum::routing::{get, post};
use leptos::config::LeptosOptions;
use leptos_axum::{LeptosRoutes, file_and_error_handler, generate_route_list};
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};

use app::{App, shell};

use crate::serving::api;

/// The router's state: the Leptos options behind one pointer. axum clones
/// the state for every request a handler answers, and `LeptosOptions` is a
/// dozen shared strings whose counts two cores would bounce between them
/// (6 % of the server's CPU under load, perf); only the Leptos handlers,
/// which render a page or run a server function, take a copy of the options.
#[derive(Clone)]
struct SiteState(Arc<LeptosOptions>);

impl FromRef<SiteState> for LeptosOptions {
    fn from_ref(state: &SiteState) -> Self {
        LeptosOptions::clone(&state.0)
    }
}

/// Where the hydrated app reports its navigations (the default of
/// `activity::RulesConfig::navigation_report_path`; the app posts here).
pub const NAVIGATION_REPORT: &str = app::NAVIGATION_REPORT;

/// Builds the whole site's router for the given Leptos options.
///
/// Order of resolution: explicit API routes, then the app's pages and server
/// functions (registered by `leptos_routes`, so the app does not list them by
/// hand), then files under the site root; a path that is none of these gets
/// the app's 404 page.
pub fn router(options: LeptosOptions) -> Router {
    let pages = generate_route_list(App);
    let render_shell = {
        let options = options.clone();
        move || shell(options.clone())
    };

    let root = std::path::PathBuf::from(options.site_root.as_ref());
    let pkg = format!("/{}", options.site_pkg_dir);
    // A copy made at start goes out as it is (its Content-Encoding tells
    // the compression layer to leave it); a file without one is compressed
    // on the way (brotli 4: about 25 ms for the 1.2 MB release bundle,
    // where its copy takes 18 s to make at brotli 11). A range is sent raw.
    let files = tower::ServiceBuilder::new()
        .layer(CompressionLayer::new())
        .service(
            ServeDir::new(root.join(options.site_pkg_dir.as_ref()))
                .precompressed_br()
                .precompressed_gzip(),
        );
    let state = SiteState(Arc::new(options));
    Router::new()
        .route("/api/inventory", get(api::inventory))
        // The counter reads the report on its way in; the route only answers.
        .route(NAVIGATION_REPORT, post(|| async { StatusCode::NO_CONTENT }))
        .leptos_routes(&state, pages, render_shell)
        .fallback(file_and_error_handler::<SiteState, _>(shell))
        .with_state(state)
        // Everything above, compressed as it goes out (tower-http's default
        // level: brotli 4, gzip 6 — about 0.4 ms for the Admin tab's 37 KB
        // page, where brotli 11 takes 64 ms); the page's files below have
        // their copies made once, at the slowest and smallest.
        .layer(CompressionLayer::new())
        .nest_service(&pkg, files)
        .route_service("/favicon.ico", ServeFile::new(root.join("favicon.ico")))
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use axum::body::Body;
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    use super::*;

    /// The router on a site folder whose bundle has no copies yet (the
    /// first seconds after a start on a fresh build; a folder the server
    /// cannot write): nothing here makes them.
    fn fresh_site() -> (tempfile::TempDir, Router, Vec<u8>) {
        let root = tempfile::tempdir().expect("a folder");
        std::fs::create_dir(root.path().join("pkg")).expect("pkg/");
        // Compressible like a real bundle, not a run of one byte.
        let wasm: Vec<u8> = (0..200_000u32)
            .flat_map(|n| (n % 251).to_le_bytes())
            .collect();
        std::fs::write(root.path().join("pkg/whocomes.wasm"), &wasm).expect("written");
        let options = LeptosOptions::builder()
            .output_name("whocomes")
            .site_root(root.path().to_str().expect("UTF-8"))
            .site_pkg_dir("pkg")
            .build();
        (root, router(options), wasm)
    }

    async fn fetch(router: &Router, headers: &[(&str, &str)]) -> (http::response::Parts, Vec<u8>) {
        let mut request = http::Request::get("/pkg/whocomes.wasm");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = router
            .clone()
            .oneshot(request.body(Body::empty()).expect("a request"))
            .await
            .expect("answers");
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.expect("a body").to_bytes().to_vec();
        (parts, bytes)
    }

    #[tokio::test]
    async fn a_file_without_its_copies_is_compressed_as_it_is_sent() {
        let (_root, router, wasm) = fresh_site();
        let encoding = |parts: &http::response::Parts| {
            parts
                .headers
                .get(http::header::CONTENT_ENCODING)
                .map(|v| v.to_str().expect("ASCII").to_owned())
        };

        let (parts, bytes) = fetch(&router, &[("accept-encoding", "gzip, deflate, br")]).await;
        assert_eq!(parts.status, StatusCode::OK);
        assert_eq!(encoding(&parts).as_deref(), Some("br"));
        assert!(
            bytes.len() * 3 < wasm.len(),
            "{} of {}",
            bytes.len(),
            wasm.len()
        );
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&bytes[..], 4096)
            .read_to_end(&mut decoded)
            .expect("brotli");
        assert_eq!(decoded, wasm);

        let (parts, bytes) = fetch(&router, &[("accept-encoding", "gzip")]).await;
        assert_eq!(encoding(&parts).as_deref(), Some("gzip"));
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut decoded)
            .expect("gzip");
        assert_eq!(decoded, wasm);

        // Neither taken, or a range asked for: the bytes as they are.
        let (parts, bytes) = fetch(&router, &[]).await;
        assert_eq!(encoding(&parts), None);
        assert_eq!(bytes, wasm);
        let (parts, bytes) = fetch(
            &router,
            &[("accept-encoding", "br"), ("range", "bytes=0-99")],
        )
        .await;
        assert_eq!(parts.status, StatusCode::PARTIAL_CONTENT);
        assert_eq!(encoding(&parts), None);
        assert_eq!(bytes, wasm[..100]);
    }

    #[tokio::test]
    async fn a_copy_made_goes_out_as_it_is() {
        let (root, router, _) = fresh_site();
        // A stand-in copy, to tell it from one compressed on the way.
        std::fs::write(root.path().join("pkg/whocomes.wasm.br"), b"the copy").expect("written");
        let (parts, bytes) = fetch(&router, &[("accept-encoding", "br")]).await;
        assert_eq!(
            parts
                .headers
                .get(http::header::CONTENT_ENCODING)
                .map(|v| v.as_bytes()),
            Some(&b"br"[..])
        );
        assert_eq!(bytes, b"the copy", "sent once, not compressed again");
    }
}
