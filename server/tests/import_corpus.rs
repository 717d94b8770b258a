//! Imports each access log of `../shared/corpus/access-logs` into a fresh
//! SQLite store and compares, per UTC day, what the import and the store
//! say with a reference worked out here from the raw lines with plain
//! string splitting and a naive loop: requests counted and not counted, bot
//! requests and self-reads, visitor-days by kind. The reference does the
//! reading of a line, its UTC day, whether it is counted and the
//! visitor-days again, differently — a browser's evidence included (the
//! page's files fetched; HTTP/1.0, a form posted within 2 s of its page,
//! over 20 pages in a 10 s window); the kind of one request is the
//! product's rule (`activity::classify::kind_of`), which is tested on its
//! own against the corpus' user agents. Skips, saying why, without the corpus.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::path::PathBuf;

use activity::Kind;
use activity::report::visitor_kind;
use activity::rules::{Rules, RulesConfig};
use activity::store::ActivityStore;
use chrono::{Duration, NaiveDate};
use clap::Parser as _;
use server::cli::{Cli, Command};
use support::open_store;

/// What the reference remembers of one address on one day.
#[derive(Clone, Debug, Default)]
struct Seen {
    requests: u64,
    bots: u64,
    self_reads: u64,
    files: bool,
    scripts: bool,
    impostor: bool,
    last_page_load: Option<i64>,
    window: Option<(i64, u64)>,
}

/// One day as the reference sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Day {
    counted: u64,
    not_counted: u64,
    bots: u64,
    self_reads: u64,
    people: u64,
    bot_days: u64,
    self_read_days: u64,
}

fn corpus() -> Option<Vec<PathBuf>> {
    let folder = activity::corpus::folder(env!("CARGO_MANIFEST_DIR"), "access-logs")?;
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("the corpus folder reads")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "log"))
        .collect();
    logs.sort();
    (!logs.is_empty()).then_some(logs)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `17/May/2015:10:05:03 +0200` → the UTC day, by hand.
fn utc_day(time: &str) -> Option<NaiveDate> {
    let (local, offset) = time.split_once(' ')?;
    let mut parts = local.split([':', '/']);
    let day: u32 = parts.next()?.parse().ok()?;
    let month_name = parts.next()?;
    let month = MONTHS.iter().position(|m| *m == month_name)? as u32 + 1;
    let year: i32 = parts.next()?.parse().ok()?;
    let hour: i64 = parts.next()?.parse().ok()?;
    let minute: i64 = parts.next()?.parse().ok()?;
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let offset_minutes =
        sign * (offset[1..3].parse::<i64>().ok()? * 60 + offset[3..5].parse::<i64>().ok()?);
    let minutes = hour * 60 + minute - offset_minutes;
    let date = NaiveDate::from_ymd_opt(year, month, day)?;
    Some(date + Duration::days(minutes.div_euclid(24 * 60)))
}

/// The same time as Unix seconds, by hand.
fn utc_seconds(time: &str) -> Option<i64> {
    let (local, offset) = time.split_once(' ')?;
    let clock: Vec<i64> = local
        .split_once(':')?
        .1
        .split(':')
        .map(|part| part.parse().ok())
        .collect::<Option<_>>()?;
    let [hour, minute, second] = clock[..] else {
        return None;
    };
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let offset_seconds =
        sign * (offset[1..3].parse::<i64>().ok()? * 3600 + offset[3..5].parse::<i64>().ok()? * 60);
    let (day, _) = local.split_once(':')?;
    let mut parts = day.split('/');
    let mday: u32 = parts.next()?.parse().ok()?;
    let month_name = parts.next()?;
    let month = MONTHS.iter().position(|m| *m == month_name)? as u32 + 1;
    let year: i32 = parts.next()?.parse().ok()?;
    let midnight = NaiveDate::from_ymd_opt(year, month, mday)?
        .and_hms_opt(0, 0, 0)?
        .and_utc()
        .timestamp();
    Some(midnight + hour * 3600 + minute * 60 + second - offset_seconds)
}

