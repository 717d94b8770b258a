//! Nothing that names a visitor reaches a store or a log. The real binary,
//! on SQLite and on PostgreSQL, is sent every request of the corpus logs
//! (each from its logged address, through a trusted proxy) and generated
//! requests: random IPv4 and IPv6 addresses in every textual form (ports,
//! brackets, mapped, upper case), user agents and queries carrying unique
//! markers, `@` and e-mail addresses in paths and queries, addresses and
//! e-mail addresses in campaign labels. Then it is
//! stopped, and the SQLite file and its WAL, a `pg_dump` of the database and
//! the server's log are searched for any full address sent, any user-agent
//! marker and any query marker. Expected: none. Of a place, only a
//! two-letter country code is kept on each visitor-day.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;

use activity::StoreName;
use activity::campaign::DROPPED;
use activity::rows::VisitorDay;
use activity::store::{ActivityStore as _, Retention};
use aho_corasick::AhoCorasick;
use server::import::logline::{LogFormat, parse};

use crate::signals::{sigterm_and_wait, start_binary_logged};

/// One request to send.
struct Send {
    forwarded_for: String,
    target: String,
    agent: String,
    referer: Option<String>,
}

/// What must never be found, and in which forms.
#[derive(Default)]
struct Needles {
    addresses: BTreeSet<String>,
    markers: BTreeSet<String>,
    /// What must be found instead: the generated addresses' networks.
    networks: Vec<String>,
}

/// The corpus's access logs; none (and a `SKIPPED:` line) on a plain clone,
/// where the generated traffic alone is searched.
fn corpus_logs() -> Vec<PathBuf> {
    let Some(folder) = activity::corpus::folder(env!("CARGO_MANIFEST_DIR"), "access-logs") else {
        return Vec::new();
    };
    let mut logs: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    logs.sort();
    logs
}

/// The corpus requests, and their addresses as needles (an address that
/// also appears elsewhere in some line — in a path, say — is not one: it
/// may rightly be kept there).
fn corpus(needles: &mut Needles) -> Vec<Send> {
    let mut sends = Vec::new();
    let mut elsewhere = String::new();
    let mut addresses = BTreeSet::new();
    for log in corpus_logs() {
        let bytes = std::fs::read(&log).expect("reads a corpus log");
        for line in bytes.split(|b| *b == b'\n') {
            let Ok(request) = parse(line, LogFormat::Combined) else {
                continue;
            };
            let text = String::from_utf8_lossy(line);
            if let Some((_, rest)) = text.split_once(' ') {
                elsewhere.push_str(rest);
                elsewhere.push('\n');
            }
            let Ok(target) = String::from_utf8(request.target.to_vec()) else {
                continue;
            };
            if !target.starts_with('/') {
                continue;
            }
            addresses.insert(request.peer.to_string());
            sends.push(Send {
                forwarded_for: request.peer.to_string(),
                target,
                agent: request.user_agent.unwrap_or_default().into_owned(),
                referer: request.referer.map(|referer| referer.into_owned()),
            });
        }
    }
    needles.addresses.extend(
        addresses
            .into_iter()
            .filter(|ip| !elsewhere.contains(ip.as_str())),
    );
    sends
}

/// A small deterministic generator (xorshift), so a failure can be replayed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Every way an address is written in a forwarding header, and the forms
/// a leak would take.
fn forms(ip: IpAddr, port: u16) -> (Vec<String>, Vec<String>) {
    let plain = ip.to_string();
    match ip {
        IpAddr::V4(v4) => (
            vec![
                plain.clone(),
                format!("{plain}:{port}"),
                format!("::ffff:{plain}"),
                format!("[::ffff:{plain}]:{port}"),
            ],
            vec![plain, v4.to_ipv6_mapped().to_string()],
        ),
        IpAddr::V6(v6) => {
            let full: String = v6
                .segments()
                .iter()
                .map(|s| format!("{s:04x}"))
                .collect::<Vec<_>>()
                .join(":");
            (
                vec![
                    plain.clone(),
                    plain.to_uppercase(),
                    format!("[{plain}]:{port}"),
                    full.clone(),
                ],
                vec![plain, full],
            )
        }
    }
}

