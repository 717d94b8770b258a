//! The Admin tab's reads over a big store: 90 days of rows equal to about
//! 50 million hits (21,000 visitor-days a day, about 26 requests each,
//! `activity::sample::day_rows`), written the way the writer writes, then
//! retention applied (visitor rows older than 30 days go, their counts by
//! kind stay). Then every card of one overview (`overview`, all cards
//! together) is timed cold (a fresh Admin: no day summary kept) and live
//! (100 new hits today before each read, so today is summed again every
//! time; a read waits for that at most `FRESH_WAIT`), after a restart (a
//! fresh Admin over the store that keeps the cold read's summaries, with
//! 100 new hits today), one sum of today
//! alone (how far behind a live read's today can be), every card under a
//! filter (a source; a page: its first read, then live in rounds
//! alternating with the unfiltered live read), the stats API's `event:page`
//! breakdown (live, alternating likewise), and the visitor table; 20 times each (BENCH_RUNS) after 2
//! warm-ups, median and 95th percentile printed. SQLite always; PostgreSQL
//! when TEST_DATABASE_URL names a server (a fresh database is made on it);
//! Cosmos DB on the SDK's in-memory emulator, in this process, with
//! BENCH_COSMOS_VISITORS (1,000) visitor-days a day, its request units
//! printed for the cold read and for one live read.
//!
//! `cargo bench -p whocomes-admin --features ssr --bench overview` (BENCH_DAYS, BENCH_VISITORS, BENCH_COSMOS_VISITORS, BENCH_RUNS, BENCH_RANGES to scale; BENCH_STORES=sqlite,postgres,cosmos to choose)

use std::sync::Arc;
use std::time::{Duration, Instant};

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{ActivityStore, Retention};
use chrono::{Days, Utc};
use whocomes_admin::server::{Admin, AdminConfig, overview};
use whocomes_admin::span::Span;

/// The filters a filtered read is timed under: a source group (a join to
/// the visitor-days' sources) and a page (a join to their paths).
const BENCH_FILTERS: [&str; 2] = ["source=linkedin", "page=/about"];

/// Filters never read before, each round's its own (`{n}`: a number
/// from 5 to 294, a path of the sample's), by how many visitor-days they
/// let through.
const NEW_FILTERS: [(&str, &str); 3] = [
    ("page=/notes/N (few)", "page=/notes/{n}"),
    (
        "source=linkedin&page=!/notes/N (one in eight)",
        "source=linkedin&page=!/notes/{n}",
    ),
    (
        "kind=person&page=!/notes/N (four in five)",
        "kind=person&page=!/notes/{n}",
    ),
];

/// What the process holds in memory now (Linux; 0 elsewhere).
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// Every card of the last `range` days, unfiltered, signed in.
async fn all_cards(admin: &Admin, range: u16) -> whocomes_admin::model::Overview {
    overview::overview(
        admin,
        Span::Last(range),
        Utc::now(),
        true,
        &activity::filter::Filter::none(),
    )
    .await
}

/// The allocator the server uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn seed(store: &Arc<dyn ActivityStore>, days: u32, visitors: u32) -> u64 {
    let today = Utc::now().date_naive();
    let began = Instant::now();
    let mut hits = 0;
    for back in (0..days).rev() {
        let day = today - Days::new(u64::from(back));
        let batch = activity::sample::day_rows(store.name(), day, visitors, 7);
        hits += batch.hits;
        store.record(&batch).await.expect("the seed is written");
        if back % 10 == 0 {
            eprintln!("  seeding: {day} written after {:.0?}", began.elapsed());
        }
    }
    store
        .enforce_retention(Utc::now())
        .await
        .expect("retention runs");
    eprintln!(
        "  seeded {days} days, {hits} hits ({:.1} million) in {:.0} s",
        hits as f64 / 1e6,
        began.elapsed().as_secs_f64()
    );
    hits
}

fn percentiles(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    let at = |share: f64| {
        times[((times.len() as f64 * share).ceil() as usize).clamp(1, times.len()) - 1]
    };
    (at(0.5), at(0.95))
}

