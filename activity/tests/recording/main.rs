//! The layer and the writer together, over the in-memory store: what is
//! counted reaches the store in batches; nothing on the request path waits;
//! a full queue drops and counts; a failing store is retried; stopping
//! drains the queue. What a store's outage costs: [`outage`].
#![cfg(feature = "server")]

mod outage;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDate;
use tower::{Layer, Service, ServiceExt, service_fn};
use whocomes_activity::address::TrustedProxies;
use whocomes_activity::recording::{ActivityLayer, RecorderConfig, start, start_feed};
use whocomes_activity::report::{VisitorKind, visitor_kind};
use whocomes_activity::store::{ActivityStore, MemoryStore, Retention};
use whocomes_activity::{Counter, Rules, StoreName, VisitorKey};

pub(crate) fn counter() -> Counter {
    Counter::new(
        Rules::default(),
        VisitorKey::from_text("recording-test").expect("a key"),
        TrustedProxies::default(),
        StoreName::parse("memory").expect("a name"),
    )
}

pub(crate) fn store() -> Arc<MemoryStore> {
    Arc::new(MemoryStore::new(
        StoreName::parse("memory").expect("a name"),
        Retention::default(),
    ))
}

pub(crate) fn request(path: &str, peer: &str, agent: &str) -> http::Request<()> {
    let mut request = http::Request::get(path)
        .header("user-agent", agent)
        .body(())
        .expect("a request");
    let peer: SocketAddr = peer.parse().expect("a socket address");
    request.extensions_mut().insert(peer);
    request
}

pub(crate) const BROWSER: &str =
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// Serves `request` through the layer from a site with no PHP: a `.php`
/// path is answered 404, anything else 200.
pub(crate) async fn send(layer: &ActivityLayer, request: http::Request<()>) {
    send_to(layer, request, |path| {
        if path.ends_with(".php") { 404 } else { 200 }
    })
    .await;
}

/// Serves `request` through the layer from a site that answers `status_of` its path.
async fn send_to(layer: &ActivityLayer, request: http::Request<()>, status_of: fn(&str) -> u16) {
    let mut service = layer.layer(service_fn(move |request: http::Request<()>| async move {
        let mut answer = http::Response::new("ok");
        *answer.status_mut() =
            http::StatusCode::from_u16(status_of(request.uri().path())).expect("a status");
        Ok::<_, Infallible>(answer)
    }));
    let answer = service
        .ready()
        .await
        .expect("ready")
        .call(request)
        .await
        .expect("served");
    assert_eq!(*answer.body(), "ok");
}

#[tokio::test]
async fn counted_requests_reach_the_store_and_others_do_not() {
    let store = store();
    let (layer, writer) = start(counter(), store.clone(), RecorderConfig::default());
    send(&layer, request("/", "203.0.113.7:5000", BROWSER)).await;
    send(&layer, request("/about?x=1", "203.0.113.7:5001", BROWSER)).await;
    send(&layer, request("/wp-login.php", "198.51.100.1:1", BROWSER)).await;
    send(
        &layer,
        request("/pkg/whocomes.wasm", "203.0.113.7:5000", BROWSER),
    )
    .await;
    send(&layer, request("/robots.txt", "203.0.113.7:5000", BROWSER)).await;
    send(&layer, request("/admin", "203.0.113.7:5000", BROWSER)).await;
    send(&layer, request("/", "127.0.0.1:9", BROWSER)).await;
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!(
        (stats.queued, stats.written, stats.dropped, stats.lost),
        (4, 4, 0, 0)
    );

    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    assert_eq!(
        visitors.len(),
        3,
        "one person, one scanner, the site itself"
    );
    let person = visitors
        .iter()
        .find(|v| v.requests == 2)
        .expect("the person's day");
    assert_eq!((person.bots, person.self_reads), (0, 0));
    assert_eq!(person.network.as_str(), "203.0.113.x");
    let mut paths: Vec<&str> = person.top_paths.iter().map(|p| p.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["/", "/about"]);
    assert!(
        visitors
            .iter()
            .any(|v| v.bots == 1 && v.top_paths[0].path == whocomes_activity::path::NOT_FOUND),
        "the probe the site answered 404 is kept under the fold, not its path"
    );
    assert!(visitors.iter().any(|v| v.self_reads == 1));
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    assert_eq!(hours.iter().map(|h| h.requests).sum::<u64>(), 4);
}

