//! Made-up hits for benchmarks: a deterministic stream of visits, each a
//! short run of requests by one visitor, spread over an hour. Nothing here
//! is real traffic. Behind the `testing` feature (the writer's timings also
//! need `server`): test support, not production code.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};

use crate::port::rows::{Batch, HourRow, PathCount, SourceCount, VisitorDay};
use crate::request::hit::{Hit, StoreName};
use crate::request::kind::Kind;
use crate::request::source::Source;
use crate::visitor::address::Network;
use crate::visitor::token::{VisitorKey, visitor_token};

/// The funnel of the made-up site: landing, inventory, about, résumé (the
/// page and the PDF both count), the pages [`day_rows`] visits.
pub fn funnel() -> Vec<crate::sums::funnel::FunnelStep> {
    let step = |name: &str, paths: &[&str]| crate::sums::funnel::FunnelStep {
        name: name.to_owned(),
        paths: paths.iter().map(|&p| p.to_owned()).collect(),
    };
    vec![
        step("landing", &["/"]),
        step("inventory", &["/inventory"]),
        step("about", &["/about"]),
        step("resume", &["/resume", "/resume.pdf"]),
    ]
}

/// The goals the `n`th visitor of a sample day reached: every seventh
/// signed up, every eleventh downloaded twice.
fn sample_goals(n: u32) -> Vec<crate::port::rows::GoalCount> {
    let goal = |name: &str, requests| crate::port::rows::GoalCount {
        goal: crate::request::goal::Goal::new(name)
            .unwrap_or_else(|_| unreachable!("a label: {name}")),
        requests,
    };
    let mut goals = Vec::new();
    if n.is_multiple_of(11) {
        goals.push(goal("download", 2));
    }
    if n.is_multiple_of(7) {
        goals.push(goal("signup", 1));
    }
    goals
}

/// A made-up country for the `n`th visitor: five countries in turn, and
/// every sixth unknown (the sample addresses are documentation ranges,
/// which no country holds).
pub fn country(n: u64) -> Option<crate::visitor::country::Country> {
    ["US", "DE", "FR", "IN", "BR", ""]
        .get((n % 6) as usize)
        .and_then(|code| crate::visitor::country::Country::parse(code))
}