/// A quoted header as the live layer reads it: escaped non-text bytes make it none.
fn header(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded_is_text = true;
    for at in 0..bytes.len() {
        if bytes[at] == b'\\' && bytes.get(at + 1) == Some(&b'x') {
            let hex = text.get(at + 2..at + 4).unwrap_or("");
            if let Ok(value) = u8::from_str_radix(hex, 16) {
                decoded_is_text &= (0x20..0x7f).contains(&value) || value == b'\t';
            }
        }
    }
    let text = text.replace("\\\"", "\"").replace("\\\\", "\\");
    (decoded_is_text && !text.is_empty() && text != "-").then_some(text)
}

/// Whether a request for `path` is one for a file a page is made of: the
/// build output, or an asset's extension outside the Admin tab and the
/// root metadata.
fn is_file(method: &str, path: &str, config: &RulesConfig) -> bool {
    let starts = |prefixes: &[String]| prefixes.iter().any(|p| path.starts_with(p.as_str()));
    let last = path.rsplit('/').next().unwrap_or("");
    let asset = last
        .rsplit_once('.')
        .is_some_and(|(_, ext)| config.asset_extensions.contains(&ext.to_ascii_lowercase()));
    let admin = path == config.admin_path || path.starts_with(&format!("{}/", config.admin_path));
    (method == "GET" || method == "HEAD")
        && !admin
        && !starts(&config.admin_prefixes)
        && (starts(&config.build_prefixes) || (asset && !starts(&config.root_prefixes)))
}

/// Whether a request for `path` is counted, from the rules' lists.
fn is_counted(method: &str, path: &str, config: &RulesConfig) -> bool {
    let starts = |prefixes: &[String]| prefixes.iter().any(|p| path.starts_with(p.as_str()));
    let admin = path == config.admin_path || path.starts_with(&format!("{}/", config.admin_path));
    let last = path.rsplit('/').next().unwrap_or("");
    let ext = last
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    let root_file = path.matches('/').count() == 1
        && ext
            .as_ref()
            .is_some_and(|e| config.root_file_extensions.contains(e));
    let asset = ext
        .as_ref()
        .is_some_and(|e| config.asset_extensions.contains(e));
    !(method == "OPTIONS"
        || admin
        || starts(&config.admin_prefixes)
        || starts(&config.build_prefixes)
        || starts(&config.root_prefixes)
        || root_file
        || asset)
}

/// The reference: per UTC day, and how many lines are not requests.
fn reference(text: &str, rules: &Rules) -> (BTreeMap<NaiveDate, Day>, u64) {
    let mut days: BTreeMap<NaiveDate, Day> = BTreeMap::new();
    let mut visitors: BTreeMap<(NaiveDate, IpAddr), Seen> = BTreeMap::new();
    let mut malformed = 0;
    for line in text.lines() {
        let fields: Vec<&str> = line.split('"').collect();
        // Escaped quotes (`\"`) would split a field; the corpus has none
        // outside the user agent, which is the last field.
        let parsed = (|| {
            if fields.len() < 7 {
                return None;
            }
            let head = fields[0];
            let ip: IpAddr = head.split(' ').next()?.parse().ok()?;
            let time = head.split_once('[')?.1.split_once(']')?.0;
            let day = utc_day(time)?;
            let request: Vec<&str> = fields[1].split(' ').collect();
            let [method, target, protocol] = request[..] else {
                return None;
            };
            if !method.chars().all(|c| c.is_ascii_uppercase()) || !protocol.starts_with("HTTP/") {
                return None;
            }
            let status = fields[2].split_whitespace().next()?;
            if status.len() != 3 || !status.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let agent = header(&fields[5..fields.len() - 1].join("\""));
            let seconds = utc_seconds(time)?;
            let status: u16 = status.parse().ok()?;
            Some((ip, day, seconds, method, target, protocol, agent, status))
        })();
        let Some((ip, day, seconds, method, target, protocol, agent, status)) = parsed else {
            malformed += 1;
            continue;
        };
        let path = target.split('?').next().unwrap_or("");
        let entry = days.entry(day).or_default();
        let config = rules.config();
        if !is_counted(method, path, config) {
            entry.not_counted += 1;
            // A file under a probe path is a scanner's, and so is one under
            // software's path that the site answered 4xx (the product's lists).
            let probe = matches!(
                activity::classify::kind_of(
                    path,
                    Some("Mozilla/5.0 (X11) Firefox/133.0"),
                    None,
                    Some(status),
                    rules
                ),
                activity::KindReason::ProbePath(_)
            ) || (config
                .software_paths
                .iter()
                .any(|p| path.to_ascii_lowercase().contains(p.as_str()))
                && (400..500).contains(&status));
            if is_file(method, path, config) && !probe {
                let seen = visitors.entry((day, ip)).or_default();
                seen.files = true;
                let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
                seen.scripts |= matches!(ext.as_deref(), Some("js" | "mjs" | "wasm"));
            }
            continue;
        }
        entry.counted += 1;
        let kind =
            activity::classify::kind_of(path, agent.as_deref(), Some(ip), Some(status), rules)
                .kind();
        let visitor = visitors.entry((day, ip)).or_default();
        visitor.requests += 1;
        visitor.impostor |= protocol == "HTTP/1.0";
        let api = config
            .api_prefixes
            .iter()
            .any(|p| path.starts_with(p.as_str()));
        if !api {
            let window = seconds.div_euclid(10);
            let pages = match visitor.window {
                Some((at, pages)) if at == window => pages + 1,
                _ => 1,
            };
            visitor.window = Some((window, pages));
            visitor.impostor |= pages > 20;
            if method == "GET" {
                visitor.last_page_load = Some(seconds);
            } else if method == "POST" && !visitor.scripts {
                // A quick POST after the page's scripts is the page's script.
                visitor.impostor |= visitor
                    .last_page_load
                    .is_some_and(|loaded| (0..=2).contains(&(seconds - loaded)));
            }
        }
        match kind {
            Kind::Bot => {
                entry.bots += 1;
                visitor.bots += 1;
            }
            Kind::SelfRead => {
                entry.self_reads += 1;
                visitor.self_reads += 1;
            }
            Kind::Person => {}
        }
    }
    for ((day, _), seen) in visitors {
        if seen.requests == 0 {
            continue; // files only: no visitor-day
        }
        let entry = days.entry(day).or_default();
        if seen.requests > seen.bots + seen.self_reads && seen.files && !seen.impostor {
            entry.people += 1;
        } else if seen.requests > seen.self_reads {
            entry.bot_days += 1;
        } else {
            entry.self_read_days += 1;
        }
    }
    (days, malformed)
}

