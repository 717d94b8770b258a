//! `whocomes import --follow` under a writer: lines appended while it runs
//! are counted (a half-written line waits for its end), garbage is counted
//! as malformed and reading goes on, logrotate's rename-and-create and
//! copytruncate lose and double nothing, and the real binary stopped by
//! SIGTERM and started again counts every line exactly once.

mod support;

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use activity::store::ActivityStore as _;
use clap::Parser as _;
use server::cli::{Cli, Command};
use server::import::ImportArgs;
use server::import::tally::Tally;
use support::open_store;

/// A browser's request from one of 200 addresses, at a minute of the day.
fn line(n: u32) -> String {
    format!(
        "198.51.100.{} - - [30/Nov/2026:11:{:02}:{:02} +0000] \"GET /notes/{} HTTP/1.1\" 200 512 \"https://search.example/\" \"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0\"\n",
        n % 200,
        (n / 60) % 60,
        n % 60,
        n % 7
    )
}

fn lines(range: std::ops::Range<u32>) -> String {
    range.map(line).collect()
}

fn append(path: &Path, text: &[u8]) {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the log opens")
        .write_all(text)
        .expect("appended");
}

fn argv(data: &Path, log: &Path, follow: bool) -> Vec<String> {
    let mut argv: Vec<String> = [
        "import",
        "--quiet",
        "--key",
        "follow-test-key",
        "--visitor-days",
        "36500",
        "--data-dir",
    ]
    .map(str::to_owned)
    .to_vec();
    argv.push(data.display().to_string());
    if follow {
        argv.extend(
            [
                "--follow",
                "--follow-poll-ms",
                "20",
                "--follow-checkpoint-ms",
                "100",
            ]
            .map(str::to_owned),
        );
    }
    argv.push(log.display().to_string());
    argv
}

fn args(data: &Path, log: &Path, follow: bool) -> ImportArgs {
    let mut all = vec!["whocomes".to_owned()];
    all.extend(argv(data, log, follow));
    match Cli::try_parse_from(all)
        .expect("arguments parse")
        .into_command()
    {
        Command::Import(args) => *args,
        _ => panic!("expected import"),
    }
}

/// The store the follower writes to, opened by the test before the
/// follower starts and read while it writes.
struct Counts(activity_sqlite::SqliteStore);

impl Counts {
    async fn open(data: &Path) -> Self {
        Self(open_store(data).await)
    }

    /// Requests the store holds now.
    async fn now(&self) -> u64 {
        let hours = self
            .0
            .hours_since(chrono::DateTime::UNIX_EPOCH)
            .await
            .expect("reads");
        hours.iter().map(|h| h.requests).sum()
    }