/// A small, fast random stream (xorshift), the same for the same seed.
fn stream(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// One day of a busy site as the rows a store keeps, made directly rather
/// than from hits (to fill a store with months quickly): `visitors`
/// visitor-days, of which one in five is a bot making 60 to 139 requests
/// over 5 to 15 of 300 paths, one in fifty a self-read, the rest people
/// making 1 to 15 requests over the demo's first 1 to 4 pages, one in eight
/// with a source; the hourly rows hold the same requests. About 26 requests
/// per visitor-day.
pub fn day_rows(store: &StoreName, day: NaiveDate, visitors: u32, seed: u64) -> Batch {
    let key =
        VisitorKey::from_bytes(vec![42; 32]).unwrap_or_else(|_| unreachable!("a non-empty key"));
    let mut next = stream(seed ^ u64::from(day.to_epoch_days().unsigned_abs()));
    let midnight = day.and_time(chrono::NaiveTime::MIN).and_utc();
    let mut hours: BTreeMap<(i64, u64), (u64, u64, u64)> = BTreeMap::new();
    let mut goal_hours: BTreeMap<(i64, crate::request::goal::Goal), [u64; 3]> = BTreeMap::new();
    let mut rows = Vec::with_capacity(visitors as usize);
    let mut hits = 0;
    for n in 0..visitors {
        let ip = std::net::IpAddr::from(0x0a00_0000u32.wrapping_add(n).to_be_bytes());
        let roll = next() % 100;
        // (requests, bot?, self-read?, first path, how many paths)
        let (requests, bots, self_reads, base, paths) = match roll {
            0..=1 => (1 + next() % 4, 0, 1, 0, 1),
            2..=21 => (60 + next() % 80, 1, 0, next() % 300, 5 + next() % 11),
            _ => (1 + next() % 15, 0, 0, 0, 1 + next() % 4),
        };
        let first = next() % 86_400;
        let hour = (first / 3_600) as i64;
        let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
        for _ in 0..requests {
            // Lower path numbers are more popular: the smaller of two draws.
            let path = (base + (next() % 300).min(next() % 300) % paths) % 300;
            *counts.entry(path).or_default() += 1;
            let cell = hours.entry((hour, path)).or_default();
            cell.0 += 1;
            cell.1 += bots;
            cell.2 += self_reads;
        }
        hits += requests;
        let mut top_paths: Vec<PathCount> = counts
            .into_iter()
            .map(|(path, requests)| PathCount {
                path: page_path(path),
                requests,
            })
            .collect();
        top_paths.sort_by_key(|p| std::cmp::Reverse(p.requests));
        let sources = match next() % 16 {
            0..=1 => vec![("www.linkedin.com", 1)],
            2 => vec![("github.com", 1)],
            3 => vec![("www.google.com", 1)],
            _ => vec![],
        };
        let first_seen = midnight + Duration::seconds(first as i64);
        let last_seen = first_seen + Duration::seconds((next() % 1_800) as i64);
        let mut pages = sample_pages(&top_paths, requests, first_seen, last_seen);
        // Every ninth came by a newsletter's link, from one of three issues.
        if n % 9 == 0 {
            pages.campaign = Some(crate::port::page_loads::CampaignAt {
                at: first_seen,
                campaign: crate::request::campaign::Campaign {
                    source: Some("newsletter".to_owned()),
                    medium: Some("email".to_owned()),
                    name: Some(format!("issue {}", n % 3 + n % 2)),
                },
            });
        }
        rows.push(VisitorDay {
            store: store.clone(),
            day,
            visitor: visitor_token(&key, day, Some(ip)),
            network: Network::of(Some(ip)),
            country: country(n.into()),
            first_seen,
            last_seen,
            requests,
            bots: bots * requests,
            self_reads: self_reads * requests,
            // A third of the bots are crawlers verified by their address.
            evidence: if bots > 0 && n % 3 == 0 {
                crate::request::evidence::Evidence::FILES
                    | crate::request::evidence::Evidence::VERIFIED
            } else {
                crate::request::evidence::Evidence::FILES
            },
            bot_classes: {
                let mut classes = crate::request::bot_class::ClassSet::default();
                if bots > 0 {
                    let all = crate::request::bot_class::BotClass::ALL;
                    classes.insert(all[n as usize % all.len()]);
                }
                classes
            },
            top_paths,
            sources: sources
                .into_iter()
                .map(|(host, page_loads)| SourceCount {
                    source: Source::Referrer(host.to_owned()),
                    page_loads,
                })
                .collect(),
            pages,
            goals: sample_goals(n),
        });
        for goal in sample_goals(n) {
            let cell = goal_hours.entry((hour, goal.goal)).or_default();
            cell[0] += goal.requests;
            cell[1] += bots * goal.requests;
            cell[2] += self_reads * goal.requests;
        }
    }
    Batch {
        goal_hours: goal_hours
            .into_iter()
            .map(
                |((hour, goal), [requests, bots, self_reads])| crate::port::rows::GoalHour {
                    store: store.clone(),
                    hour: midnight + Duration::hours(hour),
                    goal,
                    requests,
                    bots,
                    self_reads,
                },
            )
            .collect(),
        hours: hours
            .into_iter()
            .map(|((hour, path), (requests, bots, self_reads))| HourRow {
                store: store.clone(),
                hour: midnight + Duration::hours(hour),
                path: page_path(path),
                requests,
                bots,
                self_reads,
            })
            .collect(),
        visitors: rows,
        marks: Vec::new(),
        bot_days: Vec::new(),
        hits,
        files: 0,
        id: None,
    }
}

/// People only, `people[h]` of them arriving in each UTC hour `h` of `day`
/// (at `seed`-drawn minutes), each loading `/` and then `/about` within a
/// few minutes: the made-up history a test of the traffic alerts reads.
pub fn people_by_hour(store: &StoreName, day: NaiveDate, people: &[u64; 24], seed: u64) -> Batch {
    let key =
        VisitorKey::from_bytes(vec![42; 32]).unwrap_or_else(|_| unreachable!("a non-empty key"));
    let mut next = stream(seed ^ u64::from(day.to_epoch_days().unsigned_abs()));
    let midnight = day.and_time(chrono::NaiveTime::MIN).and_utc();
    let mut batch = Batch::default();
    let mut n: u32 = 0;
    for (hour, &count) in people.iter().enumerate() {
        let start = midnight + Duration::hours(hour as i64);
        for path in ["/", "/about"] {
            if count > 0 {
                batch.hours.push(HourRow {
                    store: store.clone(),
                    hour: start,
                    path: path.to_owned(),
                    requests: count,
                    bots: 0,
                    self_reads: 0,
                });
            }
        }
        for _ in 0..count {
            let ip = std::net::IpAddr::from(0x0a00_0000u32.wrapping_add(n).to_be_bytes());
            n += 1;
            let first_seen = start + Duration::seconds((next() % 3_000) as i64);
            let last_seen = first_seen + Duration::seconds((next() % 500) as i64);
            let top_paths = vec![
                PathCount {
                    path: "/".to_owned(),
                    requests: 1,
                },
                PathCount {
                    path: "/about".to_owned(),
                    requests: 1,
                },
            ];
            let pages = sample_pages(&top_paths, 2, first_seen, last_seen);
            batch.visitors.push(VisitorDay {
                store: store.clone(),
                day,
                visitor: visitor_token(&key, day, Some(ip)),
                network: Network::of(Some(ip)),
                country: country(n.into()),
                first_seen,
                last_seen,
                requests: 2,
                bots: 0,
                self_reads: 0,
                evidence: crate::request::evidence::Evidence::FILES,
                bot_classes: crate::request::bot_class::ClassSet::default(),
                top_paths,
                sources: Vec::new(),
                pages,
                goals: Vec::new(),
            });
            batch.hits += 2;
        }
    }
    batch
}

/// The demo's paths first (so the funnel has steps to find), then made-up ones.
fn page_path(n: u64) -> String {
    match n {
        0 => "/".to_owned(),
        1 => "/inventory".to_owned(),
        2 => "/about".to_owned(),
        3 => "/resume".to_owned(),
        4 => "/api/site/inventory".to_owned(),
        _ => format!("/notes/{n}"),
    }
}

/// Visitors the stream draws from: enough that most visits of a run are a
/// visitor's first of the day.
const VISITORS: u64 = 1_000_000;

/// `count` hits for `store`, starting at `start`, made of visits: a person
/// makes 1 to 6 requests over a few of 60 paths (one visit in ten from a
/// referrer), a bot (one visit in five) 1 to 20 over any of them, one visit
/// in fifty is the site reading itself. Visitors are drawn from a million.
pub fn hits(store: &StoreName, start: DateTime<Utc>, count: usize, seed: u64) -> Vec<Hit> {
    let key =
        VisitorKey::from_bytes(vec![42; 32]).unwrap_or_else(|_| unreachable!("a non-empty key"));
    let mut next = stream(seed);
    let mut hits = Vec::with_capacity(count);
    while hits.len() < count {
        let visitor = next() % VISITORS;
        let ip = std::net::IpAddr::from([
            10,
            (visitor >> 16) as u8,
            (visitor >> 8) as u8,
            visitor as u8,
        ]);
        let roll = next() % 100;
        let (kind, requests, paths) = match roll {
            0..=1 => (Kind::SelfRead, 1, 1),
            2..=21 => (Kind::Bot, 1 + next() % 20, 60),
            _ => (Kind::Person, 1 + next() % 6, 4),
        };
        let first_path = next() % 60;
        let source = (roll % 10 == 3).then(|| Source::Referrer("news.example.org".to_owned()));
        for request in 0..requests {
            if hits.len() == count {
                break;
            }
            let at = start
                + Duration::milliseconds((hits.len() as i64 * 3_600_000) / count.max(1) as i64);
            hits.push(Hit {
                at,
                visitor: visitor_token(&key, at.date_naive(), Some(ip)),
                network: Network::of(Some(ip)),
                country: country(visitor),
                path: format!("/page/{}", (first_path + next() % paths) % 60),
                store: store.clone(),
                kind,
                campaign: None,
                goal: None,
                source: if request == 0 { source.clone() } else { None },
                shape: if request == 0 {
                    crate::request::evidence::Shape::PageLoad
                } else {
                    crate::request::evidence::Shape::OtherPage
                },
                // As if its first file had already marked the visitor-day.
                evidence: crate::request::evidence::Evidence::FILES,
                bot_class: (kind == Kind::Bot)
                    .then_some(crate::request::bot_class::BotClass::SearchEngine),
            });
        }
    }
    hits
}

/// Sends `hits` through a writer into `store` the way the server does
/// (default batching), waits until all are written, and says what happened.
/// Needs the `server` feature.
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub async fn write_through_writer(
    store: std::sync::Arc<dyn crate::port::store::ActivityStore>,
    hits: Vec<Hit>,
) -> crate::recording::StatsSnapshot {
    let (feed, writer) =
        crate::recording::start_feed(store, crate::recording::RecorderConfig::default());
    for hit in hits {
        if feed.send(hit).await.is_err() {
            break;
        }
    }
    drop(feed);
    writer.finish().await
}

/// Times `runs` runs of [`write_through_writer`], each of `count` fresh hits
/// an hour after the run before (`first` numbers the first run), from
/// midnight two days ago: within the visitor rows' retention, so the
/// retention that each writer runs when it starts deletes nothing and the
/// tables grow as a busy site's do. Making the hits is not timed. Panics if
/// a hit is not written: a benchmark that loses hits measures nothing.
/// Needs the `server` feature.
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub async fn time_ingest(
    store: &std::sync::Arc<dyn crate::port::store::ActivityStore>,
    count: usize,
    runs: u64,
    first: u64,
) -> std::time::Duration {
    let start = crate::sums::summary::midnight(Utc::now().date_naive() - chrono::Days::new(2));
    let mut took = std::time::Duration::ZERO;
    for run in first..first + runs {
        let hits = hits(
            store.name(),
            start + Duration::hours(run as i64),
            count,
            run,
        );
        let began = std::time::Instant::now();
        let stats = write_through_writer(store.clone(), hits).await;
        took += began.elapsed();
        assert_eq!(
            (stats.written, stats.lost),
            (count as u64, 0),
            "every hit written"
        );
    }
    took
}

/// A sample visitor-day's page loads: every request a page load, one visit
/// from its first to its last request, entering on its first path and
/// leaving on its last.
fn sample_pages(
    paths: &[PathCount],
    requests: u64,
    first_seen: DateTime<Utc>,
    last_seen: DateTime<Utc>,
) -> crate::port::page_loads::PageLoads {
    use crate::port::page_loads::{PageAt, PageLoads};
    let (Some(entry), Some(exit)) = (paths.first(), paths.last()) else {
        return PageLoads::default();
    };
    let last_seen = if requests > 1 { last_seen } else { first_seen };
    PageLoads {
        count: requests,
        entry: Some(PageAt {
            at: first_seen,
            path: entry.path.clone(),
        }),
        exit: Some(PageAt {
            at: last_seen,
            path: exit.path.clone(),
        }),
        stay_ms: (last_seen - first_seen).num_milliseconds().unsigned_abs(),
        visits: 1,
        campaign: None,
    }
}
