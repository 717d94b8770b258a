//! `spawn_app()`: the real router on a free loopback port, stopped when the
//! returned value is dropped.

use std::net::SocketAddr;
use std::path::PathBuf;

use activity::StoreName;
use activity::rows::{HourRow, VisitorDay};
use activity::store::{ActivityStore, Retention};
use activity_sqlite::SqliteStore;
use clap::Parser as _;
use server::Application;
use server::cli::{Cli, Command};
use tokio::sync::oneshot;

/// The key every test app counts with (tokens can be checked against
/// activity/tests/token_vectors.rs).
pub const TEST_KEY: &str = "whocomes-test-key";

/// A running site and an HTTP client for it.
pub struct TestApp {
    pub addr: SocketAddr,
    /// Where monitors read `/ready` and `/metrics`, if the app serves them
    /// on an address of their own.
    pub metrics: Option<SocketAddr>,
    stats: std::sync::Arc<activity::recording::RecorderStats>,
    store: std::sync::Arc<dyn ActivityStore>,
    stores: Vec<std::sync::Arc<dyn ActivityStore>>,
    pub client: reqwest::Client,
    /// The data folder (SQLite file and key), removed when the app is dropped.
    pub data: tempfile::TempDir,
    stop: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl TestApp {
    /// `http://127.0.0.1:PORT{path}`
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("the server answers")
    }

    /// Stops the server and waits until it has finished serving and
    /// written every queued hit.
    pub async fn stop(&mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.served.take() {
            Some(served) => served.await.expect("the server task does not panic"),
            None => Ok(()),
        }
    }

    /// The store the app counts into.
    pub fn store(&self) -> std::sync::Arc<dyn ActivityStore> {
        self.store.clone()
    }

    /// Every store the app reads (its own first, then `--read-store`s).
    pub fn stores(&self) -> Vec<std::sync::Arc<dyn ActivityStore>> {
        self.stores.clone()
    }

    /// What the recorder has done so far.
    pub fn recorder_stats(&self) -> activity::recording::StatsSnapshot {
        self.stats.snapshot()
    }

