//! Counted or not, page load or not, and which kind of visitor (SPEC §1, §3):
//! pure functions of a request's facts and the [`Rules`].

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

pub use crate::request::kind::{Kind, KindReason, is_absent};
pub use crate::request::view::RequestView;

use crate::request::bots::BotSign;
use crate::request::crawlers::Claim;
use crate::request::path::extension;
use crate::request::rules::{Probe, Rules};

/// Whether a request is counted, and as what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "as", content = "why")]
pub enum Counted {
    /// A page: an HTML document, including error pages.
    Page,
    /// An API request: JSON routes and server functions.
    Api,
    /// Not counted, and why.
    Not(Skip),
}

/// Why a request is not counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Skip {
    /// A CORS preflight (`OPTIONS`).
    Preflight,
    /// The Admin tab reading itself.
    Admin,
    /// The site's build output (`/pkg/…`).
    BuildOutput,
    /// A text or XML file at the root, or `/.well-known/…`.
    RootFile,
    /// A file a page is made of, by extension.
    Asset(String),
    /// A navigation report whose `to` is not a path of this site.
    BadNavigationReport,
    /// The hydrated app's report that it drew a page whose files came from
    /// the browser's cache: the files' evidence, not a visit of its own.
    DrawnReport,
    /// A link prefetch or prerender (`Sec-Purpose: prefetch`): the browser
    /// fetching ahead, not a visit. If the reader does open the page, the
    /// hydrated app reports it (SPEC §4).
    Prefetch,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Preflight => f.write_str("CORS preflight (OPTIONS)"),
            Self::Admin => f.write_str("the Admin tab's own read"),
            Self::BuildOutput => f.write_str("build output"),
            Self::RootFile => f.write_str("root file"),
            Self::Asset(ext) => write!(f, "asset (.{ext})"),
            Self::BadNavigationReport => {
                f.write_str("navigation report without a path of this site")
            }
            Self::DrawnReport => f.write_str(
                "the app's report of a page drawn from the browser's cache (a browser's sign)",
            ),
            Self::Prefetch => f.write_str("prefetch or prerender (not a visit)"),
        }
    }
}

/// Whether `path` (already cleaned) is counted, and as a page or an API request.
pub fn counted(method: &str, path: &str, rules: &Rules) -> Counted {
    let config = &rules.config;
    if method.eq_ignore_ascii_case("OPTIONS") {
        return Counted::Not(Skip::Preflight);
    }
    let admin = &config.admin_path;
    let under_admin = path
        .strip_prefix(admin.as_str())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    if under_admin
        || config
            .admin_prefixes
            .iter()
            .any(|p| path.starts_with(p.as_str()))
    {
        return Counted::Not(Skip::Admin);
    }
    if config
        .build_prefixes
        .iter()
        .any(|p| path.starts_with(p.as_str()))
    {
        return Counted::Not(Skip::BuildOutput);
    }
    if config
        .root_prefixes
        .iter()
        .any(|p| path.starts_with(p.as_str()))
    {
        return Counted::Not(Skip::RootFile);
    }
    let ext = extension(path);
    let at_root = path.len() > 1 && path.rfind('/') == Some(0);
    if let Some(ext) = ext {
        if at_root && config.root_file_extensions.contains(&ext) {
            return Counted::Not(Skip::RootFile);
        }
        if config.asset_extensions.contains(&ext) {
            return Counted::Not(Skip::Asset(ext));
        }
    }
    if config
        .api_prefixes
        .iter()
        .any(|p| path.starts_with(p.as_str()))
    {
        Counted::Api
    } else {
        Counted::Page
    }
}

/// Whether a request is a browser fetching ahead (`Sec-Purpose: prefetch`,
/// `prefetch;prerender`, or the older `Purpose: prefetch`).
pub fn is_prefetch(request: &RequestView<'_>) -> bool {
    request.sec_purpose.is_some_and(|purpose| {
        let purpose = purpose.trim_start().as_bytes();
        purpose
            .get(..8)
            .is_some_and(|start| start.eq_ignore_ascii_case(b"prefetch"))
    })
}

