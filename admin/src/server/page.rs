//! The tab as a page of its own, for an app that is not a Leptos app (or
//! does not want the tab among its own routes): [`Admin::router`] serves
//! the whole page at a path the app chooses, rendered on the server with
//! every figure in it, beside the tab's server functions and exports; with
//! a [`Bundle`], the page loads it and the browser takes the page over
//! (`hydrate_tab` (feature `hydrate`)).

use std::path::PathBuf;

use axum::Router;
use axum::routing::{any, get};
use leptos::config::LeptosOptions;
use leptos::prelude::*;
use tower_http::services::ServeDir;

use super::Admin;
use crate::TabPage;

/// A wasm bundle that hydrates the tab's page: wasm-bindgen's output for a
/// crate whose `#[wasm_bindgen] fn hydrate()` calls
/// `hydrate_tab` (feature `hydrate`) (the README's steps).
#[derive(Clone, Debug)]
pub struct Bundle {
    /// The folder wasm-bindgen wrote (`NAME.js`, `NAME.wasm` or `NAME_bg.wasm`).
    pub folder: PathBuf,
    /// The name it was given (`--out-name`).
    pub name: String,
}

/// The page's document: the tab's page, and the bundle's scripts when the
/// page has one.
fn document() -> impl IntoView {
    let scripts =
        use_context::<LeptosOptions>().map(|options| view! { <HydrationScripts options /> });
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <title>"Who comes"</title>
                {scripts}
            </head>
            <body>
                <TabPage />
            </body>
        </html>
    }
}

impl Admin {
    /// The tab's page at its [`path`](Self::path) (server-rendered), its
    /// server functions and its exports beside it, and its bundle's files
    /// at `{path}/pkg/` if it has one, with this state: merge it into the
    /// app's router. The counter must leave the path out
    /// (`RulesConfig::admin_path`; the `whocomes` builder does).
    pub fn router(&self) -> Router {
        // The tab's reads run as Leptos tasks, on Tokio (set once per
        // process; a Leptos app's own routes may have set it already).
        let _ = any_spawner::Executor::init_tokio();
        let path = self.path().to_owned();
        // Routed so that the app's router hands them to the layer, which
        // answers them; never reached.
        let beside = || async { http::StatusCode::NOT_FOUND };
        let router = Router::new().route(&format!("{path}/api/{{*name}}"), any(beside));
        let router = match self.bundle() {
            None => router.route(&path, get(leptos_axum::render_app_async(document))),
            Some(bundle) => {
                let options = LeptosOptions::builder()
                    .output_name(bundle.name.as_str())
                    .site_pkg_dir(format!("{}/pkg", path.trim_start_matches('/')))
                    .build();
                let page = leptos_axum::render_app_async_with_context(
                    move || provide_context(options.clone()),
                    document,
                );
                router
                    .route(&path, get(page))
                    .nest_service(&format!("{path}/pkg"), ServeDir::new(&bundle.folder))
            }
        };
        router.layer(self.layer())
    }
}
