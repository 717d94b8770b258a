//! docs/DEPLOY.md's follower (section 7), run for real: its systemd unit
//! checked by `systemd-analyze verify`, and its `ExecStart` line run on a
//! log that a writer appends to and rotates as logrotate does (renamed and
//! created, then copied and truncated), stopped by SIGTERM and started
//! again; every line is counted once.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use activity::StoreName;
use activity::store::{ActivityStore as _, Retention};
use activity_sqlite::SqliteStore;

use crate::deploy::{replaced, tested_block, the_unit_verifies};
use crate::signals::{binary, sigterm_and_wait};

const LOG: &str = "/var/log/nginx/access.log";
const DATA: &str = "/var/lib/whocomes";

#[test]
fn the_follower_unit_verifies() {
    the_unit_verifies("follow-unit", "whocomes-follow.service");
}

/// The unit's `ExecStart` and `Environment` lines, run with `log` and
/// `data` in place of the server's paths.
fn start_as_the_unit_does(log: &Path, data: &Path) -> Child {
    let unit = tested_block("follow-unit");
    let value = |key: &str| {
        unit.lines()
            .find_map(|line| line.strip_prefix(key))
            .unwrap_or_else(|| panic!("the unit has a {key} line"))
            .to_owned()
    };
    let exec = replaced(&value("ExecStart="), LOG, &log.display().to_string());
    let mut words = exec.split_whitespace();
    words.next().expect("the program");
    let environment = replaced(&value("Environment="), DATA, &data.display().to_string());
    let (name, folder) = environment.split_once('=').expect("NAME=value");
    Command::new(binary())
        .args(words)
        .env(name, folder)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the follower starts")
}

/// A visit made now (within the default retention), from one of 50 addresses.
fn line(n: u32) -> String {
    format!(
        "192.0.2.{} - - [{}] \"GET /posts/{} HTTP/1.1\" 200 900 \"-\" \"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15\"\n",
        n % 50,
        chrono::Utc::now().format("%d/%b/%Y:%H:%M:%S +0000"),
        n % 9
    )
}

fn append(path: &Path, range: std::ops::Range<u32>) {
    let text: String = range.map(line).collect();
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the log opens")
        .write_all(text.as_bytes())
        .expect("appended");
}

/// The store in the data folder, opened before the follower starts (so its
/// schema is there) and read while the follower writes.
async fn open_counts(data: &Path) -> SqliteStore {
    std::fs::create_dir_all(data).expect("a data folder");
    SqliteStore::open(
        data.join("activity.db").to_str().expect("UTF-8"),
        StoreName::parse("sqlite").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("opens")
}

async fn counted(store: &SqliteStore) -> u64 {
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    hours.iter().map(|h| h.requests).sum()
}

/// Waits (at most 30 s) until `store` holds `want` requests.
async fn counted_reaches(store: &SqliteStore, want: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = counted(store).await;
        if now == want {
            return;
        }
        assert!(
            now < want && Instant::now() < deadline,
            "{now} requests counted, waiting for {want}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_follower_as_deployed_counts_through_rotations_and_restarts() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let data = folder.path().join("data");
    let log = folder.path().join("access.log");
    append(&log, 0..100);
    let store = open_counts(&data).await;
    let child = start_as_the_unit_does(&log, &data);
    counted_reaches(&store, 100).await;

    // logrotate's `create`: renamed, a new file, nginx told to reopen.
    std::fs::rename(&log, folder.path().join("access.log.1")).expect("renamed");
    append(&log, 100..150);
    counted_reaches(&store, 150).await;

    // `copytruncate`: copied, then emptied in place.
    std::fs::copy(&log, folder.path().join("access.log.2")).expect("copied");
    OpenOptions::new()
        .write(true)
        .open(&log)
        .expect("opens")
        .set_len(0)
        .expect("truncated");
    append(&log, 150..180);
    counted_reaches(&store, 180).await;

    // systemctl restart: SIGTERM, then the same command again.
    let mut child = child;
    sigterm_and_wait(&mut child);
    append(&log, 180..190);
    let mut child = start_as_the_unit_does(&log, &data);
    append(&log, 190..200);
    counted_reaches(&store, 200).await;
    sigterm_and_wait(&mut child);
    assert_eq!(counted(&store).await, 200);
    store.close().await;
}
