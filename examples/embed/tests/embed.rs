//! The example app, as an embedder builds it: a visitor's page is counted
//! and the Admin tab is served at /admin, server-rendered.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use tower::ServiceExt as _;
use whocomes_embed_example::{SiteConfig, site};

/// A request from a browser at `peer`.
fn get(path: &str, peer: [u8; 4]) -> http::Request<Body> {
    let mut request = http::Request::get(path)
        .header(
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        )
        .header("accept", "text/html")
        .body(Body::empty())
        .expect("a request");
    request
        .extensions_mut()
        .insert(ConnectInfo(SocketAddr::from((peer, 40_000))));
    request
}

async fn text(response: axum::response::Response) -> String {
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 22)
        .await
        .expect("a body");
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[tokio::test]
async fn the_embedded_site_counts_a_visit_and_serves_the_tab() {
    let folder = tempfile::tempdir().expect("a folder");
    let site = site(SiteConfig {
        database: folder.path().join("activity.db"),
        key: "a test key".to_owned(),
        password: None,
        address: SocketAddr::from(([127, 0, 0, 1], 3000)),
    })
    .await
    .expect("builds");

    let home = site
        .router
        .clone()
        .oneshot(get("/", [198, 51, 100, 7]))
        .await
        .expect("answers");
    assert_eq!(home.status(), 200);
    assert!(text(home).await.contains("My site"));

    let tab = site
        .router
        .clone()
        .oneshot(get("/admin", [198, 51, 100, 7]))
        .await
        .expect("answers");
    assert_eq!(tab.status(), 200);
    let page = text(tab).await;
    assert!(page.contains("Who comes"), "the tab's heading");
    assert!(page.contains("<svg"), "the chart, drawn on the server");

    let written = site.writer.finish().await;
    assert!(written.written >= 1, "the visit was written: {written:?}");
    let hours = site
        .store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    assert!(
        hours
            .iter()
            .any(|hour| hour.path == "/" && hour.requests == 1),
        "the home page was counted once: {hours:?}"
    );
}
