//! The real app counting into a real SQLite file: every kind of request
//! leaves exactly the rows it should, and stopping loses nothing.
#![allow(clippy::print_stdout)]

use activity::rows::VisitorDay;
use reqwest::Method;

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// A request "from" `client`, as the trusted proxy on 127.0.0.1 reports it,
/// with the headers Firefox sends with a link's page load.
async fn from(app: &TestApp, method: Method, path: &str, client: &str, agent: &str) -> u16 {
    app.client
        .request(method, app.url(path))
        .header("x-forwarded-for", client)
        .header("user-agent", agent)
        .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .header("sec-fetch-dest", "document")
        .header("sec-fetch-mode", "navigate")
        .header("sec-fetch-site", "cross-site")
        .header("referer", "https://www.linkedin.com/in/someone?trk=x")
        .send()
        .await
        .expect("the server answers")
        .status()
        .as_u16()
}

fn visitor<'a>(visitors: &'a [VisitorDay], network: &str) -> &'a VisitorDay {
    visitors
        .iter()
        .find(|v| v.network.as_str() == network)
        .unwrap_or_else(|| panic!("a visitor from {network}"))
}

#[tokio::test]
async fn each_kind_of_request_leaves_exactly_its_rows() {
    let app = spawn_app_with(&["--own-address=none", "--trusted-proxy=127.0.0.1"]).await;
    // Counted: a person's pages, API call and 404; a scanner; a crawler; a monitor.
    assert_eq!(
        from(&app, Method::GET, "/", "203.0.113.7", BROWSER).await,
        200
    );
    assert_eq!(
        from(
            &app,
            Method::GET,
            "/about?email=jane@example.com",
            "203.0.113.7:4711",
            BROWSER
        )
        .await,
        200
    );
    assert_eq!(
        from(&app, Method::GET, "/api/inventory", "203.0.113.7", BROWSER).await,
        200
    );
    assert_eq!(
        from(&app, Method::GET, "/no/such/page", "203.0.113.7", BROWSER).await,
        404
    );
    assert_eq!(
        from(&app, Method::GET, "/wp-login.php", "198.51.100.1", BROWSER).await,
        404
    );
    assert_eq!(
        from(&app, Method::GET, "/", "198.51.100.2", "curl/8.5.0").await,
        200
    );
    assert_eq!(
        from(
            &app,
            Method::GET,
            "/",
            "198.51.100.3",
            "uptime-check whocomes-SelfRead"
        )
        .await,
        200
    );
    // Not counted: assets, root files, the Admin tab, preflights.
    for path in ["/favicon.ico", "/pkg/whocomes.js", "/robots.txt", "/admin"] {
        from(&app, Method::GET, path, "203.0.113.7", BROWSER).await;
    }
    from(
        &app,
        Method::OPTIONS,
        "/api/inventory",
        "203.0.113.7",
        BROWSER,
    )
    .await;

    let (hours, visitors) = app.stop_and_read().await;
    let total: u64 = hours.iter().map(|h| h.requests).sum();
    assert_eq!(total, 7, "seven counted requests: {hours:?}");
    let mut paths: Vec<&str> = hours.iter().map(|h| h.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    assert_eq!(
        paths,
        [activity::path::NOT_FOUND, "/", "/about", "/api/inventory",],
        "what the site lacks (/no/such/page, /wp-login.php) is one path"
    );
    assert_eq!(hours.iter().map(|h| h.bots).sum::<u64>(), 2);
    assert_eq!(hours.iter().map(|h| h.self_reads).sum::<u64>(), 1);

    assert_eq!(visitors.len(), 4, "four visitors: {visitors:?}");
    let person = visitor(&visitors, "203.0.113.x");
    assert_eq!((person.requests, person.bots, person.self_reads), (4, 0, 0));
    assert_eq!(
        person.evidence,
        activity::evidence::Evidence::FILES,
        "its favicon and script marked it as a browser"
    );
    let sources: Vec<String> = person
        .sources
        .iter()
        .map(|s| s.source.to_string())
        .collect();
    // Page loads only: `/`, `/about` and the 404 page; not the API call.
    assert_eq!(sources, ["www.linkedin.com"]);
    assert_eq!(person.sources[0].page_loads, 3);
    let scanner = visitor(&visitors, "198.51.100.x");
    assert!(scanner.requests == 1 && (scanner.bots == 1 || scanner.self_reads == 1));
    let bots: u64 = visitors.iter().map(|v| v.bots).sum();
    let own: u64 = visitors.iter().map(|v| v.self_reads).sum();
    assert_eq!((bots, own), (2, 1));
}

#[tokio::test]
async fn forwarding_headers_are_ignored_without_trusted_proxies() {
    let app = spawn_app().await;
    from(&app, Method::GET, "/", "203.0.113.7", BROWSER).await;
    let (_, visitors) = app.stop_and_read().await;
    assert_eq!(visitors.len(), 1);
    let only = &visitors[0];
    assert_eq!(
        only.network.as_str(),
        "127.0.0.x",
        "the peer, not the header"
    );
    assert_eq!(only.self_reads, 1, "loopback is the site's own read");
}

#[tokio::test]
async fn stopping_under_load_writes_every_queued_hit() {
    let mut app = spawn_app_with(&[
        "--own-address=none",
        "--trusted-proxy=127.0.0.1",
        "--flush-ms=5000",
    ])
    .await;
    let requests = (0..300).map(|i| {
        let client = app.client.clone();
        let url = app.url(&format!("/about?n={i}"));
        async move {
            client
                .get(url)
                .header("x-forwarded-for", format!("203.0.113.{}", i % 200))
                .header("user-agent", BROWSER)
                .send()
                .await
                .map(|r| r.status().as_u16())
        }
    });
    let answers = futures::future::join_all(requests).await;
    assert!(
        answers.iter().all(|a| matches!(a, Ok(200))),
        "every request served"
    );
    let stats = app.recorder_stats();
    assert_eq!(stats.dropped, 0);
    app.stop().await.expect("stops");
    let (hours, visitors) = app.stop_and_read().await;
    assert_eq!(
        hours.iter().map(|h| h.requests).sum::<u64>(),
        300,
        "nothing lost at stop"
    );
    assert_eq!(visitors.len(), 200);
}

#[tokio::test]
async fn serve_counts_into_postgres_when_told_to() {
    let Some(url) = activity_postgres::testing::fresh_database().await else {
        println!(
            "SKIPPED: TEST_DATABASE_URL is not set (scripts/test starts a PostgreSQL and sets it)"
        );
        return;
    };
    let store_url = format!("--store-url={url}");
    let mut app = spawn_app_with(&[
        "--own-address=none",
        "--trusted-proxy=127.0.0.1",
        &store_url,
    ])
    .await;
    assert_eq!(
        from(&app, Method::GET, "/", "203.0.113.7", BROWSER).await,
        200
    );
    assert_eq!(
        from(&app, Method::GET, "/wp-login.php", "198.51.100.1", BROWSER).await,
        404
    );
    app.stop().await.expect("stops");

    let store = activity_postgres::PostgresStore::open(
        &url,
        activity::StoreName::parse("postgres").expect("the default name for a postgres URL"),
        activity::store::Retention::default(),
    )
    .await
    .expect("connects");
    use activity::store::ActivityStore as _;
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    assert_eq!(hours.iter().map(|h| h.requests).sum::<u64>(), 2);
    assert_eq!(hours.iter().map(|h| h.bots).sum::<u64>(), 1);
    store.close().await;
}

#[tokio::test]
async fn a_reported_navigation_is_a_page_load_of_the_new_path() {
    let app = spawn_app_with(&["--own-address=none", "--trusted-proxy=127.0.0.1"]).await;
    let answer = app
        .client
        .post(app.url("/api/whocomes/navigation?to=%2Fresume%3Fref%3Dcv"))
        .header("x-forwarded-for", "203.0.113.7")
        .header("user-agent", BROWSER)
        .header("sec-fetch-dest", "empty")
        .send()
        .await
        .expect("the server answers");
    assert_eq!(answer.status().as_u16(), 204);
    let bad = app
        .client
        .post(app.url("/api/whocomes/navigation?to=https%3A%2F%2Fevil.example%2F"))
        .header("x-forwarded-for", "203.0.113.7")
        .header("user-agent", BROWSER)
        .send()
        .await
        .expect("the server answers");
    assert_eq!(bad.status().as_u16(), 204, "answered, not counted");
    let (hours, visitors) = app.stop_and_read().await;
    assert_eq!(hours.len(), 1);
    assert_eq!((hours[0].path.as_str(), hours[0].requests), ("/resume", 1));
    let sources: Vec<String> = visitors[0]
        .sources
        .iter()
        .map(|s| s.source.to_string())
        .collect();
    assert_eq!(sources, ["tag:cv"], "a page load keeps the link's tag");
}

#[tokio::test]
async fn read_stores_are_opened_beside_the_written_one() {
    let mut first = spawn_app_with(&[
        "--own-address=none",
        "--trusted-proxy=127.0.0.1",
        "--store-name=site-a",
    ])
    .await;
    from(&first, Method::GET, "/about", "203.0.113.7", BROWSER).await;
    first.stop().await.expect("stops");
    let other = format!(
        "--read-store=site-a=sqlite://{}",
        first.data.path().join("activity.db").display()
    );

    let second = spawn_app_with(&["--store-name=site-b", &other]).await;
    let stores = second.stores();
    let names: Vec<String> = stores.iter().map(|s| s.name().to_string()).collect();
    assert_eq!(names, ["site-b", "site-a"]);
    let hours = stores[1]
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads the other site");
    assert_eq!(hours.len(), 1);
    assert_eq!(hours[0].path, "/about");
    assert!(stores[1].availability().await.available);
}

#[tokio::test]
async fn a_request_that_never_ends_does_not_hold_the_stop() {
    use tokio::io::AsyncWriteExt as _;
    let app = spawn_app().await;
    // A request whose body never comes: its connection stays busy.
    let mut stuck = tokio::net::TcpStream::connect(app.addr)
        .await
        .expect("connects");
    stuck
        .write_all(b"POST /api/site/inventory HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\npart")
        .await
        .expect("writes");
    assert_eq!(app.get("/about").await.status(), reqwest::StatusCode::OK);
    let (hours, _) = tokio::time::timeout(std::time::Duration::from_secs(60), app.stop_and_read())
        .await
        .expect("the stop waits for open requests only so long");
    assert!(
        hours.iter().any(|h| h.path == "/about"),
        "what was queued is written: {hours:?}"
    );
    drop(stuck);
}
