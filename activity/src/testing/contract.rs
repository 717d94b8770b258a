//! The contract every [`ActivityStore`] adapter must meet, as one async
//! function its tests call with a fresh, empty store (default retention:
//! visitor rows 30 days, hourly rows kept). It panics on the first breach.
//! Behind the `testing` feature: test support, not production code.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};

use crate::port::rows::{Batch, GoalHour, HourRow, Seen, VisitorDay};
use crate::port::store::ActivityStore;
use crate::request::bot_class::BotClass;
use crate::request::evidence::{Evidence, FilesMark};
use crate::request::kind::Kind;

use super::contract_hits::{goal, hit, token};

fn sorted_hours(mut rows: Vec<HourRow>) -> Vec<HourRow> {
    rows.sort_by(|a, b| (a.hour, &a.path).cmp(&(b.hour, &b.path)));
    rows
}

fn sorted_goal_hours(mut rows: Vec<GoalHour>) -> Vec<GoalHour> {
    rows.sort_by(|a, b| (a.hour, &a.goal).cmp(&(b.hour, &b.goal)));
    rows
}

fn sorted_visitors(mut rows: Vec<VisitorDay>) -> Vec<VisitorDay> {
    rows.sort_by(|a, b| (a.day, &a.visitor).cmp(&(b.day, &b.visitor)));
    rows
}

