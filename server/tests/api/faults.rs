//! The site serves whatever the store does: a PostgreSQL that is down at
//! start is picked up when it comes up, and one killed mid-run costs failed
//! writes, not requests. These start PostgreSQL servers of their own with
//! `scripts/postgres`, so they run where the test command runs (it sets
//! TEST_DATABASE_URL); elsewhere they say why they skip.
#![allow(clippy::print_stdout)]

use std::process::Command;
use std::time::{Duration, Instant};

use crate::helpers::{TestApp, spawn_app_with, stored_requests};

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// A PostgreSQL of the test's own, stopped (and its folder removed) on drop.
pub(crate) struct Postgres {
    pub(crate) dir: String,
    pub(crate) url: String,
}

impl Postgres {
    pub(crate) fn start(port: Option<u16>) -> Self {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/postgres");
        let mut command = Command::new(script);
        command.arg("start");
        if let Some(port) = port {
            command.arg(port.to_string());
        }
        let output = command.output().expect("scripts/postgres runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let line = String::from_utf8(output.stdout).expect("UTF-8");
        let (dir, url) = line.trim().split_once(' ').expect("a folder and a URL");
        Self {
            dir: dir.to_owned(),
            url: url.to_owned(),
        }
    }

    fn stop(&self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/postgres");
        let _ = Command::new(script).args(["stop", &self.dir]).status();
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
    }
}

pub(crate) fn can_run() -> bool {
    let set = std::env::var("TEST_DATABASE_URL").is_ok();
    assert!(
        set || !activity_postgres::testing::under_ci(),
        "CI=true and TEST_DATABASE_URL is not set: the PostgreSQL fault tests must run"
    );
    if !set {
        println!(
            "SKIPPED: needs the PostgreSQL binaries the test command installs (TEST_DATABASE_URL unset)"
        );
    }
    set
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("an address")
        .port()
}

async fn get(app: &TestApp, path: &str, client: &str) -> u16 {
    app.client
        .get(app.url(path))
        .header("x-forwarded-for", client)
        .header("user-agent", BROWSER)
        .send()
        .await
        .expect("the server answers")
        .status()
        .as_u16()
}

pub(crate) async fn wait_until(deadline: Duration, mut ready: impl AsyncFnMut() -> bool) -> bool {
    let until = Instant::now() + deadline;
    while Instant::now() < until {
        if ready().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

#[tokio::test]
async fn a_store_down_at_start_is_picked_up_when_it_comes_up() {
    if !can_run() {
        return;
    }
    let port = free_port();
    let url = format!("--store-url=postgres://postgres@127.0.0.1:{port}/postgres");
    let mut app = spawn_on(&url).await;
    let store = app.store();
    let availability = store.availability().await;
    assert!(!availability.available);
    assert!(
        availability.reason.starts_with("keeping nothing: "),
        "{}",
        availability.reason
    );
    assert!(
        availability.reason.contains(&format!("127.0.0.1:{port}")),
        "{}",
        availability.reason
    );

    assert_eq!(
        get(&app, "/", "203.0.113.7").await,
        200,
        "the site serves without its store"
    );
    let _postgres = Postgres::start(Some(port));
    let back = wait_until(Duration::from_secs(30), async || {
        store.availability().await.available
    })
    .await;
    assert!(back, "the store is picked up once it answers");
    assert_eq!(get(&app, "/about", "203.0.113.7").await, 200);
    app.stop().await.expect("stops");
    let stats = app.recorder_stats();
    assert_eq!(
        (stats.written, stats.lost),
        (2, 0),
        "the held hit is written too: {stats:?}"
    );
}

#[tokio::test]
async fn a_store_killed_mid_run_costs_writes_not_requests() {
    if !can_run() {
        return;
    }
    let postgres = Postgres::start(None);
    let url = format!("--store-url={}", postgres.url);
    let mut app = spawn_on(&url).await;
    assert_eq!(get(&app, "/", "203.0.113.7").await, 200);
    let written = wait_until(Duration::from_secs(10), async || {
        app.recorder_stats().written == 1
    })
    .await;
    assert!(written, "written while the store is up");

    postgres.stop();
    for i in 0..20 {
        assert_eq!(
            get(&app, "/about", &format!("203.0.113.{i}")).await,
            200,
            "served with the store gone"
        );
    }
    let failing = wait_until(Duration::from_secs(15), async || {
        app.recorder_stats().failed_writes > 0
    })
    .await;
    assert!(failing, "failed writes are counted");
    assert!(
        !app.store().availability().await.available,
        "the store says it is down"
    );
    app.stop()
        .await
        .expect("stops even though the store is gone");
    // What the store never took is left in the journal for the next start,
    // not lost.
    let stats = app.recorder_stats();
    assert_eq!(
        (stats.written + stats.kept, stats.lost),
        (21, 0),
        "every hit is written or kept for the next start: {stats:?}"
    );
    assert!(stats.journal_bytes > 0, "{stats:?}");
}

/// Requests sent every 10 ms from many addresses until stopped; counts the
/// answers by whether they were 200.
struct Load {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    task: tokio::task::JoinHandle<(u64, u64)>,
}

impl Load {
    fn start(app: &TestApp) -> Self {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let client = app.client.clone();
        let url = app.url("/about");
        let running = stop.clone();
        let task = tokio::spawn(async move {
            let (mut ok, mut other) = (0, 0);
            let mut n = 0u32;
            while !running.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                let answer = client
                    .get(&url)
                    .header(
                        "x-forwarded-for",
                        format!("203.0.{}.{}", n / 250 % 250, n % 250),
                    )
                    .header("user-agent", BROWSER)
                    .send()
                    .await;
                match answer {
                    Ok(answer) if answer.status().as_u16() == 200 => ok += 1,
                    _ => other += 1,
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            (ok, other)
        });
        Self { stop, task }
    }

    async fn finish(self) -> (u64, u64) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.task.await.expect("the load ends")
    }
}

/// The admin password of the apps here: why a store is down is told to a
/// signed-in admin only.
const ADMIN_PASSWORD: &str = "--admin-password=faults";

/// The site counting into the store `url` names (`--store-url=…`): every
/// client a person behind the trusted proxy on loopback, and an admin
/// password for reading why a store is down.
async fn spawn_on(url: &str) -> TestApp {
    spawn_app_with(&[
        "--own-address=none",
        "--trusted-proxy=127.0.0.1",
        ADMIN_PASSWORD,
        url,
    ])
    .await
}

/// A session cookie, signed in through the trusted proxy from a network of
/// its own each time (the per-network limit is not what is tested here).
async fn admin_cookie(app: &TestApp) -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let answer = app
        .client
        .post(app.url("/admin/api/sign-in"))
        .header(
            "x-forwarded-for",
            // The limit is per /24: a new third octet is a new network.
            format!("10.{}.{}.1", 9 + n / 250 % 200, n % 250),
        )
        .form(&[("password", "faults")])
        .send()
        .await
        .expect("the server answers");
    let status = answer.status();
    match answer
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
    {
        Some(cookie) => cookie.to_owned(),
        None => panic!(
            "not signed in: {status} {}",
            answer.text().await.unwrap_or_default()
        ),
    }
}

/// What the Admin tab says of each store to a signed-in admin:
/// (available, sentence, failures).
async fn tab_stores(app: &TestApp) -> Vec<(bool, String, u64)> {
    let cookie = admin_cookie(app).await;
    let answer = app
        .client
        .post(app.url("/admin/api/overview"))
        .header("cookie", cookie)
        .form(&[("days", "7")])
        .send()
        .await
        .expect("the server answers");
    let overview: serde_json::Value = answer.json().await.expect("the overview as JSON");
    overview["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .map(|store| {
            (
                store["available"].as_bool().unwrap_or(true),
                store["availability"].as_str().unwrap_or("").to_owned(),
                store["failures"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// Waits until every queued hit is written (or lost); returns the stats.
async fn drained(app: &TestApp, deadline: Duration) -> activity::recording::StatsSnapshot {
    wait_until(deadline, async || {
        let stats = app.recorder_stats();
        stats.written + stats.lost == stats.queued
    })
    .await;
    app.recorder_stats()
}

/// Whether the tab comes to say the store is not keeping activity (or, with
/// `available`, that it is again) within 20 s.
async fn tab_says_available(app: &TestApp, available: bool) -> bool {
    wait_until(Duration::from_secs(20), async || {
        tab_stores(app)
            .await
            .first()
            .is_some_and(|store| store.0 == available)
    })
    .await
}

/// Ends the load, then checks that every request during `fault` was served
/// and every hit written once it passed; returns the writer's counts.
async fn served_and_written(
    app: &TestApp,
    load: Load,
    fault: &str,
) -> activity::recording::StatsSnapshot {
    let (ok, other) = load.finish().await;
    assert_eq!(other, 0, "every request served during {fault} ({ok} were)");
    let stats = drained(app, Duration::from_secs(90)).await;
    assert_eq!(
        (stats.written, stats.lost, stats.dropped),
        (ok, 0, 0),
        "every hit written after {fault}: {stats:?}; the tab says {:?}",
        tab_stores(app).await
    );
    // Written means kept: the store's hourly rows hold every request.
    let stored = stored_requests(&*app.store()).await;
    assert_eq!(stored, ok, "the store holds every request after {fault}");
    stats
}

pub(crate) fn postgres_script(command: &str, dir: &str) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/postgres");
    let status = Command::new(script)
        .args([command, dir])
        .status()
        .expect("scripts/postgres runs");
    assert!(status.success(), "scripts/postgres {command}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stopped_for_30_s_under_load_gets_every_hit_when_it_returns() {
    if !can_run() {
        return;
    }
    let postgres = Postgres::start(None);
    let url = format!("--store-url={}", postgres.url);
    let mut app = spawn_on(&url).await;
    let load = Load::start(&app);
    assert!(
        wait_until(Duration::from_secs(10), async || app
            .recorder_stats()
            .written
            > 0)
        .await,
        "written while the store is up"
    );

    postgres_script("halt", &postgres.dir);
    let halted = Instant::now();
    assert!(
        tab_says_available(&app, false).await,
        "the tab says the store is down: {:?}",
        tab_stores(&app).await
    );
    tokio::time::sleep(Duration::from_secs(30).saturating_sub(halted.elapsed())).await;
    postgres_script("resume", &postgres.dir);

    let stats = served_and_written(&app, load, "a 30 s outage").await;
    assert!(stats.written > 500, "under load: {stats:?}");
    assert!(stats.failed_writes > 0, "the failed writes are counted");
    let stores = tab_stores(&app).await;
    let (available, _, failures) = stores.first().cloned().expect("a store");
    assert!(
        available && failures > 0,
        "back, with its failures on the card: {stores:?}"
    );
    app.stop().await.expect("stops");
}

/// A tmpfs mounted on a folder of its own (for a file system that can be
/// made read-only), unmounted on drop; `None` where mounting is not allowed.
pub(crate) struct Mounted(pub(crate) tempfile::TempDir);

impl Mounted {
    pub(crate) fn new() -> Option<Self> {
        let folder = tempfile::tempdir().expect("a folder");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64m", "tmpfs"])
            .arg(folder.path())
            .status()
            .is_ok_and(|status| status.success());
        mounted.then_some(Self(folder))
    }

    pub(crate) fn read_only(&self, read_only: bool) {
        let option = if read_only {
            "remount,ro"
        } else {
            "remount,rw"
        };
        let status = Command::new("mount")
            .args(["-o", option])
            .arg(self.0.path())
            .status()
            .expect("mount runs");
        assert!(status.success(), "mount -o {option}");
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_sqlite_file_costs_writes_not_requests() {
    let Some(mounted) = Mounted::new() else {
        println!(
            "SKIPPED: cannot mount a tmpfs here (needs root), so no read-only file system to test on"
        );
        return;
    };
    let path = mounted.0.path().join("activity.db");
    // The file exists, then its file system turns read-only (Linux refuses
    // that while a file on it is open for writing, so before the server starts).
    let made = activity_sqlite::SqliteStore::open(
        path.to_str().expect("UTF-8"),
        activity::StoreName::parse("sqlite").expect("a name"),
        activity::store::Retention::default(),
    )
    .await
    .expect("made");
    activity::store::ActivityStore::close(&made).await;
    drop(made);
    mounted.read_only(true);
    let url = format!("--store-url=sqlite://{}", path.display());
    let mut app = spawn_on(&url).await;
    let load = Load::start(&app);
    assert!(
        tab_says_available(&app, false).await,
        "the tab says the store is not keeping: {:?}",
        tab_stores(&app).await
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    mounted.read_only(false);

    assert!(
        tab_says_available(&app, true).await,
        "writable again: {:?}",
        tab_stores(&app).await
    );
    served_and_written(&app, load, "a read-only file system").await;
    app.stop().await.expect("stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_costs_writes_not_requests() {
    let Some(mounted) = Mounted::new() else {
        println!("SKIPPED: cannot mount a tmpfs here (needs root), so no disk to fill");
        return;
    };
    let url = format!(
        "--store-url=sqlite://{}/activity.db",
        mounted.0.path().display()
    );
    let mut app = spawn_on(&url).await;
    let load = Load::start(&app);
    assert!(
        wait_until(Duration::from_secs(10), async || app
            .recorder_stats()
            .written
            > 0)
        .await,
        "written while there is room"
    );

    // Fill the file system to the last byte.
    let filler = mounted.0.path().join("filler");
    let mut file = std::fs::File::create(&filler).expect("a filler");
    let block = vec![0u8; 1 << 20];
    while std::io::Write::write_all(&mut file, &block).is_ok() {}
    while std::io::Write::write_all(&mut file, &block[..4096]).is_ok() {}
    drop(file);
    assert!(
        tab_says_available(&app, false).await,
        "the tab says the store cannot be written"
    );
    let stores = tab_stores(&app).await;
    assert!(stores[0].1.contains("cannot be written"), "{stores:?}");
    tokio::time::sleep(Duration::from_secs(3)).await;
    std::fs::remove_file(&filler).expect("room again");

    let stats = served_and_written(&app, load, "a full disk").await;
    assert!(stats.failed_writes > 0, "the failed writes are counted");
    let stores = tab_stores(&app).await;
    assert!(
        stores[0].0 && stores[0].2 > 0,
        "writing again, failures on the card: {stores:?}"
    );
    app.stop().await.expect("stops");
}
