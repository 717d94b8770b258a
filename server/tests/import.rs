//! `whocomes import` on crafted logs: broken and hostile lines are counted
//! by reason and never echoed; a log imported twice is counted once, a
//! grown log adds only its new lines, a gzip copy is the same log.

mod support;

use std::io::Write as _;
use std::path::Path;

use activity::store::ActivityStore;
use clap::Parser as _;
use server::cli::{Cli, Command};
use server::import::logline::LineError;
use support::open_store;

const MARKER: &str = "SECRETMARKER";

fn args(data: &Path, logs: &[&Path]) -> server::import::ImportArgs {
    let mut argv = vec![
        "whocomes".to_owned(),
        "import".to_owned(),
        "--quiet".to_owned(),
        "--key".to_owned(),
        "import-test-key".to_owned(),
        "--visitor-days".to_owned(),
        "36500".to_owned(),
        "--data-dir".to_owned(),
        data.display().to_string(),
    ];
    argv.extend(logs.iter().map(|log| log.display().to_string()));
    match Cli::try_parse_from(argv)
        .expect("arguments parse")
        .into_command()
    {
        Command::Import(args) => *args,
        _ => panic!("expected import"),
    }
}

fn good(n: u32) -> String {
    format!(
        "203.0.113.{} - - [29/Nov/2026:10:{:02}:00 +0000] \"GET /about HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\"\n",
        n % 250,
        n % 60
    )
}