/// Runs the contract against `store`, which must be empty. `now` is the
/// time the test pretends it is.
pub async fn store_contract(store: &dyn ActivityStore, now: DateTime<Utc>) {
    let name = store.name().clone();
    let available = store.availability().await;
    assert!(
        available.available,
        "a fresh store is available: {}",
        available.reason
    );
    assert!(!available.reason.is_empty() && !available.retention.is_empty());

    let today = now.date_naive();
    let noon = |day: NaiveDate, minute: u32| {
        Utc.from_utc_datetime(&day.and_hms_opt(12, minute, 0).unwrap_or_default())
    };
    let old_day = today - Duration::days(40);

    let first = vec![
        hit(
            &name,
            noon(today, 1),
            1,
            "/",
            Kind::Person,
            Some("www.linkedin.com"),
        ),
        goal(
            hit(&name, noon(today, 2), 1, "/resume", Kind::Person, None),
            "download",
        ),
        hit(&name, noon(today, 3), 2, "/wp-login.php", Kind::Bot, None),
        hit(&name, noon(old_day, 0), 3, "/", Kind::SelfRead, None),
        // A disguised agent on the day that will expire: a scanner's, kept by class.
        hit(&name, noon(old_day, 1), 6, "/", Kind::Person, None),
    ];
    let second = vec![
        hit(
            &name,
            noon(today, 30),
            1,
            "/",
            Kind::Person,
            Some("tag:resume"),
        ),
        // Goals in both batches, a person's and a bot's: added, kept apart.
        goal(
            hit(&name, noon(today, 30), 1, "/resume", Kind::Person, None),
            "download",
        ),
        goal(
            hit(&name, noon(today, 31), 1, "/signup", Kind::Person, None),
            "signup",
        ),
        goal(
            hit(&name, noon(today, 31), 2, "/.env", Kind::Bot, None),
            "signup",
        ),
        // A browser's agent that never fetches a file: disguised.
        hit(&name, noon(today, 32), 4, "/", Kind::Person, None),
        // A reader whose stylesheet arrives after its page was written.
        hit(&name, noon(today, 33), 5, "/about", Kind::Person, None),
    ];
    let mark = FilesMark {
        store: name.clone(),
        day: today,
        visitor: token(5),
    };
    let marks = Batch::fold_all(&[
        Seen::Files(mark.clone()),
        // A mark for a visitor-day the store has no row of marks nothing.
        Seen::Files(FilesMark {
            visitor: token(9),
            ..mark.clone()
        }),
    ]);
    assert_eq!(
        marks.marks.len(),
        2,
        "marks without rows wait for the store"
    );
    store
        .record(&Batch::fold(&first))
        .await
        .unwrap_or_else(|e| panic!("records: {e}"));
    // The second batch under a name, sent twice (a lost reply, a journal
    // taken up after a restart): it adds once.
    // (Names are random; this one is the store's own, as stores that share
    // a database run the contract side by side.)
    let mut named = Batch::fold(&second);
    let mut id = [0x5e; 16];
    for (byte, from_name) in id.iter_mut().zip(name.as_str().bytes().rev()) {
        *byte ^= from_name;
    }
    named.id = Some(crate::port::rows::BatchId::from_bytes(id));
    for _ in 0..2 {
        store
            .record(&named)
            .await
            .unwrap_or_else(|e| panic!("records again: {e}"));
    }
    // Before the marks: reader 5 fetched no file yet, so is no person.
    let marked = store
        .day_marks(old_day)
        .await
        .unwrap_or_else(|e| panic!("reads day marks: {e}"));
    assert_eq!(marked, Vec::new(), "no marks yet");
    let before = today_kinds(store, today).await;
    store
        .record(&marks)
        .await
        .unwrap_or_else(|e| panic!("records marks: {e}"));
    // A mark in a later batch than its page: the day's marks say the day
    // changed (a reader that kept its summary sums it again), and the
    // summary moves reader 5 from the bots to the people.
    let marked = store
        .day_marks(old_day)
        .await
        .unwrap_or_else(|e| panic!("reads day marks: {e}"));
    assert_eq!(
        marked,
        vec![(today, 2)],
        "every mark is counted on its day, found or not"
    );
    let after = today_kinds(store, today).await;
    assert_eq!(
        (before.people + 1, before.bots - 1),
        (after.people, after.bots),
        "the mark made a person of reader 5: {before:?} -> {after:?}"
    );
    store
        .record(&Batch::default())
        .await
        .unwrap_or_else(|e| panic!("records nothing: {e}"));

    let mut all: Vec<Seen> = first
        .iter()
        .chain(&second)
        .cloned()
        .map(Seen::Hit)
        .collect();
    all.push(Seen::Files(mark));
    let expected = Batch::fold_all(&all);
    assert!(expected.marks.is_empty(), "the mark found its row");

    let since = noon(old_day, 0) - Duration::days(1);
    let hours = store
        .hours_since(since)
        .await
        .unwrap_or_else(|e| panic!("reads hours: {e}"));
    assert_eq!(
        sorted_hours(hours),
        sorted_hours(expected.hours.clone()),
        "hourly rows add up"
    );
    let goal_hours = store
        .goal_hours_since(since)
        .await
        .unwrap_or_else(|e| panic!("reads goals' hours: {e}"));
    assert!(!expected.goal_hours.is_empty(), "the sample reaches goals");
    assert_eq!(
        sorted_goal_hours(goal_hours),
        sorted_goal_hours(expected.goal_hours.clone()),
        "goals' hourly rows add up, people's, bots' and own reads' apart"
    );
    let later = store
        .hours_since(noon(today, 0))
        .await
        .unwrap_or_else(|e| panic!("reads hours: {e}"));
    assert!(
        later.iter().all(|row| row.hour >= noon(today, 0)),
        "hours_since filters"
    );
    let hour = noon(today, 0);
    let mut paths = store
        .paths_in_hour(hour)
        .await
        .unwrap_or_else(|e| panic!("reads an hour's paths: {e}"));
    paths.sort();
    let mut expected_paths: Vec<String> = expected
        .hours
        .iter()
        .filter(|row| row.hour == hour)
        .map(|row| row.path.clone())
        .collect();
    expected_paths.sort();
    assert!(!expected_paths.is_empty(), "the sample has rows at noon");
    assert_eq!(
        paths, expected_paths,
        "paths_in_hour names the hour's paths"
    );

    let visitors = store
        .visitors_since(old_day)
        .await
        .unwrap_or_else(|e| panic!("reads visitors: {e}"));
    assert_eq!(
        sorted_visitors(visitors),
        sorted_visitors(expected.visitors.clone()),
        "visitor rows add up"
    );

    // The visitor table's page: the newest day first, whole rows, the total.
    let (page, total) = store
        .latest_visitors(old_day, 1)
        .await
        .unwrap_or_else(|e| panic!("reads the newest visitors: {e}"));
    assert_eq!(
        total,
        expected.visitors.len() as u64,
        "all visitor-days are counted"
    );
    assert_eq!(page.len(), 1, "at most the limit");
    let newest = expected
        .visitors
        .iter()
        .filter(|row| row.day == today)
        .max_by(|a, b| a.visitor.cmp(&b.visitor))
        .cloned();
    assert_eq!(
        page.first().cloned(),
        newest,
        "the newest day's last token, whole"
    );

    // An export's pages, two rows at a time: every row once, in order, whole.
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .visitors_page(old_day, after.clone(), 2)
            .await
            .unwrap_or_else(|e| panic!("reads a page of visitors: {e}"));
        assert!(page.len() <= 2, "at most the limit");
        let Some(last) = page.last() else { break };
        after = Some((last.day, last.visitor.clone()));
        paged.extend(page);
    }
    assert_eq!(
        sorted_visitors(paged.clone()),
        sorted_visitors(expected.visitors.clone()),
        "the visitor pages hold every row, whole"
    );
    assert!(
        paged
            .windows(2)
            .all(|w| (w[0].day, &w[0].visitor) < (w[1].day, &w[1].visitor)),
        "by day and token, none twice"
    );
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .hours_page(since, after.clone(), 3)
            .await
            .unwrap_or_else(|e| panic!("reads a page of hours: {e}"));
        assert!(page.len() <= 3, "at most the limit");
        let Some(last) = page.last() else { break };
        after = Some((last.hour, last.path.clone()));
        paged.extend(page);
    }
    assert!(
        paged
            .windows(2)
            .all(|w| (w[0].hour, &w[0].path) < (w[1].hour, &w[1].path)),
        "by hour and path, none twice"
    );
    assert_eq!(
        sorted_hours(paged),
        sorted_hours(expected.hours.clone()),
        "the hour pages hold every row"
    );

    // An hour older than hourly rows are kept by default, with a goal.
    let ancient = noon(
        today - Duration::days(i64::from(crate::store::DEFAULT_HOUR_DAYS) + 5),
        0,
    );
    let ancient_hit = goal(
        hit(&name, ancient, 7, "/signup", Kind::Person, None),
        "signup",
    );
    let ancient_rows = Batch::fold(&[ancient_hit]);
    store
        .record(&Batch {
            visitors: Vec::new(),
            ..ancient_rows
        })
        .await
        .unwrap_or_else(|e| panic!("records an old hour: {e}"));
    store
        .enforce_retention(now)
        .await
        .unwrap_or_else(|e| panic!("enforces retention: {e}"));
    // Goals' hours are kept exactly as long as the hourly rows (by
    // default the old hour is gone; a store that keeps hours keeps both).
    let old = |hours: Vec<DateTime<Utc>>| hours.iter().filter(|hour| **hour < since).count();
    let hours_left = store
        .hours_since(ancient)
        .await
        .unwrap_or_else(|e| panic!("reads hours: {e}"));
    let goals_left = store
        .goal_hours_since(ancient)
        .await
        .unwrap_or_else(|e| panic!("reads goals' hours: {e}"));
    assert_eq!(
        old(hours_left.iter().map(|row| row.hour).collect()),
        old(goals_left.iter().map(|row| row.hour).collect()),
        "a goal's hour expires with the hourly rows"
    );
    let visitors = store
        .visitors_since(old_day)
        .await
        .unwrap_or_else(|e| panic!("reads visitors: {e}"));
    assert!(
        visitors.iter().all(|row| row.day > old_day),
        "old visitor rows are deleted"
    );
    assert_eq!(visitors.len(), 4);
    let evidence = |n: u8| {
        visitors
            .iter()
            .find(|row| row.visitor == token(n))
            .map(|row| row.evidence)
    };
    assert_eq!(
        evidence(5),
        Some(Evidence::FILES),
        "the mark reached its row"
    );
    assert_eq!(evidence(4), Some(Evidence::NONE));
    assert!(
        visitors.iter().all(|row| row.visitor != token(9)),
        "a mark makes no row"
    );
    // The expired day's visitor-day is still counted, by kind.
    let expired = store
        .expired_kinds_since(old_day - Duration::days(1))
        .await
        .unwrap_or_else(|e| panic!("reads expired kinds: {e}"));
    let kept_kinds = crate::sums::report::KindCounts {
        self_reads: 1,
        bots: 1,
        ..Default::default()
    };
    assert_eq!(
        expired,
        vec![(old_day, kept_kinds)],
        "kinds kept for expired days"
    );
    // …and its bot classes: the disguised visitor-day as a scanner's, with its request.
    let classes = store
        .bot_days_since(old_day)
        .await
        .unwrap_or_else(|e| panic!("reads bot days: {e}"));
    let old_scanners: Vec<_> = classes
        .iter()
        .filter(|(day, class, _)| *day == old_day && *class == BotClass::Scanner)
        .map(|(_, _, count)| *count)
        .collect();
    assert_eq!(
        old_scanners,
        vec![crate::sums::report::BotCount {
            requests: 1,
            visitor_days: 1,
            verified: 0,
        }],
        "bot classes kept for expired days"
    );
    let later = store
        .expired_kinds_since(old_day + Duration::days(1))
        .await
        .unwrap_or_else(|e| panic!("reads expired kinds: {e}"));
    assert!(later.is_empty(), "read from `since` on");
    let hours = store
        .hours_since(since)
        .await
        .unwrap_or_else(|e| panic!("reads hours: {e}"));
    assert!(
        hours.iter().any(|row| row.hour.date_naive() == old_day),
        "hourly rows are kept"
    );

    let cost = store.cost();
    assert!(
        cost.operations >= 3,
        "operations are counted: {}",
        cost.operations
    );

    summaries_contract(store, today, old_day).await;
    ledger_contract(store).await;
    notes_contract(store).await;
    super::page_loads_contract::page_loads_contract(store, today - Duration::days(2)).await;
    store.close().await;
}