/// The test's counter, with the path `/file` as the goal `download`.
fn download_counter() -> Counter {
    let rules = Rules::new(whocomes_activity::RulesConfig {
        goal_paths: vec!["download=/file".parse().expect("a goal path")],
        ..Default::default()
    })
    .expect("rules");
    Counter::new(
        rules,
        VisitorKey::from_text("recording-test").expect("a key"),
        TrustedProxies::default(),
        StoreName::parse("memory").expect("a name"),
    )
}

/// A handler marks its answer with a goal; the operator names a path one.
#[tokio::test]
async fn a_goal_marked_by_the_handler_or_the_path_reaches_the_visitor_day() {
    use whocomes_activity::goal::Goal;
    let store = store();
    let (layer, writer) = start(download_counter(), store.clone(), RecorderConfig::default());
    // The site: /join marks signup (and so does its stylesheet, which is
    // no counted request).
    let mut site = layer.layer(service_fn(|request: http::Request<()>| async move {
        let path = request.uri().path().to_owned();
        let mut answer = http::Response::new("ok");
        if path == "/join" || path.ends_with(".css") {
            answer
                .extensions_mut()
                .insert(Goal::new("signup").expect("a label"));
        }
        Ok::<_, Infallible>(answer)
    }));
    for (path, peer) in [
        ("/join", "203.0.113.7:1"),
        ("/join", "203.0.113.7:2"),
        ("/site.css", "203.0.113.7:3"),
        ("/file", "203.0.113.7:4"),
        ("/file", "198.51.100.1:1"),
        ("/", "192.0.2.1:1"),
    ] {
        site.ready()
            .await
            .expect("ready")
            .call(request(path, peer, BROWSER))
            .await
            .expect("served");
    }
    drop(site);
    drop(layer);
    writer.finish().await;
    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    let goals = |network: &str| -> Vec<(String, u64)> {
        visitors
            .iter()
            .find(|v| v.network.as_str() == network)
            .map(|v| {
                v.goals
                    .iter()
                    .map(|g| (g.goal.to_string(), g.requests))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        goals("203.0.113.x"),
        [("signup".to_owned(), 2), ("download".to_owned(), 1)],
        "two joins (the stylesheet is no counted request) and a download"
    );
    assert_eq!(goals("198.51.100.x"), [("download".to_owned(), 1)]);
    assert_eq!(goals("192.0.2.x"), [], "no goal on a plain page");
}

/// A path named as a goal reaches nothing when the site has no such page.
#[tokio::test]
async fn a_goals_path_answered_not_found_reaches_no_goal() {
    let store = store();
    let (layer, writer) = start(download_counter(), store.clone(), RecorderConfig::default());
    send_to(&layer, request("/file", "203.0.113.7:1", BROWSER), |_| 404).await;
    drop(layer);
    writer.finish().await;
    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    assert_eq!(visitors.len(), 1, "counted");
    assert!(visitors[0].goals.is_empty(), "{:?}", visitors[0].goals);
}

#[tokio::test]
async fn a_flood_of_made_up_paths_writes_a_bounded_number_of_rows() {
    use whocomes_activity::path::{NOT_FOUND, OTHER_PATHS};
    let config = RecorderConfig {
        paths_per_hour: 50,
        ..RecorderConfig::default()
    };
    // A site that has nothing under /x/: each made-up path is answered 404.
    let store = store();
    let (layer, writer) = start(counter(), store.clone(), config);
    for n in 0..2_000 {
        let path = format!("/x/{n:0>400}");
        send_to(&layer, request(&path, "198.51.100.9:1", BROWSER), |path| {
            if path.starts_with("/x/") { 404 } else { 200 }
        })
        .await;
    }
    send(&layer, request("/", "203.0.113.7:5000", BROWSER)).await;
    drop(layer);
    assert_eq!(writer.finish().await.written, 2_001);
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    let mut paths: Vec<&str> = hours.iter().map(|h| h.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    assert!(paths.len() <= 4, "one fold, not a row per path: {paths:?}");
    assert!(paths.contains(&NOT_FOUND) && paths.contains(&"/"));
    assert_eq!(hours.iter().map(|h| h.requests).sum::<u64>(), 2_001);

    // A catch-all site answers 200 to every path: the hour keeps 50 and
    // counts the rest under one row, every request still counted.
    let store = self::store();
    let (layer, writer) = start(counter(), store.clone(), config);
    for n in 0..2_000 {
        let path = format!("/x/{n}");
        send_to(&layer, request(&path, "198.51.100.9:1", BROWSER), |_| 200).await;
    }
    drop(layer);
    assert_eq!(writer.finish().await.written, 2_000);
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    let distinct: std::collections::BTreeSet<&str> =
        hours.iter().map(|h| h.path.as_str()).collect();
    // Two hours at most if the test runs across the turn of an hour.
    assert!(
        distinct.len() <= 2 * 50 + 1,
        "{} paths kept",
        distinct.len()
    );
    assert!(distinct.contains(OTHER_PATHS));
    assert_eq!(hours.iter().map(|h| h.requests).sum::<u64>(), 2_000);
    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    assert_eq!(visitors.len(), 1);
    assert!(
        visitors[0].top_paths.len() <= 2 * 50 + 1,
        "the visitor-day keeps only the hour's kept paths"
    );
    assert_eq!(visitors[0].requests, 2_000);
}

#[tokio::test]
async fn the_sites_answer_decides_whether_software_is_a_probe() {
    let store = store();
    let (layer, writer) = start(counter(), store.clone(), RecorderConfig::default());
    let php_site = |_: &str| 200;
    let no_php = |_: &str| 404;
    // A PHP site's reader: its pages are .php and its theme under /wp-content.
    send_to(
        &layer,
        request("/index.php", "203.0.113.7:1", BROWSER),
        php_site,
    )
    .await;
    send_to(
        &layer,
        request("/wp-login.php", "203.0.113.7:1", BROWSER),
        php_site,
    )
    .await;
    // The same requests, of a site that has no such thing: a scanner.
    send_to(
        &layer,
        request("/index.php", "198.51.100.1:1", BROWSER),
        no_php,
    )
    .await;
    send_to(
        &layer,
        request("/wp-login.php", "198.51.100.1:1", BROWSER),
        no_php,
    )
    .await;
    // A secret is a probe whatever the answer.
    send_to(&layer, request("/.env", "192.0.2.1:1", BROWSER), php_site).await;
    // A request dropped before its answer is still counted (no status: not a probe).
    let mut service = layer.layer(service_fn(|_: http::Request<()>| {
        std::future::pending::<Result<http::Response<()>, Infallible>>()
    }));
    let dropped = service.call(request("/contact.php", "192.0.3.9:1", BROWSER));
    drop(dropped);
    drop(service);
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!((stats.queued, stats.written, stats.dropped), (6, 6, 0));
    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    let of = |network: &str| {
        visitors
            .iter()
            .find(|v| v.network.as_str() == network)
            .map(|v| (v.requests, v.bots))
    };
    assert_eq!(of("203.0.113.x"), Some((2, 0)), "the PHP site's reader");
    assert_eq!(of("198.51.100.x"), Some((2, 2)), "the scanner");
    assert_eq!(of("192.0.2.x"), Some((1, 1)), "the secret");
    assert_eq!(of("192.0.3.x"), Some((1, 0)), "the dropped request");
}

#[tokio::test]
async fn a_catch_all_site_still_catches_scanners_by_the_browser_evidence() {
    let store = store();
    let (layer, writer) = start(counter(), store.clone(), RecorderConfig::default());
    // A single-page app: its catch-all route answers 200 to every path.
    let everything = |_: &str| 200;
    // Its reader: the shell, the app's script, a route.
    for path in ["/", "/assets/index-3f9a.js", "/projects/12"] {
        send_to(&layer, request(path, "203.0.113.7:1", BROWSER), everything).await;
    }
    // A scanner with the same agent: answered 200 for what the site lacks, no file.
    for path in [
        "/wp-login.php",
        "/admin.php",
        "/cgi-bin/luci",
        "/xmlrpc.php",
    ] {
        send_to(&layer, request(path, "198.51.100.1:1", BROWSER), everything).await;
    }
    drop(layer);
    writer.finish().await;
    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    let kind = |network: &str| {
        visitors
            .iter()
            .find(|v| v.network.as_str() == network)
            .map(|v| visitor_kind(v.requests, v.bots, v.self_reads, v.evidence))
    };
    assert_eq!(kind("203.0.113.x"), Some(VisitorKind::Person), "the reader");
    assert_eq!(kind("198.51.100.x"), Some(VisitorKind::Bot), "the scanner");
}

#[tokio::test(flavor = "current_thread")]
async fn a_full_queue_drops_and_counts_without_waiting() {
    let config = RecorderConfig {
        queue: 2,
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store(), config);
    // On a single-threaded runtime the writer cannot run until this test
    // yields, so the queue fills: the layer must neither wait nor fail.
    let mut service = layer.layer(service_fn(|_: http::Request<()>| async {
        Ok::<_, Infallible>(http::Response::new(()))
    }));
    for i in 0..10 {
        let _pending = service.call(request("/", &format!("203.0.113.{i}:1"), BROWSER));
    }
    drop(service);
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!((stats.queued, stats.dropped, stats.written), (2, 8, 2));
}

#[tokio::test]
async fn a_failing_store_is_retried_and_nothing_is_lost() {
    let store = store();
    store.set_failing(Some("the disk is away"));
    let config = RecorderConfig {
        flush_every: Duration::from_millis(20),
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    for i in 0..5 {
        send(&layer, request("/", &format!("203.0.113.{i}:1"), BROWSER)).await;
    }
    // The first writes fail…
    failed_more_than(&writer, 0).await;
    store.set_failing(None);
    // …and the next try after the store is back writes them all, however
    // long the writer's back-off (waited for, not guessed).
    for _ in 0..6_000 {
        if writer.stats().snapshot().settled() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        writer.stats().snapshot().written,
        5,
        "written once the store is back"
    );
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!((stats.written, stats.lost), (5, 0));
    assert!(store.cost().failures >= 1);
}

/// Waits until the writer has failed more than `after` times (a minute
/// at most: only a writer that never tries again takes that long).
pub(crate) async fn failed_more_than(
    writer: &whocomes_activity::recording::WriterHandle,
    after: u64,
) {
    for _ in 0..6_000 {
        if writer.stats().snapshot().failed_writes > after {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the writer never tried again");
}

#[tokio::test(flavor = "current_thread")]
async fn a_backlog_is_written_in_one_write_through_a_feed() {
    let store = store();
    let config = RecorderConfig {
        flush_hits: 10,
        max_batch_hits: 400,
        ..RecorderConfig::default()
    };
    let (feed, writer) = start_feed(store.clone(), config);
    let name = StoreName::parse("memory").expect("a name");
    let at = chrono::DateTime::from_timestamp(1_764_374_400, 0).expect("a time");
    // The queue holds them all and the writer cannot run before this test
    // yields: it finds a backlog of 1,000 hits.
    for hit in whocomes_activity::sample::hits(&name, at, 1_000, 7) {
        feed.send(hit).await.expect("the writer is running");
    }
    drop(feed);
    let stats = writer.finish().await;
    assert_eq!((stats.queued, stats.written, stats.lost), (1_000, 1_000, 0));
    // 1,000 hits folded 400 at a time (not 100 folds of 10), pending
    // until the feed ends: one write (where a write per fold made three).
    assert_eq!(store.cost().operations, 1);
    // Each row once: what one fold of all the hits holds.
    let whole =
        whocomes_activity::rows::Batch::fold(&whocomes_activity::sample::hits(&name, at, 1_000, 7));
    assert_eq!(stats.rows_written, whole.rows());
}

/// Hits folded as they come are written once an interval: however many
/// folds a visitor's requests land in, its rows are written once in each
/// interval (SPEC §6; issue 35), and a store reads the same as if every hit
/// had come in one batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_row_is_written_once_an_interval() {
    let store = store();
    let config = RecorderConfig {
        flush_every: Duration::from_millis(600),
        // A fold every few hits: many folds an interval.
        flush_hits: 5,
        ..RecorderConfig::default()
    };
    let (feed, writer) = start_feed(store.clone(), config);
    let name = StoreName::parse("memory").expect("a name");
    let at = chrono::DateTime::from_timestamp(1_764_374_400, 0).expect("a time");
    let hits = whocomes_activity::sample::hits(&name, at, 400, 9);
    let started = std::time::Instant::now();
    for chunk in hits.chunks(20) {
        for hit in chunk {
            feed.send(hit.clone()).await.expect("the writer is running");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let took = started.elapsed();
    drop(feed);
    let stats = writer.finish().await;
    assert_eq!((stats.written, stats.lost), (400, 0));
    // Twenty sends over about a second: at most one write per interval
    // begun, where a write per fold would be ~80.
    let intervals = (took.as_millis() / 600 + 2) as u64;
    let writes = store.cost().operations;
    assert!(writes <= intervals, "{writes} writes in {took:?}");
    let whole = whocomes_activity::rows::Batch::fold(&hits);
    assert!(
        stats.rows_written <= whole.rows() * intervals,
        "{} rows written, {} distinct",
        stats.rows_written,
        whole.rows()
    );
    // What the store holds is what one batch of all the hits says.
    let reference = store_of(&whole).await;
    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let mut kept = store.visitors_since(day).await.expect("reads");
    let mut expected = reference.visitors_since(day).await.expect("reads");
    kept.sort_by(|a, b| a.visitor.cmp(&b.visitor));
    expected.sort_by(|a, b| a.visitor.cmp(&b.visitor));
    assert_eq!(kept, expected);
}

async fn store_of(batch: &whocomes_activity::rows::Batch) -> Arc<MemoryStore> {
    let reference = store();
    reference.record(batch).await.expect("kept");
    reference
}

/// Past the cap on pending rows the writer writes early, before the
/// interval is over: what it holds stays bounded and nothing is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_cap_on_pending_rows_it_writes_early() {
    let store = store();
    let config = RecorderConfig {
        flush_every: Duration::from_secs(3_600),
        flush_hits: 10,
        max_pending_rows: 50,
        ..RecorderConfig::default()
    };
    let (feed, writer) = start_feed(store.clone(), config);
    let name = StoreName::parse("memory").expect("a name");
    let at = chrono::DateTime::from_timestamp(1_764_374_400, 0).expect("a time");
    for hit in whocomes_activity::sample::hits(&name, at, 600, 5) {
        feed.send(hit).await.expect("the writer is running");
    }
    let stats = writer.stats();
    let mut written = 0;
    for _ in 0..500 {
        written = stats.snapshot().written;
        if written > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(written > 0, "written before the hour's interval was over");
    drop(feed);
    let stats = writer.finish().await;
    assert_eq!((stats.written, stats.dropped, stats.lost), (600, 0, 0));
}

/// A page made of many files, and a flood of file requests, cost one mark
/// per visitor-day and no write of their own: the files' evidence rides on
/// the batch that writes the page's hit (SPEC §3, issue 15's cost).
#[tokio::test]
async fn files_mark_their_visitor_day_once_and_write_nothing_of_their_own() {
    let store = store();
    let config = RecorderConfig {
        flush_every: Duration::from_secs(3_600),
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    send(&layer, request("/", "203.0.113.7:5000", BROWSER)).await;
    for n in 0..500 {
        let path = if n % 2 == 0 {
            "/pkg/whocomes.css"
        } else {
            "/favicon.ico"
        };
        send(&layer, request(path, "203.0.113.7:5000", BROWSER)).await;
    }
    // A scripted client with a browser's agent and no file.
    send(&layer, request("/", "198.51.100.9:1", BROWSER)).await;
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!(
        (stats.queued, stats.written, stats.dropped_marks),
        (2, 2, 0)
    );
    // One mark for the visitor-day, written with the page: the writer has
    // nothing left to write, and says so.
    assert_eq!((stats.marks_queued, stats.marks_written), (1, 1));
    assert!(stats.settled(), "{stats:?}");
    assert_eq!(
        store.cost().operations,
        1,
        "one write for the hits and the mark together"
    );
    let day = NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    let kinds: Vec<(String, VisitorKind)> = visitors
        .iter()
        .map(|row| {
            (
                row.network.to_string(),
                visitor_kind(row.requests, row.bots, row.self_reads, row.evidence),
            )
        })
        .collect();
    assert!(kinds.contains(&("203.0.113.x".to_owned(), VisitorKind::Person)));
    assert!(kinds.contains(&("198.51.100.x".to_owned(), VisitorKind::Bot)));
    // Folded into the batch with its row: no mark was left for the store.
    assert!(store.day_marks(day).await.expect("reads").is_empty());
}

/// A flood of file requests from many addresses takes at most half the
/// queue: the marks beyond it are refused (and counted), and a hit still
/// finds room.
#[tokio::test]
async fn a_flood_of_files_cannot_crowd_out_the_hits() {
    let store = store();
    let config = RecorderConfig {
        queue: 8,
        flush_every: Duration::from_secs(3_600),
        flush_hits: 1_000,
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    for n in 0..2_000u32 {
        let peer = format!("10.{}.{}.{}:1", n >> 16 & 255, n >> 8 & 255, n & 255);
        send(&layer, request("/pkg/whocomes.css", &peer, BROWSER)).await;
    }
    send(&layer, request("/", "203.0.113.7:5000", BROWSER)).await;
    drop(layer);
    let stats = writer.finish().await;
    assert!(stats.dropped_marks > 0, "some marks refused: {stats:?}");
    assert_eq!(
        (stats.queued, stats.dropped, stats.written),
        (1, 0, 1),
        "{stats:?}"
    );
    // Every mark the queue took is written (those refused were never queued).
    assert_eq!(stats.marks_queued + stats.dropped_marks, 2_000, "{stats:?}");
    assert_eq!(stats.marks_written, stats.marks_queued, "{stats:?}");
    assert!(stats.settled(), "{stats:?}");
}

/// A slow write (a big batch to a remote database) runs beside the
/// draining: hits keep leaving the queue while it lasts, so a small queue
/// under a steady stream drops nothing, and each later write takes what
/// came meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_write_does_not_stop_the_queue_draining() {
    let store = store();
    store.set_write_delay(Duration::from_millis(1_500));
    let config = RecorderConfig {
        queue: 64,
        flush_every: Duration::from_millis(100),
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    // 600 visitors over about 3 s, 200 a second: several times the queue
    // during each write of 1.5 s.
    for i in 0..600u32 {
        let peer = format!("203.0.{}.{}:1", i / 200, i % 200);
        send(&layer, request("/", &peer, BROWSER)).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!(
        (stats.queued, stats.dropped, stats.written, stats.lost),
        (600, 0, 600, 0),
        "{stats:?}"
    );
    let kept = store.visitors_since(NaiveDate::MIN).await.expect("reads");
    assert_eq!(kept.len(), 600);
}

/// A request whose peer the layer cannot find (axum keeps it as
/// `ConnectInfo`, which the default reader does not know) is counted all
/// the same, and counted as such, so the tab can say so.
#[tokio::test]
async fn a_request_without_its_peer_is_counted_and_said() {
    let store = store();
    let (layer, writer) = start(counter(), store.clone(), RecorderConfig::default());
    let mut without = http::Request::get("/about")
        .header("user-agent", BROWSER)
        .body(())
        .expect("a request");
    // What axum would insert: a type the default reader does not read.
    without.extensions_mut().insert(("not", "a SocketAddr"));
    send(&layer, without).await;
    send(&layer, request("/about", "198.51.100.7:4000", BROWSER)).await;
    let stats = writer.finish().await;
    assert_eq!(stats.without_peer, 1, "{stats:?}");
    assert_eq!(stats.written, 2, "both counted: {stats:?}");
}
