//! One made-up day of a small portfolio site's access log, in the combined
//! format: people arriving from LinkedIn, GitHub, search engines and tagged
//! links, more on weekdays and in the afternoon (UTC), most of them reading
//! less the further the path goes (landing → inventory → about → resume);
//! crawlers by their agents; scanners probing for files the site never had;
//! an uptime monitor and a deploy check that carry the self-read mark.
//!
//! A day depends only on the seed and the date, so the same seed gives the
//! same log line for line, and a day written again later is the same log
//! (the import ledger then skips it).

use std::collections::HashSet;
use std::fmt::Write as _;

use chrono::{DateTime, Datelike as _, Duration, NaiveDate, Utc, Weekday};
use rand::seq::IndexedRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

use super::cast::{self, Arrival};

/// People on an ordinary weekday, before the season and chance move it.
const PEOPLE_PER_DAY: f64 = 34.0;
/// Crawler visits on a day, before chance.
const CRAWLER_VISITS: f64 = 14.0;
/// Scanner visits on a day, before chance.
const SCANNER_VISITS: f64 = 6.0;
/// Minutes between the uptime monitor's checks (from one place, then the next).
const MONITOR_EVERY_MINUTES: u32 = 5;
/// People by hour of the day (UTC): night in Europe is quiet, afternoons busy.
const HOURS: [u32; 24] = [
    2, 1, 1, 1, 1, 2, 3, 5, 7, 8, 9, 9, 9, 10, 10, 10, 9, 8, 7, 6, 5, 4, 3, 3,
];

/// The log of `day` for `seed`, lines in time order; with `until`, only the
/// lines before it (today's log so far).
pub fn day_log(seed: u64, day: NaiveDate, mark: &str, until: Option<DateTime<Utc>>) -> String {
    let mut log = Log::new(seed, day);
    let post_day = is_post_day(seed, day);
    let people = chance(
        &mut log.rng,
        PEOPLE_PER_DAY * weekday_factor(day.weekday()) * season(day),
    );
    for _ in 0..people {
        let arrival = pick(&mut log.rng, &cast::ARRIVALS);
        log.person(arrival);
    }
    if post_day {
        // A post about the site: a wave of readers from LinkedIn, and
        // LinkedIn fetching the link's preview.
        for _ in 0..chance(&mut log.rng, PEOPLE_PER_DAY * 1.6) {
            let arrival = pick(&mut log.rng, &cast::POST_DAY_ARRIVALS);
            log.person(arrival);
        }
        for _ in 0..4 {
            log.crawler(Some(cast::LINKEDIN_PREVIEWS));
        }
    }
    for _ in 0..chance(&mut log.rng, CRAWLER_VISITS) {
        log.crawler(None);
    }
    for _ in 0..chance(&mut log.rng, SCANNER_VISITS) {
        log.scanner();
    }
    log.monitor(mark);
    if log.rng.random_bool(0.3) && !is_weekend(day.weekday()) {
        log.deploy_check(mark);
    }
    log.finish(until)
}

/// Who sends a request: an address and a user agent.
#[derive(Clone, Copy)]
struct Client<'a> {
    address: &'a str,
    agent: &'a str,
}

/// One day's lines as they are made, with the day's own random numbers.
struct Log {
    day: NaiveDate,
    rng: ChaCha8Rng,
    /// (second of the day, line); sorted by time at the end.
    lines: Vec<(u32, String)>,
    /// Addresses already given to someone today.
    taken: HashSet<String>,
}

impl Log {
    fn new(seed: u64, day: NaiveDate) -> Self {
        Self {
            day,
            rng: day_rng(seed, 0, i64::from(day.num_days_from_ce())),
            lines: Vec::new(),
            taken: HashSet::new(),
        }
    }

    /// One reader: lands, maybe reads on, maybe opens the résumé's PDF.
    fn person(&mut self, arrival: Arrival) {
        let address = self.person_address();
        let client = Client {
            address: &address,
            agent: pick(&mut self.rng, &cast::BROWSERS),
        };
        let mut at = self.rng.random_range(0..3600) + 3600 * pick_hour(&mut self.rng);
        let (landing, query, referrer) = match arrival {
            Arrival::Referrer(url) => (self.landing(), "", url),
            Arrival::Tagged(query) => ("/", query, "-"),
            Arrival::Typed => (self.landing(), "", "-"),
        };
        let target = format!("{landing}{query}");
        self.page_load(at, client, &target, referrer);
        let mut here = landing;
        let mut went_on = false;
        for (step, page) in cast::PAGES.iter().enumerate() {
            let odds = match step {
                0 => 0.55,
                1 => 0.4,
                _ if went_on => 0.32,
                _ => 0.08,
            };
            if *page == here || !self.rng.random_bool(odds) {
                continue;
            }
            at += self.rng.random_range(8..120);
            self.navigate(at, client, here, page);
            went_on = true;
            here = *page;
        }
        if here == "/resume" && self.rng.random_bool(0.35) {
            at += self.rng.random_range(10..90);
            let from = format!("https://{}/resume", cast::SITE_HOST);
            self.line(at, client, "GET", "/resume.pdf", 200, &from);
        }
        if self.rng.random_bool(0.03) {
            // A mistyped address: the 404 page, still a person's request.
            at += self.rng.random_range(5..60);
            self.line(at, client, "GET", "/resum", 404, "-");
        }
    }

