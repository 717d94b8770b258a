//! The consistency rule (SPEC §3) on the header sets browsers send, for the
//! vendors that cannot run here: each one's page load and one of its page's
//! files, to an HTTPS origin, must stay people. The agents and hint values
//! are the shapes each vendor documents and sends (Chromium's
//! User-Agent Client Hints, Microsoft's, Opera's, Brave's, Samsung's and
//! Yandex's brands; Safari's fetch metadata from 16.4 without
//! `Sec-Fetch-User`; Chrome on iOS and in-app browsers on WebKit, which send
//! no hints). The tools and impostors after them must not be people.
//! Real browsers and real tools are driven against the real binary in
//! `server/tests/api/real_clients.rs` and the e2e.
#![allow(clippy::print_stdout)]

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use whocomes_activity::address::TrustedProxies;
use whocomes_activity::consistency::Contradiction;
use whocomes_activity::evidence::Evidence;
use whocomes_activity::verdict::{DayCounts, VisitorKind};
use whocomes_activity::{Counter, RequestView, Rules, RulesConfig, StoreName, VisitorKey};

/// The headers one client sends, for its page load and for a file.
struct Client {
    name: &'static str,
    agent: &'static str,
    /// `Sec-CH-UA`, `-Mobile`, `-Platform` (on every request), if sent.
    hints: Option<(&'static str, &'static str, &'static str)>,
    /// Whether it sends fetch metadata (`Sec-Fetch-Site`, `-Mode`, `-Dest`).
    metadata: bool,
    /// The page load's `Accept`.
    accept: &'static str,
}

/// Chrome 131's `Sec-CH-UA`.
const CHROME_BRANDS: &str = r#""Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24""#;

const NAVIGATE: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

const fn browser(
    name: &'static str,
    agent: &'static str,
    hints: Option<(&'static str, &'static str, &'static str)>,
    metadata: bool,
) -> Client {
    Client {
        name,
        agent,
        hints,
        metadata,
        accept: NAVIGATE,
    }
}

const PEOPLE: &[Client] = &[
    browser(
        "Chrome 131 on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        Some((CHROME_BRANDS, "?0", "\"Windows\"")),
        true,
    ),
    browser(
        "Chrome 131 on an Android phone",
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
        Some((CHROME_BRANDS, "?1", "\"Android\"")),
        true,
    ),
    browser(
        "Chrome 131 on an Android phone, asking for the desktop site",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        Some((CHROME_BRANDS, "?0", "\"Android\"")),
        true,
    ),
    browser(
        "Chrome 131 on an Android tablet",
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        Some((CHROME_BRANDS, "?0", "\"Android\"")),
        true,
    ),
    browser(
        "Chrome 131 on ChromeOS",
        "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        Some((CHROME_BRANDS, "?0", "\"Chrome OS\"")),
        true,
    ),
    browser(
        "Chrome 131 on macOS",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        Some((CHROME_BRANDS, "?0", "\"macOS\"")),
        true,
    ),
    browser(
        "Edge 131 on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
        Some((
            r#""Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
            "?0",
            "\"Windows\"",
        )),
        true,
    ),
    browser(
        "Edge on Android (its own product, EdgA)",
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.0.0",
        Some((
            r#""Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
            "?1",
            "\"Android\"",
        )),
        true,
    ),
    browser(
        "Opera 115 on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
        Some((
            r#""Chromium";v="130", "Opera";v="115", "Not?A_Brand";v="99""#,
            "?0",
            "\"Windows\"",
        )),
        true,
    ),
    browser(
        "Opera on Android (sends no client hints)",
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36 OPR/85.0.0.0",
        None,
        true,
    ),
    browser(
        "Brave 1.73 (Chrome's agent, its own brand)",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        Some((
            r#""Brave";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
            "?0",
            "\"Windows\"",
        )),
        true,
    ),
    browser(
        "Vivaldi (Chrome's agent, no brand of its own)",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
        Some((
            r#""Chromium";v="130", "Not?A_Brand";v="99""#,
            "?0",
            "\"Linux\"",
        )),
        true,
    ),
    browser(
        "Samsung Internet 27 on a phone",
        "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36",
        Some((
            r#""Not/A)Brand";v="8", "Chromium";v="125", "Samsung Internet";v="27.0""#,
            "?1",
            "\"Android\"",
        )),
        true,
    ),
    browser(
        "Samsung Internet in DeX (a desktop agent on Android)",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Safari/537.36",
        Some((
            r#""Not/A)Brand";v="8", "Chromium";v="125", "Samsung Internet";v="27.0""#,
            "?0",
            "\"Android\"",
        )),
        true,
    ),
    browser(
        "Yandex Browser 24",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 YaBrowser/24.10.0.0 Safari/537.36",
        Some((
            r#""Chromium";v="128", "Not;A=Brand";v="24", "YaBrowser";v="24.10""#,
            "?0",
            "\"Windows\"",
        )),
        true,
    ),
    browser(
        "Android WebView in an app",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36",
        Some((
            r#""Android WebView";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
            "?1",
            "\"Android\"",
        )),
        true,
    ),
    browser(
        "Facebook's in-app browser on Android, its app making the request itself",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/490.0.0.58.81;]",
        None,
        false,
    ),
    browser(
        "Instagram's in-app browser on iOS (WebKit, no version)",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 352.0.0.17.109 (iPhone15,2; iOS 17_6; en_US; en; scale=3.00; 1179x2556; 652512426)",
        None,
        false,
    ),
    browser(
        "Safari 17.5 on macOS",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
        None,
        true,
    ),
    browser(
        "Safari 16.4 on an iPhone",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 16_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.4 Mobile/15E148 Safari/604.1",
        None,
        true,
    ),
    browser(
        "Safari 16.3 on an iPad (before fetch metadata)",
        "Mozilla/5.0 (iPad; CPU OS 16_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.3 Mobile/15E148 Safari/604.1",
        None,
        false,
    ),
    browser(
        "Chrome on iOS (WebKit: no client hints)",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
        None,
        true,
    ),
    browser(
        "Firefox 133 on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
        None,
        true,
    ),
    browser(
        "Firefox 133 on Android",
        "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0",
        None,
        true,
    ),
    browser(
        "Firefox 89 (before fetch metadata)",
        "Mozilla/5.0 (X11; Linux x86_64; rv:89.0) Gecko/20100101 Firefox/89.0",
        None,
        false,
    ),
    browser(
        "Chrome 85 (fetch metadata, no client hints yet)",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/85.0.4183.121 Safari/537.36",
        None,
        true,
    ),
    browser(
        "Chrome 75 (neither yet)",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/75.0.3770.142 Safari/537.36",
        None,
        false,
    ),
    browser(
        "Electron 33 app showing the site",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.6723.118 Electron/33.2.0 Safari/537.36",
        Some((
            r#""Chromium";v="130", "Not?A_Brand";v="99""#,
            "?0",
            "\"Linux\"",
        )),
        true,
    ),
];

