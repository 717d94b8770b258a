//! The tab as a page of its own, for an app that is not a Leptos app (or
//! does not want the tab among its own routes): [`Admin::router`] serves
//! the whole page at a path the app chooses, rendered on the server with
//! every figure in it, beside the tab's server functions and exports.

use axum::Router;
use axum::routing::{any, get};
use leptos::prelude::*;
use leptos_router::components::Router as Routing;

use super::Admin;
use crate::AdminTab;

/// The page's document: the tab, inside a router of its own (its views are
/// its page's query).
fn document() -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <title>"Who comes"</title>
            </head>
            <body>
                <Routing>
                    <AdminTab />
                </Routing>
            </body>
        </html>
    }
}

impl Admin {
    /// The tab's page at its [`path`](Self::path) (server-rendered), its
    /// server functions and its exports beside it, with this state: merge
    /// it into the app's router. The counter must leave the path out
    /// (`RulesConfig::admin_path`; the `whocomes` builder does).
    pub fn router(&self) -> Router {
        // The tab's reads run as Leptos tasks, on Tokio (set once per
        // process; a Leptos app's own routes may have set it already).
        let _ = any_spawner::Executor::init_tokio();
        let page = leptos_axum::render_app_async(document);
        // Routed so that the app's router hands them to the layer, which
        // answers them; never reached.
        let beside = || async { http::StatusCode::NOT_FOUND };
        Router::new()
            .route(self.path(), get(page))
            .route(&format!("{}/api/{{*name}}", self.path()), any(beside))
            .layer(self.layer())
    }
}
