//! People on every kind of site (SPEC §3, people first): readers of sites
//! unlike whocomes' own — a PHP site whose pages are `.php` and whose script
//! posts at once, a WordPress-shaped site (theme files, 304s when the cache
//! is warm, `admin-ajax.php` and `/wp-json/` right after each page), a
//! single-page app with a catch-all route, returning readers with warm
//! caches, pages whose scripts post at once, an embedder's server functions
//! under another prefix than `/api` — each written as an access log here,
//! imported with `whocomes import`, and counted: at least 95 % of their
//! visitor-days must be people. Beside them, on the same sites, the
//! scanners must not be: probes answered 404, probes a catch-all answered
//! 200 (caught by the browser evidence), and a Googlebot from an address
//! Google does not publish. The tables in docs/ACCURACY.md come from here.

mod support;

use std::fmt::Write as _;

use activity::bot_class::BotClass;
use activity::evidence::Evidence;
use activity::report::{VisitorKind, visitor_kind};
use activity::rows::VisitorDay;
use activity::store::ActivityStore;
use chrono::{DateTime, NaiveDate, Utc};
use clap::Parser as _;
use server::cli::{Cli, Command};
use server::import::evidence::EvidenceTally;
use support::open_store;

const AGENTS: [&str; 4] = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
];

/// How many readers (and scanners) each site gets.
const READERS: u32 = 40;

/// An access log being written, in the combined format.
#[derive(Default)]
struct Log {
    text: String,
}

/// Who a line is from: an address and an agent.
#[derive(Clone, Copy)]
struct Client<'a> {
    ip: &'a str,
    agent: &'a str,
}

impl Log {
    /// One line: `at` seconds after 2026-11-02 08:00 UTC.
    fn line(&mut self, who: Client<'_>, at: i64, request: &str, status: u16) {
        let time = DateTime::<Utc>::from_timestamp(1_793_606_400 + at, 0).unwrap_or_default();
        let _ = writeln!(
            self.text,
            "{} - - [{}] \"{request} HTTP/1.1\" {status} 512 \"-\" \"{}\"",
            who.ip,
            time.format("%d/%b/%Y:%H:%M:%S %z"),
            who.agent
        );
    }
}

/// The `n`th reader of a site, with an address in `net` (`"203.0.113"`).
fn reader(net: &str, n: u32) -> (String, &'static str) {
    (format!("{net}.{n}"), AGENTS[n as usize % AGENTS.len()])
}

/// Each reader reads three pages, 40 to 70 s apart, doing at each what
/// `page` writes (at that second).
fn readers(log: &mut Log, net: &str, page: impl Fn(&mut Log, Client<'_>, i64, u32)) {
    for n in 1..=READERS {
        let (ip, agent) = reader(net, n);
        let who = Client { ip: &ip, agent };
        let start = i64::from(n) * 300;
        for step in 0..3u32 {
            page(
                log,
                who,
                start + i64::from(step) * (40 + i64::from(n % 30)),
                step,
            );
        }
    }
}

/// A PHP site: `.php` pages, a stylesheet and a script, and the script
/// posting the mouse's movements to `/log.php` within the second.
fn php_site() -> Log {
    let mut log = Log::default();
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/index.php", "/article.php?id=12", "/contact.php"][step as usize];
        log.line(who, at, &format!("GET {page}"), 200);
        if step == 0 {
            log.line(who, at, "GET /css/site.css", 200);
            log.line(who, at, "GET /js/mouse.js", 200);
        }
        log.line(who, at + 1, "POST /log.php", 200);
    });
    scanners(&mut log, "198.51.100", &probes(404));
    log
}

/// A WordPress-shaped site: theme files (304 from the second page on),
/// and the theme's script posting to `admin-ajax.php` and reading
/// `/wp-json/` right after each page.
fn wordpress_site() -> Log {
    let mut log = Log::default();
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/", "/2026/11/a-post/", "/about/"][step as usize];
        log.line(who, at, &format!("GET {page}"), 200);
        let files = if step == 0 { 200 } else { 304 };
        for file in [
            "/wp-content/themes/quiet/style.css?ver=6.7",
            "/wp-includes/js/jquery/jquery.min.js?ver=3.7.1",
            "/wp-content/themes/quiet/js/theme.js?ver=1.2",
        ] {
            log.line(who, at, &format!("GET {file}"), files);
        }
        log.line(who, at, "POST /wp-admin/admin-ajax.php", 200);
        log.line(who, at + 1, "GET /wp-json/wp/v2/posts?per_page=3", 200);
    });
    // Its scanners: the login page exists here (200), so only their
    // behaviour tells them: no file, a POST at once, xmlrpc.
    scanners(
        &mut log,
        "198.51.100",
        &[
            ("GET /wp-login.php", 200),
            ("POST /wp-login.php", 200),
            ("POST /xmlrpc.php", 200),
            ("GET /wp-config.php.bak", 200),
        ],
    );
    log
}

