//! The router: the JSON API, the Leptos pages and server functions, and the
//! static files of the built site, with the 404 page for everything else.
//! The page's own files (`/pkg/…`, the favicon) are served by tower-http's
//! `ServeDir`, which answers a browser's `If-Modified-Since` with `304`: they
//! are revalidated on every visit (`revalidate.rs`), so that costs a round
//! trip, not the files again; each is sent as its brotli or gzip copy when
//! the browser takes one (`precompress.rs` makes them at start). Pages,
//! server functions and the API are compressed as they are sent.

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

use crate::api;

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
    let files = ServeDir::new(root.join(options.site_pkg_dir.as_ref()))
        .precompressed_br()
        .precompressed_gzip();
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
