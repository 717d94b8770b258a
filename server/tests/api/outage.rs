//! A store's outage as an operator lives it, on the real binary: under
//! load from many visitors, PostgreSQL is halted; whocomes is stopped and
//! started again in the middle of the outage (a deploy); PostgreSQL comes
//! back. Every request answered is in the store once, none lost, and the
//! binary's peak memory stays within its budget. A crash (SIGKILL) in the
//! middle of an outage loses nothing the journal kept. Needs the PostgreSQL the
//! test command installs (skips, and says so, elsewhere; fails under CI).
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use activity::StoreName;
use activity::recording::Journal;
use activity::store::{ActivityStore, Retention};

use crate::faults::{Postgres, can_run, postgres_script};
use crate::helpers::stored_requests;
use crate::operations::{ready, signed_in};
use crate::signals::{monitors_url, sigterm_and_wait, start_binary_logged};

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// Distinct visitors the load comes from.
const VISITORS: u32 = 5_000;

/// The held rows' budget the binary is given, in MiB.
const HELD_MB: u64 = 32;

/// Requests from `VISITORS` visitors behind the trusted proxy, four at a
/// time with a pause of 2 ms after each (load enough to hold thousands of
/// rows, not so much that the tests beside it starve), until stopped;
/// counts the answers that were 200.
struct Load {
    stop: Arc<AtomicBool>,
    answered: Arc<AtomicU64>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Load {
    fn start(url: &str, from: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicU64::new(0));
        let client = reqwest::Client::new();
        let tasks = (0..4u32)
            .map(|lane| {
                let (stop, answered, client) = (stop.clone(), answered.clone(), client.clone());
                let url = url.to_owned();
                tokio::spawn(async move {
                    let mut n = from + lane * 7_919;
                    while !stop.load(Ordering::Relaxed) {
                        n = n.wrapping_add(4);
                        let visitor = n % VISITORS;
                        let path = ["/", "/about", "/resume"][(n % 3) as usize];
                        let answer = client
                            .get(format!("{url}{path}"))
                            .header(
                                "x-forwarded-for",
                                format!("198.51.{}.{}", visitor / 250, visitor % 250 + 1),
                            )
                            .header("user-agent", BROWSER)
                            .header("sec-fetch-dest", "document")
                            .header("sec-fetch-mode", "navigate")
                            .send()
                            .await;
                        if answer.is_ok_and(|answer| answer.status().as_u16() == 200) {
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        tokio::time::sleep(Duration::from_millis(2)).await;
                    }
                })
            })
            .collect();
        Self {
            stop,
            answered,
            tasks,
        }
    }

    async fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        for task in self.tasks {
            task.await.expect("a lane ends");
        }
        self.answered.load(Ordering::Relaxed)
    }
}

/// One figure of the binary's `/metrics` (`None`: not there).
async fn metric(monitors: &str, name: &str) -> Option<f64> {
    let text = reqwest::get(format!("{monitors}/metrics"))
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
}

/// Waits (at most `within`) until `metric` of the binary is `done`.
async fn until_metric(monitors: &str, name: &str, within: Duration, done: impl Fn(f64) -> bool) {
    let deadline = Instant::now() + within;
    loop {
        let value = metric(monitors, name).await;
        if value.is_some_and(&done) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{name} is {value:?} after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// What the tab's overview says of the writer, signed in with `password`.
async fn tab_writer(url: &str, password: &str) -> serde_json::Value {
    let (client, cookie) = signed_in(url, password).await;
    let overview: serde_json::Value = client
        .post(format!("{url}/admin/api/overview"))
        .header("cookie", cookie)
        .form(&[("days", "7")])
        .send()
        .await
        .expect("the overview answers")
        .json()
        .await
        .expect("JSON");
    overview["writer"].clone()
}

/// Waits (at most 30 s) until `metric` of the binary is above 0.
async fn until_some(monitors: &str, name: &str) {
    until_metric(monitors, name, Duration::from_secs(30), |n| n > 0.0).await;
}

/// The binary's peak resident memory so far, in bytes (Linux).
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("its status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM")
        * 1024
}

/// The binary's settings: on PostgreSQL at `url`, behind the trusted
/// proxy, writing twice a second, holding at most `held_mb` MiB of rows.
fn settings<'a>(url: &'a str, held_mb: &'a str) -> [(&'static str, &'a str); 5] {
    [
        ("WHOCOMES_STORE_URL", url),
        ("WHOCOMES_TRUSTED_PROXY", "127.0.0.1"),
        ("WHOCOMES_FLUSH_MS", "500"),
        ("WHOCOMES_MAX_HELD_MB", held_mb),
        ("WHOCOMES_ADMIN_PASSWORD", "outage"),
    ]
}