const CHROME_131: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// Impostors, with the contradiction each one's page load shows.
const IMPOSTORS: &[(Client, Contradiction)] = &[
    (
        browser(
            "wget -p with Chrome's agent (no hints, no fetch metadata)",
            CHROME_131,
            None,
            false,
        ),
        Contradiction::NoClientHints,
    ),
    (
        browser(
            "wget -p with Firefox's agent",
            "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            None,
            false,
        ),
        Contradiction::NoFetchMetadata,
    ),
    (
        browser(
            "wget -p with Safari's agent",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
            None,
            false,
        ),
        Contradiction::NoFetchMetadata,
    ),
    (
        browser(
            "headless Chromium 156 with --user-agent Chrome 131",
            CHROME_131,
            Some((
                r#""Not:A-Brand";v="8", "Chromium";v="156""#,
                "?0",
                "\"Linux\"",
            )),
            true,
        ),
        Contradiction::HintedVersion,
    ),
    (
        browser(
            "old headless Chromium with a browser's agent",
            CHROME_131,
            Some((
                r#""HeadlessChrome";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
                "?0",
                "\"Linux\"",
            )),
            true,
        ),
        Contradiction::HeadlessBrand,
    ),
    (
        browser(
            "an emulated phone: a phone's agent over a desktop's hints",
            "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
            Some((
                r#""Chromium";v="131", "Not_A Brand";v="24""#,
                "?0",
                "\"Linux\"",
            )),
            true,
        ),
        Contradiction::HintedMobile,
    ),
    (
        browser(
            "a Windows agent from Linux hints",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
            Some((
                r#""Chromium";v="131", "Not_A Brand";v="24""#,
                "?0",
                "\"Linux\"",
            )),
            true,
        ),
        Contradiction::HintedPlatform,
    ),
    (
        Client {
            name: "curl copying fetch metadata and hints, but not Accept",
            agent: CHROME_131,
            hints: Some((
                r#""Chromium";v="131", "Not_A Brand";v="24""#,
                "?0",
                "\"Linux\"",
            )),
            metadata: true,
            accept: "*/*",
        },
        Contradiction::NotHtml,
    ),
];