/// Whether a request for a file a page is made of shows a browser at work
/// (a GET or HEAD of an asset or of the build output).
pub fn shows_files(method: &str, counted: &Counted) -> bool {
    (method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD"))
        && matches!(counted, Counted::Not(Skip::Asset(_) | Skip::BuildOutput))
}

/// Whether a file request is for one of the page's scripts (`.js`, `.mjs`,
/// `.wasm`): what runs the page's own calls to the site.
pub fn is_script(path: &str) -> bool {
    // On every file request: compared in place, without a lowercased copy.
    let last = path.rsplit('/').next().unwrap_or_default();
    last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && ["js", "mjs", "wasm"]
                .iter()
                .any(|s| ext.eq_ignore_ascii_case(s))
    })
}

/// Whether the browser marks a request as made by a page's code rather
/// than as a navigation (a link, a typed address, a form): fetch metadata
/// with a mode other than `navigate`, or `Sec-Fetch-Dest: empty` (what
/// `fetch` and `XMLHttpRequest` send).
pub fn is_script_request(request: &RequestView<'_>) -> bool {
    let mode = request.sec_fetch_mode.map(str::trim);
    let dest = request.sec_fetch_dest.map(str::trim);
    mode.is_some_and(|mode| !mode.eq_ignore_ascii_case("navigate"))
        || dest.is_some_and(|dest| dest.eq_ignore_ascii_case("empty"))
}

/// Whether a counted request is a page load: a top-level document request
/// (`Sec-Fetch-Dest: document`, or, from a client that does not send it, a
/// GET that accepts HTML; no `Accept` at all accepts everything).
pub fn is_page_load(counted: &Counted, request: &RequestView<'_>) -> bool {
    if *counted != Counted::Page || !request.method.eq_ignore_ascii_case("GET") {
        return false;
    }
    match request.sec_fetch_dest {
        Some(dest) => dest.trim().eq_ignore_ascii_case("document"),
        None => request.accept.is_none_or(|accept| {
            accept.contains("text/html") || accept.contains("*/*") || accept.trim().is_empty()
        }),
    }
}

/// The kind of a request and why: self-read (mark, loopback, own address),
/// else bot (no agent, bot word — a claimed crawler checked against its
/// operator's ranges —, probe path, software the site answered 4xx), else
/// person. `status` is the answer's, when known.
pub fn kind_of(
    path: &str,
    user_agent: Option<&str>,
    client: Option<IpAddr>,
    status: Option<u16>,
    rules: &Rules,
) -> KindReason {
    let config = &rules.config;
    let agent = user_agent.map(str::trim).unwrap_or_default();
    if agent.contains(config.self_read_mark.as_str()) {
        return KindReason::SelfReadMark;
    }
    if let Some(ip) = client.map(crate::visitor::address::canonical) {
        if config.loopback_is_self && ip.is_loopback() {
            return KindReason::Loopback;
        }
        if config.own_addresses.iter().any(|net| net.contains(&ip)) {
            return KindReason::OwnAddress;
        }
    }
    if agent.is_empty() || agent == "-" {
        return KindReason::NoUserAgent;
    }
    match rules.bots.find(agent) {
        Some(BotSign::Word(word)) => {
            return match rules.crawlers.check(agent, client) {
                Claim::None => KindReason::BotWord(word.to_owned()),
                Claim::Verified(name) => KindReason::VerifiedCrawler(name.to_owned()),
                Claim::Outside(name) => KindReason::FalseCrawler(name.to_owned()),
            };
        }
        Some(BotSign::Shape(shape)) => return KindReason::BotShape(shape.to_owned()),
        None => {}
    }
    let extension = extension(path);
    match rules.probe_path(path) {
        Some(Probe::Always(probe)) => return KindReason::ProbePath(probe.to_owned()),
        Some(Probe::Software(probe)) => {
            return KindReason::Software {
                what: probe.to_owned(),
                status,
            };
        }
        None => {}
    }
    if let Some(ext) = extension {
        if config.probe_extensions.contains(&ext) {
            return KindReason::ProbeExtension(ext);
        }
        if config.software_extensions.contains(&ext) {
            return KindReason::Software {
                what: format!("*.{ext}"),
                status,
            };
        }
    }
    KindReason::Person
}

