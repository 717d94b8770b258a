//! The embedding guide's code, built as a stranger builds it: a crate of
//! its own outside the workspace (depending on `whocomes` by path, with its
//! default features, and on axum, tokio and tracing-subscriber from
//! crates.io, resolved afresh: no lock is copied), served, visited, stopped
//! with SIGTERM.
//!
//! Two people come through the trusted proxy (each a page and its icon;
//! one joins, which its handler marks as the goal `signup`), the site reads
//! itself from loopback, the tab is read at `/stats` with its own
//! stylesheet (its functions beside it, none in the site's `/api/`); after
//! SIGTERM the store holds two people, one own read, every hit and the
//! person's goal, and the app started again shows the goal in its tab.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use activity::report::{VisitorKind, visitor_kind};
use activity::store::{ActivityStore as _, Retention};

const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const PAGE: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const ICON: &str = "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first rust block after `marker` in the workspace's file `file`.
fn marked_code(file: &str, marker: &str) -> String {
    let text = std::fs::read_to_string(workspace().join(file)).expect(file);
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("{file} marks its embedding code with {marker}"));
    text[start..]
        .split_once("```rust\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(code, _)| code.to_owned())
        .unwrap_or_else(|| panic!("a rust block after {file}'s marker"))
}

/// The guide's code.
fn guide_code() -> String {
    marked_code("docs/EMBEDDING.md", "<!-- embed:start")
}

/// The guide shows the example's own code (which the workspace builds and
/// lints), in at most 30 lines, and so does its manifest; the README's
/// first screen links to the guide.
#[test]
fn the_guide_shows_the_examples_code() {
    let code = guide_code();
    let example =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs"))
            .expect("the example");
    assert_eq!(
        code, example,
        "docs/EMBEDDING.md's embedding block and examples/embed/src/main.rs differ"
    );
    assert!(code.lines().count() <= 30, "{} lines", code.lines().count());
    let guide = std::fs::read_to_string(workspace().join("docs/EMBEDDING.md")).expect("the guide");
    assert!(
        guide.contains(STRANGER_DEPENDENCIES),
        "the guide's [dependencies]"
    );
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("the README");
    let first_screen: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    assert!(
        first_screen.contains("(docs/EMBEDDING.md)"),
        "the README's first screen links to the guide"
    );
}

/// The `[dependencies]` the guide tells a stranger to write (besides
/// `whocomes`, here by path).
const STRANGER_DEPENDENCIES: &str = "axum = \"0.8\"\n\
                                     tokio = { version = \"1\", features = [\"full\"] }\n\
                                     tracing-subscriber = \"0.3\"\n";

/// A stranger's crate with the guide's code, built in a target folder of
/// its own (kept under the workspace's `target/`, so a second run is quick).
/// No `Cargo.lock` is copied: the crates build with what a stranger's
/// cargo picks today.
fn build_stranger(folder: &Path) -> PathBuf {
    let whocomes = workspace()
        .join("whocomes")
        .canonicalize()
        .expect("the crate");
    std::fs::create_dir_all(folder.join("src")).expect("a crate folder");
    std::fs::write(
        folder.join("Cargo.toml"),
        format!(
            "[package]\nname = \"my-site\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nwhocomes = {{ path = {whocomes:?} }}\n{STRANGER_DEPENDENCIES}\n[workspace]\n"
        ),
    )
    .expect("its manifest");
    std::fs::write(folder.join("src/main.rs"), guide_code()).expect("its code");
    let target = workspace().join("target/stranger");
    let built = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(folder.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(
        built.success(),
        "the guide's code builds as a crate of its own"
    );
    target.join("debug/my-site")
}

/// `text` without its terminal colour escapes (`ESC [ … m`).
fn without_colours(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('\u{1b}') {
        plain.push_str(&rest[..start]);
        rest = rest[start..].split_once('m').map_or("", |(_, after)| after);
    }
    plain.push_str(rest);
    plain
}

fn free_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    listener.local_addr().expect("an address").to_string()
}