fn generated(needles: &mut Needles, count: u64) -> Vec<Send> {
    let mut random = Random(0x5eed_1eaf_cafe_f00d);
    let mut sends = Vec::new();
    for n in 0..count {
        let ip = if n % 3 == 0 {
            let bits = random.next();
            // Global unicast, every group non-zero, so no form is ambiguous.
            let groups: [u16; 8] =
                std::array::from_fn(|i| ((bits >> (i * 8)) as u16 & 0x0fff) | 0x1000);
            IpAddr::V6(Ipv6Addr::from(groups))
        } else {
            let bits = random.next().to_be_bytes();
            IpAddr::V4(Ipv4Addr::new(
                11 + bits[0] % 200,
                bits[1],
                bits[2],
                10 + bits[3] % 240,
            ))
        };
        let port = 1024 + (random.next() % 60_000) as u16;
        let (written, leaked) = forms(ip, port);
        needles.addresses.extend(leaked);
        // Markers only where nothing may be kept: the user agent, the
        // query (an e-mail address too), the referrer's path and query.
        let ua = format!("uamark{n:06}x");
        let query = format!("qmark{n:06}x");
        let mail = format!("qmail{n:06}x");
        needles
            .markers
            .extend([ua.clone(), query.clone(), mail.clone()]);
        let target = match n % 5 {
            0 => format!("/about?q={query}&ref=linkedin"),
            1 => format!("/contact/jane.doe{n}@mail.example?x={query}"),
            2 => format!("/user@host{n}/inventory?{query}"),
            3 => format!("/?email={mail}@mail.example&utm_medium={query}"),
            // Campaign labels are kept: an address or an e-mail written
            // into one never is.
            _ => format!(
                "/?utm_source={ip}&utm_medium=email&utm_campaign={mail}%40mail.example&ref={query}"
            ),
        };
        needles.addresses.insert(ip.to_string());
        sends.push(Send {
            forwarded_for: written[(n as usize / 4) % written.len()].clone(),
            target,
            agent: format!("Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0 {ua}"),
            referer: Some(format!("https://ref{n}.example/{query}?{mail}")),
        });
        if let IpAddr::V4(v4) = ip {
            let [a, b, c, _] = v4.octets();
            needles.networks.push(format!("{a}.{b}.{c}.x"));
        }
    }
    sends
}

async fn replay(url: &str, sends: &[Send]) -> usize {
    let client = reqwest::Client::new();
    let mut answered = 0;
    for chunk in sends.chunks(32) {
        let answers = futures::future::join_all(chunk.iter().map(|send| {
            let mut request = client
                .get(format!("{url}{}", send.target))
                .header("x-forwarded-for", &send.forwarded_for)
                .header("user-agent", &send.agent)
                .header("accept", "text/html");
            if let Some(referer) = &send.referer {
                request = request.header("referer", referer);
            }
            request.send()
        }))
        .await;
        answered += answers.iter().filter(|a| a.is_ok()).count();
    }
    answered
}

/// Every needle found in `haystack`, not followed by a letter or digit
/// (`203.0.113.4` is not in `203.0.113.45`). Nothing is asked of the byte
/// before: SQLite keeps a row's columns side by side, so a network may
/// follow a token's last hex digit directly.
fn found(needles: &[String], haystack: &[u8]) -> BTreeSet<String> {
    let finder = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(needles)
        .expect("the needles compile");
    finder
        .find_overlapping_iter(haystack)
        .filter(|hit| {
            !haystack
                .get(hit.end())
                .is_some_and(u8::is_ascii_alphanumeric)
        })
        .map(|hit| needles[hit.pattern().as_usize()].clone())
        .collect()
}