/// Times `call` (which says how long its timed part took) BENCH_RUNS times
/// after two warm-ups.
async fn time<F, Fut>(label: &str, mut call: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Duration>,
{
    for _ in 0..2 {
        call().await;
    }
    let runs = env_or("BENCH_RUNS", 20) as usize;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(call().await);
    }
    let (median, p95) = percentiles(times);
    eprintln!("  {label}: median {median:.1?}, p95 {p95:.1?}");
}

/// One unfiltered live read (100 new hits first), timed: the baseline the
/// filtered reads and the breakdown alternate with.
async fn live_unfiltered(store: &Arc<dyn ActivityStore>, admin: &Admin, range: u16) -> Duration {
    live_write(store).await;
    let began = Instant::now();
    all_cards(admin, range).await;
    began.elapsed()
}

/// Whether every store was read (no deadline, no refusal).
fn answered(overview: &whocomes_admin::model::Overview) -> bool {
    overview
        .stores
        .iter()
        .all(|store| store.read_error.is_none())
}

/// Times `a` and `b` in alternating rounds (BENCH_RUNS each, after two
/// warm-up rounds), so that both meet the same machine; prints both and
/// the ratio of their medians.
async fn alternate<A, AF, B, BF>(label_a: &str, mut a: A, label_b: &str, mut b: B)
where
    A: FnMut() -> AF,
    AF: Future<Output = Duration>,
    B: FnMut() -> BF,
    BF: Future<Output = Duration>,
{
    for _ in 0..2 {
        a().await;
        b().await;
    }
    let runs = env_or("BENCH_RUNS", 20) as usize;
    let (mut times_a, mut times_b) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        times_a.push(a().await);
        times_b.push(b().await);
    }
    let ((median_a, p95_a), (median_b, p95_b)) = (percentiles(times_a), percentiles(times_b));
    eprintln!("  {label_a}: median {median_a:.1?}, p95 {p95_a:.1?}");
    eprintln!(
        "  {label_b}: median {median_b:.1?}, p95 {p95_b:.1?} ({:.1}× the first's median)",
        median_b.as_secs_f64() / median_a.as_secs_f64().max(1e-9)
    );
}

fn admin_of(store: &Arc<dyn ActivityStore>) -> Admin {
    Admin::new(AdminConfig {
        stores: vec![store.clone()],
        funnel: activity::sample::funnel(),
        ..AdminConfig::default()
    })
    .expect("no password to hash")
}

/// A different sample of hits each time.
fn now_seed() -> u64 {
    Utc::now().timestamp_micros().unsigned_abs()
}

/// 100 new hits today, as a live site writes them between two reads.
async fn live_write(store: &Arc<dyn ActivityStore>) {
    let hits = activity::sample::hits(store.name(), Utc::now(), 100, now_seed());
    store
        .record(&Batch::fold(&hits))
        .await
        .expect("a live write");
}

/// The request units `store` was billed so far (0 for stores that bill none).
fn units(store: &Arc<dyn ActivityStore>) -> u64 {
    store.cost().units.map_or(0, |(units, _)| units)
}

/// What `store` billed since `before`, in words (nothing for stores that bill none).
fn billed(store: &Arc<dyn ActivityStore>, before: u64) -> String {
    match store.cost().units {
        Some((now, what)) => format!(", {} {what}", now - before),
        None => String::new(),
    }
}

/// Whether BENCH_STORES (default: all) names `store`.
fn chosen(store: &str) -> bool {
    std::env::var("BENCH_STORES").map_or(true, |names| {
        names.split(',').any(|name| name.trim() == store)
    })
}