fn import_args(data: &std::path::Path, log: &std::path::Path) -> server::import::ImportArgs {
    import_args_with(data, log, "files")
}

fn import_args_with(
    data: &std::path::Path,
    log: &std::path::Path,
    evidence: &str,
) -> server::import::ImportArgs {
    let cli = Cli::try_parse_from([
        "whocomes",
        "import",
        "--quiet",
        "--browser-evidence",
        evidence,
        "--key",
        "corpus-test-key",
        // Keep the 2015–2022 visitor and hourly rows, to look at them.
        "--visitor-days",
        "36500",
        "--hour-days",
        "0",
        "--data-dir",
        data.to_str().expect("UTF-8"),
        log.to_str().expect("UTF-8"),
    ])
    .expect("arguments parse");
    match cli.into_command() {
        Command::Import(args) => *args,
        _ => panic!("expected import"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_corpus_log_is_counted_as_the_reference_counts_it() {
    let Some(logs) = corpus() else {
        return;
    };
    let rules = Rules::default();
    for log in logs {
        let name = log
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_owned();
        let text = String::from_utf8_lossy(&std::fs::read(&log).expect("reads")).into_owned();
        let (expected, malformed) = reference(&text, &rules);

        let data = tempfile::tempdir().expect("a folder");
        let tally = server::import::import(&import_args(data.path(), &log))
            .await
            .expect("imports");
        assert_eq!(
            tally.lines,
            text.lines().count() as u64,
            "{name}: every line read"
        );
        assert_eq!(
            tally.malformed_total(),
            malformed,
            "{name}: malformed lines"
        );

        let store = open_store(data.path()).await;
        let first = *expected.keys().next().expect("days");
        let last = *expected.keys().last().expect("days");
        let hours = store
            .hours_since(chrono::DateTime::UNIX_EPOCH)
            .await
            .expect("reads hours");
        let visitors = store.visitors_since(first).await.expect("reads visitors");
        let mut got: BTreeMap<NaiveDate, Day> = BTreeMap::new();
        for hour in &hours {
            let day = got.entry(hour.hour.date_naive()).or_default();
            day.counted += hour.requests;
            day.bots += hour.bots;
            day.self_reads += hour.self_reads;
        }
        for row in &visitors {
            let day = got.entry(row.day).or_default();
            match visitor_kind(row.requests, row.bots, row.self_reads, row.evidence) {
                activity::report::VisitorKind::Person => day.people += 1,
                activity::report::VisitorKind::Bot => day.bot_days += 1,
                activity::report::VisitorKind::SelfRead => day.self_read_days += 1,
            }
        }
        for (day, not_counted) in &tally.not_counted_by_day {
            got.entry(*day).or_default().not_counted += not_counted;
        }
        // No row holds a full address: every network ends in `x`.
        assert!(
            visitors
                .iter()
                .all(|row| row.network.as_str().ends_with('x')),
            "{name}: networks only"
        );

        eprintln!(
            "{name} ({} lines, {malformed} malformed, {} … {}):",
            tally.lines, first, last
        );
        if let Some(evidence) = &tally.evidence {
            eprint!("{evidence}");
        }
        eprintln!("  day         counted  not  bots  self  people  scanners  own");
        for (day, counts) in &expected {
            eprintln!(
                "  {day}  {:>7} {:>4} {:>5} {:>5} {:>7} {:>9} {:>4}",
                counts.counted,
                counts.not_counted,
                counts.bots,
                counts.self_reads,
                counts.people,
                counts.bot_days,
                counts.self_read_days
            );
        }
        let days: BTreeSet<&NaiveDate> = expected.keys().chain(got.keys()).collect();
        for day in days {
            let want = expected.get(day).cloned().unwrap_or_default();
            let have = got.get(day).cloned().unwrap_or_default();
            assert_eq!(have, want, "{name}: {day}");
            assert_eq!(
                have.people + have.bot_days + have.self_read_days,
                visitors.iter().filter(|row| row.day == *day).count() as u64,
                "{name}: {day}: the kinds add up"
            );
        }
        store.close().await;
    }
}

/// The visitor-days by kind a fresh import of `log` leaves, with the
/// import's evidence tally, under `--browser-evidence evidence`.
async fn import_kinds(
    log: &std::path::Path,
    evidence: &str,
) -> (
    activity::report::KindCounts,
    server::import::evidence::EvidenceTally,
) {
    let data = tempfile::tempdir().expect("a folder");
    let tally = server::import::import(&import_args_with(data.path(), log, evidence))
        .await
        .expect("imports");
    let store = open_store(data.path()).await;
    let visitors = store
        .visitors_since(NaiveDate::MIN)
        .await
        .expect("reads visitors");
    let mut kinds = activity::report::KindCounts::default();
    for row in &visitors {
        kinds.add(visitor_kind(
            row.requests,
            row.bots,
            row.self_reads,
            row.evidence,
        ));
    }
    store.close().await;
    (
        kinds,
        tally.evidence.expect("an import reports its evidence"),
    )
}

/// ACCURACY.md's log tables: each corpus log's visitor-days by kind under
/// both evidence rules, what moved and why; and the hackers log (form spam
/// with browser agents) at least 95 % under scanners and crawlers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disguised_bots_in_the_corpus_logs_land_under_scanners_and_crawlers() {
    let Some(logs) = corpus() else {
        return;
    };
    eprintln!(
        "| log | rule | visitor-days | people | scanners and crawlers | own reads | person-looking moved | no files | HTTP/1.0 | instant form post | rate |"
    );
    eprintln!("|---|---|---|---|---|---|---|---|---|---|---|");
    for log in &logs {
        let name = log.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        for rule in ["files", "off"] {
            let (kinds, moved) = import_kinds(log, rule).await;
            eprintln!(
                "| {name} | {rule} | {} | {} | {} | {} | {} of {} | {} | {} | {} | {} |",
                kinds.total(),
                kinds.people,
                kinds.bots,
                kinds.self_reads,
                moved.moved,
                moved.person_looking,
                moved.no_files,
                moved.old_protocol,
                moved.instant_post,
                moved.rate
            );
            assert!(moved.moved <= moved.person_looking, "{name}");
            if rule == "off" {
                assert_eq!(moved.no_files, 0, "{name}: off asks for no files");
            }
            if name.contains("hackers") && rule == "files" {
                let share = kinds.bots as f64 / kinds.total() as f64;
                eprintln!(
                    "hackers log: {:.1} % of visitor-days under scanners and crawlers",
                    share * 100.0
                );
                assert!(share >= 0.95, "hackers log: {kinds:?}");
            }
        }
    }
}