    /// Where most people land: the front page, now and then a deeper page.
    fn landing(&mut self) -> &'static str {
        pick(
            &mut self.rng,
            &[("/", 86), ("/inventory", 8), ("/about", 6)],
        )
    }

    /// A first page load: the document, then the files it is made of.
    fn page_load(&mut self, at: u32, client: Client<'_>, target: &str, referrer: &str) {
        self.line(at, client, "GET", target, 200, referrer);
        let page = format!("https://{}{}", cast::SITE_HOST, target);
        for file in cast::PAGE_FILES {
            self.line(at, client, "GET", file, 200, &page);
        }
        if target.starts_with("/inventory") {
            self.line(at + 1, client, "POST", "/api/site/inventory", 200, &page);
        }
    }

    /// A navigation inside the hydrated app, as the app reports it.
    fn navigate(&mut self, at: u32, client: Client<'_>, from: &str, to: &str) {
        let page = format!("https://{}{}", cast::SITE_HOST, from);
        let report = format!("/api/whocomes/navigation?to=%2F{}", &to[1..]);
        self.line(at, client, "POST", &report, 204, &page);
        if to == "/inventory" {
            let here = format!("https://{}{}", cast::SITE_HOST, to);
            self.line(at, client, "POST", "/api/site/inventory", 200, &here);
        }
    }

    /// A crawler's visit: robots.txt first, then a few pages.
    fn crawler(&mut self, agent: Option<&'static str>) {
        let agent = agent.unwrap_or_else(|| pick(&mut self.rng, &cast::CRAWLERS));
        let host = 1
            + cast::CRAWLERS
                .iter()
                .position(|(known, _)| *known == agent)
                .unwrap_or(0)
                * 10
            + self.rng.random_range(0..10);
        let address = format!("{}.{host}", cast::CRAWLER_NETWORK);
        let client = Client {
            address: &address,
            agent,
        };
        let mut at = self.rng.random_range(0..86_000);
        self.line(at, client, "GET", "/robots.txt", 200, "-");
        for _ in 0..self.rng.random_range(1..=4) {
            at += self.rng.random_range(1..30);
            let page = cast::CRAWLED.choose(&mut self.rng).copied().unwrap_or("/");
            self.line(at, client, "GET", page, 200, "-");
        }
    }

    /// A scanner: a burst of probes for files the site never had.
    fn scanner(&mut self) {
        let address = if self.rng.random_bool(0.2) {
            format!(
                "{}:{:x}::{:x}",
                cast::SCANNER_NETWORK_V6,
                self.rng.random_range(1..0xffff_u32),
                self.rng.random_range(1..0xff_u32)
            )
        } else {
            format!(
                "{}.{}",
                cast::CRAWLER_NETWORK,
                self.rng.random_range(128..255)
            )
        };
        let client = Client {
            address: &address,
            agent: cast::SCANNER_AGENTS
                .choose(&mut self.rng)
                .copied()
                .unwrap_or(cast::SCANNER_AGENTS[0]),
        };
        let mut at = self.rng.random_range(0..86_000);
        for _ in 0..self.rng.random_range(2..=7) {
            let probe = cast::PROBES
                .choose(&mut self.rng)
                .copied()
                .unwrap_or("/.env");
            self.line(at, client, "GET", probe, 404, "-");
            at += self.rng.random_range(0..3);
        }
    }

    /// The uptime monitor: the front page every few minutes, all day, from
    /// each of its places in turn.
    fn monitor(&mut self, mark: &str) {
        let agent = format!("{} {mark}", cast::MONITOR_AGENT);
        let places = cast::MONITOR_ADDRESSES.iter().cycle();
        for (minute, address) in (0..24 * 60)
            .step_by(MONITOR_EVERY_MINUTES as usize)
            .zip(places)
        {
            let at = minute * 60 + self.rng.random_range(0..3);
            let client = Client {
                address,
                agent: &agent,
            };
            self.line(at, client, "GET", "/", 200, "-");
        }
    }

    /// After a release, the site reads each of its pages once.
    fn deploy_check(&mut self, mark: &str) {
        let agent = format!("deploy-check/1.0 {mark}");
        let client = Client {
            address: cast::DEPLOY_ADDRESS,
            agent: &agent,
        };
        let at = 3600 * self.rng.random_range(9..18_u32);
        for (i, page) in ["/", "/inventory", "/about", "/resume", "/api/inventory"]
            .into_iter()
            .enumerate()
        {
            let at = at + i as u32;
            self.line(at, client, "GET", page, 200, "-");
        }
    }

    /// An address nobody else has used today: mostly IPv4, some IPv6.
    fn person_address(&mut self) -> String {
        loop {
            let address = if self.rng.random_bool(0.12) {
                let prefix = cast::PEOPLE_NETWORKS_V6
                    .choose(&mut self.rng)
                    .copied()
                    .unwrap_or(cast::PEOPLE_NETWORKS_V6[0]);
                format!(
                    "{prefix}:{:x}:{:x}:{:x}:{:x}:{:x}",
                    self.rng.random_range(1..0xffff_u32),
                    self.rng.random_range(1..0xffff_u32),
                    self.rng.random_range(1..0xffff_u32),
                    self.rng.random_range(1..0xffff_u32),
                    self.rng.random_range(1..0xffff_u32),
                )
            } else {
                let network = cast::PEOPLE_NETWORKS
                    .choose(&mut self.rng)
                    .copied()
                    .unwrap_or(cast::PEOPLE_NETWORKS[0]);
                format!("{network}.{}", self.rng.random_range(20..255))
            };
            if self.taken.insert(address.clone()) {
                return address;
            }
        }
    }

    /// Adds one combined-format line at second `at` of the day.
    fn line(
        &mut self,
        at: u32,
        client: Client<'_>,
        method: &str,
        target: &str,
        status: u16,
        referrer: &str,
    ) {
        let Client { address, agent } = client;
        let at = at.min(86_399);
        let time = self.day.and_time(chrono::NaiveTime::MIN) + Duration::seconds(i64::from(at));
        let bytes = if status == 200 {
            2_000 + at % 9_000
        } else {
            162
        };
        let mut line = String::with_capacity(256);
        let _ = writeln!(
            line,
            "{address} - - [{}] \"{method} {target} HTTP/1.1\" {status} {bytes} \"{referrer}\" \"{agent}\"",
            time.format("%d/%b/%Y:%H:%M:%S +0000"),
        );
        self.lines.push((at, line));
    }

    /// The lines in time order (those before `until`, if given).
    fn finish(mut self, until: Option<DateTime<Utc>>) -> String {
        // Stable: a visit's lines within one second keep their order.
        self.lines.sort_by_key(|(at, _)| *at);
        let midnight = self.day.and_time(chrono::NaiveTime::MIN).and_utc();
        self.lines
            .into_iter()
            .filter(|(at, _)| {
                until.is_none_or(|until| midnight + Duration::seconds(i64::from(*at)) < until)
            })
            .map(|(_, line)| line)
            .collect()
    }
}

