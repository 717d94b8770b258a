//! Serves the example site on 127.0.0.1:3000 (`PORT` to change it) until
//! Ctrl-C, keeping its activity in the system's temporary folder.
//!
//! ```sh
//! ADMIN_PASSWORD='a long passphrase' cargo run -p whocomes-embed-example
//! # then open http://127.0.0.1:3000/admin (server-rendered; add your wasm
//! # bundle as usual to hydrate it)
//! ```
#![forbid(unsafe_code)]

use std::net::SocketAddr;

use whocomes_embed_example::{SiteConfig, site};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = std::env::temp_dir().join("whocomes-embed-example");
    std::fs::create_dir_all(&folder)?;
    let port: u16 = std::env::var("PORT").map_or(Ok(3000), |port| port.parse())?;
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let site = site(SiteConfig {
        database: folder.join("activity.db"),
        key: std::env::var("SITE_KEY").unwrap_or_else(|_| "change me".into()),
        password: std::env::var("ADMIN_PASSWORD").ok(),
        address,
    })
    .await?;

    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!("serving on http://{address}/admin");
    axum::serve(
        listener,
        site.router
            .into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    let written = site.writer.finish().await;
    eprintln!("stopped; {} hits written", written.written);
    Ok(())
}