/// A single-page app whose catch-all route answers 200 to every path: its
/// readers load the shell, its hashed files and its API; its scanners get
/// 200 for `/wp-login.php` and `/.env` too.
fn single_page_app() -> Log {
    let mut log = Log::default();
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/", "/projects/12", "/settings"][step as usize];
        log.line(who, at, &format!("GET {page}"), 200);
        if step == 0 {
            log.line(who, at, "GET /assets/index-3f9a1c.js", 200);
            log.line(who, at, "GET /assets/index-77b1e2.css", 200);
        }
        log.line(who, at, "GET /api/me", 200);
        log.line(who, at + 1, "POST /api/events", 204);
    });
    scanners(&mut log, "198.51.100", &probes(200));
    log
}

/// Scanners with browser agents, each making `requests` (with the site's
/// answers), a second apart.
fn scanners(log: &mut Log, net: &str, requests: &[(&str, u16)]) {
    for n in 1..=READERS {
        let (ip, agent) = reader(net, n);
        let who = Client { ip: &ip, agent };
        let start = 20_000 + i64::from(n) * 60;
        for (at, (request, status)) in (start..).zip(requests) {
            log.line(who, at, request, *status);
        }
    }
}

/// Probes for things a site of this kind may not have, all answered
/// `status` (404: it has not; 200: a catch-all route answers everything).
fn probes(status: u16) -> [(&'static str, u16); 4] {
    [
        ("GET /wp-login.php", status),
        ("GET /admin.php", status),
        ("GET /cgi-bin/luci", status),
        ("GET /.env", status),
    ]
}

/// Returning readers whose browser revalidates the cached files (304).
fn warm_cache_revalidated() -> Log {
    let mut log = Log::default();
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/", "/notes/rust", "/about"][step as usize];
        log.line(who, at, &format!("GET {page}"), 200);
        log.line(who, at, "GET /static/site.css", 304);
        log.line(who, at, "GET /static/site.js", 304);
    });
    log
}

/// Readers on a first day (page and files), back the next day with the
/// files in a long-lived cache: the page alone.
fn warm_cache_long_lived() -> Log {
    let mut log = Log::default();
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/", "/notes/rust", "/about"][step as usize];
        log.line(who, at, &format!("GET {page}"), 200);
        if step == 0 {
            log.line(who, at, "GET /static/site.3f9a.css", 200);
            log.line(who, at, "GET /static/site.77b1.js", 200);
        }
    });
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/", "/notes/go", "/now"][step as usize];
        log.line(who, at + 86_400, &format!("GET {page}"), 200);
    });
    log
}

/// Pages whose script posts to the site the moment they load (a view
/// counter, a consent banner), to paths outside `/api`.
fn scripts_post_at_once() -> Log {
    let mut log = Log::default();
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/", "/blog/one", "/blog/two"][step as usize];
        log.line(who, at, &format!("GET {page}"), 200);
        if step == 0 {
            log.line(who, at, "GET /bundle.js", 200);
        }
        log.line(who, at, "POST /views", 204);
        log.line(who, at, "POST /consent", 200);
    });
    log
}

/// A Leptos app embedding whocomes, its server functions under `/_server/`.
fn embedded_server_functions() -> Log {
    let mut log = Log::default();
    readers(&mut log, "203.0.113", |log, who, at, step| {
        let page = ["/", "/shop", "/cart"][step as usize];
        log.line(who, at, &format!("GET {page}"), 200);
        if step == 0 {
            log.line(who, at, "GET /pkg/shop.css", 200);
            log.line(who, at, "GET /pkg/shop.js", 200);
            log.line(who, at, "GET /pkg/shop.wasm", 200);
        }
        log.line(who, at, "POST /_server/list_items12345", 200);
        log.line(who, at + 1, "POST /_server/cart_count9876", 200);
    });
    log
}