async fn visit(
    client: &reqwest::Client,
    url: &str,
    forwarded: Option<&str>,
    agent: &str,
    accept: &str,
) {
    let mut request = client
        .get(url)
        .header("user-agent", agent)
        .header("accept", accept);
    if let Some(address) = forwarded {
        request = request.header("x-forwarded-for", address);
    }
    let answer = request.send().await.expect("answers");
    assert_eq!(answer.status(), 200, "{url}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_guides_app_counts_people_and_its_own_reads_and_keeps_every_hit_on_sigterm() {
    let folder = tempfile::tempdir().expect("a folder");
    let binary = build_stranger(&folder.path().join("my-site"));
    let address = free_address();
    let mut site = Command::new(&binary)
        .current_dir(folder.path())
        .env("DATA_DIR", folder.path().join("data"))
        .env("ADDRESS", &address)
        .env("SITE_KEY", "a seed of the test's")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the site starts");
    let base = format!("http://{address}");
    let client = reqwest::Client::new();
    let started = Instant::now();
    // Polled from loopback: a file of the site reading itself, not a hit.
    while client
        .get(format!("{base}/favicon.ico"))
        .send()
        .await
        .is_err()
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the site never listened"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for (person, agent) in [("198.51.100.7", CHROME), ("203.0.113.9", FIREFOX)] {
        visit(&client, &format!("{base}/"), Some(person), agent, PAGE).await;
        visit(
            &client,
            &format!("{base}/favicon.ico"),
            Some(person),
            agent,
            ICON,
        )
        .await;
    }
    // The first person joins: the handler marks the answer as a goal.
    visit(
        &client,
        &format!("{base}/join"),
        Some("198.51.100.7"),
        CHROME,
        PAGE,
    )
    .await;
    visit(&client, &format!("{base}/"), None, FIREFOX, PAGE).await;
    let tab = client
        .get(format!("{base}/stats"))
        .header("user-agent", FIREFOX)
        .send()
        .await
        .expect("the tab answers");
    assert_eq!(tab.status(), 200);
    let tab = tab.text().await.expect("its page");
    assert!(tab.contains("Who comes"), "the tab's heading");
    assert!(tab.contains("<svg"), "the chart, drawn on the server");
    // Its sentences name the builder's settings, never the binary's flags,
    // and it shows no line for figures it was not given (the connections' are:
    // see below).
    for flag in [
        "--own-address",
        "--trusted-proxy",
        "--funnel-step",
        "scripts/serve",
        "--demo",
    ] {
        assert!(!tab.contains(flag), "the embedded tab names {flag}");
    }
    assert!(
        tab.contains("loopback_is_self: false"),
        "how to count this machine as people"
    );
    // Served by `whocomes.serve`, under the binary's connection cap: the
    // figures of its connections are kept and shown (an app that serves
    // itself keeps none, and none are shown: whocomes' site tests).
    assert!(
        tab.contains("<dt>Connections"),
        "the connection figures whocomes' serve keeps"
    );
    assert!(
        tab.contains("<dt>Hits from this server"),
        "the writer's figures were"
    );
    assert!(
        tab.contains(r#"<link rel="stylesheet" href="/stats/tab.css""#),
        "the tab links its own stylesheet"
    );
    let style = client
        .get(format!("{base}/stats/tab.css"))
        .send()
        .await
        .expect("its stylesheet answers");
    assert_eq!(style.status(), 200);
    assert_eq!(
        style.headers()["content-type"].to_str().ok(),
        Some("text/css; charset=utf-8")
    );
    let style = style.text().await.expect("its stylesheet");
    assert!(
        style.contains(".admin-tab .chart .day .tip"),
        "its rules, scoped"
    );
    // Its functions beside it, none in the site's own /api/ (a call there
    // is the site's own API, from loopback: an own read, counted).
    for (path, status) in [
        ("/stats/api/overview", 200),
        ("/api/admin/overview", 404),
        ("/_whocomes/overview", 404),
    ] {
        let answer = client
            .post(format!("{base}{path}"))
            .form(&[("days", "30")])
            .send()
            .await
            .expect("answers");
        assert_eq!(answer.status(), status, "{path}");
    }

    // Stopped as systemd and containers stop it: SIGTERM, within the
    // writer's interval (10 s), so nothing is written unless the stop does.
    let terminated = Command::new("kill")
        .args(["-TERM", &site.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(terminated.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = site.try_wait().expect("waits") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the site did not stop on SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut log = String::new();
    std::io::Read::read_to_string(&mut site.stderr.take().expect("its errors"), &mut log)
        .expect("read");
    assert!(status.success(), "{status}: {log}");
    std::io::Read::read_to_string(&mut site.stdout.take().expect("its log"), &mut log)
        .expect("read");
    // The guide's tracing subscriber shows whocomes' own words (in colour:
    // its escapes are left out here).
    let log = without_colours(&log);
    assert!(log.contains("activity written written=5"), "{log}");

    let file = folder.path().join("data/activity.db");
    let store = activity_sqlite::SqliteStore::open(
        &format!("sqlite://{}", file.display()),
        activity::StoreName::parse("sqlite").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("the site's store");
    let days = store
        .visitors_since(chrono::Utc::now().date_naive() - chrono::Days::new(1))
        .await
        .expect("its visitor-days");
    let kinds: Vec<VisitorKind> = days
        .iter()
        .map(|day| visitor_kind(day.requests, day.bots, day.self_reads, day.evidence))
        .collect();
    let count = |kind| kinds.iter().filter(|k| **k == kind).count();
    assert_eq!(count(VisitorKind::Person), 2, "two people: {days:?}");
    assert_eq!(count(VisitorKind::SelfRead), 1, "one own read: {days:?}");
    assert_eq!(days.len(), 3, "{days:?}");
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("its hours");
    let requests: u64 = hours.iter().map(|hour| hour.requests).sum();
    assert_eq!(
        requests, 5,
        "two people's pages, the join, the own read's page and API call: {hours:?}"
    );
    let goals: Vec<(String, u64, VisitorKind)> = days
        .iter()
        .flat_map(|day| {
            let kind = visitor_kind(day.requests, day.bots, day.self_reads, day.evidence);
            day.goals
                .iter()
                .map(move |goal| (goal.goal.to_string(), goal.requests, kind))
        })
        .collect();
    assert_eq!(
        goals,
        [("signup".to_owned(), 1, VisitorKind::Person)],
        "the handler's goal, on the person who joined: {days:?}"
    );
    store.close().await;

    // Started again on its folder: the tab shows the goal.
    let mut again = Command::new(&binary)
        .current_dir(folder.path())
        .env("DATA_DIR", folder.path().join("data"))
        .env("ADDRESS", &address)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the site starts again");
    let started = Instant::now();
    let tab = loop {
        if let Ok(answer) = client.get(format!("{base}/stats")).send().await {
            break answer.text().await.expect("the tab");
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the site never listened again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = again.kill();
    let _ = again.wait();
    let row = tab
        .split_once(r#"<tr data-goal="signup">"#)
        .and_then(|(_, rest)| rest.split_once("</tr>"))
        // Without the hydration's markers.
        .map(|(row, _)| row.replace("<!>", ""))
        .unwrap_or_else(|| panic!("the Goals card's row of signup: {tab}"));
    assert!(
        row.contains(r#"<td data-column="people">1</td>"#)
            && row.contains(r#"<td data-column="share">50 %</td>"#),
        "one of the two people joined: {row}"
    );
}
