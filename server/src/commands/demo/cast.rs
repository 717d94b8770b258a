//! Who appears in the demo's made-up logs: browsers, crawlers and scanners
//! by their agents, where people come from, what scanners probe for, and the
//! addresses they all use. Every address is from the blocks set aside for
//! documentation (RFC 5737 for IPv4, RFC 3849 for IPv6), so the demo never
//! names a real machine.

/// The demo site's host: referrers from it are navigation inside the site.
pub const SITE_HOST: &str = "demo.whocomes.example";

/// Browsers people use, roughly as often as they are seen.
pub const BROWSERS: [(&str, u32); 7] = [
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        30,
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
        18,
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
        16,
    ),
    (
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
        12,
    ),
    (
        "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
        9,
    ),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
        9,
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0",
        6,
    ),
];

/// Where a person's first page load came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A referrer (the whole URL a browser would send).
    Referrer(&'static str),
    /// A tagged link (`?ref=` or `utm_source=`), opened with no referrer.
    Tagged(&'static str),
    /// Typed, a bookmark, or a link in a PDF: no referrer, no tag.
    Typed,
}

/// How people arrive on an ordinary day, with weights.
pub const ARRIVALS: [(Arrival, u32); 14] = [
    (Arrival::Referrer("https://www.linkedin.com/"), 14),
    (Arrival::Referrer("https://lnkd.in/"), 5),
    (Arrival::Referrer("https://www.linkedin.com/feed/"), 6),
    (Arrival::Referrer("https://github.com/"), 10),
    (Arrival::Referrer("https://gist.github.com/"), 2),
    (Arrival::Referrer("https://www.google.com/"), 13),
    (Arrival::Referrer("https://duckduckgo.com/"), 4),
    (Arrival::Referrer("https://www.bing.com/"), 3),
    (Arrival::Referrer("https://news.ycombinator.com/"), 3),
    (Arrival::Referrer("https://dev.to/"), 2),
    (Arrival::Tagged("?ref=resume-pdf"), 6),
    (
        Arrival::Tagged("?utm_source=newsletter&utm_medium=email&utm_campaign=december-notes"),
        3,
    ),
    (
        Arrival::Tagged("?ref=talk-slides&utm_medium=talk&utm_campaign=rustconf-2026"),
        2,
    ),
    (Arrival::Typed, 17),
];

/// How people arrive on the day a post about the site went out on LinkedIn.
pub const POST_DAY_ARRIVALS: [(Arrival, u32); 3] = [
    (Arrival::Referrer("https://www.linkedin.com/feed/"), 70),
    (Arrival::Referrer("https://lnkd.in/"), 20),
    (Arrival::Typed, 10),
];

/// Crawlers, each by the agent it announces itself with, and how often.
pub const CRAWLERS: [(&str, u32); 12] = [
    (
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        20,
    ),
    (
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        12,
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        8,
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
        5,
    ),
    (
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
        8,
    ),
    (
        "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
        6,
    ),
    (
        "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
        4,
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
        3,
    ),
    (LINKEDIN_PREVIEWS, 5),
    (
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        2,
    ),
    ("curl/8.5.0", 3),
    ("python-requests/2.32.3", 4),
];

/// The made-up address ranges the demo's crawlers are verified against
/// (SPEC §3: a claimed crawler from outside its operator's ranges is a
/// scanner). The demo's visitors all come from documentation addresses, so
/// its Googlebot, bingbot and GPTBot are given the hosts of
/// [`CRAWLER_NETWORK`] they come from (ten each, by their place in
/// [`CRAWLERS`]), in the format of `--crawler-ranges`.
pub fn crawler_ranges() -> String {
    let mut text =
        String::from("# Made up for the demo: its crawlers come from documentation addresses.\n");
    for (name, word) in [
        ("googlebot", "Googlebot"),
        ("bing", "bingbot"),
        ("openai", "GPTBot"),
    ] {
        let index = CRAWLERS
            .iter()
            .position(|(agent, _)| agent.contains(word))
            .unwrap_or(0);
        text.push_str(&format!("crawler {name} {word}\n"));
        for host in 1 + index * 10..11 + index * 10 {
            text.push_str(&format!("{CRAWLER_NETWORK}.{host}/32\n"));
        }
    }
    text
}

/// LinkedIn fetching a shared link's preview.
pub const LINKEDIN_PREVIEWS: &str =
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)";