async fn stored_requests(data: &Path) -> u64 {
    let store = open_store(data).await;
    let hours = store
        .hours_since(chrono::DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    store.close().await;
    hours.iter().map(|h| h.requests).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_and_hostile_lines_are_counted_by_reason_and_never_echoed() {
    let data = tempfile::tempdir().expect("a folder");
    let log = data.path().join("hostile.log");
    let mut text = Vec::new();
    text.extend_from_slice(good(1).as_bytes());
    // Truncated, a host name, a bad time, TLS bytes, an unclosed quote,
    // binary garbage with NULs, an over-long line, a blank line.
    for line in [
        format!("203.0.113.9 - - [29/Nov/2026:10:00:00 +0000] \"GET /{MARKER}"),
        format!(
            "{MARKER}.example - - [29/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\""
        ),
        format!("203.0.113.9 - - [29/Nov/{MARKER}] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\""),
        format!(
            "203.0.113.9 - - [29/Nov/2026:10:00:00 +0000] \"\\x16\\x03{MARKER}\" 400 1 \"-\" \"-\""
        ),
        format!(
            "203.0.113.9 - - [29/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"{MARKER}"
        ),
    ] {
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
    }
    text.extend_from_slice(b"\x00\x01\xff\xfe");
    text.extend_from_slice(MARKER.as_bytes());
    text.push(b'\n');
    text.extend_from_slice(
        format!(
            "203.0.113.9 - - [29/Nov/2026:10:00:00 +0000] \"GET /{} HTTP/1.1\" 200 1 \"-\" \"-\"\n",
            MARKER.repeat(5_000)
        )
        .as_bytes(),
    );
    text.push(b'\n');
    text.extend_from_slice(good(2).as_bytes());
    std::fs::write(&log, &text).expect("written");

    let tally = server::import::import(&args(data.path(), &[&log]))
        .await
        .expect("a hostile log never stops the import");
    assert_eq!(tally.lines, 10);
    assert_eq!(tally.blank, 1);
    assert_eq!(tally.counted(), 2, "the two good lines");
    assert_eq!(tally.malformed_total(), 7);
    for (error, count) in [
        (LineError::NotAnAddress, 2),
        (LineError::BadTime, 1),
        (LineError::NotHttp, 1),
        (LineError::BadQuoting, 2),
        (LineError::TooLong, 1),
    ] {
        assert_eq!(tally.malformed.get(&error), Some(&count), "{error}");
    }
    let lines: Vec<u64> = tally
        .first_malformed
        .iter()
        .map(|(_, line, _)| *line)
        .collect();
    assert_eq!(lines, vec![2, 3, 4, 5, 6], "the first five by number");
    let printed = tally.to_string();
    assert!(
        !printed.contains(MARKER),
        "no line's bytes in the summary:\n{printed}"
    );
    assert_eq!(stored_requests(data.path()).await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_imported_twice_counts_once_and_a_grown_log_adds_its_new_lines() {
    let data = tempfile::tempdir().expect("a folder");
    let log = data.path().join("access.log");
    let first: String = (0..300).map(good).collect();
    std::fs::write(&log, &first).expect("written");

    let once = server::import::import(&args(data.path(), &[&log]))
        .await
        .expect("imports");
    assert_eq!(once.counted(), 300);
    let again = server::import::import(&args(data.path(), &[&log, &log]))
        .await
        .expect("imports again");
    assert_eq!(again.counted(), 0, "nothing twice");
    assert_eq!(again.already_imported_bytes, 2 * first.len() as u64);
    assert_eq!(stored_requests(data.path()).await, 300);

    // The same log, compressed: the same bytes, so the same log.
    let gz = data.path().join("access.log.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(first.as_bytes()).expect("compresses");
    std::fs::write(&gz, encoder.finish().expect("compressed")).expect("written");
    let compressed = server::import::import(&args(data.path(), &[&gz]))
        .await
        .expect("imports");
    assert_eq!(compressed.counted(), 0, "a gzip copy is the same log");

    // The log grows: only the new lines count, numbered after the old ones.
    let more: String = (300..340).map(good).collect();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("opens")
        .write_all(format!("{more}broken\n").as_bytes())
        .expect("appends");
    let grown = server::import::import(&args(data.path(), &[&log]))
        .await
        .expect("imports");
    assert_eq!(grown.counted(), 40);
    assert_eq!(grown.first_malformed.first().map(|m| m.1), Some(341));
    assert_eq!(stored_requests(data.path()).await, 340);

    // A shorter copy of it cannot be told from a truncated one: nothing.
    let truncated = data.path().join("truncated.log");
    std::fs::write(&truncated, &first.as_bytes()[..first.len() / 2]).expect("written");
    let copy = server::import::import(&args(data.path(), &[&truncated]))
        .await
        .expect("imports");
    assert_eq!((copy.counted(), copy.truncated_copies), (0, 1));

    // Another log with the same first 4 KiB but other content is new.
    let other = data.path().join("other.log");
    let mut changed = format!("{first}{more}").into_bytes();
    let at = first.len() - 10;
    changed[at] = b'9';
    changed.extend((340..400).flat_map(|n| good(n).into_bytes()));
    std::fs::write(&other, &changed).expect("written");
    let new_log = server::import::import(&args(data.path(), &[&other]))
        .await
        .expect("imports");
    assert_eq!(new_log.already_imported_bytes, 0);
    assert_eq!(new_log.counted(), 400);
}

#[test]
fn the_binary_reads_stdin_and_prints_the_summary() {
    use std::process::{Command as Process, Stdio};
    let data = tempfile::tempdir().expect("a folder");
    let mut child = Process::new(env!("CARGO_BIN_EXE_whocomes"))
        .args(["import", "--key", "stdin-key", "--data-dir"])
        .arg(data.path())
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let input = format!("{}{}not a log line {MARKER}\n", good(1), good(2));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("writes");
    let output = child.wait_with_output().expect("ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("counted") && l.contains(" 2 (2 pages")),
        "{stdout}"
    );
    assert!(
        stdout.contains("-:3: the client is not an IP address"),
        "{stdout}"
    );
    assert!(!stdout.contains(MARKER) && !stderr.contains(MARKER));
}

/// Import arguments for `logs`, with a seed (`--key`) or without one.
fn split_args(data: &Path, seed: Option<&str>, log: &Path) -> server::import::ImportArgs {
    let mut argv = vec!["whocomes", "import", "--quiet"];
    if let Some(seed) = seed {
        argv.extend(["--key", seed]);
    }
    let data = data.display().to_string();
    let log = log.display().to_string();
    argv.extend(["--data-dir", &data, &log]);
    match Cli::try_parse_from(argv)
        .expect("arguments parse")
        .into_command()
    {
        Command::Import(args) => *args,
        _ => panic!("expected import"),
    }
}

/// A logrotate-style history of three past days, 60 visitors a day, each
/// seen in the morning and the evening, cut in the middle of the second
/// day and imported in two runs (with and without a seed, under the
/// default day keys): every day counts 60 visitor-days, not the split day
/// 60 + its second half's again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_history_split_across_runs_counts_each_visitor_day_once() {
    let today = chrono::Utc::now().date_naive();
    let days: Vec<chrono::NaiveDate> = (3..=5)
        .rev()
        .map(|back| today - chrono::Days::new(back))
        .collect();
    let line = |day: chrono::NaiveDate, hour: u32, visitor: u32| {
        format!(
            "198.51.100.{visitor} - - [{}:{hour:02}:{:02}:00 +0000] \"GET /about HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0\"\n",
            day.format("%d/%b/%Y"),
            visitor % 60
        )
    };
    let mut first = String::new();
    let mut second = String::new();
    for (index, day) in days.iter().enumerate() {
        for hour in [9, 20] {
            let part = if index == 0 || (index == 1 && hour == 9) {
                &mut first
            } else {
                &mut second
            };
            for visitor in 1..=60 {
                part.push_str(&line(*day, hour, visitor));
            }
        }
    }
    for seed in [None, Some("split-history-seed")] {
        let data = tempfile::tempdir().expect("a folder");
        let logs = [
            data.path().join("access.log.1"),
            data.path().join("access.log"),
        ];
        std::fs::write(&logs[0], &first).expect("written");
        std::fs::write(&logs[1], &second).expect("written");
        for log in &logs {
            let tally = server::import::import(&split_args(data.path(), seed, log))
                .await
                .expect("imports");
            assert_eq!(
                tally.counted(),
                180,
                "{seed:?}: every line of {}",
                log.display()
            );
        }
        let store = open_store(data.path()).await;
        let rows = store.visitors_since(days[0]).await.expect("reads");
        store.close().await;
        for day in &days {
            let visitor_days = rows.iter().filter(|row| row.day == *day).count();
            assert_eq!(visitor_days, 60, "{seed:?}: visitor-days on {day}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_line_is_counted_under_its_addresss_country() {
    let data = tempfile::tempdir().expect("a folder");
    let log = data.path().join("access.log");
    let line = |address: &str| {
        format!(
            "{address} - - [29/Nov/2026:10:00:00 +0000] \"GET /about HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\"\n"
        )
    };
    // APNIC's 1.0.0.0/24 (Australia in the country table), an IPv6 block
    // of Russia's (2001:b08::/32), and a documentation address (none).
    let lines = [line("1.0.0.7"), line("2001:b08::7"), line("203.0.113.7")].concat();
    std::fs::write(&log, lines).expect("written");
    let imported = server::import::import(&args(data.path(), &[&log]))
        .await
        .expect("imports");
    assert_eq!(imported.counted(), 3);

    let store = open_store(data.path()).await;
    let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day");
    let visitors = store.visitors_since(day).await.expect("reads");
    store.close().await;
    let mut kept: Vec<(String, Option<String>)> = visitors
        .iter()
        .map(|v| (v.network.to_string(), v.country.map(|c| c.to_string())))
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            ("1.0.0.x".to_owned(), Some("AU".to_owned())),
            ("2001:b08:0:x".to_owned(), Some("RU".to_owned())),
            ("203.0.113.x".to_owned(), None),
        ]
    );
}

/// Chrome 131's agent on Linux.
const CHROME_131: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// The kinds of the visitor-days an import of `log` (its format found by
/// itself) stored, by network, with the import's count of visitor-days a
/// contradiction moved.
async fn kinds_after_import(log: &Path) -> (Vec<(String, activity::verdict::VisitorKind)>, u64) {
    let data = log.parent().expect("a folder").join("data");
    let tally = server::import::import(&args(&data, &[log]))
        .await
        .expect("imports");
    let store = open_store(&data).await;
    let day = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    let mut kinds: Vec<_> = store
        .visitors_since(day)
        .await
        .expect("reads")
        .iter()
        .map(|row| (row.network.as_str().to_owned(), row.counts().verdict().kind))
        .collect();
    store.close().await;
    kinds.sort();
    let moved = tally.evidence.map_or(0, |evidence| evidence.contradicted);
    (kinds, moved)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_that_keep_the_signs_hold_each_agent_to_its_request() {
    let hints = [
        r#""Chromium";v="131", "Google Chrome";v="131", "Not_A Brand";v="24""#,
        "?0",
        "\"Linux\"",
    ];
    // nginx's `whocomes` format: a browser (hints, fetch metadata) and wget
    // wearing its agent (neither), each a page and its stylesheet, over HTTPS.
    let nginx_line = |ip: &str, path: &str, dest: &str, signs: bool| {
        let escaped = |text: &str| text.replace('"', "\\x22");
        let (site, mode, brands, mobile, platform) = if signs {
            (
                "same-origin",
                if dest == "document" {
                    "navigate"
                } else {
                    "no-cors"
                },
                escaped(hints[0]),
                hints[1].to_owned(),
                escaped(hints[2]),
            )
        } else {
            ("-", "-", "-".to_owned(), "-".to_owned(), "-".to_owned())
        };
        let dest = if signs { dest } else { "-" };
        format!(
            "{ip} - - [29/Nov/2026:10:00:00 +0000] \"GET {path} HTTP/1.1\" 200 900 \"-\" \"{CHROME_131}\" \"https\" \"text/html\" \"{site}\" \"{mode}\" \"{dest}\" \"{brands}\" \"{mobile}\" \"{platform}\"\n"
        )
    };
    browser_and_impostor("nginx's whocomes format", &nginx_line).await;

    // The same two in Caddy's JSON access log.
    let caddy_line = |ip: &str, path: &str, dest: &str, signs: bool| {
        let json = |text: &str| serde_json::to_string(text).expect("a JSON string");
        let mut headers = vec![
            format!(r#""User-Agent":[{}]"#, json(CHROME_131)),
            r#""Accept":["text/html,*/*;q=0.8"]"#.to_owned(),
        ];
        if signs {
            headers.push(format!(r#""Sec-Ch-Ua":[{}]"#, json(hints[0])));
            headers.push(format!(r#""Sec-Ch-Ua-Mobile":[{}]"#, json(hints[1])));
            headers.push(format!(r#""Sec-Ch-Ua-Platform":[{}]"#, json(hints[2])));
            headers.push(format!(r#""Sec-Fetch-Dest":["{dest}"]"#));
            headers.push(r#""Sec-Fetch-Site":["same-origin"]"#.to_owned());
        }
        format!(
            r#"{{"ts":1796032800.25,"request":{{"client_ip":"{ip}","proto":"HTTP/2.0","method":"GET","host":"example.org","uri":"{path}","headers":{{{}}},"tls":{{"version":772}}}},"status":200}}"#,
            headers.join(",")
        ) + "\n"
    };
    browser_and_impostor("Caddy's JSON log, found by its first line", &caddy_line).await;
}

/// A log of a browser (203.0.113.7: its signs) and an impostor wearing its
/// agent (198.51.100.7: none), each a page and its stylesheet, written by
/// `line(ip, path, dest, signs)` and imported: one person, one bot, and the
/// import says one was moved for contradicting its agent.
async fn browser_and_impostor(format: &str, line: &dyn Fn(&str, &str, &str, bool) -> String) {
    use activity::verdict::VisitorKind::{Bot, Person};
    let folder = tempfile::tempdir().expect("a folder");
    let log = folder.path().join("access.log");
    let text: String = [
        line("203.0.113.7", "/about", "document", true),
        line("203.0.113.7", "/pkg/site.css", "style", true),
        line("198.51.100.7", "/about", "document", false),
        line("198.51.100.7", "/pkg/site.css", "style", false),
    ]
    .concat();
    std::fs::write(&log, text).expect("written");
    let (kinds, moved) = kinds_after_import(&log).await;
    assert_eq!(
        kinds,
        [
            ("198.51.100.x".to_owned(), Bot),
            ("203.0.113.x".to_owned(), Person)
        ],
        "{format}"
    );
    assert_eq!(moved, 1, "{format}: the import says why");
}
