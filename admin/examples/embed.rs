//! Embedding whocomes in your own Leptos + axum app: the counting layer, the
//! Admin tab at a route, and the tab's one layer. Its server functions come
//! with the `admin` crate; nothing is registered by hand.
//!
//! ```sh
//! ADMIN_PASSWORD='a long passphrase' cargo run -p admin --example embed --features ssr
//! # then open http://127.0.0.1:3000/admin (server-rendered; add your wasm
//! # bundle as usual to hydrate it)
//! ```
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use activity::address::TrustedProxies;
use activity::recording::RecorderConfig;
use activity::store::{ActivityStore, Retention};
use activity::{Counter, Rules, StoreName, VisitorKey};
use activity_sqlite::SqliteStore;
use admin::AdminTab;
use admin::server::{Admin, AdminConfig};
use axum::extract::ConnectInfo;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes as _, generate_route_list};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{SsrMode, StaticSegment};

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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = std::env::temp_dir().join("whocomes-embed-example");
    std::fs::create_dir_all(&folder)?;
    let name = StoreName::parse("my-site")?;
    let path = folder.join("activity.db");
    let store: Arc<dyn ActivityStore> = Arc::new(
        SqliteStore::open(
            path.to_str().ok_or("a UTF-8 path")?,
            name.clone(),
            Retention::default(),
        )
        .await?,
    );

    // 1. Counting: every request passes the layer; hits go to the store in batches.
    let counter = Counter::new(
        Rules::default(),
        VisitorKey::from_text(&std::env::var("SITE_KEY").unwrap_or_else(|_| "change me".into()))?,
        TrustedProxies::default(),
        name,
    );
    let config = RecorderConfig {
        peer_address: |extensions| {
            extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|info| info.0.ip())
        },
        ..RecorderConfig::default()
    };
    let (counting, writer) = activity::recording::start(counter, store.clone(), config);

    // 2. The Admin tab's state and its one layer.
    let admin = Admin::new(AdminConfig {
        stores: vec![store],
        recorder: Some(writer.stats()),
        password: std::env::var("ADMIN_PASSWORD").ok(),
        ..AdminConfig::default()
    })?;

    let address: SocketAddr = "127.0.0.1:3000".parse()?;
    let options = LeptosOptions::builder()
        .output_name("embed")
        .site_addr(address)
        .build();
    let routes = generate_route_list(MyApp);
    let app = axum::Router::new()
        .leptos_routes(&options, routes, {
            let options = options.clone();
            move || shell(options.clone())
        })
        .with_state(options)
        .layer(admin.layer())
        .layer(counting);

    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!("serving on http://{address}/admin");
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await?;
    Ok(())
}