/// Today's visitor-days by kind, as the store sums them.
async fn today_kinds(
    store: &dyn ActivityStore,
    today: NaiveDate,
) -> crate::sums::report::KindCounts {
    let summaries = store
        .day_summaries(today, today, &[], &crate::filter::Filter::none())
        .await
        .unwrap_or_else(|e| panic!("summarizes today: {e}"));
    assert_eq!(summaries.len(), 1, "today has rows");
    summaries[0].kinds
}

/// The import ledger keeps the last word per log, apart from other logs.
async fn ledger_contract(store: &dyn ActivityStore) {
    use crate::port::store::Imported;
    let entry = |log: &str, bytes| Imported {
        log: log.to_owned(),
        bytes,
        digest: format!("{bytes:064x}"),
    };
    let nothing = store
        .imported("a")
        .await
        .unwrap_or_else(|e| panic!("reads the ledger: {e}"));
    assert_eq!(nothing, None, "nothing imported yet");
    for noted in [entry("a", 10), entry("a", 25), entry("b", 7)] {
        store
            .mark_imported(&noted)
            .await
            .unwrap_or_else(|e| panic!("notes an import: {e}"));
    }
    let a = store
        .imported("a")
        .await
        .unwrap_or_else(|e| panic!("reads the ledger: {e}"));
    assert_eq!(a, Some(entry("a", 25)), "the last word");
    let b = store
        .imported("b")
        .await
        .unwrap_or_else(|e| panic!("reads the ledger: {e}"));
    assert_eq!(b, Some(entry("b", 7)));
}