    /// Waits until the writer has written everything queued so far (hits
    /// and marks), and returns what it has done: a test waits for the
    /// writer itself, never for a guess at how long it takes. The minute
    /// only bounds a writer that never catches up (a failure).
    pub async fn settled(&self) -> activity::recording::StatsSnapshot {
        for _ in 0..3_000 {
            let stats = self.recorder_stats();
            if stats.settled() {
                return stats;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("the writer did not catch up: {:?}", self.recorder_stats());
    }

    /// The public overview of the last `days` days once the writer has
    /// written everything queued and every day is summed as the store
    /// holds it (a read may show a changed day as it was, once).
    pub async fn current_overview(&self, days: &str) -> serde_json::Value {
        self.settled().await;
        for _ in 0..3_000 {
            let overview: serde_json::Value =
                post(self, "/admin/api/overview", &[("days", days)], None)
                    .await
                    .json()
                    .await
                    .expect("the overview is JSON");
            if overview["current"] == true {
                return overview;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("the overview never caught up with the store");
    }

    /// Stops the server, then reads what its SQLite file holds.
    pub async fn stop_and_read(mut self) -> (Vec<HourRow>, Vec<VisitorDay>) {
        self.stop().await.expect("stops cleanly");
        read_folder(self.data.path()).await
    }
}

/// What the SQLite file in the data folder `data` holds: every hourly row
/// and visitor-day.
pub async fn read_folder(data: &std::path::Path) -> (Vec<HourRow>, Vec<VisitorDay>) {
    let path = data.join("activity.db");
    let store = SqliteStore::open(
        path.to_str().expect("UTF-8"),
        StoreName::parse("sqlite").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("the file is there");
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    let day = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    store.close().await;
    (hours, visitors)
}

/// The requests `store`'s hourly rows hold, all hours summed.
pub async fn stored_requests(store: &dyn ActivityStore) -> u64 {
    store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("the store reads")
        .iter()
        .map(|hour| hour.requests)
        .sum()
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Starts the site with the default test flags.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// The workspace's `public/` folder: it holds the files the built site
/// serves as-is, so the tests need no build of the wasm bundle.
fn public_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("public")
}

/// Starts the site on 127.0.0.1 with a port the OS picks, counting into a
/// fresh SQLite file, with `extra` flags.
pub async fn spawn_app_with(extra: &[&str]) -> TestApp {
    spawn_app_in(tempfile::tempdir().expect("a temporary folder"), extra).await
}

/// Starts the site as [`spawn_app_with`] does, on the data folder `data`
/// (another app's, for a restart).
pub async fn spawn_app_in(data: tempfile::TempDir, extra: &[&str]) -> TestApp {
    let public = public_dir();
    let mut argv = vec![
        "whocomes".to_owned(),
        "serve".to_owned(),
        "--addr=127.0.0.1:0".to_owned(),
        format!("--data-dir={}", data.path().display()),
        format!("--key={TEST_KEY}"),
    ];
    if !extra.iter().any(|flag| flag.starts_with("--site-root")) {
        argv.push(format!("--site-root={}", public.display()));
    }
    if !extra.iter().any(|flag| flag.starts_with("--flush-ms")) {
        argv.push("--flush-ms=50".to_owned());
    }
    // Each app's monitors on a port of their own (many run at once).
    if !extra.iter().any(|flag| flag.starts_with("--metrics-addr")) {
        argv.push("--metrics-addr=127.0.0.1:0".to_owned());
    }
    argv.extend(extra.iter().map(|&flag| flag.to_owned()));
    let Command::Serve(config) = Cli::try_parse_from(argv)
        .expect("flags parse")
        .into_command()
    else {
        panic!("serve is the command")
    };
    let app = Application::build(*config).await.expect("the app builds");
    let addr = app.local_addr();
    let metrics = app.metrics_addr();
    let stats = app.recorder_stats();
    let store = app.store();
    let stores = app.stores();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(app.run_until(async {
        let _ = stopped.await;
    }));
    // The server closes a kept-alive connection idle for its header timeout
    // (10 s); a client that reused one just then would see it closed under
    // its request (a test run on a loaded machine did). Forget idle
    // connections well before that.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(std::time::Duration::from_secs(5))
        .build()
        .expect("a plain HTTP client");
    TestApp {
        addr,
        metrics,
        stats,
        store,
        stores,
        client,
        data,
        stop: Some(stop),
        served: Some(served),
    }
}

/// Builds the site with `flags` (and a fresh data folder), expecting it to
/// refuse to start; returns why, with its causes.
/// POSTs `form` to `path` (a server function), with `cookie` if given.
pub async fn post(
    app: &TestApp,
    path: &str,
    form: &[(&str, &str)],
    cookie: Option<&str>,
) -> reqwest::Response {
    let mut request = app.client.post(app.url(path)).form(form);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    request.send().await.expect("the server answers")
}

/// GETs `path`, with `cookie` if given.
pub async fn get_with(app: &TestApp, path: &str, cookie: Option<&str>) -> reqwest::Response {
    let mut request = app.client.get(app.url(path));
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    request.send().await.expect("the server answers")
}

pub async fn refused_at_start(flags: &[&str]) -> String {
    let data = tempfile::tempdir().expect("a temporary folder");
    let argv = ["whocomes".to_owned(), "--addr=127.0.0.1:0".to_owned()]
        .into_iter()
        .chain([format!("--data-dir={}", data.path().display())])
        .chain(flags.iter().map(|&flag| flag.to_owned()));
    let Command::Serve(config) = Cli::try_parse_from(argv)
        .expect("flags parse")
        .into_command()
    else {
        panic!("serve is the command")
    };
    match Application::build(*config).await {
        Ok(_) => panic!("the site started with {flags:?}"),
        Err(error) => format!("{error:#}"),
    }
}

/// One person behind the trusted proxy at `address` loads `pages`, each
/// with the favicon a browser asks for; every answer must be 200.
pub async fn person_reads(app: &TestApp, address: &str, pages: &[&str]) {
    const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    for path in pages.iter().flat_map(|page| [*page, "/favicon.ico"]) {
        let answer = app
            .client
            .get(app.url(path))
            .header("x-forwarded-for", address)
            .header("user-agent", FIREFOX)
            .send()
            .await
            .expect("answers");
        assert_eq!(answer.status(), reqwest::StatusCode::OK, "{path}");
    }
}