async fn run(store: &str, settings: &[(&str, &str)]) {
    let data = tempfile::tempdir().expect("a folder");
    let mut needles = Needles::default();
    let mut sends = corpus(&mut needles);
    let from_corpus = needles.addresses.len();
    sends.extend(generated(&mut needles, 1200));
    let mut all = vec![
        ("WHOCOMES_TRUSTED_PROXY", "127.0.0.1/32"),
        ("WHOCOMES_FLUSH_MS", "200"),
    ];
    all.extend_from_slice(settings);
    let (mut child, url, log) = start_binary_logged(data.path(), &all);
    let answered = replay(&url, &sends).await;
    assert!(
        answered * 100 >= sends.len() * 99,
        "{store}: {answered} of {} answered",
        sends.len()
    );
    sigterm_and_wait(&mut child);

    let mut dumped: Vec<(String, Vec<u8>)> = Vec::new();
    for file in ["activity.db", "activity.db-wal"] {
        if let Ok(bytes) = std::fs::read(data.path().join(file)) {
            dumped.push((file.to_owned(), bytes));
        }
    }
    if let Some(database) = settings
        .iter()
        .find(|(name, _)| *name == "WHOCOMES_STORE_URL")
    {
        let dump = std::process::Command::new("pg_dump")
            .arg(database.1)
            .output()
            .expect("pg_dump runs");
        assert!(
            dump.status.success(),
            "{}",
            String::from_utf8_lossy(&dump.stderr)
        );
        assert!(dump.stdout.len() > 1000, "a real dump");
        dumped.push(("pg_dump".to_owned(), dump.stdout));
    }
    let log = log.lock().expect("the log").clone();
    assert!(log.contains("serving on"), "the log was read");
    dumped.push(("server log".to_owned(), log.into_bytes()));

    let addresses: Vec<String> = needles.addresses.iter().cloned().collect();
    let markers: Vec<String> = needles.markers.iter().cloned().collect();
    // The generated traffic alone leaves 2,000 address forms and 3,600
    // markers; the corpus (when it is beside the repository) adds its own.
    assert!(
        addresses.len() >= 2000 + from_corpus.min(1) && markers.len() == 3600,
        "{} addresses ({from_corpus} from the corpus)",
        addresses.len()
    );
    let rows = dumped.iter().map(|(_, bytes)| bytes.len()).sum::<usize>();
    eprintln!(
        "{store}: {} requests, {} addresses and {} markers searched in {} bytes",
        sends.len(),
        addresses.len(),
        markers.len(),
        rows
    );
    for (what, bytes) in &dumped {
        let leaked = found(&addresses, bytes);
        assert!(
            leaked.is_empty(),
            "{store}: full addresses in the {what}: {leaked:?}"
        );
        let leaked = found(&markers, bytes);
        assert!(
            leaked.is_empty(),
            "{store}: markers in the {what}: {leaked:?}"
        );
    }
    // The search reads what is kept: the networks are there (in the
    // SQLite file or still in its WAL, or in the dump).
    let mut kept = BTreeSet::new();
    for (what, bytes) in &dumped {
        if what != "server log" {
            kept.extend(found(&needles.networks, bytes));
        }
    }
    assert!(
        kept.len() * 2 > needles.networks.len(),
        "{store}: only {} of {} networks found in the store",
        kept.len(),
        needles.networks.len(),
    );

    // Of a place, only the country is kept: the store's own reading of its
    // rows finds a two-letter code (or none) on each visitor-day, and the
    // random global addresses sent mostly have one.
    let visitors = kept_visitors(data.path(), settings).await;
    let known = visitors.iter().filter(|v| v.country.is_some()).count();
    assert!(
        visitors.len() > 500 && known * 2 > visitors.len(),
        "{store}: {known} of {} visitor-days with a country",
        visitors.len()
    );
    // The campaigns sent are kept, each label that was an address, an
    // e-mail or a marker as `(dropped)` (the corpus logs bring labels of
    // their own, `feed` and the like).
    let campaigns: Vec<_> = visitors
        .iter()
        .filter_map(|v| v.pages.campaign.as_ref())
        .map(|at| &at.campaign)
        .collect();
    let labels = campaigns
        .iter()
        .flat_map(|c| [&c.source, &c.medium, &c.name])
        .flatten();
    let tagged = campaigns
        .iter()
        .filter(|c| c.source.as_deref() == Some(DROPPED) && c.medium.as_deref() == Some("email"))
        .count();
    assert!(
        tagged > 100 && campaigns.iter().all(|c| c.is_clean()),
        "{store}: {tagged} of {} campaigns with a dropped source, labels {:?}",
        campaigns.len(),
        labels.collect::<BTreeSet<_>>()
    );
    for visitor in &visitors {
        if let Some(country) = visitor.country {
            let code = country.as_str();
            assert!(
                code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase()),
                "{store}: a country kept as {code:?}"
            );
        }
    }
}

/// Every visitor-day the store kept, read through the store's own port.
async fn kept_visitors(data: &std::path::Path, settings: &[(&str, &str)]) -> Vec<VisitorDay> {
    let name = StoreName::parse("sqlite").expect("a name");
    let since = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("a day");
    match settings
        .iter()
        .find(|(name, _)| *name == "WHOCOMES_STORE_URL")
    {
        Some((_, url)) => {
            let name = StoreName::parse("postgres").expect("a name");
            let store = activity_postgres::PostgresStore::open(url, name, Retention::default())
                .await
                .expect("the database opens");
            let rows = store.visitors_since(since).await.expect("reads");
            store.close().await;
            rows
        }
        None => {
            let path = data.join("activity.db");
            let store = activity_sqlite::SqliteStore::open(
                path.to_str().expect("UTF-8"),
                name,
                Retention::default(),
            )
            .await
            .expect("the file opens");
            let rows = store.visitors_since(since).await.expect("reads");
            store.close().await;
            rows
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_that_names_a_visitor_reaches_sqlite_or_the_log() {
    run("sqlite", &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_that_names_a_visitor_reaches_postgres_or_the_log() {
    let Some(database) = activity_postgres::testing::fresh_database().await else {
        eprintln!("SKIPPED: TEST_DATABASE_URL is not set (scripts/test sets it)");
        return;
    };
    run("postgres", &[("WHOCOMES_STORE_URL", database.as_str())]).await;
}

#[test]
fn the_search_finds_a_planted_leak_and_only_whole_ones() {
    let needles = ["11.2.3.45".to_owned(), "uamark000001x".to_owned()];
    let found_in = |text: &[u8]| found(&needles, text).len();
    assert_eq!(
        found_in(b"3f9a11.2.3.45\x00"),
        1,
        "right after a token's hex"
    );
    assert_eq!(found_in(b"\"UAMARK000001X\""), 1, "any case");
    assert_eq!(found_in(b"11.2.3.456"), 0, "part of a longer address");
    assert_eq!(found_in(b"11.2.3.x"), 0, "a network");
}
