//! The site serves whatever the store does: a PostgreSQL that is down at
//! start is picked up when it comes up, and one killed mid-run costs failed
//! writes, not requests. These start PostgreSQL servers of their own with
//! `scripts/postgres`, so they run where the test command runs (it sets
//! TEST_DATABASE_URL); elsewhere they say why they skip.
#![allow(clippy::print_stdout)]

use std::process::Command;
use std::time::{Duration, Instant};

use crate::helpers::{TestApp, spawn_app_with};

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// A PostgreSQL of the test's own, stopped (and its folder removed) on drop.
struct Postgres {
    dir: String,
    url: String,
}

impl Postgres {
    fn start(port: Option<u16>) -> Self {
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

fn can_run() -> bool {
    let set = std::env::var("TEST_DATABASE_URL").is_ok();
    if !set {
        println!(
            "SKIPPED: needs the PostgreSQL binaries the test command installs (TEST_DATABASE_URL unset)"
        );
    }
    set
}

fn free_port() -> u16 {
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

async fn wait_until(deadline: Duration, mut ready: impl AsyncFnMut() -> bool) -> bool {
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
    let mut app = spawn_app_with(&["--own-address=none", "--trusted-proxy=127.0.0.1", &url]).await;
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
    let mut app = spawn_app_with(&["--own-address=none", "--trusted-proxy=127.0.0.1", &url]).await;
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
    let stats = app.recorder_stats();
    assert_eq!(
        stats.written + stats.lost,
        21,
        "every hit is written or counted as lost: {stats:?}"
    );
}
