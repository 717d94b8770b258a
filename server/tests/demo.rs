//! `whocomes demo`: the made-up history is the same for the same seed, has
//! what the tab is meant to show (three kinds, a weekly rhythm, sources,
//! a thinning funnel, IPv6), lands in a store of its own through the
//! import path, and loading it again never counts a day twice. The
//! figures it checks are printed (`-- --show-output`).
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::path::Path;

use activity::StoreName;
use activity::report::KindCounts;
use activity::source::SourceGroup;
use activity::store::{ActivityStore, Retention};
use activity::summary::DaySummary;
use chrono::{DateTime, Datelike as _, NaiveDate, Utc, Weekday};
use clap::Parser as _;
use server::cli::{Cli, Command};
use server::demo::{self, DemoArgs};

const NOW: &str = "2026-11-30T15:20:00Z";

fn now() -> DateTime<Utc> {
    NOW.parse().expect("a time")
}

fn args(data: &Path, seed: u64) -> DemoArgs {
    args_with(data, seed, &[])
}

fn args_with(data: &Path, seed: u64, extra: &[String]) -> DemoArgs {
    let argv = [
        "whocomes".to_owned(),
        "demo".to_owned(),
        "--quiet".to_owned(),
        format!("--seed={seed}"),
        format!("--data-dir={}", data.display()),
        "--key=demo-test-key".to_owned(),
        "--visitor-days=36500".to_owned(),
        "--token-keys=static".to_owned(),
    ]
    .into_iter()
    .chain(extra.iter().cloned());
    match Cli::try_parse_from(argv)
        .expect("arguments parse")
        .into_command()
    {
        Command::Demo(args) => *args,
        _ => panic!("expected demo"),
    }
}

async fn open(data: &Path, name: &str) -> activity_sqlite::SqliteStore {
    activity_sqlite::SqliteStore::open(
        data.join("activity.db").to_str().expect("UTF-8"),
        StoreName::parse(name).expect("a name"),
        Retention {
            visitor_days: 36_500,
            hour_days: None,
        },
    )
    .await
    .expect("opens")
}

/// Every day's summary of the demo store, by day.
async fn summaries(data: &Path) -> BTreeMap<NaiveDate, DaySummary> {
    summaries_of(&open(data, demo::DEMO_STORE).await).await
}

async fn summaries_of(store: &dyn ActivityStore) -> BTreeMap<NaiveDate, DaySummary> {
    let today = now().date_naive();
    let days = store
        .day_summaries(
            today - chrono::Days::new(120),
            today,
            &demo::funnel(),
            &activity::filter::Filter::none(),
        )
        .await
        .expect("reads");
    store.close().await;
    days.into_iter().map(|day| (day.day, day)).collect()
}