/// Googlebot from Google's published addresses, and "Googlebot" from elsewhere.
fn claimed_crawlers() -> Log {
    let mut log = Log::default();
    let agent = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    for n in 1..=READERS {
        let real = format!("66.249.66.{n}");
        let fake = format!("198.51.100.{n}");
        let at = i64::from(n) * 30;
        log.line(Client { ip: &real, agent }, at, "GET /", 200);
        log.line(Client { ip: &fake, agent }, at, "GET /", 200);
    }
    log
}

/// Imports `log` with `flags` and reads back its visitor-days.
async fn import(log: &Log, flags: &[&str]) -> (Vec<VisitorDay>, EvidenceTally) {
    let data = tempfile::tempdir().expect("a folder");
    let file = data.path().join("access.log");
    std::fs::write(&file, &log.text).expect("writes the log");
    let mut args = vec![
        "whocomes",
        "import",
        "--quiet",
        "--key",
        "people-test-key",
        "--visitor-days",
        "36500",
        "--data-dir",
        data.path().to_str().expect("UTF-8"),
    ];
    args.extend_from_slice(flags);
    args.push(file.to_str().expect("UTF-8"));
    let Command::Import(args) = Cli::try_parse_from(args).expect("arguments").into_command() else {
        panic!("expected import")
    };
    let tally = server::import::import(&args).await.expect("imports");
    let store = open_store(data.path()).await;
    let rows = store.visitors_since(NaiveDate::MIN).await.expect("reads");
    store.close().await;
    (rows, tally.evidence.expect("an evidence tally"))
}

