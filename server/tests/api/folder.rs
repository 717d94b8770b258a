//! The data folder under faults, on the real binary: read-only, started on
//! by two servers at once, left behind by a killed server, its store file
//! removed while serving. Each time the site serves, and what is not
//! counted is said.
#![allow(clippy::print_stdout)] // "SKIPPED: why", which the test command counts

use std::time::Duration;

use crate::bounds::send_all;
use crate::faults::Mounted;
use crate::helpers::read_folder;
use crate::signals::{monitors_url, sigterm_and_wait, start_binary_logged};

const BEHIND_A_PROXY: &[(&str, &str)] = &[
    ("WHOCOMES_TRUSTED_PROXY", "127.0.0.1/32"),
    ("WHOCOMES_OWN_ADDRESS", "none"),
    // A write interval of 1 s (the default is 10 s), so that these tests
    // wait seconds, not tens of seconds.
    ("WHOCOMES_FLUSH_MS", "1000"),
];

/// The log so far, without its colours.
pub(crate) fn text(log: &std::sync::Mutex<String>) -> String {
    let log = log
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let mut plain = String::with_capacity(log.len());
    let mut rest = log.as_str();
    while let Some(start) = rest.find('\u{1b}') {
        plain.push_str(&rest[..start]);
        rest = &rest[start..];
        rest = rest.find('m').map_or("", |end| &rest[end + 1..]);
    }
    plain.push_str(rest);
    plain
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_data_folder_serves_the_site_and_says_why_it_does_not_count() {
    let Some(mounted) = Mounted::new() else {
        println!(
            "SKIPPED: cannot mount a tmpfs here (needs root), so no read-only data folder to test on"
        );
        return;
    };
    mounted.read_only(true);
    let (mut child, url, log) = start_binary_logged(mounted.0.path(), BEHIND_A_PROXY);
    for path in ["/about", "/", "/admin"] {
        let answer = reqwest::get(format!("{url}{path}")).await.expect("answers");
        assert_eq!(answer.status().as_u16(), 200, "{path} is served");
    }
    // Counting off holds nothing: no hit is queued, so a stop loses none,
    // and the tab says why once (on the store's card), not as a queue
    // that never drains.
    let overview = crate::operations::overview(&reqwest::Client::new(), &url, "").await;
    let writer = &overview["writer"];
    assert_eq!(
        (writer["queued"].as_u64(), writer["counting"].as_bool()),
        (Some(0), Some(false)),
        "nothing queued: {writer}"
    );
    assert_eq!(overview["stores"][0]["available"], false);
    // A monitor is told the same: not ready, and why.
    let (status, why) = crate::operations::ready(&monitors_url(&log)).await;
    assert_eq!(status, 503, "{why}");
    assert!(
        why.contains("not counting: cannot write the day keys"),
        "{why}"
    );
    sigterm_and_wait(&mut child);
    let log = text(&log);
    assert!(!log.contains("lost"), "a stop loses nothing: {log}");
    assert!(
        log.contains("not counting: cannot write the day keys"),
        "the log says why: {log}"
    );
    assert!(log.contains("the site is served all the same"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_started_at_once_on_a_fresh_folder_agree() {
    for round in 0..3 {
        let data = tempfile::tempdir().expect("a folder");
        let starting: Vec<_> = (0..2)
            .map(|_| {
                let folder = data.path().to_owned();
                std::thread::spawn(move || start_binary_logged(&folder, BEHIND_A_PROXY))
            })
            .collect();
        let mut servers: Vec<_> = starting
            .into_iter()
            .map(|start| start.join().expect("both start"))
            .collect();
        // One reader, one request to each server: one visitor-day.
        for (_, url, _) in &servers {
            send_all(url, 1, |_| ("/about".to_owned(), "198.51.100.7".to_owned())).await;
        }
        for (child, _, _) in &mut servers {
            sigterm_and_wait(child);
        }
        let (hours, visitors) = read_folder(data.path()).await;
        assert_eq!(
            hours.iter().map(|row| row.requests).sum::<u64>(),
            2,
            "round {round}"
        );
        let mine: Vec<_> = visitors
            .iter()
            .filter(|row| row.network.as_str() == "198.51.100.x")
            .collect();
        assert_eq!(
            (mine.len(), mine.first().map(|row| row.requests)),
            (1, Some(2)),
            "round {round}: both servers made the same token (one set of keys)"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_loses_at_most_its_last_interval_and_the_next_start_says_so() {
    let data = tempfile::tempdir().expect("a folder");
    let (mut child, url, _) = start_binary_logged(data.path(), BEHIND_A_PROXY);
    let reader = |n: usize| ("/about".to_owned(), format!("198.51.100.{}", n % 200));
    send_all(&url, 2_000, reader).await;
    // More than the write interval (1 s): these are written.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    send_all(&url, 1_000, reader).await;
    child.kill().expect("killed");
    child.wait().expect("gone");
    let (hours, _) = read_folder(data.path()).await;
    let kept: u64 = hours.iter().map(|row| row.requests).sum();
    eprintln!(
        "SIGKILL at once after 1,000 answered requests: {} of them kept",
        kept - 2_000
    );
    assert!(
        (2_000..=3_000).contains(&kept),
        "what was answered more than an interval before the kill is kept: {kept}"
    );

    let (mut child, _, log) = start_binary_logged(data.path(), BEHIND_A_PROXY);
    sigterm_and_wait(&mut child);
    let log = text(&log);
    assert!(log.contains("did not stop cleanly"), "said: {log}");
    let (mut child, _, log) = start_binary_logged(data.path(), BEHIND_A_PROXY);
    sigterm_and_wait(&mut child);
    assert!(
        !text(&log).contains("did not stop cleanly"),
        "a clean stop is not taken for a crash"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_file_removed_while_serving_is_made_again_and_nothing_after_is_lost() {
    let data = tempfile::tempdir().expect("a folder");
    let (mut child, url, log) = start_binary_logged(data.path(), BEHIND_A_PROXY);
    let reader = |n: usize| ("/about".to_owned(), format!("198.51.100.{}", n % 200));
    send_all(&url, 500, reader).await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    std::fs::remove_file(data.path().join("activity.db")).expect("removed");
    send_all(&url, 700, reader).await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let (hours, _) = read_folder(data.path()).await;
    assert_eq!(
        hours.iter().map(|row| row.requests).sum::<u64>(),
        700,
        "the new file holds what came after the old one was removed"
    );
    sigterm_and_wait(&mut child);
    let log = text(&log);
    assert!(
        log.contains("the store's file was removed or replaced while in use"),
        "said: {log}"
    );
    assert!(log.contains("lost=0"), "nothing lost: {log}");
}