#[test]
fn the_same_seed_writes_the_same_day_and_another_seed_another() {
    let day = NaiveDate::from_ymd_opt(2026, 11, 3).expect("a day");
    let one = demo::day::day_log(7, day, "whocomes-SelfRead", None);
    let again = demo::day::day_log(7, day, "whocomes-SelfRead", None);
    let other = demo::day::day_log(8, day, "whocomes-SelfRead", None);
    assert_eq!(one, again, "deterministic for a seed");
    assert_ne!(one, other, "another seed, another day");
    assert!(
        one.lines().count() > 300,
        "a day has a monitor, people, bots"
    );
    // Today so far is the start of the whole day, byte for byte: the
    // import ledger then counts only what was added since.
    let until: DateTime<Utc> = "2026-11-03T13:00:00Z".parse().expect("a time");
    let so_far = demo::day::day_log(7, day, "whocomes-SelfRead", Some(until));
    assert!(one.starts_with(&so_far) && so_far.len() < one.len());
    assert!(
        so_far
            .lines()
            .all(|line| line.contains("/Nov/2026:0") || line.contains("/Nov/2026:1"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_has_three_kinds_a_rhythm_sources_a_funnel_and_ipv6() {
    let data = tempfile::tempdir().expect("a folder");
    let loaded = demo::load(&args(data.path(), 7), now())
        .await
        .expect("loads");
    assert_eq!(loaded.days.len(), 90, "90 days, today included");
    assert_eq!(loaded.tally.malformed_total(), 0, "{:?}", loaded.tally);
    assert!(
        loaded.tally.not_counted_total() > 0,
        "files and robots.txt are read, not counted"
    );

    let days = summaries(data.path()).await;
    assert_eq!(days.len(), 90, "a summary for every day");
    let mut all = KindCounts::default();
    let (mut weekday_people, mut weekdays, mut weekend_people, mut weekends) = (0, 0, 0, 0);
    for (day, summary) in &days {
        assert!(
            summary.kinds.self_reads >= 3,
            "the monitor reads the site every day: {day}"
        );
        all.people += summary.kinds.people;
        all.bots += summary.kinds.bots;
        all.self_reads += summary.kinds.self_reads;
        if matches!(day.weekday(), Weekday::Sat | Weekday::Sun) {
            weekend_people += summary.kinds.people;
            weekends += 1;
        } else {
            weekday_people += summary.kinds.people;
            weekdays += 1;
        }
    }
    println!("demo, seed 7, 90 days: {all:?}");
    assert!(
        all.people > 1_000 && all.bots > 500 && all.self_reads >= 270,
        "{all:?}"
    );
    let (weekday_mean, weekend_mean) = (
        weekday_people as f64 / f64::from(weekdays),
        weekend_people as f64 / f64::from(weekends),
    );
    println!("people per weekday {weekday_mean:.1}, per weekend day {weekend_mean:.1}");
    assert!(weekday_mean > 1.5 * weekend_mean, "a weekly rhythm");

    let mut sum = DaySummary::empty(now().date_naive(), demo::funnel().len());
    for summary in days.values() {
        sum.add_counts(summary);
    }
    for group in [
        SourceGroup::LinkedIn,
        SourceGroup::GitHub,
        SourceGroup::Search,
        SourceGroup::Tagged,
        SourceGroup::Typed,
    ] {
        assert!(
            sum.sources.groups.get(&group).copied().unwrap_or(0) > 20,
            "{group:?}: {:?}",
            sum.sources.groups
        );
    }
    assert!(
        sum.sources.tags.contains_key("resume-pdf"),
        "{:?}",
        sum.sources.tags
    );
    println!("countries: {:?}, none: {}", sum.countries, sum.no_country);
    assert!(
        sum.countries.len() >= 6 && sum.countries.values().all(|people| *people > 20),
        "the demo's people come from its made-up countries: {:?}",
        sum.countries
    );
    println!("funnel: {:?}", sum.steps);
    assert!(
        sum.steps.windows(2).all(|pair| pair[0] > pair[1]) && sum.steps[4] > 0,
        "landing > inventory > about > resume > downloaded > 0: {:?}",
        sum.steps
    );
    let downloads = sum
        .goals
        .iter()
        .find(|(goal, _)| goal.name() == "download")
        .map(|(_, total)| total.visitor_days.people);
    assert_eq!(
        downloads,
        Some(sum.steps[4]),
        "the goal's people are the funnel's goal step: {:?}",
        sum.goals
    );
    let bots_on = |path: &str| {
        days.values()
            .flat_map(|day| &day.paths)
            .filter(|total| total.path == path)
            .map(|total| total.bots)
            .sum::<u64>()
    };
    assert!(
        bots_on(activity::path::NOT_FOUND) > 0 && bots_on("/wp-login.php") == 0,
        "scanners' probes answered 404 are kept under one path, not theirs"
    );

    let store = open(data.path(), demo::DEMO_STORE).await;
    let visitors = store
        .visitors_since(now().date_naive() - chrono::Days::new(7))
        .await
        .expect("reads");
    store.close().await;
    let ipv6 = visitors
        .iter()
        .filter(|row| row.network.to_string().contains(':'))
        .count();
    assert!(
        ipv6 > 5,
        "a few IPv6 visitors: {ipv6} of {}",
        visitors.len()
    );
    assert!(
        visitors.iter().all(|row| {
            let network = row.network.to_string();
            ["203.0.113.", "192.0.2.", "198.51.100.", "2001:db8:"]
                .iter()
                .any(|block| network.starts_with(block))
        }),
        "documentation addresses only"
    );
    // Its crawlers are verified against the demo's own made-up ranges: none
    // of them is taken for a scanner in disguise.
    let verified = visitors
        .iter()
        .filter(|row| row.evidence.has(activity::evidence::Evidence::VERIFIED))
        .count();
    assert!(
        verified > 0,
        "the demo's Googlebot, bingbot and GPTBot are verified"
    );

    // The site's own store holds nothing: the demo is apart.
    let own = open(data.path(), "sqlite").await;
    let own_days = own
        .day_requests(now().date_naive() - chrono::Days::new(120))
        .await
        .expect("reads");
    own.close().await;
    assert!(own_days.is_empty(), "{own_days:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loading_again_counts_only_what_is_new() {
    let twice = tempfile::tempdir().expect("a folder");
    let once = tempfile::tempdir().expect("a folder");
    let morning: DateTime<Utc> = "2026-11-30T09:00:00Z".parse().expect("a time");

    let first = demo::load(&args(twice.path(), 3), morning)
        .await
        .expect("loads");
    assert!(first.tally.counted() > 10_000, "{:?}", first.tally);
    let again = demo::load(&args(twice.path(), 3), morning)
        .await
        .expect("loads");
    assert_eq!(
        again.tally.counted(),
        0,
        "the same logs again: {:?}",
        again.tally
    );
    assert!(again.tally.already_imported_bytes > 0);
    let later = demo::load(&args(twice.path(), 3), now())
        .await
        .expect("loads");
    assert!(
        later.tally.counted() > 0 && later.tally.counted() < first.tally.counted() / 20,
        "only today's new lines: {} then {}",
        first.tally.counted(),
        later.tally.counted()
    );
    demo::load(&args(once.path(), 3), now())
        .await
        .expect("loads");

    let requests = |days: &BTreeMap<NaiveDate, DaySummary>| {
        days.values()
            .map(|day| (day.day, day.requests(), day.kinds))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        requests(&summaries(twice.path()).await),
        requests(&summaries(once.path()).await),
        "loaded in three goes or in one: the same history"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn today_waits_until_its_log_can_be_told_apart() {
    let data = tempfile::tempdir().expect("a folder");
    let just_after_midnight: DateTime<Utc> = "2026-11-30T00:20:00Z".parse().expect("a time");
    let loaded = demo::load(&args(data.path(), 5), just_after_midnight)
        .await
        .expect("loads");
    assert_eq!(loaded.days.len(), 89, "today is not written yet");
    assert_eq!(
        loaded.days.last(),
        Some(&NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgresql_the_demo_sums_to_the_same_days_as_on_sqlite() {
    let Some(url) = activity_postgres::testing::fresh_database().await else {
        eprintln!("SKIPPED: TEST_DATABASE_URL is not set (scripts/test starts a PostgreSQL)");
        return;
    };
    let sqlite = tempfile::tempdir().expect("a folder");
    let postgres = tempfile::tempdir().expect("a folder");
    demo::load(&args(sqlite.path(), 11), now())
        .await
        .expect("loads");
    let store_url = format!("--store-url={url}");
    demo::load(&args_with(postgres.path(), 11, &[store_url]), now())
        .await
        .expect("loads into PostgreSQL");

    let store = activity_postgres::PostgresStore::open(
        &url,
        StoreName::parse(demo::DEMO_STORE).expect("a name"),
        Retention {
            visitor_days: 36_500,
            hour_days: None,
        },
    )
    .await
    .expect("connects");
    let on_postgres = summaries_of(&store).await;
    let on_sqlite = summaries(sqlite.path()).await;
    assert_eq!(on_postgres.len(), 90);
    for (day, summary) in &on_sqlite {
        let other = &on_postgres[day];
        assert_eq!(
            (
                summary.kinds,
                summary.requests(),
                &summary.steps,
                &summary.sources
            ),
            (other.kinds, other.requests(), &other.steps, &other.sources),
            "{day}"
        );
    }
}
