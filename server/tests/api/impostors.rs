//! Scripted clients that pass as browsers, against the real server: a
//! browser's agent and headers but never a page's files; HTTP/1.0 request
//! lines; a form posted the moment it is fetched; a burst no reader keeps.
//! Each lands under scanners and crawlers, while clients that behave as
//! browsers do (fetching the stylesheet and the favicon) stay people, and a
//! prefetch is not a visit (SPEC §3). Accuracy figures in docs/ACCURACY.md.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use activity::report::{VisitorKind, visitor_kind};
use activity::rows::VisitorDay;
use reqwest::Method;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{TestApp, spawn_app_with};

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// A request from `client` through the trusted proxy, with a browser's
/// headers: a navigation (a link, a form) or a file of the page.
async fn browser_request(app: &TestApp, method: Method, path: &str, client: &str) -> u16 {
    let dest = if path.starts_with("/pkg/") || path.ends_with(".ico") {
        "style"
    } else {
        "document"
    };
    fetched(app, method, path, client, (dest, "navigate")).await
}

/// The same, with the fetch metadata (`Sec-Fetch-Dest`, `Sec-Fetch-Mode`) given.
async fn fetched(
    app: &TestApp,
    method: Method,
    path: &str,
    client: &str,
    (dest, mode): (&str, &str),
) -> u16 {
    app.client
        .request(method, app.url(path))
        .header("x-forwarded-for", client)
        .header("user-agent", CHROME)
        .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .header("accept-language", "en-GB,en;q=0.9")
        .header("sec-fetch-dest", dest)
        .header("sec-fetch-mode", mode)
        .send()
        .await
        .expect("the server answers")
        .status()
        .as_u16()
}

/// An HTTP/1.0 request written by hand from its own loopback address
/// (`127.0.0.N`, not the trusted proxy), with a browser's agent.
async fn http10(app: &TestApp, from: Ipv4Addr, path: &str) -> String {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::new(IpAddr::V4(from), 0))
        .expect("binds a loopback address");
    let mut stream = socket.connect(app.addr).await.expect("connects");
    let request = format!(
        "GET {path} HTTP/1.0\r\nHost: {}\r\nUser-Agent: {CHROME}\r\nAccept: text/html\r\n\r\n",
        app.addr
    );
    stream.write_all(request.as_bytes()).await.expect("writes");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("reads");
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

/// The visitor-days whose paths include `path`, by kind.
fn kinds_of(visitors: &[VisitorDay], path: &str) -> (u64, u64) {
    kinds_where(visitors, |row| row.top_paths.iter().any(|p| p.path == path))
}

/// [`kinds_of`] for the visitor-days of one network (`192.0.2.x`): a path
/// the site lacks is kept as `(not found)`, so the clients that asked for
/// one are told apart by where they came from.
fn kinds_in(visitors: &[VisitorDay], network: &str) -> (u64, u64) {
    kinds_where(visitors, |row| row.network.as_str() == network)
}

