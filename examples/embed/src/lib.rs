//! Embedding whocomes in your own Leptos + axum app: the counting layer, the
//! Admin tab at a route, and the tab's one layer. Its server functions come
//! with the `whocomes-admin` crate; nothing is registered by hand.
//!
//! [`site`] builds the app (`src/main.rs` serves it); `tests/embed.rs`
//! checks that it serves the tab and counts a visit.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ConnectInfo;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes as _, generate_route_list};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{SsrMode, StaticSegment};
use whocomes_activity::address::TrustedProxies;
use whocomes_activity::recording::{RecorderConfig, WriterHandle};
use whocomes_activity::store::{ActivityStore, Retention};
use whocomes_activity::{Counter, Rules, StoreName, VisitorKey};
use whocomes_admin::AdminTab;
use whocomes_admin::server::{Admin, AdminConfig};
use whocomes_sqlite::SqliteStore;

/// Your app, with the Admin tab at `/admin`.
#[component]
fn MyApp() -> impl IntoView {
    view! {
        <Router>
            <Routes fallback=|| "Not found.">
                <Route path=StaticSegment("") view=|| view! { <h1>"My site"</h1> } />
                // Rendered whole on the server, so the charts read without JavaScript.
                <Route path=StaticSegment("admin") view=AdminTab ssr=SsrMode::Async />
            </Routes>
        </Router>
    }
}

fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <HydrationScripts options />
            </head>
            <body>
                <MyApp />
            </body>
        </html>
    }
}

/// How the example site is set up.
#[derive(Debug)]
pub struct SiteConfig {
    /// The SQLite file that keeps the activity.
    pub database: std::path::PathBuf,
    /// The secret the visitor tokens are keyed with.
    pub key: String,
    /// The admin password, if anybody may sign in.
    pub password: Option<String>,
    /// Where it will listen.
    pub address: SocketAddr,
}

/// The site: its router, and the writer to finish once it stops serving.
pub struct Site {
    /// Serve it with `into_make_service_with_connect_info::<SocketAddr>()`.
    pub router: axum::Router,
    /// Drains the hits still queued: await `finish` after the server stops.
    pub writer: WriterHandle,
    /// The store the site counts into.
    pub store: Arc<dyn ActivityStore>,
}

/// Opens the store and builds the app with whocomes in it.
pub async fn site(config: SiteConfig) -> Result<Site, Box<dyn std::error::Error>> {
    let name = StoreName::parse("my-site")?;
    let database = config.database.to_str().ok_or("a UTF-8 path")?;
    let store: Arc<dyn ActivityStore> =
        Arc::new(SqliteStore::open(database, name.clone(), Retention::default()).await?);

    // 1. Counting: every request passes the layer; hits go to the store in batches.
    let counter = Counter::new(
        Rules::default(),
        VisitorKey::from_text(&config.key)?,
        TrustedProxies::default(),
        name,
    );
    let recorder = RecorderConfig {
        peer_address: |extensions| {
            extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|info| info.0.ip())
        },
        ..RecorderConfig::default()
    };
    let (counting, writer) = whocomes_activity::recording::start(counter, store.clone(), recorder);

    // 2. The Admin tab's state and its one layer.
    let admin = Admin::new(AdminConfig {
        stores: vec![store.clone()],
        recorder: Some(writer.stats()),
        password: config.password,
        ..AdminConfig::default()
    })?;

    // 3. Your Leptos app, with both layers around it.
    let options = LeptosOptions::builder()
        .output_name("embed")
        .site_addr(config.address)
        .build();
    let routes = generate_route_list(MyApp);
    let router = axum::Router::new()
        .leptos_routes(&options, routes, {
            let options = options.clone();
            move || shell(options.clone())
        })
        .with_state(options)
        .layer(admin.layer())
        .layer(counting);
    Ok(Site {
        router,
        writer,
        store,
    })
}