/// The requests in the journal at `path`, read as the next start reads it
/// (0: none there).
fn journal_hits(path: &std::path::Path) -> u64 {
    Journal::new(path, u64::MAX)
        .load()
        .ok()
        .flatten()
        .map_or(0, |left| {
            left.outgoing.map_or(0, |batch| batch.hits) + left.waiting.hits
        })
}

/// The requests the PostgreSQL at `url` holds.
async fn stored_in(url: &str) -> u64 {
    let store = activity_postgres::PostgresStore::open(
        url,
        StoreName::parse("postgres").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("the store opens");
    let stored = stored_requests(&store).await;
    store.close().await;
    stored
}

/// A binary on a PostgreSQL of its own, in the middle of an outage.
struct Outage {
    postgres: Postgres,
    data: tempfile::TempDir,
    held_mb: String,
    /// The binary, its monitors' address and the log it writes.
    binary: std::process::Child,
    monitors: String,
    log: Arc<std::sync::Mutex<String>>,
    /// The requests answered 200 before and during the outage (the load
    /// has ended).
    answered: u64,
}

impl Outage {
    /// Starts the binary under load, halts PostgreSQL once something is
    /// written, and ends the load once the journal holds what came since.
    async fn begin() -> Self {
        let postgres = Postgres::start(None);
        let data = tempfile::tempdir().expect("a data folder");
        let held_mb = HELD_MB.to_string();
        let (binary, url, log) =
            start_binary_logged(data.path(), &settings(&postgres.url, &held_mb));
        let monitors = monitors_url(&log);
        let load = Load::start(&url, 0);
        until_some(&monitors, "whocomes_hits_written_total").await;
        // What arrives is held, and kept in the journal.
        postgres_script("halt", &postgres.dir);
        tokio::time::sleep(Duration::from_secs(4)).await;
        until_some(&monitors, "whocomes_journal_bytes").await;
        let answered = load.finish().await;
        Self {
            postgres,
            data,
            held_mb,
            binary,
            monitors,
            log,
            answered,
        }
    }

    /// The binary started again on the same folder and store: it, its
    /// address, and its log.
    fn start_again(&self) -> (std::process::Child, String, Arc<std::sync::Mutex<String>>) {
        start_binary_logged(
            self.data.path(),
            &settings(&self.postgres.url, &self.held_mb),
        )
    }

    fn journal(&self) -> std::path::PathBuf {
        self.data.path().join("journal-postgres.json")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_in_the_middle_of_a_postgres_outage_loses_nothing() {
    if !can_run() {
        return;
    }
    let mut outage = Outage::begin().await;
    let answered_first = outage.answered;
    let first_peak = peak_rss(outage.binary.id());
    sigterm_and_wait(&mut outage.binary);
    let journal = outage.journal();
    let said = outage.log.lock().map(|l| l.clone()).unwrap_or_default();
    assert!(journal.exists(), "the stop leaves the journal: {said}");
    assert!(
        said.contains("in the journal, for the next start"),
        "{said}"
    );

    // Started again while PostgreSQL is still down: it takes the journal
    // up, serves, and holds what comes.
    let (mut second, url, log) = outage.start_again();
    let monitors = monitors_url(&log);
    until_some(&monitors, "whocomes_hits_recovered_total").await;
    let load = Load::start(&url, 1);
    tokio::time::sleep(Duration::from_secs(4)).await;
    until_some(&monitors, "whocomes_held_rows").await;
    let (status, why) = ready(&monitors).await;
    assert_eq!(status, 503, "not ready while the store is down: {why}");
    // The tab says what is held, and that the journal keeps it.
    until_some(&monitors, "whocomes_journal_bytes").await;
    let writer = tab_writer(&url, "outage").await;
    assert!(
        writer["held_rows"].as_u64() > Some(0)
            && writer["journal_bytes"].as_u64() > Some(0)
            && writer["recovered"].as_u64() > Some(0)
            && writer["held_for"].as_u64().is_some(),
        "{writer}"
    );

    // PostgreSQL comes back: everything held is written, the journal goes.
    postgres_script("resume", &outage.postgres.dir);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let answered_second = load.finish().await;
    until_metric(
        &monitors,
        "whocomes_hits_pending",
        Duration::from_secs(90),
        |n| n == 0.0,
    )
    .await;
    until_metric(
        &monitors,
        "whocomes_journal_bytes",
        Duration::from_secs(30),
        |n| n == 0.0,
    )
    .await;
    let lost = metric(&monitors, "whocomes_hits_lost_total").await;
    let held_peak = peak_rss(second.id()).max(first_peak);
    sigterm_and_wait(&mut second);
    assert!(!journal.exists(), "the journal is removed once written");
    assert_eq!(lost, Some(0.0));

    let stored = stored_in(&outage.postgres.url).await;
    let answered = answered_first + answered_second;
    println!(
        "answered {answered} ({answered_first} + {answered_second}), stored {stored}, peak RSS {} MB",
        held_peak / 1_000_000
    );
    assert!(answered > 1_000, "under load: {answered}");
    assert_eq!(
        stored, answered,
        "every request answered is in the store, once"
    );
    // The budget bounds the held rows; the rest of the process (its
    // runtime, the tab, the queue) takes well under 100 MB more.
    assert!(
        held_peak < (HELD_MB + 100) * 1024 * 1024,
        "peak RSS {held_peak} B"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_in_the_middle_of_a_postgres_outage_loses_nothing_the_journal_kept() {
    if !can_run() {
        return;
    }
    let mut outage = Outage::begin().await;
    let answered = outage.answered;
    // The journal is kept once an interval: soon it holds every request
    // not written (a batch PostgreSQL took as it halted may be in both).
    let journal = outage.journal();
    let monitors = outage.monitors.clone();
    let deadline = Instant::now() + Duration::from_secs(30);
    let (written, kept) = loop {
        let written = metric(&monitors, "whocomes_hits_written_total")
            .await
            .unwrap_or_default() as u64;
        let kept = journal_hits(&journal);
        if written + kept >= answered {
            break (written, kept);
        }
        assert!(
            Instant::now() < deadline,
            "the journal holds {kept} and {written} are written of {answered} answered"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // A crash: no stop, no last try.
    outage.binary.kill().expect("SIGKILL");
    outage.binary.wait().expect("it ends");

    // Started again while PostgreSQL is still down, then PostgreSQL comes
    // back: what the journal held is written, once.
    let (mut second, _url, log) = outage.start_again();
    let monitors = monitors_url(&log);
    until_some(&monitors, "whocomes_hits_recovered_total").await;
    postgres_script("resume", &outage.postgres.dir);
    until_metric(
        &monitors,
        "whocomes_journal_bytes",
        Duration::from_secs(90),
        |n| n == 0.0,
    )
    .await;
    let lost = metric(&monitors, "whocomes_hits_lost_total").await;
    sigterm_and_wait(&mut second);
    assert!(!journal.exists(), "the journal is removed once written");
    assert_eq!(lost, Some(0.0));
    let stored = stored_in(&outage.postgres.url).await;
    println!(
        "crash in an outage: answered {answered}, {written} written before it, {kept} in the journal, stored {stored}"
    );
    assert!(kept > 0, "the outage held requests: {kept}");
    assert_eq!(stored, answered, "every request answered is stored, once");
}