/// The random numbers of one seed, one purpose (`domain`) and one number
/// (a day or a week): the same three always give the same numbers.
fn day_rng(seed: u64, domain: u8, number: i64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8] = domain;
    key[16..24].copy_from_slice(&number.to_le_bytes());
    ChaCha8Rng::from_seed(key)
}

/// About one week in three, one weekday of it, a post about the site goes out.
fn is_post_day(seed: u64, day: NaiveDate) -> bool {
    let week = i64::from(day.num_days_from_ce()).div_euclid(7);
    let mut rng = day_rng(seed, 1, week);
    rng.random_bool(1.0 / 3.0) && day.weekday().num_days_from_monday() == rng.random_range(0..5)
}

fn is_weekend(day: Weekday) -> bool {
    matches!(day, Weekday::Sat | Weekday::Sun)
}

/// Fewer people on Fridays and far fewer at weekends.
fn weekday_factor(day: Weekday) -> f64 {
    match day {
        Weekday::Mon | Weekday::Wed => 1.0,
        Weekday::Tue => 1.08,
        Weekday::Thu => 0.95,
        Weekday::Fri => 0.82,
        Weekday::Sat => 0.45,
        Weekday::Sun => 0.52,
    }
}

/// A slow swell and ebb over about two months.
fn season(day: NaiveDate) -> f64 {
    let phase = f64::from(day.num_days_from_ce()) / 61.0 * std::f64::consts::TAU;
    1.0 + 0.25 * phase.sin()
}

/// `mean`, give or take a fifth.
fn chance(rng: &mut ChaCha8Rng, mean: f64) -> u32 {
    (mean * rng.random_range(0.8..1.2)).round().max(0.0) as u32
}

/// An hour of the day, as often as people come then.
fn pick_hour(rng: &mut ChaCha8Rng) -> u32 {
    let hours: Vec<(u32, u32)> = (0..24).zip(HOURS).collect();
    pick(rng, &hours)
}

/// One of `items`, as often as its weight says.
fn pick<T: Copy>(rng: &mut ChaCha8Rng, items: &[(T, u32)]) -> T {
    let total: u32 = items.iter().map(|(_, weight)| weight).sum();
    let mut left = rng.random_range(0..total.max(1));
    for (item, weight) in items {
        if left < *weight {
            return *item;
        }
        left -= weight;
    }
    items[0].0
}