/// A note is kept whole, the last word wins, and one name's note is not another's.
async fn notes_contract(store: &dyn ActivityStore) {
    let read = |name: &'static str| async move {
        store
            .cached(name)
            .await
            .unwrap_or_else(|e| panic!("reads a note: {e}"))
    };
    assert_eq!(read("summaries").await, None, "no note yet");
    // Big enough to be more than a page, with text that needs quoting in SQL.
    let long = "it's \"kept\"; ".repeat(20_000);
    for (name, body) in [
        ("summaries", "first"),
        ("summaries", long.as_str()),
        ("other", ""),
    ] {
        store
            .keep_cached(name, body)
            .await
            .unwrap_or_else(|e| panic!("keeps a note: {e}"));
    }
    assert_eq!(
        read("summaries").await.as_deref(),
        Some(long.as_str()),
        "the last word, whole"
    );
    assert_eq!(read("other").await.as_deref(), Some(""));
}

/// The store's own day summaries and day totals equal what its rows say
/// (read and summed by the reference), over days with people, bots, own
/// reads, several sources and an expired day.
async fn summaries_contract(store: &dyn ActivityStore, today: NaiveDate, old_day: NaiveDate) {
    for back in [1, 2] {
        let day = today - Duration::days(back);
        let rows = crate::testing::sample::day_rows(store.name(), day, 300, 11);
        store
            .record(&rows)
            .await
            .unwrap_or_else(|e| panic!("records sample days: {e}"));
    }
    let mut steps = crate::testing::sample::funnel();
    // A path in two steps counts in both.
    steps.push(crate::sums::report::FunnelStep {
        name: "home again".to_owned(),
        paths: vec!["/".to_owned(), "/nowhere".to_owned()],
    });
    // A goal as a step.
    steps.push(crate::sums::report::FunnelStep {
        name: "signed up".to_owned(),
        paths: vec!["goal:signup".to_owned()],
    });
    super::filter_contract::filter_contract(store, (today - Duration::days(2), today), &steps)
        .await;
    // A site without a funnel: no steps, the rest counted alike.
    let none = store
        .day_summaries(old_day, today, &[], &crate::filter::Filter::none())
        .await
        .unwrap_or_else(|e| panic!("summarizes days without a funnel: {e}"));
    let with = store
        .day_summaries(old_day, today, &steps, &crate::filter::Filter::none())
        .await
        .unwrap_or_else(|e| panic!("summarizes days: {e}"));
    assert_eq!(none.len(), with.len(), "the same days without a funnel");
    for (none, with) in none.iter().zip(&with) {
        assert!(none.steps.is_empty(), "no steps on {}", none.day);
        assert_eq!(
            none.kinds, with.kinds,
            "kinds without a funnel on {}",
            none.day
        );
    }
    for (first, last) in [
        (old_day, today),
        (today - Duration::days(1), today - Duration::days(1)),
    ] {
        let reference = crate::port::store::read_and_summarize(
            store,
            first,
            last,
            &steps,
            &crate::filter::Filter::none(),
        )
        .await
        .unwrap_or_else(|e| panic!("reads rows: {e}"));
        let summaries = store
            .day_summaries(first, last, &steps, &crate::filter::Filter::none())
            .await
            .unwrap_or_else(|e| panic!("summarizes days: {e}"));
        let days = |list: &[crate::sums::summary::DaySummary]| {
            list.iter().map(|s| s.day).collect::<Vec<_>>()
        };
        assert_eq!(
            days(&summaries),
            days(&reference),
            "the days from {first} to {last}"
        );
        for (summary, expected) in summaries.iter().zip(&reference) {
            let day = summary.day;
            assert_eq!(summary.kinds, expected.kinds, "kinds on {day}");
            assert_eq!(summary.sources, expected.sources, "sources on {day}");
            assert_eq!(summary.steps, expected.steps, "funnel steps on {day}");
            assert_eq!(summary.bots, expected.bots, "bot classes on {day}");
            assert_eq!(summary.countries, expected.countries, "countries on {day}");
            assert_eq!(summary.goals, expected.goals, "goals on {day}");
            assert_eq!(summary.visits, expected.visits, "people's visits on {day}");
            assert_eq!(
                summary.no_country, expected.no_country,
                "no country on {day}"
            );
            assert_eq!(summary.paths.len(), expected.paths.len(), "paths on {day}");
            for (path, expected) in summary.paths.iter().zip(&expected.paths) {
                assert_eq!(path, expected, "a path's requests on {day}");
            }
        }
        assert!(
            summaries.iter().all(|s| first <= s.day && s.day <= last),
            "only the days asked for"
        );
        // The sample days hold crawlers verified by their address.
        let verified: u64 = summaries
            .iter()
            .flat_map(|s| s.bots.values())
            .map(|count| count.verified)
            .sum();
        assert!(verified > 0, "verified crawlers are counted by class");
        let entered: u64 = summaries
            .iter()
            .flat_map(|s| s.visits.entries.values())
            .sum();
        assert!(
            entered > 0 && summaries.iter().any(|s| s.visits.one_page > 0),
            "the sample's people enter on pages, some on one page only"
        );
        assert!(
            summaries.iter().any(|s| s.visits.campaigns.len() > 1),
            "the sample's people come by several campaigns"
        );
        let hours = summaries
            .iter()
            .flat_map(|s| s.visits.arrivals.iter())
            .filter(|arrived| **arrived > 0)
            .count();
        assert!(hours > 1, "the sample's people arrive in several hours");
    }
    let summaries = store
        .day_summaries(old_day, today, &steps, &crate::filter::Filter::none())
        .await
        .unwrap_or_else(|e| panic!("summarizes days: {e}"));
    let old = summaries.first().map(|s| (s.day, s.kinds.self_reads));
    assert_eq!(old, Some((old_day, 1)), "an expired day keeps its kinds");
    let yesterday = &summaries[summaries.len() - 2];
    assert!(
        yesterday.kinds.people > 0 && yesterday.kinds.bots > 0 && yesterday.kinds.self_reads > 0,
        "the sample has every kind: {:?}",
        yesterday.kinds
    );
    assert!(yesterday.steps[0] > 0 && yesterday.steps[0] == yesterday.steps[4]);
    let today_counts = summaries.last().map(|s| (s.kinds.people, s.kinds.bots));
    assert_eq!(
        today_counts,
        Some((2, 2)),
        "people: 1 and 5 (marked); bots: 2 (probes) and 4 (disguised)"
    );
    let scanners = summaries
        .last()
        .and_then(|s| s.bots.get(&BotClass::Scanner).copied());
    assert_eq!(
        scanners,
        Some(crate::sums::report::BotCount {
            requests: 3,
            visitor_days: 2,
            verified: 0,
        }),
        "two probes and the disguised page load, two visitor-days"
    );
    let goals = summaries.last().map(|s| {
        s.goals
            .iter()
            .map(|(goal, total)| (goal.to_string(), total.visitor_days, total.requests))
            .collect::<Vec<_>>()
    });
    let kinds = |people, bots| crate::sums::report::KindCounts {
        people,
        bots,
        self_reads: 0,
    };
    assert_eq!(
        goals,
        Some(vec![
            ("download".to_owned(), kinds(1, 0), 2),
            ("signup".to_owned(), kinds(1, 1), 2),
        ]),
        "a goal counts each visitor-day once, people's and bots' apart"
    );
    assert!(
        yesterday.goals.values().any(|g| g.visitor_days.people > 0)
            && yesterday.steps[5] > 0
            && yesterday.steps[5] < yesterday.steps[0],
        "the sample's people reach goals, and the goal step counts them"
    );
    let today_summary = summaries
        .last()
        .map(|s| (s.day, s.sources.tags.get("resume")));
    assert_eq!(
        today_summary,
        Some((today, Some(&1))),
        "the tag is broken out"
    );

    let since = old_day - Duration::days(1);
    let hours = store
        .hours_since(crate::sums::summary::midnight(since))
        .await
        .unwrap_or_else(|e| panic!("reads hours: {e}"));
    let totals = store
        .day_requests(since)
        .await
        .unwrap_or_else(|e| panic!("reads day totals: {e}"));
    assert_eq!(
        totals,
        crate::sums::summary::day_requests(&hours),
        "requests per day equal the hourly rows"
    );
    assert_eq!(totals.len(), 4, "four days have requests: {totals:?}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::store::{MemoryStore, Retention};
    use crate::request::hit::StoreName;
    use std::future::Future;

    #[test]
    fn the_memory_store_meets_the_contract() {
        let store = MemoryStore::new(
            StoreName::parse("memory").expect("a name"),
            Retention::default(),
        );
        let now = Utc
            .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
            .single()
            .expect("a time");
        block_on(store_contract(&store, now));
    }

    /// The null store answers every method of the port: it reads as empty,
    /// refuses every write with its reason, and says why it keeps nothing.
    #[test]
    fn the_null_store_keeps_nothing_and_says_why() {
        use crate::port::store::{ActivityStore, Imported, NullStore, StoreError};
        let store = NullStore::new(
            StoreName::parse("site").expect("a name"),
            "the disk is full",
        );
        let day = NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day");
        let gone = Err(StoreError::Unavailable("the disk is full".to_owned()));
        block_on(async {
            let available = store.availability().await;
            assert!(!available.available);
            assert_eq!(available.reason, "the disk is full");
            let batch = Batch::fold(&[hit(store.name(), noon(day), 1, "/", Kind::Person, None)]);
            assert_eq!(store.record(&batch).await, gone);
            assert_eq!(store.hours_since(noon(day)).await, Ok(Vec::new()));
            assert_eq!(store.visitors_since(day).await, Ok(Vec::new()));
            assert_eq!(store.latest_visitors(day, 10).await, Ok((Vec::new(), 0)));
            assert_eq!(
                store
                    .day_summaries(day, day, &[], &crate::filter::Filter::none())
                    .await,
                Ok(Vec::new())
            );
            assert_eq!(store.day_requests(day).await, Ok(Vec::new()));
            assert_eq!(store.day_marks(day).await, Ok(Vec::new()));
            assert_eq!(store.enforce_retention(noon(day)).await, Ok(()));
            assert_eq!(store.expired_kinds_since(day).await, Ok(Vec::new()));
            assert_eq!(store.bot_days_since(day).await, Ok(Vec::new()));
            assert_eq!(store.imported("log").await, Ok(None));
            let imported = Imported {
                log: "log".to_owned(),
                bytes: 1,
                digest: String::new(),
            };
            assert_eq!(store.mark_imported(&imported).await, gone);
            assert_eq!(store.cached("n").await, Ok(None));
            assert_eq!(store.keep_cached("n", "body").await, gone);
            assert_eq!(store.cost().operations, 0);
            store.close().await;
        });
    }

    fn noon(day: NaiveDate) -> DateTime<Utc> {
        Utc.from_utc_datetime(&day.and_hms_opt(12, 0, 0).expect("noon"))
    }

    /// A minimal executor for a future that never waits on I/O.
    fn block_on<F: Future>(future: F) -> F::Output {
        use std::task::{Context, Poll, Waker};
        let mut future = std::pin::pin!(future);
        let mut context = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
                return output;
            }
        }
    }
}