async fn measure(store: Arc<dyn ActivityStore>, visitors: u32) {
    let days = env_or("BENCH_DAYS", 90);
    eprintln!("{}:", store.name());
    seed(&store, days, visitors).await;
    let admin = admin_of(&store);
    // BENCH_RANGES=7,30 (default all four; empty: the visitor table only).
    let ranges: Vec<u16> = std::env::var("BENCH_RANGES")
        .unwrap_or_else(|_| "7,30,90,365".to_owned())
        .split(',')
        .filter_map(|range| range.trim().parse().ok())
        .collect();
    for range in ranges {
        // Cold: a server started over a store that keeps no day summary
        // (an empty note cannot be read, so it is as none).
        store
            .keep_cached(reading::cache::SAVED_NAME, "")
            .await
            .expect("a note");
        let fresh = admin_of(&store);
        let before = units(&store);
        let began = Instant::now();
        let overview = all_cards(&fresh, range).await;
        assert_eq!(overview.days.len(), usize::from(range));
        eprintln!(
            "  all cards, {range} days, cold (no summary kept): {:.1?}{}",
            began.elapsed(),
            billed(&store, before)
        );
        // After a restart: a server just started (a fresh Admin) over the
        // store, which keeps the summaries the cold read made; 100 new hits
        // land today before each start, so today has changed since.
        time(
            &format!("all cards, {range} days, first view after a restart"),
            || async {
                live_write(&store).await;
                let restarted = admin_of(&store);
                let began = Instant::now();
                let overview = all_cards(&restarted, range).await;
                let elapsed = began.elapsed();
                assert_eq!(overview.days.len(), usize::from(range));
                // A real restart happens once: let this start's refresh of
                // today end before the next, so that runs do not overlap.
                tokio::time::sleep(Duration::from_millis(800)).await;
                elapsed
            },
        )
        .await;
        // A server that has run a while has finished its start's warm-up
        // (every day summed, without the tab's deadline): how long that
        // takes, once.
        let (began, resident) = (Instant::now(), resident_bytes());
        admin.warm_up().await;
        let index = admin.reading().index();
        eprintln!(
            "  the start's warm-up (every day of 365 summed, then the visitor index read; no deadline): {:.1?}; the index holds {} visitor-days in about {:.0} MB ({} bytes a visitor-day); the process grew by {:.0} MB ({:.0} bytes a visitor-day)",
            began.elapsed(),
            index.len(),
            index.bytes() as f64 / 1e6,
            index.bytes() / index.len().max(1),
            (resident_bytes().saturating_sub(resident)) as f64 / 1e6,
            resident_bytes().saturating_sub(resident) as f64 / index.len().max(1) as f64,
        );
        // A filter never read before: each round a new one (the kept
        // filters never hold it), in rounds alternating with the
        // unfiltered live read. Three shapes: a path few visitor-days
        // read; a source's (one in eight); and people's (four in five).
        let round = std::sync::atomic::AtomicU32::new(0);
        for (label, shape) in NEW_FILTERS {
            alternate(
                &format!("all cards, {range} days, live"),
                || live_unfiltered(&store, &admin, range),
                &format!("all cards, {range} days, live, a filter never read: {label}"),
                || async {
                    let n = round.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 290 + 5;
                    let filter =
                        activity::filter::Filter::from_query(&shape.replace("{n}", &n.to_string()))
                            .expect("a filter");
                    live_write(&store).await;
                    let began = Instant::now();
                    let overview =
                        overview::overview(&admin, Span::Last(range), Utc::now(), true, &filter)
                            .await;
                    let elapsed = began.elapsed();
                    assert!(answered(&overview), "a new filter answers");
                    elapsed
                },
            )
            .await;
        }
        // Live: 100 new hits land today before every read, so today's
        // summary is read again each time (its figures changed).
        time(&format!("all cards, {range} days, live"), || async {
            live_write(&store).await;
            let began = Instant::now();
            let overview = all_cards(&admin, range).await;
            let elapsed = began.elapsed();
            assert_eq!(overview.days.len(), usize::from(range));
            elapsed
        })
        .await;
        // Filtered: every card under one condition. Its first read sums the
        // range from the visitor rows (given up at the tab's deadline if it
        // takes longer, and finished in the background); once kept, live
        // reads sum only today again, timed in rounds alternating with the
        // unfiltered live read.
        for filter in BENCH_FILTERS {
            let filter = activity::filter::Filter::from_query(filter).expect("a filter");
            let read = || overview::overview(&admin, Span::Last(range), Utc::now(), true, &filter);
            let began = Instant::now();
            let first = read().await;
            eprintln!(
                "  all cards, {range} days, filtered {}, first read: {:.1?} ({})",
                filter.to_query(),
                began.elapsed(),
                if answered(&first) {
                    "answered"
                } else {
                    "given up at the deadline"
                }
            );
            let waited = Instant::now();
            while !answered(&read().await) {
                assert!(waited.elapsed() < Duration::from_secs(900), "never kept");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            eprintln!(
                "  … answered from what was kept {:.1?} after the first read began",
                began.elapsed()
            );
            alternate(
                &format!("all cards, {range} days, live"),
                || live_unfiltered(&store, &admin, range),
                &format!(
                    "all cards, {range} days, live, filtered {}",
                    filter.to_query()
                ),
                || async {
                    live_write(&store).await;
                    let began = Instant::now();
                    let overview = read().await;
                    let elapsed = began.elapsed();
                    assert!(answered(&overview), "a live filtered read answers");
                    elapsed
                },
            )
            .await;
        }
        // Plausible's `event:page` breakdown of people's visitors over the
        // range (the stats API's query), live, alternating with the
        // unfiltered live read.
        let today = Utc::now().date_naive();
        let pages = reading::query::Query {
            first: today - Days::new(u64::from(range) - 1),
            last: today,
            filter: activity::filter::Filter::none(),
            metrics: vec![reading::query::Metric::Visitors],
            by: Some(reading::query::Breakdown::By(
                activity::filter::Dimension::Page,
            )),
            limit: 10,
            offset: 0,
        };
        alternate(
            &format!("all cards, {range} days, live"),
            || live_unfiltered(&store, &admin, range),
            &format!("event:page breakdown, {range} days, live (stats API)"),
            || async {
                live_write(&store).await;
                let began = Instant::now();
                let rows = admin.reading().query(&pages).await.expect("a breakdown");
                assert!(!rows.is_empty());
                began.elapsed()
            },
        )
        .await;
        if store.cost().units.is_some() {
            // What one live read is billed (its 100 new hits' write apart).
            live_write(&store).await;
            let before = units(&store);
            let began = Instant::now();
            all_cards(&admin, range).await;
            eprintln!(
                "  all cards, {range} days, one live read: {:.1?}{}",
                began.elapsed(),
                billed(&store, before)
            );
        }
    }
    // How far behind a live read's today can be: one sum of today.
    time("today summed again (the lag of a live read)", || async {
        let today = Utc::now().date_naive();
        let began = Instant::now();
        let days = store
            .day_summaries(
                today,
                today,
                admin.funnel(),
                &activity::filter::Filter::none(),
            )
            .await
            .expect("sums today");
        assert_eq!(days.len(), 1);
        began.elapsed()
    })
    .await;
    time("visitor table, 30 days", || async {
        let began = Instant::now();
        let (rows, total) = overview::visitors(&admin, Span::Last(30), Utc::now()).await;
        assert!(total >= rows.len());
        began.elapsed()
    })
    .await;
    store.close().await;
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let folder = tempfile::tempdir().expect("a temporary folder");
        // BENCH_SQLITE_FILE keeps the seeded file for a look afterwards.
        let path = std::env::var("BENCH_SQLITE_FILE")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| folder.path().join("activity.db"));
        let visitors = env_or("BENCH_VISITORS", 21_000);
        if chosen("sqlite") {
            let sqlite = activity_sqlite::SqliteStore::open(
                path.to_str().expect("UTF-8"),
                StoreName::parse("sqlite").expect("a name"),
                Retention::default(),
            )
            .await
            .expect("opens");
            measure(Arc::new(sqlite), visitors).await;
        }

        if chosen("postgres") {
            match activity_postgres::testing::fresh_database().await {
                None => eprintln!("postgres: SKIPPED (TEST_DATABASE_URL is not set)"),
                Some(url) => {
                    let postgres = activity_postgres::PostgresStore::open(
                        &url,
                        StoreName::parse("postgres").expect("a name"),
                        Retention::default(),
                    )
                    .await
                    .expect("connects");
                    measure(Arc::new(postgres), visitors).await;
                }
            }
        }

        if chosen("cosmos") {
            let cosmos = activity_cosmos::CosmosStore::open(
                "cosmos+emulator://bench/?database=whocomes&container=activity",
                StoreName::parse("cosmos").expect("a name"),
                Retention::default(),
            )
            .await
            .expect("the emulator opens");
            measure(Arc::new(cosmos), env_or("BENCH_COSMOS_VISITORS", 1_000)).await;
        }
    });
}