fn kinds_where(visitors: &[VisitorDay], mine: impl Fn(&VisitorDay) -> bool) -> (u64, u64) {
    let mine = visitors.iter().filter(|row| mine(row));
    let (mut people, mut scanners) = (0, 0);
    for row in mine {
        match visitor_kind(row.requests, row.bots, row.self_reads, row.evidence) {
            VisitorKind::Person => people += 1,
            VisitorKind::Bot => scanners += 1,
            VisitorKind::SelfRead => {}
        }
    }
    (people, scanners)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_impostors_are_scanners_and_browsers_stay_people() {
    let app = spawn_app_with(&["--own-address=none", "--trusted-proxy=127.0.0.1/32"]).await;
    const EACH: u8 = 40;
    for n in 0..EACH {
        // Browsers: the page, then its stylesheet and favicon (as a warm
        // cache revalidates them: the request still arrives).
        let browser = format!("192.0.2.{n}");
        assert_eq!(browser_request(&app, Method::GET, "/", &browser).await, 200);
        browser_request(&app, Method::GET, "/pkg/whocomes.css", &browser).await;
        browser_request(&app, Method::GET, "/favicon.ico", &browser).await;

        // Scripted clients with every browser header, never a file.
        let script = format!("198.51.100.{n}");
        for path in ["/inventory", "/inventory", "/about"] {
            browser_request(&app, Method::GET, path, &script).await;
        }

        // Form spam: the form fetched and posted within the second, with its favicon.
        let spam = format!("203.0.113.{n}");
        browser_request(&app, Method::GET, "/resume", &spam).await;
        browser_request(&app, Method::GET, "/favicon.ico", &spam).await;
        browser_request(&app, Method::POST, "/resume", &spam).await;

        // HTTP/1.0, straight from a client: even with its stylesheet.
        let old = Ipv4Addr::new(127, 0, 1, n + 1);
        assert!(
            http10(&app, old, "/no/such/page")
                .await
                .starts_with("HTTP/1.")
        );
        http10(&app, old, "/pkg/whocomes.css").await;

        // A prefetch is not a visit.
        let prefetch = format!("192.0.2.{}", 100 + n);
        app.client
            .get(app.url("/resume.pdf"))
            .header("x-forwarded-for", prefetch)
            .header("user-agent", CHROME)
            .header("sec-purpose", "prefetch")
            .send()
            .await
            .expect("answers");
    }
    // A burst: a browser that fetched its files, then 45 pages in a moment
    // (however a 10 s window cuts them, one window holds more than 20).
    let burst = "192.0.2.250";
    browser_request(&app, Method::GET, "/pkg/whocomes.css", burst).await;
    for _ in 0..45 {
        browser_request(&app, Method::GET, "/about/again", burst).await;
    }

    let (hours, visitors) = app.stop_and_read().await;
    let each = u64::from(EACH);
    let browsers = kinds_of(&visitors, "/");
    let scripts = kinds_of(&visitors, "/inventory");
    let spam = kinds_of(&visitors, "/resume");
    let old = kinds_in(&visitors, "127.0.1.x");
    let bursts = visitors
        .iter()
        .filter(|row| row.requests >= 45)
        .map(|row| visitor_kind(row.requests, row.bots, row.self_reads, row.evidence))
        .collect::<Vec<_>>();
    eprintln!("| clients | visitor-days | people | scanners and crawlers |");
    eprintln!("|---|---|---|---|");
    for (what, (people, scanners)) in [
        ("browsers: page, stylesheet, favicon", browsers),
        ("browser headers, never a file", scripts),
        ("form fetched and posted at once", spam),
        ("HTTP/1.0 with a browser agent and the stylesheet", old),
    ] {
        eprintln!("| {what} | {} | {people} | {scanners} |", people + scanners);
    }
    assert_eq!(browsers, (each, 0), "browsers stay people");
    for (what, (people, scanners)) in [("scripts", scripts), ("form spam", spam), ("HTTP/1.0", old)]
    {
        assert!(
            scanners * 100 >= (people + scanners) * 95 && people + scanners == each,
            "{what}: {people} people, {scanners} scanners"
        );
    }
    assert_eq!(bursts, vec![VisitorKind::Bot], "the burst");
    assert!(
        hours.iter().all(|row| row.path != "/resume.pdf"),
        "a prefetch is not counted"
    );
}

/// A page's script calling the site (`fetch()`): `Sec-Fetch-Mode: cors`,
/// `Sec-Fetch-Dest: empty`.
async fn script_request(app: &TestApp, method: Method, path: &str, client: &str) -> u16 {
    fetched(app, method, path, client, ("empty", "cors")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pages_script_is_a_browsers_sign_and_what_the_site_lacks_is_a_probe() {
    let app = spawn_app_with(&["--own-address=none", "--trusted-proxy=127.0.0.1/32"]).await;
    const EACH: u8 = 40;
    for n in 0..EACH {
        // A reader whose page's script posts to a non-/api path the moment
        // the page loads (a view counter), with its stylesheet: people.
        let reader = format!("192.0.2.{n}");
        browser_request(&app, Method::GET, "/resume", &reader).await;
        browser_request(&app, Method::GET, "/pkg/whocomes.css", &reader).await;
        script_request(&app, Method::POST, "/views", &reader).await;
        // The same reader's script alone (no file at all) is a browser's sign too.
        let script_only = format!("192.0.3.{n}");
        browser_request(&app, Method::GET, "/about", &script_only).await;
        script_request(&app, Method::POST, "/about/seen", &script_only).await;
        // A form submitted (navigate) at once, with the stylesheet: still spam.
        let spam = format!("203.0.113.{n}");
        browser_request(&app, Method::GET, "/inventory", &spam).await;
        browser_request(&app, Method::GET, "/pkg/whocomes.css", &spam).await;
        browser_request(&app, Method::POST, "/inventory", &spam).await;
        // A PHP page this site does not have (404): a probe, whatever the agent.
        let prober = format!("198.51.100.{n}");
        assert_eq!(
            browser_request(&app, Method::GET, "/index.php", &prober).await,
            404
        );
        browser_request(&app, Method::GET, "/pkg/whocomes.css", &prober).await;
        // "Googlebot" from an address Google does not publish.
        let fake = format!("198.18.0.{n}");
        app.client
            .get(app.url("/"))
            .header("x-forwarded-for", &fake)
            .header(
                "user-agent",
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            )
            .send()
            .await
            .expect("answers");
    }
    let (_, visitors) = app.stop_and_read().await;
    let each = u64::from(EACH);
    let readers = kinds_in(&visitors, "192.0.2.x");
    let script_only = kinds_in(&visitors, "192.0.3.x");
    let spam = kinds_in(&visitors, "203.0.113.x");
    eprintln!("| clients | visitor-days | people | scanners and crawlers |");
    eprintln!("|---|---|---|---|");
    for (what, (people, scanners)) in [
        (
            "page, stylesheet, its script posting to /views at once",
            readers,
        ),
        ("page, its script posting at once, no file", script_only),
        (
            "form submitted (navigate) at once, with the stylesheet",
            spam,
        ),
    ] {
        eprintln!("| {what} | {} | {people} | {scanners} |", people + scanners);
    }
    assert_eq!(readers, (each, 0), "a page's script is not a form");
    assert_eq!(
        script_only,
        (each, 0),
        "a script's request is a browser's sign"
    );
    assert_eq!(spam, (0, each), "a form posted at once stays a sign");
    let probers: Vec<&VisitorDay> = visitors
        .iter()
        .filter(|row| row.network.as_str() == "198.51.100.x")
        .collect();
    assert_eq!(probers.len(), usize::from(EACH));
    assert!(probers.iter().all(|row| {
        row.top_paths
            .iter()
            .map(|p| p.path.as_str())
            .collect::<Vec<_>>()
            == [activity::path::NOT_FOUND]
            && row.bots == 1
            && row
                .bot_classes
                .contains(activity::bot_class::BotClass::Scanner)
    }));
    let fakes: Vec<&VisitorDay> = visitors
        .iter()
        .filter(|row| row.network.as_str() == "198.18.0.x")
        .collect();
    assert_eq!(fakes.len(), usize::from(EACH));
    assert!(
        fakes
            .iter()
            .all(|row| row.bot_classes.iter().collect::<Vec<_>>()
                == [activity::bot_class::BotClass::Scanner]),
        "a claimed Googlebot from elsewhere is a scanner"
    );
}
