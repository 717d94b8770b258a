//! What one client can make whocomes write, on the real binary: a flood of
//! made-up paths from one client is kept under one path (the site answers
//! them 404) and grows the data folder by a few bytes a request, however
//! long the paths; ordinary traffic from many visitors grows it by its
//! visitor-days. Every request is still counted.

use std::path::Path;
use std::time::Instant;

use futures::StreamExt as _;

use crate::helpers::read_folder;
use crate::signals::{sigterm_and_wait, start_binary_logged};

/// The bytes of every file in `data` (the store and its journal, the keys).
fn folder_bytes(data: &Path) -> u64 {
    std::fs::read_dir(data)
        .expect("reads the folder")
        .filter_map(Result::ok)
        .filter_map(|entry| entry.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|meta| meta.len())
        .sum()
}

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// Sends `count` GETs, 32 at a time, for `request(n)`'s path from its
/// forwarded address; every one must be answered.
pub(crate) async fn send_all(url: &str, count: usize, request: impl Fn(usize) -> (String, String)) {
    let client = reqwest::Client::new();
    let answered = futures::stream::iter(0..count)
        .map(|n| {
            let (path, from) = request(n);
            let call = client
                .get(format!("{url}{path}"))
                .header("user-agent", BROWSER)
                .header("x-forwarded-for", from)
                .header("referer", "https://news.example.org/item?id=1")
                .send();
            async move { call.await.map(|answer| answer.status().as_u16()) }
        })
        .buffer_unordered(32)
        .filter(|status| std::future::ready(status.is_ok()))
        .count()
        .await;
    assert_eq!(answered, count, "every request answered");
}

