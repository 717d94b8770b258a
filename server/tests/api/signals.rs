//! The real binary: configured from `WHOCOMES_*` variables, and stopping
//! cleanly on SIGTERM.

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// Reads the binary's stderr until it says where it serves; returns that
/// URL. Every line it writes is added to `log`.
fn wait_for_serving_line(
    stderr: impl std::io::Read + Send + 'static,
    log: Arc<Mutex<String>>,
) -> String {
    let (found, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some((_, url)) = line.split_once("serving on ") {
                let _ = found.send(url.trim().to_owned());
            }
            let mut log = log
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            log.push_str(&line);
            log.push('\n');
        }
    });
    receive
        .recv_timeout(Duration::from_secs(30))
        .expect("the binary logs the address it serves on")
}

/// Where the binary whose log is `log` serves `/ready` and `/metrics`, as
/// its log says (it says so before it says where it serves).
pub(crate) fn monitors_url(log: &Mutex<String>) -> String {
    let log = log
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    log.lines()
        .find_map(|line| line.split_once("/ready and /metrics on "))
        .map(|(_, url)| url.trim().to_owned())
        .unwrap_or_else(|| panic!("the log says where monitors read: {log}"))
}

/// Sends SIGTERM and waits (at most 30 s) for a clean exit.
pub(crate) fn sigterm_and_wait(child: &mut std::process::Child) {
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait works") {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit status after SIGTERM: {status}");
}

/// Starts the real binary on a free port with a data folder in `data` and
/// `settings` as `WHOCOMES_*` variables; returns it and the URL it serves on.
fn start_binary(
    data: &std::path::Path,
    settings: &[(&str, &str)],
) -> (std::process::Child, String) {
    let (child, url, _) = start_binary_logged(data, settings);
    (child, url)
}

/// The binary under test: the one `WHOCOMES_BIN` names (a release), else
/// this build's.
pub(crate) fn binary() -> std::path::PathBuf {
    std::env::var_os("WHOCOMES_BIN")
        .map_or_else(|| env!("CARGO_BIN_EXE_whocomes").into(), Into::into)
}

/// [`start_binary`], also giving what the binary writes to stderr (its log).
/// A release serves the site beside it; this build's binary, the public files.
pub(crate) fn start_binary_logged(
    data: &std::path::Path,
    settings: &[(&str, &str)],
) -> (std::process::Child, String, Arc<Mutex<String>>) {
    let mut command = Command::new(binary());
    if std::env::var_os("WHOCOMES_BIN").is_none() {
        command.env(
            "WHOCOMES_SITE_ROOT",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../public"),
        );
    }
    command
        .env("WHOCOMES_DATA_DIR", data)
        .env("WHOCOMES_ADDR", "127.0.0.1:0")
        // A port of its own for monitors: binaries started at once do not
        // race for the default one.
        .env("WHOCOMES_METRICS_ADDR", "127.0.0.1:0")
        .env("WHOCOMES_LOG", "info")
        .envs(settings.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the binary starts");
    let log = Arc::new(Mutex::new(String::new()));
    let url = wait_for_serving_line(child.stderr.take().expect("stderr is piped"), log.clone());
    (child, url, log)
}

#[tokio::test]
async fn sigterm_stops_the_binary_cleanly() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let (mut child, url) = start_binary(data.path(), &[]);
    assert!(url.starts_with("http://127.0.0.1:"), "served on {url}");
    assert!(!url.ends_with(":0"), "the real port is reported: {url}");

    let response = reqwest::get(format!("{url}/about"))
        .await
        .expect("it serves");
    assert_eq!(response.status().as_u16(), 200);

    sigterm_and_wait(&mut child);
    assert!(
        data.path().join("day-keys").exists(),
        "day keys were made in the data folder"
    );
    assert!(
        data.path().join("activity.db").exists(),
        "activity is kept in the data folder"
    );
}

#[test]
fn a_bad_log_filter_is_refused_with_a_clear_message() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let output = Command::new(env!("CARGO_BIN_EXE_whocomes"))
        .env("WHOCOMES_DATA_DIR", data.path())
        .env("WHOCOMES_LOG", "server=loudly")
        .env("WHOCOMES_ADDR", "127.0.0.1:0")
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("WHOCOMES_LOG"), "{stderr}");
}

#[tokio::test]
async fn sigterm_under_load_loses_no_queued_hit() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let (mut child, url) = start_binary(
        data.path(),
        &[
            ("WHOCOMES_OWN_ADDRESS", "none"),
            // Nothing is written before the signal: every hit is still queued.
            ("WHOCOMES_FLUSH_MS", "600000"),
            ("WHOCOMES_FLUSH_HITS", "100000"),
        ],
    );
    let client = reqwest::Client::new();
    let requests = (0..400).map(|i| {
        let client = client.clone();
        let url = format!("{url}/about?n={i}");
        async move {
            client
                .get(url)
                .header(
                    "user-agent",
                    "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
                )
                .send()
                .await
        }
    });
    let answers = futures::future::join_all(requests).await;
    assert!(
        answers
            .iter()
            .all(|a| a.as_ref().is_ok_and(|r| r.status().as_u16() == 200))
    );

    sigterm_and_wait(&mut child);

    let export = Command::new(env!("CARGO_BIN_EXE_whocomes"))
        .args(["export", "hours", "--since=2000-01-01"])
        .env("WHOCOMES_DATA_DIR", data.path())
        .output()
        .expect("export runs");
    let hours: Vec<serde_json::Value> =
        serde_json::from_slice(&export.stdout).expect("a JSON array");
    let written: u64 = hours.iter().filter_map(|h| h["requests"].as_u64()).sum();
    assert_eq!(written, 400, "every queued hit was written at SIGTERM");
}