/// The pages crawlers fetch (they also ask for robots.txt and the sitemap,
/// which are not counted).
pub const CRAWLED: [&str; 6] = [
    "/",
    "/inventory",
    "/about",
    "/resume",
    "/resume.pdf",
    "/robots.txt",
];

/// Agents scanners hide behind: they are told apart by what they ask for.
pub const SCANNER_AGENTS: [&str; 4] = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 6.1; Win64; x64; rv:109.0) Gecko/20100101 Firefox/115.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
];

/// What scanners probe for: files a site like this never has.
pub const PROBES: [&str; 14] = [
    "/wp-login.php",
    "/xmlrpc.php",
    "/wp-admin/setup-config.php",
    "/wp-includes/wlwmanifest.xml",
    "/.env",
    "/.git/config",
    "/.aws/credentials",
    "/phpmyadmin/index.php",
    "/cgi-bin/luci",
    "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php",
    "/actuator/health",
    "/config.json",
    "/server-status",
    "/index.php?s=/index/think",
];

/// The site's pages people read after landing, in the order of the funnel.
pub const PAGES: [&str; 3] = ["/inventory", "/about", "/resume"];

/// What a page load also fetches: files, not counted.
pub const PAGE_FILES: [&str; 4] = [
    "/pkg/whocomes.js",
    "/pkg/whocomes.wasm",
    "/pkg/whocomes.css",
    "/favicon.ico",
];

/// The uptime monitor's agent; the demo adds the self-read mark to it.
pub const MONITOR_AGENT: &str = "UptimeCheck/2.4 (+https://demo.whocomes.example/status)";

/// Where the uptime monitor checks from: three places, in turn.
pub const MONITOR_ADDRESSES: [&str; 3] = ["192.0.2.10", "192.0.2.12", "2001:db8:5e1f::10"];
/// The deploy check runs after a release, from the build machine.
pub const DEPLOY_ADDRESS: &str = "192.0.2.11";

/// IPv4 networks people come from (hosts 20–254 of each).
pub const PEOPLE_NETWORKS: [&str; 2] = ["203.0.113", "192.0.2"];
/// IPv6 prefixes people come from (a /48 each; one /64 per visitor).
pub const PEOPLE_NETWORKS_V6: [&str; 3] = ["2001:db8:4a1", "2001:db8:77e", "2001:db8:c0f"];
/// The demo's made-up countries: its documentation addresses are in no
/// real country, so the demo's history is counted with a table of its own
/// that puts parts of its people's networks in eight countries (a made-up
/// spread, labelled demo data like the rest).
pub fn countries() -> &'static activity::countries::CountryTable {
    static TABLE: std::sync::LazyLock<activity::countries::CountryTable> =
        std::sync::LazyLock::new(|| {
            let country = activity::country::Country::parse;
            let v4 =
                |text: &str, code: &str| (text.parse().expect("a demo address"), country(code));
            let v6 =
                |text: &str, code: &str| (text.parse().expect("a demo address"), country(code));
            activity::countries::CountryTable::from_runs(
                &[
                    v4("192.0.2.0", "US"),
                    v4("192.0.2.100", "CA"),
                    v4("192.0.2.180", "BR"),
                    v4("192.0.3.0", ""),
                    v4("203.0.113.0", "DE"),
                    v4("203.0.113.80", "GB"),
                    v4("203.0.113.140", "FR"),
                    v4("203.0.113.200", "IN"),
                    v4("203.0.114.0", ""),
                ],
                &[
                    v6("2001:db8:4a1::", "NL"),
                    v6("2001:db8:4a2::", ""),
                    v6("2001:db8:77e::", "JP"),
                    v6("2001:db8:77f::", ""),
                    v6("2001:db8:c0f::", "SE"),
                    v6("2001:db8:c10::", ""),
                ],
            )
            .unwrap_or_else(|_| activity::countries::CountryTable::empty())
        });
    &TABLE
}

/// Where crawlers come from: hosts 1–127 of this network.
pub const CRAWLER_NETWORK: &str = "198.51.100";
/// Where scanners come from: hosts 128–254 of the crawlers' network, and
/// one IPv6 prefix.
pub const SCANNER_NETWORK_V6: &str = "2001:db8:bad";
