//! Alerts and the digest from the real binary to a real SMTP server
//! (aiosmtpd, its Maildir read back by Python's e-mail parser) and alerts
//! to webhooks (a JSON body, Slack's and ntfy's) received on loopback: a
//! drop and its end, a spike and its end from made-up weeks in PostgreSQL,
//! the weekly digest (its figures the tab's for that week), a store down
//! after PostgreSQL is stopped and back after it is started, each told once
//! on every channel, and nothing told twice across a restart.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use activity::store::ActivityStore as _;
use axum::extract::{Path as UrlPath, State};
use axum::http::HeaderMap;
use chrono::{DurationRound as _, Timelike as _, Utc};

use crate::faults::{Postgres, can_run, free_port, postgres_script, wait_until};
use crate::signals::start_binary_logged;

/// What the webhook receiver got: the path, ntfy's title header, the body.
type Received = Arc<Mutex<Vec<(String, Option<String>, String)>>>;

fn aiosmtpd() -> Option<PathBuf> {
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/tools/aiosmtpd/bin/python");
    if python.exists() {
        return Some(python);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "aiosmtpd is missing under CI: scripts/bootstrap installs it"
    );
    println!("SKIPPED: aiosmtpd is not installed (scripts/bootstrap installs it)");
    None
}

/// aiosmtpd on loopback, keeping what it gets in `maildir`; killed on drop.
struct SmtpServer(Child);