fn counter(origin: &str) -> Counter {
    let rules = Rules::new(RulesConfig {
        public_origin: Some(origin.to_owned()),
        ..RulesConfig::default()
    })
    .expect("rules");
    Counter::new(
        rules,
        VisitorKey::from_text("browsers-test").expect("a key"),
        TrustedProxies::default(),
        StoreName::parse("test").expect("a name"),
    )
}

/// The visitor-day of `client`'s page load and one stylesheet.
fn visit(counter: &Counter, client: &Client) -> (DayCounts, Option<Contradiction>) {
    let peer: Option<IpAddr> = Some([198, 51, 100, 7].into());
    let at: DateTime<Utc> = DateTime::from_timestamp(1_764_374_400, 0).expect("a time");
    let (brands, mobile, platform) = client
        .hints
        .map_or((None, None, None), |(b, m, p)| (Some(b), Some(m), Some(p)));
    let metadata = |site, mode, dest| client.metadata.then_some((site, mode, dest));
    let request = |target: &'static str,
                   accept,
                   fetch: Option<(&'static str, &'static str, &'static str)>| {
        RequestView {
            method: "GET",
            target: target.as_bytes(),
            user_agent: Some(client.agent),
            accept: Some(accept),
            host: Some("example.org"),
            protocol: Some("HTTP/2.0"),
            sec_fetch_site: fetch.map(|f| f.0),
            sec_fetch_mode: fetch.map(|f| f.1),
            sec_fetch_dest: fetch.map(|f| f.2),
            sec_ch_ua: brands,
            sec_ch_ua_mobile: mobile,
            sec_ch_ua_platform: platform,
            ..RequestView::default()
        }
    };
    let page = counter.count(
        &request(
            "/about",
            client.accept,
            metadata("none", "navigate", "document"),
        ),
        peer,
        at,
    );
    let file = counter.count(
        &request(
            "/pkg/site.css",
            "text/css,*/*;q=0.1",
            metadata("same-origin", "no-cors", "style"),
        ),
        peer,
        at,
    );
    let hit = page.hit.expect("the page load is counted");
    let mut evidence = hit.evidence;
    if file.shows_files {
        evidence |= Evidence::FILES;
    }
    (
        DayCounts::one_person_request(evidence),
        page.contradiction.or(file.contradiction),
    )
}

#[test]
fn every_vendors_browser_stays_people_over_https() {
    let counter = counter("https://example.org");
    let mut wrong = Vec::new();
    for client in PEOPLE {
        let (day, contradiction) = visit(&counter, client);
        if day.verdict().kind != VisitorKind::Person {
            wrong.push(format!("{}: {contradiction:?}", client.name));
        }
    }
    assert!(wrong.is_empty(), "counted as bots: {wrong:#?}");
    println!("{} browsers' header sets, all people", PEOPLE.len());
}

#[test]
fn tools_wearing_a_browsers_agent_are_not_people() {
    let counter = counter("https://example.org");
    for (client, expected) in IMPOSTORS {
        let (day, contradiction) = visit(&counter, client);
        assert_eq!(day.verdict().kind, VisitorKind::Bot, "{}", client.name);
        assert_eq!(contradiction, Some(*expected), "{}", client.name);
    }
}

#[test]
fn on_plain_http_nothing_is_inferred_from_a_missing_header() {
    let counter = counter("http://example.org");
    for (client, expected) in IMPOSTORS {
        let (day, contradiction) = visit(&counter, client);
        let absent = matches!(
            expected,
            Contradiction::NoClientHints | Contradiction::NoFetchMetadata
        );
        // What a request sends is still read; what it lacks says nothing.
        assert_eq!(
            day.verdict().kind == VisitorKind::Person,
            absent,
            "{}: {contradiction:?}",
            client.name
        );
    }
}