/// Of the visitor-days whose network is `net.x`: how many, and how many people.
fn people_of(rows: &[VisitorDay], net: &str) -> (u64, u64) {
    let mine = rows
        .iter()
        .filter(|row| row.network.as_str() == format!("{net}.x"));
    let (mut days, mut people) = (0, 0);
    for row in mine {
        days += 1;
        if visitor_kind(row.requests, row.bots, row.self_reads, row.evidence) == VisitorKind::Person
        {
            people += 1;
        }
    }
    (days, people)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_of_sites_unlike_ours_count_as_people() {
    let sites: [(&str, Log, &[&str], bool); 8] = [
        (
            "a PHP site (.php pages, its script posts at once)",
            php_site(),
            &[],
            true,
        ),
        (
            "a WordPress-shaped site (theme files, 304s, admin-ajax, wp-json)",
            wordpress_site(),
            &[],
            true,
        ),
        (
            "a single-page app with a catch-all route",
            single_page_app(),
            &[],
            true,
        ),
        (
            "returning readers, files revalidated (304)",
            warm_cache_revalidated(),
            &[],
            false,
        ),
        (
            "returning readers, files in a long-lived cache, --browser-evidence off",
            warm_cache_long_lived(),
            &["--browser-evidence", "off"],
            false,
        ),
        (
            "pages whose script posts at once to /views, /consent",
            scripts_post_at_once(),
            &[],
            false,
        ),
        (
            "an embedder's server functions under /_server/",
            embedded_server_functions(),
            &[],
            false,
        ),
        (
            "the same, imported with --api-prefix /_server/",
            embedded_server_functions(),
            &["--api-prefix", "/_server/"],
            false,
        ),
    ];
    eprintln!(
        "| site | readers' visitor-days | people | scanners' visitor-days | of them people |"
    );
    eprintln!("|---|---|---|---|---|");
    for (name, log, flags, has_scanners) in sites {
        let (rows, _) = import(&log, flags).await;
        let (days, people) = people_of(&rows, "203.0.113");
        let (scanner_days, scanner_people) = people_of(&rows, "198.51.100");
        let scanners = if has_scanners {
            format!("{scanner_days} | {scanner_people}")
        } else {
            "– | –".to_owned()
        };
        eprintln!(
            "| {name} | {days} | {people} ({:.0} %) | {scanners} |",
            percent(people, days)
        );
        assert!(days >= u64::from(READERS), "{name}: {days} visitor-days");
        assert!(
            people * 100 >= days * 95,
            "{name}: {people} of {days} people"
        );
        if has_scanners {
            assert_eq!(scanner_days, u64::from(READERS), "{name}: its scanners");
            assert_eq!(scanner_people, 0, "{name}: no scanner is a person");
        }
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    part as f64 * 100.0 / whole as f64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_lived_caching_is_said_plainly_not_moved_silently() {
    let (rows, tally) = import(&warm_cache_long_lived(), &[]).await;
    let (days, people) = people_of(&rows, "203.0.113");
    let summary = tally.to_string();
    eprintln!("{summary}");
    assert_eq!(
        (days, people),
        (80, 40),
        "the second day's page-only readers moved"
    );
    assert_eq!(tally.only_no_files, 40);
    assert!(
        summary.contains("long-lived caching")
            && summary.contains("40 visitor-days were moved only for fetching no file")
            && summary.contains("--browser-evidence off would count 80 of 80 as people"),
        "{summary}"
    );
    // Revalidated files are a browser's sign: nothing to warn of.
    let (_, tally) = import(&warm_cache_revalidated(), &[]).await;
    assert!(!tally.to_string().contains("long-lived"), "{tally}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claimed_crawler_is_verified_by_its_address() {
    let (rows, _) = import(&claimed_crawlers(), &[]).await;
    let real: Vec<&VisitorDay> = rows
        .iter()
        .filter(|row| row.network.as_str() == "66.249.66.x")
        .collect();
    let fake: Vec<&VisitorDay> = rows
        .iter()
        .filter(|row| row.network.as_str() == "198.51.100.x")
        .collect();
    assert_eq!((real.len(), fake.len()), (40, 40));
    for row in &real {
        assert!(row.evidence.has(Evidence::VERIFIED), "{row:?}");
        assert_eq!(
            row.bot_classes.iter().collect::<Vec<_>>(),
            [BotClass::SearchEngine]
        );
    }
    for row in &fake {
        assert!(!row.evidence.has(Evidence::VERIFIED), "{row:?}");
        assert_eq!(
            row.bot_classes.iter().collect::<Vec<_>>(),
            [BotClass::Scanner],
            "a scanner in disguise"
        );
        assert_eq!(row.bots, row.requests);
    }
}

/// What `explain` says of one visitor-day, folded from its lines.
#[derive(Default)]
struct Explained {
    requests: u64,
    bots: u64,
    self_reads: u64,
    evidence: Evidence,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_on_a_log_agrees_with_what_the_import_stored() {
    for (name, log) in [
        ("PHP", php_site()),
        ("WordPress", wordpress_site()),
        ("single-page app", single_page_app()),
        ("scripts posting at once", scripts_post_at_once()),
    ] {
        let (rows, _) = import(&log, &[]).await;
        let argv = [
            "whocomes",
            "explain",
            "--format",
            "combined",
            "--key",
            "people-test-key",
        ];
        let Command::Explain(args) = Cli::try_parse_from(argv).expect("arguments").into_command()
        else {
            panic!("expected explain")
        };
        let keys = args.counting.explain_keys().expect("keys").expect("a key");
        let counter = args
            .counting
            .counter(keys, args.store_name.or("sqlite").expect("a name"))
            .expect("a counter");
        let mut out = Vec::new();
        let summary = server::explain::explain(
            log.text.as_bytes(),
            &mut out,
            (&counter, args.format),
            Utc::now(),
            None,
        )
        .expect("explains");
        assert_eq!(summary.malformed, 0, "{name}");
        let mut days: std::collections::BTreeMap<String, Explained> = Default::default();
        for line in String::from_utf8(out).expect("UTF-8").lines() {
            let line: serde_json::Value = serde_json::from_str(line).expect("JSON");
            if let Some(visitor) = line["marks"].as_str() {
                days.entry(visitor.to_owned()).or_default().evidence |= Evidence::FILES;
            }
            let hit = &line["hit"];
            let Some(visitor) = hit["visitor"].as_str() else {
                continue;
            };
            let day = days.entry(visitor.to_owned()).or_default();
            day.requests += 1;
            day.bots += u64::from(hit["kind"] == "bot");
            day.self_reads += u64::from(hit["kind"] == "self-read");
            day.evidence |=
                Evidence(u16::try_from(hit["evidence"].as_u64().expect("bits")).expect("16 bits"));
        }
        let hit_days = days.values().filter(|day| day.requests > 0).count();
        assert_eq!(hit_days, rows.len(), "{name}: the visitor-days");
        for row in &rows {
            let day = days.get(&row.visitor.to_string()).expect("explained");
            assert_eq!(
                (day.requests, day.bots, day.self_reads),
                (row.requests, row.bots, row.self_reads),
                "{name}: {}",
                row.network
            );
            assert_eq!(
                visitor_kind(day.requests, day.bots, day.self_reads, day.evidence),
                visitor_kind(row.requests, row.bots, row.self_reads, row.evidence),
                "{name}: the kind of {}",
                row.network
            );
        }
    }
}