    /// Waits until the store holds `want` requests (a minute at most: only
    /// a follower that stopped following takes that long).
    async fn reach(&self, want: u64) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let now = self.now().await;
            if now == want {
                return;
            }
            assert!(
                now < want && Instant::now() < deadline,
                "the store holds {now} requests, waiting for {want}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until the count has not changed for half a second.
    async fn settle(&self) {
        let mut last = self.now().await;
        let mut since = Instant::now();
        while since.elapsed() < Duration::from_millis(500) {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let now = self.now().await;
            if now != last {
                (last, since) = (now, Instant::now());
            }
        }
    }
}

/// Follows `log` while `writer` runs; stops the follower once it is done.
async fn follow_while<F: Future<Output = ()>>(data: &Path, log: &Path, writer: F) -> Tally {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let args = args(data, log, true);
    let follower = server::import::follow::follow(&args, async move {
        let _ = stopped.await;
    });
    let writing = async {
        writer.await;
        let _ = stop.send(());
    };
    let (tally, ()) = tokio::join!(follower, writing);
    tally.expect("the follower stops cleanly")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appended_lines_are_counted_garbage_too_and_a_half_line_waits() {
    let data = tempfile::tempdir().expect("a folder");
    let log = data.path().join("access.log");
    append(&log, lines(0..100).as_bytes());
    let counts = Counts::open(data.path()).await;
    let tally = follow_while(data.path(), &log, async {
        counts.reach(100).await;
        append(&log, lines(100..150).as_bytes());
        // Garbage, then a line longer than any kept, written in pieces.
        append(&log, b"\x16\x03\x01\x00\xff garbage\n");
        for _ in 0..5 {
            append(&log, &[b'x'; 5_000]);
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        append(&log, b"\n");
        // Half a line: not counted, and not malformed, until it ends.
        let next = line(150);
        let (first, rest) = next.split_at(40);
        append(&log, first.as_bytes());
        counts.reach(150).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(counts.now().await, 150, "half a line waits");
        append(&log, rest.as_bytes());
        counts.reach(151).await;
    })
    .await;
    assert_eq!(tally.lines, 153);
    assert_eq!(tally.counted(), 151);
    assert_eq!(tally.malformed_total(), 2, "{tally}");

    // Started again, it reads only what is new; a one-off import of the
    // same log then finds nothing new.
    let again = follow_while(data.path(), &log, async {
        append(&log, lines(151..161).as_bytes());
        counts.reach(161).await;
    })
    .await;
    assert_eq!(again.counted(), 10, "{again}");
    assert!(again.already_imported_bytes > 0);
    let once_more = server::import::import(&args(data.path(), &log, false))
        .await
        .expect("imports");
    assert_eq!(once_more.counted(), 0, "{once_more}");
    assert_eq!(counts.now().await, 161);
}

/// logrotate's two ways, under a writer that goes on writing: rename and
/// create (the web server writes a few lines more into the old file before
/// it reopens), then copy and truncate. The follower plus a one-off import
/// of each rotated copy count every line written exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_and_copytruncate_under_a_writer_lose_and_double_nothing() {
    let data = tempfile::tempdir().expect("a folder");
    let log = data.path().join("access.log");
    let renamed = data.path().join("access.log.1");
    let copied = data.path().join("access.log.2");
    let written: u32 = 1_020;
    // The web server's log is there before the follower starts (started
    // on a missing file, the follower refuses at once, as it should).
    append(&log, line(0).as_bytes());
    let counts = Counts::open(data.path()).await;
    let tally = follow_while(data.path(), &log, async {
        let mut n = 1;
        while n < written {
            append(&log, line(n).as_bytes());
            n += 1;
            if n == 300 {
                std::fs::rename(&log, &renamed).expect("renamed");
                // Still writing to the old file until told to reopen.
                append(&renamed, lines(n..n + 20).as_bytes());
                n += 20;
            }
            if n == 700 {
                std::fs::copy(&log, &copied).expect("copied");
                OpenOptions::new()
                    .write(true)
                    .open(&log)
                    .expect("opens")
                    .set_len(0)
                    .expect("truncated");
            }
            if n % 25 == 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        // Read to the end: what is missing now is in the copy only.
        counts.settle().await;
    })
    .await;
    assert_eq!(tally.rotations, 1, "{tally}");
    assert_eq!(tally.truncations, 1, "{tally}");
    assert_eq!(tally.malformed_total(), 0, "{tally}");
    let followed = counts.now().await;
    assert_eq!(followed, tally.counted());

    let from_renamed = server::import::import(&args(data.path(), &renamed, false))
        .await
        .expect("imports");
    assert_eq!(
        from_renamed.counted(),
        0,
        "the renamed log was read to its end before the new one: {from_renamed}"
    );
    let from_copy = server::import::import(&args(data.path(), &copied, false))
        .await
        .expect("imports");
    assert!(
        from_copy.already_imported_bytes > 0,
        "the ledger knows the copy's start: {from_copy}"
    );
    assert_eq!(counts.now().await, u64::from(written));
}

/// Starts the real binary following `log`.
fn start_follower(data: &Path, log: &Path) -> Child {
    Process::new(env!("CARGO_BIN_EXE_whocomes"))
        .args(argv(data, log, true))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

/// Sends SIGTERM, waits for a clean exit, returns what it printed.
fn stop_follower(child: Child) -> String {
    let killed = Process::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("ends");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{printed}");
    assert!(
        !printed.contains("Firefox") && !printed.contains("198.51.100."),
        "no line's bytes are printed: {printed}"
    );
    printed
}

/// SIGTERM while lines are being written, more lines while it is stopped,
/// a restart: every line is counted once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_stopped_by_sigterm_and_restarted_counts_every_line_once() {
    let data = tempfile::tempdir().expect("a folder");
    let log: PathBuf = data.path().join("access.log");
    append(&log, lines(0..50).as_bytes());
    let counts = Counts::open(data.path()).await;
    let child = start_follower(data.path(), &log);
    // Running (its SIGTERM handler is in place) once it has counted these.
    counts.reach(50).await;
    for n in 50..250 {
        append(&log, line(n).as_bytes());
        if n % 10 == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let printed = stop_follower(child);
    assert!(printed.contains("counted"), "the summary: {printed}");
    append(&log, lines(250..300).as_bytes());

    let child = start_follower(data.path(), &log);
    append(&log, lines(300..400).as_bytes());
    counts.reach(400).await;
    stop_follower(child);
    assert_eq!(counts.now().await, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_refuses_stdin_several_logs_gzip_and_a_missing_log_clearly() {
    let data = tempfile::tempdir().expect("a folder");
    let log = data.path().join("access.log");
    let gz = data.path().join("access.log.gz");
    append(&log, lines(0..3).as_bytes());
    std::fs::write(&gz, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0]).expect("written");
    let never = std::future::pending::<()>;

    let stdin = server::import::follow::follow(&args(data.path(), Path::new("-"), true), never())
        .await
        .expect_err("stdin is refused");
    assert!(stdin.to_string().contains("not stdin"), "{stdin:#}");

    let mut two = args(data.path(), &log, true);
    two.logs.push(log.clone());
    let two = server::import::follow::follow(&two, never())
        .await
        .expect_err("two logs are refused");
    assert!(two.to_string().contains("exactly one log"), "{two:#}");

    let gzip = server::import::follow::follow(&args(data.path(), &gz, true), never())
        .await
        .expect_err("gzip is refused");
    assert!(format!("{gzip:#}").contains("gzip-compressed"), "{gzip:#}");

    let absent = data.path().join("not-yet.log");
    let missing = server::import::follow::follow(&args(data.path(), &absent, true), never())
        .await
        .expect_err("a missing log is refused");
    assert!(
        format!("{missing:#}").contains("cannot open"),
        "{missing:#}"
    );

    let flags = Cli::try_parse_from(["whocomes", "import", "--follow-poll-ms", "5", "x.log"]);
    assert!(flags.is_err(), "--follow-poll-ms without --follow");
}