/// What a navigation report (SPEC §4: the hydrated app reports each
/// navigation inside it once) says.
#[derive(Debug, PartialEq, Eq)]
pub enum NavigationReport {
    /// The request is not a navigation report.
    NotOne,
    /// A report of a navigation to this target (path and query).
    To(String),
    /// A report that the app drew the page it was loaded with from files
    /// the browser had cached (`POST PATH?drawn`).
    Drawn,
    /// A report that names no path of this site.
    Malformed,
}

/// Reads a navigation report: `POST {navigation_report_path}?to=/new/path`.
pub fn navigation_report(request: &RequestView<'_>, rules: &Rules) -> NavigationReport {
    let report = rules.config.navigation_report_path.as_bytes();
    let target = request.target;
    let path_end = target
        .iter()
        .position(|&b| b == b'?' || b == b'#')
        .unwrap_or(target.len());
    if &target[..path_end] != report || !request.method.eq_ignore_ascii_case("POST") {
        return NavigationReport::NotOne;
    }
    let query = crate::request::path::query_of(target).unwrap_or_default();
    if query == b"drawn" {
        return NavigationReport::Drawn;
    }
    let to = crate::request::path::query_of(target).and_then(|query| {
        query.split(|&b| b == b'&').find_map(|pair| {
            let value = pair.strip_prefix(b"to=")?;
            let decoded = percent_encoding::percent_decode(value).decode_utf8().ok()?;
            Some(decoded.into_owned())
        })
    });
    match to {
        Some(to) if to.starts_with('/') && !to.starts_with("//") => NavigationReport::To(to),
        _ => NavigationReport::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(method: &str, path: &str) -> Counted {
        counted(method, path, &Rules::default())
    }

    #[test]
    fn pages_and_api_requests_are_counted() {
        assert_eq!(count("GET", "/"), Counted::Page);
        assert_eq!(count("GET", "/resume.pdf"), Counted::Page);
        assert_eq!(count("GET", "/wp-login.php"), Counted::Page);
        assert_eq!(count("GET", "/.env"), Counted::Page);
        assert_eq!(count("POST", "/api/site/inventory"), Counted::Api);
        assert_eq!(count("GET", "/api/inventory"), Counted::Api);
        assert_eq!(count("GET", "/administrator"), Counted::Page);
        assert_eq!(count("GET", "/blog/notes.txt"), Counted::Page);
    }

    #[test]
    fn assets_root_files_admin_reads_and_preflights_are_not() {
        assert_eq!(
            count("GET", "/pkg/whocomes.wasm"),
            Counted::Not(Skip::BuildOutput)
        );
        assert_eq!(
            count("GET", "/style.CSS"),
            Counted::Not(Skip::Asset("css".into()))
        );
        assert_eq!(
            count("GET", "/favicon.ico"),
            Counted::Not(Skip::Asset("ico".into()))
        );
        assert_eq!(count("GET", "/robots.txt"), Counted::Not(Skip::RootFile));
        assert_eq!(count("GET", "/sitemap.xml"), Counted::Not(Skip::RootFile));
        assert_eq!(
            count("GET", "/.well-known/security.txt"),
            Counted::Not(Skip::RootFile)
        );
        assert_eq!(count("GET", "/admin"), Counted::Not(Skip::Admin));
        assert_eq!(count("GET", "/admin/visitors"), Counted::Not(Skip::Admin));
        assert_eq!(
            count("POST", "/admin/api/overview"),
            Counted::Not(Skip::Admin)
        );
        assert_eq!(
            count("POST", "/_whocomes/overview"),
            Counted::Not(Skip::Admin)
        );
        assert_eq!(
            count("OPTIONS", "/api/inventory"),
            Counted::Not(Skip::Preflight)
        );
    }

    #[test]
    fn navigation_reports_name_a_path_of_this_site() {
        let rules = Rules::default();
        let report = |method, target: &str| {
            let request = RequestView {
                method,
                target: target.as_bytes(),
                ..RequestView::default()
            };
            navigation_report(&request, &rules)
        };
        assert_eq!(
            report("POST", "/api/whocomes/navigation?to=%2Fresume%3Fref%3Dcv"),
            NavigationReport::To("/resume?ref=cv".into())
        );
        assert_eq!(
            report("POST", "/api/whocomes/navigation?to=//evil.example/"),
            NavigationReport::Malformed
        );
        assert_eq!(
            report("POST", "/api/whocomes/navigation"),
            NavigationReport::Malformed
        );
        assert_eq!(
            report("POST", "/api/whocomes/navigation?drawn"),
            NavigationReport::Drawn
        );
        assert_eq!(
            report("GET", "/api/whocomes/navigation?to=/"),
            NavigationReport::NotOne
        );
        assert_eq!(
            report("POST", "/api/whocomes/navigationx?to=/"),
            NavigationReport::NotOne
        );
    }

    #[test]
    fn page_loads_are_top_level_documents() {
        let page = |method, dest, accept| {
            let request = RequestView {
                method,
                sec_fetch_dest: dest,
                accept,
                ..RequestView::default()
            };
            is_page_load(&Counted::Page, &request)
        };
        assert!(page("GET", Some("document"), Some("text/html")));
        assert!(!page("GET", Some("empty"), Some("*/*")));
        assert!(page("GET", None, Some("text/html,application/xhtml+xml")));
        assert!(page("GET", None, None));
        assert!(!page("GET", None, Some("application/json")));
        assert!(!page("POST", Some("document"), None));
        let api = RequestView {
            method: "GET",
            ..RequestView::default()
        };
        assert!(!is_page_load(&Counted::Api, &api));
    }

    #[test]
    fn prefetches_and_files_are_told_apart() {
        let with = |purpose| RequestView {
            method: "GET",
            sec_purpose: purpose,
            ..RequestView::default()
        };
        assert!(is_prefetch(&with(Some("prefetch"))));
        assert!(is_prefetch(&with(Some("prefetch;prerender"))));
        assert!(is_prefetch(&with(Some("Prefetch"))));
        assert!(!is_prefetch(&with(Some("pre"))));
        assert!(!is_prefetch(&with(None)));
        assert!(shows_files("GET", &count("GET", "/pkg/whocomes.css")));
        assert!(shows_files("HEAD", &count("GET", "/favicon.ico")));
        assert!(!shows_files("POST", &count("GET", "/pkg/whocomes.css")));
        assert!(!shows_files("GET", &count("GET", "/robots.txt")));
        assert!(!shows_files("GET", &count("GET", "/about")));
        assert!(is_script("/pkg/whocomes.wasm") && is_script("/theme/app.min.js"));
        assert!(!is_script("/pkg/whocomes.css"));
        let fetched = |mode, dest| RequestView {
            method: "POST",
            sec_fetch_mode: mode,
            sec_fetch_dest: dest,
            ..RequestView::default()
        };
        assert!(is_script_request(&fetched(Some("cors"), Some("empty"))));
        assert!(is_script_request(&fetched(Some("same-origin"), None)));
        assert!(is_script_request(&fetched(None, Some("empty"))));
        assert!(!is_script_request(&fetched(
            Some("navigate"),
            Some("document")
        )));
        assert!(!is_script_request(&fetched(None, None)));
    }

    #[test]
    fn kinds_in_order_self_then_bot_then_person() {
        let rules = Rules::default();
        let browser =
            Some("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0");
        let outside = "203.0.113.7".parse().ok();
        let local = "127.0.0.1".parse().ok();
        let kind = |path, agent, client| kind_of(path, agent, client, Some(404), &rules);

        assert_eq!(kind("/", browser, outside), KindReason::Person);
        assert_eq!(kind("/", browser, local), KindReason::Loopback);
        assert_eq!(
            kind("/", Some("curl/8 whocomes-SelfRead"), outside),
            KindReason::SelfReadMark
        );
        assert_eq!(kind("/", None, outside), KindReason::NoUserAgent);
        assert_eq!(kind("/", Some("-"), outside), KindReason::NoUserAgent);
        assert_eq!(
            kind("/", Some("curl/8.5"), outside),
            KindReason::BotWord("curl".into())
        );
        assert_eq!(
            kind("/wp-login.php", browser, outside),
            KindReason::Software {
                what: "/wp-login.php".into(),
                status: Some(404)
            }
        );
        assert_eq!(kind("/wp-login.php", browser, outside).kind(), Kind::Bot);
        assert_eq!(
            kind("/blog/.git/config", browser, outside),
            KindReason::ProbePath("/.git".into())
        );
        assert_eq!(kind("/.github-tips", browser, outside), KindReason::Person);
        assert_eq!(
            kind("/index.php", browser, outside),
            KindReason::Software {
                what: "*.php".into(),
                status: Some(404)
            }
        );
        assert_eq!(kind("/wp-login.php", browser, local), KindReason::Loopback);
    }

    #[test]
    fn what_the_site_has_decides_what_a_probe_is() {
        let rules = Rules::default();
        let browser = Some("Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36");
        let outside = "203.0.113.7".parse().ok();
        let kind = |path, status| kind_of(path, browser, outside, status, &rules);
        // A PHP site's pages, answered with the page: a reader's.
        for status in [200, 301, 304, 500] {
            assert_eq!(kind("/index.php", Some(status)).kind(), Kind::Person);
            assert_eq!(kind("/wp-login.php", Some(status)).kind(), Kind::Person);
            assert_eq!(kind("/cgi-bin/search", Some(status)).kind(), Kind::Person);
        }
        // Asked of a site that has no such thing: a probe.
        for status in [403, 404, 410] {
            assert_eq!(kind("/index.php", Some(status)).kind(), Kind::Bot);
            assert_eq!(kind("/wp-admin/", Some(status)).kind(), Kind::Bot);
        }
        // Not answered yet: not a probe.
        assert_eq!(kind("/index.php", None).kind(), Kind::Person);
        // Paths no site serves in public, whatever the answer.
        for path in [
            "/.env",
            "/.git/config",
            "/wp-config.php.bak",
            "/wp-config.php",
            "/backup.sql",
            "/wp-admin/install.php",
            "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php",
        ] {
            assert_eq!(kind(path, Some(200)).kind(), Kind::Bot, "{path}");
        }
        assert_eq!(
            kind("/wp-admin/install.php", Some(200)),
            KindReason::ProbePath("/wp-admin/install.php".into())
        );
        assert_eq!(
            kind("/index.php", Some(200)).to_string(),
            "person: asked for *.php, which this site serves (answered 200)"
        );
        assert_eq!(
            kind("/wp-login.php", Some(404)).to_string(),
            "bot: asked for /wp-login.php, which this site does not have (answered 404)"
        );
    }

    #[test]
    fn a_claimed_crawler_is_checked_against_its_ranges() {
        let rules = Rules::default();
        let googlebot =
            Some("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
        let kind = |client: &str| kind_of("/", googlebot, client.parse().ok(), None, &rules);
        assert_eq!(
            kind("66.249.66.1"),
            KindReason::VerifiedCrawler("googlebot".into())
        );
        assert_eq!(
            kind("198.51.100.9"),
            KindReason::FalseCrawler("googlebot".into())
        );
        assert_eq!(
            kind_of(
                "/",
                Some("curl/8.5"),
                "198.51.100.9".parse().ok(),
                None,
                &rules
            ),
            KindReason::BotWord("curl".into())
        );
    }

    #[test]
    fn reasons_read_as_the_operator_expects() {
        assert_eq!(
            KindReason::BotWord("googlebot".into()).to_string(),
            "bot: user agent matches 'googlebot'"
        );
        assert_eq!(
            KindReason::ProbePath("/wp-login.php".into()).to_string(),
            "bot: probe path /wp-login.php"
        );
        assert_eq!(KindReason::Loopback.to_string(), "self-read: loopback");
        assert_eq!(Skip::Asset("css".into()).to_string(), "asset (.css)");
    }
}