impl SmtpServer {
    fn start(python: &Path, port: u16, maildir: &Path) -> Self {
        let child = Command::new(python)
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("aiosmtpd starts");
        Self(child)
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The mail in `maildir`, as Python's e-mail parser reads it.
fn inbox(python: &Path, maildir: &Path) -> Vec<serde_json::Value> {
    if !maildir.join("new").exists() {
        return Vec::new();
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/mail_inbox.py");
    let output = Command::new(python)
        .arg(script)
        .arg(maildir)
        .output()
        .expect("the inbox reader runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice::<Vec<serde_json::Value>>(&output.stdout).expect("JSON")
}

fn subjects(mail: &[serde_json::Value]) -> Vec<String> {
    mail.iter()
        .map(|message| message["subject"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A webhook receiver on loopback: every POST is kept; answers 200.
async fn receiver() -> (u16, Received) {
    let received: Received = Arc::default();
    let app = axum::Router::new()
        .route(
            "/{hook}",
            axum::routing::post(
                async |State(received): State<Received>,
                       UrlPath(hook): UrlPath<String>,
                       headers: HeaderMap,
                       body: String| {
                    let title = headers
                        .get("title")
                        .and_then(|value| value.to_str().ok())
                        .map(str::to_owned);
                    received.lock().expect("kept").push((hook, title, body));
                },
            ),
        )
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let port = listener.local_addr().expect("an address").port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (port, received)
}

/// How many of each (hook, topic word) the receiver got.
fn tally(received: &Received) -> BTreeMap<(String, String), usize> {
    let mut tally = BTreeMap::new();
    for (hook, title, body) in received.lock().expect("kept").iter() {
        let what = match hook.as_str() {
            "json" => {
                let body: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
                format!(
                    "{} {}",
                    body["topic"].as_str().unwrap_or("?"),
                    body["state"].as_str().unwrap_or("?")
                )
            }
            "slack" => {
                let body: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
                body["text"]
                    .as_str()
                    .unwrap_or("?")
                    .lines()
                    .next()
                    .unwrap_or("?")
                    .to_owned()
            }
            _ => title.clone().unwrap_or_default(),
        };
        *tally.entry((hook.clone(), what)).or_default() += 1;
    }
    tally
}

/// The digest's figures are the tab's for the seven days before today,
/// and its chart is carried inline, with nothing fetched from elsewhere.
async fn digest_is_the_tabs_week(digest: &serde_json::Value, url: &str) {
    let (client, cookie) = crate::operations::signed_in(url, "operator").await;
    let last = (Utc::now() - chrono::Duration::days(1))
        .date_naive()
        .to_string();
    let week: serde_json::Value = client
        .post(format!("{url}/admin/api/overview"))
        .header("cookie", &cookie)
        .form(&[("days", "7"), ("last", last.as_str())])
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("the overview as JSON");
    let people = week["totals"]["visitors"]["people"]
        .as_u64()
        .expect("people");
    let before = week["previous"]["visitors"]["people"]
        .as_u64()
        .expect("people before");
    let bots = week["totals"]["visitors"]["bots"].as_u64().expect("bots");
    assert!(people > 1_000, "the made-up week has people: {week}");
    let subject = digest["subject"].as_str().expect("a subject");
    assert!(
        subject.starts_with(&format!(
            "whocomes weekly digest for site: {people} people ("
        )),
        "{subject} / the tab: {people}"
    );
    let text = digest["parts"]["text/plain"].as_str().expect("a text part");
    assert!(
        text.contains(&format!("on the 7 days before ({before} people)"))
            && text.contains(&format!("Scanners and crawlers: {bots};")),
        "{text}"
    );
    let top = &week["top_paths"][0];
    let html = digest["parts"]["text/html"].as_str().expect("an HTML part");
    assert!(html.contains("src=\"cid:chart\""), "{html}");
    assert!(
        !html.contains("<script") && !html.contains("src=\"http"),
        "{html}"
    );
    assert!(
        html.contains(top["path"].as_str().expect("a path")),
        "{html}"
    );
    let inline = digest["inline"].as_array().expect("inline parts");
    assert_eq!(inline.len(), 1, "{inline:?}");
    assert_eq!(inline[0]["type"], "image/png");
    assert!(
        inline[0]["cid"]
            .as_str()
            .is_some_and(|cid| cid.contains("chart")),
        "{inline:?}"
    );
    assert!(
        inline[0]["bytes"].as_u64().is_some_and(|n| n > 5_000),
        "{inline:?}"
    );
}

fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alerts_reach_mail_and_webhooks_once_each_across_a_restart() {
    if !can_run() {
        return;
    }
    let Some(python) = aiosmtpd() else {
        return;
    };
    let postgres = Postgres::start(None);
    let name = activity::StoreName::parse("site").expect("a name");
    let store = activity_postgres::PostgresStore::open(
        &postgres.url,
        name.clone(),
        activity::store::Retention::default(),
    )
    .await
    .expect("connects");

    // The hours the watch judges: the last that has ended and settled.
    let now = Utc::now();
    let last = (now - chrono::Duration::minutes(5))
        .duration_trunc(chrono::Duration::hours(1))
        .expect("an hour")
        - chrono::Duration::hours(1);
    // Ten days of 8 people an hour; then, of the last nine hours, none in
    // the first (a drop), 80 in the sixth (a spike), 8 in the others. The
    // hours after them (the one under way) have their usual 8, so an hour
    // that ends while the test runs is no drop.
    let people = |hour: chrono::DateTime<Utc>| -> u64 {
        let back = (last - hour).num_hours();
        match back {
            8 => 0,
            3 => 80,
            _ => 8,
        }
    };
    let first_day = (last - chrono::Duration::days(10)).date_naive();
    let mut day = first_day;
    while day <= (last + chrono::Duration::hours(3)).date_naive() {
        let midnight = day.and_hms_opt(0, 0, 0).expect("midnight").and_utc();
        let mut hours = [0u64; 24];
        for (hour, count) in hours.iter_mut().enumerate() {
            let at = midnight + chrono::Duration::hours(hour as i64);
            if at <= last + chrono::Duration::hours(2) {
                *count = people(at);
            }
        }
        let batch = activity::sample::people_by_hour(&name, day, &hours, 7);
        store.record(&batch).await.expect("written");
        day = day.succ_opt().expect("a day");
    }
    // As a server stopped before those nine hours would have left it.
    let record = whocomes::notify::outbox::Record {
        judged_hour: Some(last - chrono::Duration::hours(9)),
        ..Default::default()
    };
    store
        .keep_cached(
            whocomes::notify::outbox::NOTE,
            &serde_json::to_string(&record).expect("JSON"),
        )
        .await
        .expect("kept");
    store.close().await;

    let maildir = tempfile::tempdir().expect("a folder");
    let maildir = maildir.path().join("inbox");
    let smtp_port = free_port();
    let _smtp = SmtpServer::start(&python, smtp_port, &maildir);
    let (hook_port, received) = receiver().await;
    let mail_url = format!("smtp://127.0.0.1:{smtp_port}");
    let webhooks = format!(
        "http://127.0.0.1:{hook_port}/json,slack=http://127.0.0.1:{hook_port}/slack,ntfy=http://127.0.0.1:{hook_port}/ntfy"
    );
    let data = tempfile::tempdir().expect("a folder");
    let weekday = Utc::now().format("%A").to_string();
    let settings = [
        ("WHOCOMES_STORE_URL", postgres.url.as_str()),
        ("WHOCOMES_STORE_NAME", "site"),
        ("WHOCOMES_MAIL_URL", mail_url.as_str()),
        ("WHOCOMES_MAIL_FROM", "whocomes@example.test"),
        ("WHOCOMES_MAIL_TO", "owner@example.test,ops@example.test"),
        ("WHOCOMES_WEBHOOK", webhooks.as_str()),
        ("WHOCOMES_ALERT_STORE_DOWN_SECS", "3"),
        ("WHOCOMES_ALERT_LOOK_SECS", "1"),
        ("WHOCOMES_ADMIN_PASSWORD", "operator"),
        // The weekly digest due since midnight today (UTC): the seven days
        // before today.
        ("WHOCOMES_DIGEST", "weekly"),
        ("WHOCOMES_DIGEST_DAY", weekday.as_str()),
        ("WHOCOMES_DIGEST_HOUR", "0"),
    ];
    let (mut child, url, log) = start_binary_logged(data.path(), &settings);

    // The nine hours judged at the first look: a drop and its end, a spike
    // and its end, in that order, on every channel.
    let traffic = [
        "whocomes: no people for an hour",
        "whocomes: people are coming again",
        "whocomes: a spike, 80 people in an hour",
        "whocomes: the spike is over",
    ];
    let arrived = wait_until(Duration::from_secs(60), async || {
        inbox(&python, &maildir).len() >= 5 && received.lock().expect("kept").len() >= 12
    })
    .await;
    let mail = inbox(&python, &maildir);
    assert!(
        arrived,
        "five mails and twelve posts: {:?}, {:?}; the log: {}",
        subjects(&mail),
        tally(&received),
        log.lock().expect("the log")
    );
    assert_eq!(subjects(&mail)[..4], traffic);
    digest_is_the_tabs_week(&mail[4], &url).await;
    let spike = &mail[2];
    assert_eq!(spike["from"], "whocomes@example.test");
    assert_eq!(spike["to"], "owner@example.test, ops@example.test");
    let text = spike["parts"]["text/plain"].as_str().expect("a text part");
    assert!(
        text.contains("80 people arrived in the hour")
            && text.contains(&format!(
                "{:02}:00",
                (last - chrono::Duration::hours(3)).hour()
            ))
            && text.contains("8.0 on average"),
        "{text}"
    );

    postgres_script("halt", &postgres.dir);
    let down = wait_until(Duration::from_secs(30), async || {
        inbox(&python, &maildir).len() >= 6
    })
    .await;
    let mail = inbox(&python, &maildir);
    assert!(down, "a store-down mail: {:?}", subjects(&mail));
    assert_eq!(subjects(&mail)[5], "whocomes: the store site is down");
    let text = mail[5]["parts"]["text/plain"]
        .as_str()
        .expect("a text part");
    assert!(text.contains("could not be reached"), "{text}");
    assert!(
        !text.contains(&postgres.url),
        "the store's URL was mailed: {text}"
    );

    postgres_script("resume", &postgres.dir);
    let back = wait_until(Duration::from_secs(60), async || {
        inbox(&python, &maildir).len() >= 7
    })
    .await;
    let mail = inbox(&python, &maildir);
    assert!(back, "a store-back mail: {:?}", subjects(&mail));
    assert_eq!(subjects(&mail)[6], "whocomes: the store site is back");

    // A restart: the record in the store says what was told.
    stop(&mut child);
    let (mut child, _url, log) = start_binary_logged(data.path(), &settings);
    tokio::time::sleep(Duration::from_secs(6)).await;
    stop(&mut child);
    let mail = inbox(&python, &maildir);
    let mut told = traffic.map(str::to_owned).to_vec();
    told.push(subjects(&mail)[4].clone());
    told.push("whocomes: the store site is down".to_owned());
    told.push("whocomes: the store site is back".to_owned());
    assert_eq!(
        subjects(&mail),
        told,
        "after the restart; its log: {}",
        log.lock().expect("the log")
    );
    let tally = tally(&received);
    println!("webhooks: {tally:?}");
    for hook in ["json", "slack", "ntfy"] {
        let of_hook: usize = tally
            .iter()
            .filter(|((h, _), _)| h == hook)
            .map(|(_, n)| n)
            .sum();
        assert_eq!(of_hook, 6, "{hook}: {tally:?}");
        assert!(
            tally
                .iter()
                .filter(|((h, _), _)| h == hook)
                .all(|(_, &n)| n == 1),
            "{hook} told twice: {tally:?}"
        );
    }
    for said in [
        "spike raised",
        "spike recovered",
        "drop raised",
        "drop recovered",
        "store-down:site raised",
        "store-down:site recovered",
    ] {
        assert_eq!(
            tally.get(&("json".to_owned(), said.to_owned())),
            Some(&1),
            "{said}: {tally:?}"
        );
    }
    assert_eq!(
        tally.get(&(
            "slack".to_owned(),
            "*whocomes: a spike, 80 people in an hour*".to_owned()
        )),
        Some(&1),
        "{tally:?}"
    );
    assert_eq!(
        tally.get(&(
            "ntfy".to_owned(),
            "whocomes: the store site is down".to_owned()
        )),
        Some(&1),
        "{tally:?}"
    );
}

/// A metric's value in OpenMetrics text (`NAME VALUE`), if it is there.
fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_smtp_server_that_is_down_is_retried_and_said_while_the_site_stays_ready() {
    let Some(python) = aiosmtpd() else {
        return;
    };
    // docs/DEPLOY.md's environment file, its mail server and webhooks
    // swapped for loopback ones (the SMTP server not started yet).
    let smtp_port = free_port();
    let (hook_port, received) = receiver().await;
    let block = crate::deploy::tested_block("alerts");
    let block = crate::deploy::replaced(
        &block,
        "smtps://alerts%40example.org:app-password@smtp.example.org:465",
        &format!("smtp://127.0.0.1:{smtp_port}"),
    );
    let block = crate::deploy::replaced(
        &block,
        "slack=https://hooks.slack.com/services/T000/B000/XXXX,ntfy=https://ntfy.sh/example-whocomes",
        &format!("slack=http://127.0.0.1:{hook_port}/slack,ntfy=http://127.0.0.1:{hook_port}/ntfy"),
    );
    let mut settings: Vec<(String, String)> = block
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (key, value) = line.split_once('=').expect("KEY=VALUE");
            (key.to_owned(), value.to_owned())
        })
        .collect();
    let metrics_port = free_port();
    settings.extend([
        ("WHOCOMES_ALERT_LOOK_SECS".to_owned(), "1".to_owned()),
        ("WHOCOMES_ADMIN_PASSWORD".to_owned(), "operator".to_owned()),
        (
            "WHOCOMES_METRICS_ADDR".to_owned(),
            format!("127.0.0.1:{metrics_port}"),
        ),
    ]);
    let settings: Vec<(&str, &str)> = settings
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_str()))
        .collect();
    let data = tempfile::tempdir().expect("a folder");
    let (mut child, url, log) = start_binary_logged(data.path(), &settings);
    let monitors = format!("http://127.0.0.1:{metrics_port}");
    let read_metrics = async || {
        reqwest::get(format!("{monitors}/metrics"))
            .await
            .expect("answers")
            .text()
            .await
            .expect("text")
    };

    // The digest is due (the latest Monday's), and the mail server is down.
    let failing = wait_until(Duration::from_secs(30), async || {
        metric(&read_metrics().await, "whocomes_notice_failures_total").is_some_and(|n| n >= 1.0)
    })
    .await;
    let text = read_metrics().await;
    assert!(
        failing,
        "a failed try counted: {text}; the log: {}",
        log.lock().expect("the log")
    );
    assert_eq!(
        metric(&text, "whocomes_notices_waiting"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        metric(&text, "whocomes_notices_sent_total"),
        Some(0.0),
        "{text}"
    );
    let (status, why) = crate::operations::ready(&monitors).await;
    assert_eq!(status, 200, "ready while the mail waits: {why}");
    let (client, cookie) = crate::operations::signed_in(&url, "operator").await;
    let overview = crate::operations::overview(&client, &url, &cookie).await;
    let notices = &overview["notices"];
    assert_eq!(notices["waiting"], 1, "{notices}");
    let failure = notices["last_failure"].as_str().expect("why it waits");
    assert!(
        failure.contains(&format!("127.0.0.1:{smtp_port}")),
        "{failure}"
    );
    let stranger = crate::operations::overview(&client, &url, "").await;
    assert!(
        stranger["notices"].is_null(),
        "a stranger is not told: {stranger}"
    );

    // The mail server comes up: the digest is sent at the next try.
    let maildir = tempfile::tempdir().expect("a folder");
    let maildir = maildir.path().join("inbox");
    let _smtp = SmtpServer::start(&python, smtp_port, &maildir);
    let sent = wait_until(Duration::from_secs(60), async || {
        !inbox(&python, &maildir).is_empty()
    })
    .await;
    let mail = inbox(&python, &maildir);
    assert!(
        sent,
        "the digest arrives; the log: {}",
        log.lock().expect("the log")
    );
    assert_eq!(mail.len(), 1, "{:?}", subjects(&mail));
    assert!(
        subjects(&mail)[0].starts_with("whocomes weekly digest for "),
        "{:?}",
        subjects(&mail)
    );
    assert_eq!(mail[0]["from"], "whocomes <alerts@example.org>");
    let settled = wait_until(Duration::from_secs(10), async || {
        metric(&read_metrics().await, "whocomes_notices_waiting") == Some(0.0)
    })
    .await;
    assert!(settled, "{}", read_metrics().await);
    assert_eq!(
        metric(&read_metrics().await, "whocomes_notices_sent_total"),
        Some(1.0)
    );
    assert!(
        received.lock().expect("kept").is_empty(),
        "a digest is mail only"
    );
    let said = log.lock().expect("the log").clone();
    assert!(said.contains("notices go to"), "{said}");
    stop(&mut child);
}