/// Runs the binary on `data` through `traffic`, stops it with SIGTERM,
/// and returns how many bytes the folder grew by.
async fn grown_by(data: &Path, traffic: impl AsyncFnOnce(&str)) -> u64 {
    let before = folder_bytes(data);
    let (mut child, url, _log) = start_binary_logged(
        data,
        &[
            ("WHOCOMES_TRUSTED_PROXY", "127.0.0.1/32"),
            ("WHOCOMES_OWN_ADDRESS", "none"),
        ],
    );
    traffic(&url).await;
    sigterm_and_wait(&mut child);
    folder_bytes(data).saturating_sub(before)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_made_up_paths_grows_the_folder_by_a_few_bytes_a_request() {
    const FLOOD: usize = 10_000;
    const VISITORS: usize = 1_000;
    let data = tempfile::tempdir().expect("a folder");
    // A first run makes the keys and the tables: what any site has.
    grown_by(data.path(), async |url: &str| {
        send_all(url, 10, |_| ("/about".to_owned(), "203.0.113.1".to_owned())).await;
    })
    .await;

    let started = Instant::now();
    let flood = grown_by(data.path(), async |url: &str| {
        send_all(url, FLOOD, |n| {
            // 300 random-looking characters, a new path every time.
            let path = format!("/{:0>300x}", (n as u128 + 1) * 0x9E37_79B9_7F4A_7C15_F39C);
            (path, "198.51.100.66".to_owned())
        })
        .await;
    })
    .await;
    let flood_time = started.elapsed();

    // Ordinary traffic: many readers, a few pages each, with a referrer and tags.
    let pages = [
        "/",
        "/about",
        "/inventory",
        "/resume",
        "/?utm_source=mastodon",
    ];
    let ordinary = grown_by(data.path(), async |url: &str| {
        send_all(url, VISITORS * 3, |n| {
            let visitor = n / 3;
            (
                pages[(n + visitor) % pages.len()].to_owned(),
                format!(
                    "25.{}.{}.{}",
                    visitor / 65_536,
                    (visitor / 256) % 256,
                    visitor % 256
                ),
            )
        })
        .await;
    })
    .await;

    let per_flood = flood as f64 / FLOOD as f64;
    let per_ordinary = ordinary as f64 / (VISITORS * 3) as f64;
    eprintln!(
        "| traffic | requests | folder grew | bytes a request |\n|---|---|---|---|\n\
         | one client, {FLOOD} made-up 301-byte paths (404), in {flood_time:.1?} | {FLOOD} | {flood} | {per_flood:.1} |\n\
         | {VISITORS} visitors, 3 pages each, referrer, tags | {} | {ordinary} | {per_ordinary:.1} |",
        VISITORS * 3
    );
    assert!(
        per_flood <= 100.0,
        "the flood grew the folder by {per_flood:.1} bytes a request"
    );

    let (hours, visitors) = read_folder(data.path()).await;
    let counted: u64 = hours.iter().map(|row| row.requests).sum();
    assert_eq!(
        counted,
        (10 + FLOOD + VISITORS * 3) as u64,
        "every request counted"
    );
    let flooder = visitors
        .iter()
        .find(|row| row.network.as_str() == "198.51.100.x")
        .expect("the flooder's visitor-day");
    assert_eq!(flooder.requests, FLOOD as u64);
    assert_eq!(
        flooder
            .top_paths
            .iter()
            .map(|path| path.path.as_str())
            .collect::<Vec<_>>(),
        [activity::path::NOT_FOUND],
        "its made-up paths are one path"
    );
    assert!(
        hours
            .iter()
            .all(|row| row.path.len() <= activity::path::MAX_PATH_BYTES),
        "no kept path is longer than the cap"
    );
}

/// A body over the limit is answered 413, whether it says its length or
/// streams in chunks, and the site serves on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_body_is_refused_with_413_and_the_site_serves_on() {
    let data = tempfile::tempdir().expect("a folder");
    let (mut child, url, _log) = start_binary_logged(data.path(), &[]);
    let client = reqwest::Client::new();
    let address = url.trim_start_matches("http://").to_owned();
    let mut chunked = 0;
    for target in ["/admin/api/overview", "/admin/api/sign-in", "/about"] {
        // A declared 50 MiB is refused before a byte of it is read: only
        // the head is sent, so the server closes a clean connection and
        // the answer always arrives.
        let head = format!(
            "POST {target} HTTP/1.1\r\nhost: {address}\r\n\
             content-type: application/x-www-form-urlencoded\r\n\
             content-length: {}\r\n\r\n",
            50 << 20
        );
        let status = raw_status(&address, head.as_bytes(), &[]).await;
        assert_eq!(status, Some(413), "{target}, with its length");
        // In chunks, 1 MiB and 64 KiB in all: refused once past the limit.
        // The server stops reading there and may reset the connection
        // before its answer is read (the kernel drops it then), so an
        // answer that arrives must be right, and most must arrive.
        let head = format!(
            "POST {target} HTTP/1.1\r\nhost: {address}\r\n\
             content-type: application/x-www-form-urlencoded\r\n\
             transfer-encoding: chunked\r\n\r\n"
        );
        let mut body = Vec::new();
        for _ in 0..17 {
            body.extend_from_slice(format!("{:x}\r\n", 64 << 10).as_bytes());
            body.extend(std::iter::repeat_n(b'a', 64 << 10));
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b"0\r\n\r\n");
        if let Some(status) = raw_status(&address, head.as_bytes(), &body).await {
            // A page takes no POST: it answers 405 without reading the body.
            let refused = if target == "/about" { 405 } else { 413 };
            assert_eq!(status, refused, "{target}, in chunks");
            chunked += 1;
        }
    }
    eprintln!("{chunked} of 3 answers to a chunked body arrived");
    let answer = client
        .get(format!("{url}/about"))
        .send()
        .await
        .expect("answers");
    assert_eq!(answer.status().as_u16(), 200, "the site serves on");
    let small = client
        .post(format!("{url}/admin/api/sign-in"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("password=wrong")
        .send()
        .await
        .expect("answers");
    assert_ne!(small.status().as_u16(), 413, "a form's body is taken");
    sigterm_and_wait(&mut child);
}

/// Sends `head` then `body` on a new connection and reads the answer's
/// status; `None` when the connection broke before a status line came.
async fn raw_status(address: &str, head: &[u8], body: &[u8]) -> Option<u16> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connects");
    stream.write_all(head).await.expect("the head is sent");
    // The server may answer and close before the body is all sent.
    let _ = stream.write_all(body).await;
    // Only the status line is needed: the connection may stay open.
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while !answer.windows(2).any(|two| two == b"\r\n") {
        let read =
            tokio::time::timeout(std::time::Duration::from_secs(60), stream.read(&mut buffer))
                .await
                .expect("answers or closes within a minute");
        match read {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
        }
    }
    if answer.is_empty() {
        return None;
    }
    let line = String::from_utf8_lossy(&answer);
    let status = line.split_whitespace().nth(1)?;
    Some(status.parse().expect("a status code"))
}

/// The server's resident memory now, in MB (Linux).
fn rss_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// A store with many hourly rows (28 days × 24 hours × 150 paths) and
/// 28,000 visitor-days, written straight to its file.
async fn a_big_store(data: &Path) -> (u64, u64) {
    use activity::rows::HourRow;
    use activity::store::ActivityStore as _;
    let name = activity::StoreName::parse("sqlite").expect("a name");
    let store = activity_sqlite::SqliteStore::open(
        data.join("activity.db").to_str().expect("UTF-8"),
        name.clone(),
        activity::store::Retention::default(),
    )
    .await
    .expect("opens");
    let today = chrono::Utc::now().date_naive();
    let (mut hours, mut visitors) = (0, 0);
    for back in 1..=28u64 {
        let day = today - chrono::Days::new(back);
        let mut batch = activity::sample::day_rows(&name, day, 1_000, back);
        batch.hours = (0..24)
            .flat_map(|hour| {
                let name = name.clone();
                (0..150).map(move |path| HourRow {
                    store: name.clone(),
                    hour: day.and_hms_opt(hour, 0, 0).expect("an hour").and_utc(),
                    path: format!("/articles/{path:04}-a-long-enough-slug-for-a-real-blog"),
                    requests: 3,
                    bots: 1,
                    self_reads: 0,
                })
            })
            .collect();
        batch.hits = 24 * 150 * 3;
        hours += batch.hours.len() as u64;
        visitors += batch.visitors.len() as u64;
        store.record(&batch).await.expect("written");
    }
    store.close().await;
    (hours, visitors)
}

/// Sixteen readers at once of the biggest answers a stranger may ask for
/// (both exports of hourly rows, and the year's overview) hold a bounded
/// memory: the exports are read and sent a page at a time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_readers_of_the_biggest_answers_hold_a_bounded_memory() {
    let data = tempfile::tempdir().expect("a folder");
    let (hours, visitors) = a_big_store(data.path()).await;
    let (mut child, url, _log) = start_binary_logged(data.path(), &[]);
    let pid = child.id();
    let idle = rss_mb(pid).unwrap_or(0);
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(idle));
    let sampling = tokio::spawn({
        let peak = peak.clone();
        async move {
            loop {
                if let Some(now) = rss_mb(pid) {
                    peak.fetch_max(now, std::sync::atomic::Ordering::Relaxed);
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    });
    let client = reqwest::Client::new();
    let started = Instant::now();
    let answers = futures::future::join_all((0..16).map(|n| {
        let client = client.clone();
        let url = url.clone();
        async move {
            let request = match n % 4 {
                0 => client.get(format!("{url}/admin/api/export/hours.csv?range=365")),
                1 => client.get(format!("{url}/admin/api/export/hours.json?range=365")),
                _ => client
                    .post(format!("{url}/admin/api/overview"))
                    .form(&[("days", "365")]),
            };
            let answer = request.send().await.expect("answers");
            let status = answer.status().as_u16();
            let body = answer.bytes().await.expect("a whole body");
            (n % 4, status, body)
        }
    }))
    .await;
    let took = started.elapsed();
    sampling.abort();
    let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let after = rss_mb(pid).unwrap_or(0);
    sigterm_and_wait(&mut child);
    for (kind, status, body) in &answers {
        assert_eq!(*status, 200, "answered");
        match kind {
            0 => assert_eq!(
                body.iter().filter(|&&b| b == b'\n').count() as u64,
                hours + 1,
                "the header and every hourly row, each on its line"
            ),
            1 => {
                let rows: Vec<serde_json::Value> =
                    serde_json::from_slice(body).expect("a JSON array");
                assert_eq!(rows.len() as u64, hours);
            }
            _ => assert!(body.len() > 1_000, "the overview"),
        }
    }
    let sizes: Vec<usize> = answers
        .iter()
        .take(2)
        .map(|(_, _, body)| body.len())
        .collect();
    eprintln!(
        "{hours} hourly rows, {visitors} visitor-days; 16 readers (4 CSV, 4 JSON exports of {sizes:?} bytes, \
         8 year overviews) in {took:.1?}: server RSS idle {idle} MB, peak {peak} MB, 2 s after {after} MB"
    );
    assert!(peak <= 200, "peak RSS {peak} MB");
}
