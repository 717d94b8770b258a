//! What a store's outage costs: while it fails, the writer holds rows, not
//! requests, bounded in bytes (past the budget whole visitor-days go, the
//! oldest first, counted as lost); a write that failed is sent again under
//! its name, so a try the store took counts once; with a journal, a stop
//! during the outage leaves what is held on disk and the next start writes
//! it, once, even when the journal is older than the store's last write.

use std::sync::Arc;
use std::time::Duration;

use chrono::{NaiveDate, Utc};
use whocomes_activity::recording::{Journal, RecorderConfig, WriterHandle, start, start_journaled};
use whocomes_activity::store::{ActivityStore, MemoryStore};

use super::{BROWSER, counter, failed_more_than, request, send, store};

/// Waits (a minute at most) until `done` says so of the writer's figures.
async fn until(
    writer: &WriterHandle,
    what: &str,
    done: impl Fn(&whocomes_activity::recording::StatsSnapshot) -> bool,
) {
    for _ in 0..6_000 {
        if done(&writer.stats().snapshot()) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never {what}: {:?}", writer.stats().snapshot());
}

/// Waits until the writer has taken every queued hit from the queue.
async fn folded(writer: &WriterHandle) {
    until(writer, "folded", |stats| {
        writer.stats().recent(Utc::now(), 600) == stats.queued
    })
    .await;
}

/// Each visitor-day's requests, by network, as the store keeps them.
async fn requests_by_network(store: &MemoryStore) -> Vec<(String, u64)> {
    let mut rows: Vec<(String, u64)> = store
        .visitors_since(NaiveDate::MIN)
        .await
        .expect("reads")
        .into_iter()
        .map(|day| (day.network.to_string(), day.requests))
        .collect();
    rows.sort();
    rows
}

/// Three visitors, each asking for three pages.
async fn a_round(layer: &whocomes_activity::recording::ActivityLayer) {
    for visitor in 1..=3 {
        for path in ["/", "/about", "/cv"] {
            let peer = format!("198.51.{visitor}.7:1");
            send(layer, request(path, &peer, BROWSER)).await;
        }
    }
}

/// While the store fails, what arrives folds into the rows held (beside
/// the failed batch, kept as it was to be sent again): forty-nine more
/// rounds from the same visitors cost no more rows and no more bytes, and
/// once the store answers every request is written, none lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_store_holds_rows_not_requests() {
    let store = store();
    store.set_failing(Some("away for a while"));
    let config = RecorderConfig {
        flush_every: Duration::from_millis(20),
        flush_hits: 1,
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    a_round(&layer).await;
    failed_more_than(&writer, 0).await;
    a_round(&layer).await;
    folded(&writer).await;
    let first = writer.stats().snapshot();
    assert!(first.held_rows > 0 && first.held_bytes > 0, "{first:?}");
    for _ in 0..49 {
        a_round(&layer).await;
    }
    folded(&writer).await;
    let later = writer.stats().snapshot();
    assert_eq!(later.queued, 51 * 9);
    assert_eq!(later.held_rows, first.held_rows, "{first:?} then {later:?}");
    assert!(
        later.held_bytes <= first.held_bytes + first.held_bytes / 10,
        "{first:?} then {later:?}"
    );
    assert!(later.held_since.is_some_and(|at| at <= Utc::now()));
    store.set_failing(None);
    until(&writer, "written", |stats| stats.written == 51 * 9).await;
    until(&writer, "emptied", |stats| stats.held_rows == 0).await;
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!((stats.written, stats.lost), (459, 0), "{stats:?}");
    assert_eq!(
        requests_by_network(&store).await,
        vec![
            ("198.51.1.x".to_owned(), 153),
            ("198.51.2.x".to_owned(), 153),
            ("198.51.3.x".to_owned(), 153)
        ]
    );
}

/// Past the budget, visitor-days are given up as they come and counted
/// as lost; the hourly rows keep every request.
#[tokio::test]
async fn past_the_budget_whole_visitor_days_are_given_up_and_counted() {
    let store = store();
    store.set_failing(Some("gone for a while"));
    let config = RecorderConfig {
        flush_every: Duration::from_millis(10),
        max_held_bytes: 1,
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    for i in 0..5 {
        send(&layer, request("/", &format!("203.0.113.{i}:1"), BROWSER)).await;
    }
    until(&writer, "given up", |stats| stats.lost == 5).await;
    store.set_failing(None);
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!((stats.written, stats.lost), (0, 5), "{stats:?}");
    assert!(requests_by_network(&store).await.is_empty());
    let hours = store
        .hours_since(chrono::DateTime::from_timestamp(0, 0).expect("a time"))
        .await
        .expect("reads");
    assert_eq!(hours.iter().map(|row| row.requests).sum::<u64>(), 5);
}

/// What waits behind a write that succeeds, slowly, is bounded as what a
/// failing store holds is: past the budget the oldest waiting visitor-days
/// are given up and counted as lost; the write's own and the newest are
/// kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_waits_behind_a_slow_write_is_bounded() {
    // What one visitor-day of this test takes, as the writer counts it.
    let probe = store();
    probe.set_failing(Some("probe"));
    let (layer, writer) = start(counter(), probe.clone(), RecorderConfig::default());
    send(&layer, request("/", "192.0.2.1:1", BROWSER)).await;
    send(&layer, request("/", "192.0.2.2:1", BROWSER)).await;
    folded(&writer).await;
    let two = writer.stats().snapshot().held_bytes;
    drop(layer);
    writer.finish().await;

    let store = store();
    store.set_write_delay(Duration::from_secs(4));
    let config = RecorderConfig {
        flush_every: Duration::from_millis(50),
        flush_hits: 1,
        // Room for about 30 of them.
        max_held_bytes: two * 15,
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    // The first visitor alone makes the first write, which takes 4 s.
    send(&layer, request("/", "203.0.113.1:1", BROWSER)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // 99 more while it runs: more than the budget holds, so the oldest of
    // them are given up.
    for i in 0..99u32 {
        let peer = format!("198.51.{i}.1:1");
        send(&layer, request("/", &peer, BROWSER)).await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!((stats.queued, stats.dropped), (100, 0), "{stats:?}");
    assert_eq!(stats.written + stats.lost, 100, "{stats:?}");
    assert!(
        (10..=40).contains(&stats.written),
        "the first write and about 30 waiting: {stats:?}"
    );
    let kept: Vec<String> = requests_by_network(&store)
        .await
        .into_iter()
        .map(|(network, _)| network)
        .collect();
    assert_eq!(kept.len() as u64, stats.written, "{kept:?}");
    for first_and_newest in ["203.0.113.x", "198.51.98.x"] {
        assert!(
            kept.iter().any(|network| network == first_and_newest),
            "{first_and_newest} kept: {kept:?}"
        );
    }
    assert!(
        !kept.iter().any(|network| network == "198.51.0.x"),
        "the oldest waiting is given up: {kept:?}"
    );
}

/// A write whose reply was lost (the store took it, the writer heard it
/// fail) is sent again unchanged, under its name: it counts once, and
/// what arrived meanwhile is written after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_sent_again_after_a_lost_reply_counts_once() {
    let store = store();
    store.set_lost_replies(2);
    let config = RecorderConfig {
        flush_every: Duration::from_millis(20),
        flush_hits: 1,
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    send(&layer, request("/", "203.0.113.1:1", BROWSER)).await;
    failed_more_than(&writer, 0).await;
    send(&layer, request("/", "203.0.113.1:1", BROWSER)).await;
    send(&layer, request("/", "203.0.113.2:1", BROWSER)).await;
    until(&writer, "written", |stats| stats.written == 3).await;
    drop(layer);
    let stats = writer.finish().await;
    assert!(stats.failed_writes >= 2, "{stats:?}");
    assert_eq!(
        requests_by_network(&store).await,
        vec![("203.0.113.x".to_owned(), 1), ("203.0.113.x".to_owned(), 2)],
        "each request once"
    );
}

/// A stop while the store fails leaves what is held in the journal (not
/// lost); the next start takes it up and writes it once the store
/// answers, and removes the journal. A journal older than the store's
/// last write (a crash after the write, before the journal went) is sent
/// again and adds nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_during_an_outage_loses_nothing_and_the_journal_counts_once() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("journal-memory.json");
    let journal = || Some(Journal::new(&path, 1 << 30));
    let store = store();
    store.set_failing(Some("down"));
    let config = RecorderConfig {
        flush_every: Duration::from_millis(20),
        ..RecorderConfig::default()
    };
    let (layer, writer) = start_journaled(counter(), store.clone(), config, journal());
    for i in 0..5 {
        send(&layer, request("/", &format!("203.0.113.{i}:1"), BROWSER)).await;
    }
    failed_more_than(&writer, 0).await;
    until(&writer, "journaled", |stats| stats.journal_bytes > 0).await;
    for i in 5..8 {
        send(&layer, request("/", &format!("203.0.113.{i}:1"), BROWSER)).await;
    }
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!(
        (stats.written, stats.lost, stats.kept),
        (0, 0, 8),
        "{stats:?}"
    );
    assert!(stats.settled(), "{stats:?}");
    assert!(path.exists(), "the journal is left");
    let old = std::fs::read(&path).expect("the journal");

    // The next start, with the store back (slowly: a write takes a second).
    store.set_failing(None);
    store.set_write_delay(Duration::from_secs(1));
    let (layer, writer) = start_journaled(counter(), store.clone(), config, journal());
    // The batch left under its name goes first; what waited behind it is
    // named in the journal before it is sent: that journal is the last a
    // crash before the journal's removal could leave.
    let mut last = None;
    for _ in 0..1_000 {
        let now = std::fs::read(&path).ok();
        if writer.stats().snapshot().written == 5 && now.as_ref().is_some_and(|now| *now != old) {
            last = now;
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let last = last.expect("the journal names the next batch before it is sent");
    until(&writer, "written", |stats| stats.written == 8).await;
    until(&writer, "the journal removed", |stats| {
        stats.journal_bytes == 0
    })
    .await;
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!(
        (stats.recovered, stats.written, stats.lost),
        (8, 8, 0),
        "{stats:?}"
    );
    assert!(!path.exists(), "the journal is gone once written");
    let eight = vec![("203.0.113.x".to_owned(), 1); 8];
    assert_eq!(requests_by_network(&store).await, eight);

    // A crash had left that last journal: taken up again, it adds nothing.
    store.set_write_delay(Duration::ZERO);
    std::fs::write(&path, last).expect("the last journal back");
    let (layer, writer) = start_journaled(counter(), store.clone(), config, journal());
    until(&writer, "sent again", |stats| stats.written == 3).await;
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!(stats.recovered, 3, "{stats:?}");
    assert_eq!(requests_by_network(&store).await, eight, "counted once");
}

/// Without a journal (a local store), a stop while the store fails still
/// counts what it gives up as lost: nothing disappears unsaid.
#[tokio::test]
async fn without_a_journal_a_stop_during_an_outage_counts_the_loss() {
    let store: Arc<MemoryStore> = store();
    store.set_failing(Some("gone for good"));
    let config = RecorderConfig {
        flush_every: Duration::from_millis(10),
        ..RecorderConfig::default()
    };
    let (layer, writer) = start(counter(), store.clone(), config);
    for i in 0..5 {
        send(&layer, request("/", &format!("203.0.113.{i}:1"), BROWSER)).await;
    }
    drop(layer);
    let stats = writer.finish().await;
    assert_eq!(
        (stats.written, stats.lost, stats.kept),
        (0, 5, 0),
        "{stats:?}"
    );
}
