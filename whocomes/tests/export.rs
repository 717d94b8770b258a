//! An app's own code reads the export as the tab's downloads serve it:
//! requests counted through the layer of a `Whocomes` on a real SQLite
//! file, written, then streamed back as CSV and JSON a chunk at a time.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::routing::get;
use futures::StreamExt as _;
use tower::ServiceExt as _;
use whocomes::Whocomes;
use whocomes::export::{ExportFormat, Rows};

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

async fn collect(whocomes: &Whocomes, rows: Rows, format: ExportFormat) -> String {
    let since = chrono::Utc::now().date_naive() - chrono::Days::new(1);
    let mut export = Box::pin(whocomes.export(rows, format, since, None));
    let mut bytes = Vec::new();
    let mut chunks = 0;
    while let Some(chunk) = export.next().await {
        bytes.extend(chunk.expect("every store read"));
        chunks += 1;
    }
    assert!(chunks >= 2, "the rows, then the end: {chunks} chunks");
    String::from_utf8(bytes).expect("text")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_apps_code_streams_the_export_of_what_was_counted() {
    let folder = tempfile::tempdir().expect("a folder");
    let whocomes = Whocomes::builder()
        .data_dir(folder.path())
        .write_every(Duration::from_millis(20))
        .build()
        .await
        .expect("builds");
    let app = Router::new()
        .route("/", get(|| async { "home" }))
        .route("/pricing", get(|| async { "pricing" }))
        .layer(whocomes.layer());
    for (person, path) in [
        ("198.51.100.7", "/"),
        ("198.51.100.7", "/pricing"),
        ("203.0.113.9", "/"),
    ] {
        let mut request = Request::get(path)
            .header("user-agent", FIREFOX)
            .header("accept", "text/html,application/xhtml+xml")
            .body(Body::empty())
            .expect("a request");
        let peer: SocketAddr = format!("{person}:50000").parse().expect("an address");
        request.extensions_mut().insert(ConnectInfo(peer));
        let answer = app.clone().oneshot(request).await.expect("answers");
        assert_eq!(answer.status(), 200, "{path}");
    }
    let started = Instant::now();
    while whocomes.stats().snapshot().written < 3 {
        assert!(started.elapsed() < Duration::from_secs(20), "written");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let hours = collect(&whocomes, Rows::Hours, ExportFormat::Csv).await;
    let mut lines = hours.lines().filter(|line| !line.is_empty());
    assert!(
        lines
            .next()
            .expect("a header")
            .starts_with("store,hour,path"),
        "{hours}"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2, "two paths this hour: {hours}");
    assert!(
        rows.iter().any(|row| row.contains(",/pricing,1,")),
        "{hours}"
    );
    assert!(rows.iter().any(|row| row.contains(",/,2,")), "{hours}");

    let visitors = collect(&whocomes, Rows::Visitors, ExportFormat::Json).await;
    let visitors: serde_json::Value = serde_json::from_str(&visitors).expect("JSON");
    assert_eq!(visitors.as_array().map(Vec::len), Some(2), "{visitors}");
    for row in visitors.as_array().into_iter().flatten() {
        let text = row.to_string();
        assert!(
            !text.contains("198.51.100.7") && !text.contains(FIREFOX),
            "{text}"
        );
    }
    whocomes.shutdown().await;
}
