//! The kept day summaries: a day is summed again only when what a store
//! says of it changes, a slow sum shows the kept day once, and a mark of a
//! browser's evidence alone makes a kept day current again.

use std::sync::Arc;
use std::time::Duration;

use activity::StoreName;
use activity::sample::funnel as default_funnel;
use activity::store::{ActivityStore, Retention};
use activity::summary::DaySummary;
use chrono::{Days, NaiveDate, Utc};
use whocomes_reading::Marks;
use whocomes_reading::cache::SummaryCache;

async fn sqlite(folder: &tempfile::TempDir) -> Arc<dyn ActivityStore> {
    let path = folder.path().join("activity.db");
    Arc::new(
        activity_sqlite::SqliteStore::open(
            path.to_str().expect("UTF-8"),
            StoreName::parse("sqlite").expect("a name"),
            Retention::default(),
        )
        .await
        .expect("opens"),
    )
}

/// Reads the summaries of the last five days through `cache`, how many
/// operations the store performed for it, and whether they were current.
async fn read_current(
    cache: &Arc<SummaryCache>,
    stores: &[Arc<dyn ActivityStore>],
    today: NaiveDate,
) -> (Vec<DaySummary>, u64, bool) {
    let before = stores[0].cost().operations;
    let first = today - Days::new(4);
    let marks = Marks::read(stores, first).await;
    let summaries = cache
        .summaries(stores, &marks, first, today, &default_funnel())
        .await
        .expect("reads");
    let days = summaries.days.iter().map(|s| (**s).clone()).collect();
    (
        days,
        stores[0].cost().operations - before,
        summaries.current,
    )
}

/// Reads the summaries of the last five days through `cache`, and how
/// many operations the store performed for it.
async fn read(
    cache: &Arc<SummaryCache>,
    stores: &[Arc<dyn ActivityStore>],
    today: NaiveDate,
) -> (Vec<DaySummary>, u64) {
    let (days, operations, _) = read_current(cache, stores, today).await;
    (days, operations)
}

/// Reads through `cache` until a read says it is current (a refresh that
/// outlasted a read's wait lands for a later one), and returns that read.
/// Waits for the refresh itself, however slow the machine: a refresh that
/// never lands fails after a minute.
async fn read_until_current(
    cache: &Arc<SummaryCache>,
    stores: &[Arc<dyn ActivityStore>],
    today: NaiveDate,
) -> Vec<DaySummary> {
    for _ in 0..3_000 {
        let (shown, _, current) = read_current(cache, stores, today).await;
        if current {
            return shown;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the cache never caught up with the store");
}

/// Waits until the summaries have been written to `store` as its note,
/// and returns it.
async fn saved(store: &Arc<dyn ActivityStore>) -> String {
    for _ in 0..3_000 {
        if let Some(note) = store.cached("day-summaries").await.expect("reads notes") {
            return note;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the summaries were never kept in the store");
}

/// A store that takes 300 ms to sum days (a big one), in memory, until
/// its delay is taken away.
fn slow() -> Arc<activity::store::MemoryStore> {
    let store = activity::store::MemoryStore::new(
        StoreName::parse("slow").expect("a name"),
        Retention::default(),
    );
    store.set_summary_delay(Duration::from_millis(300));
    Arc::new(store)
}

#[tokio::test]
async fn a_slow_sum_shows_the_kept_day_once_then_the_new_one() {
    let stores: Vec<Arc<dyn ActivityStore>> = vec![slow()];
    let today = Utc::now().date_naive();
    let name = stores[0].name().clone();
    let day = today - Days::new(1);
    let rows = activity::sample::day_rows(&name, day, 30, 1);
    stores[0].record(&rows).await.expect("kept");
    let cache = Arc::new(SummaryCache::default());
    let (before, _) = read(&cache, &stores, today).await;
    assert_eq!(before.len(), 1, "a day never summed is waited for");

    let more = activity::sample::day_rows(&name, day, 50, 2);
    stores[0].record(&more).await.expect("kept");
    let (kept, _) = read(&cache, &stores, today).await;
    assert_eq!(
        kept, before,
        "summing takes longer than FRESH_WAIT: the kept day"
    );
    let reference = activity::store::read_and_summarize(
        stores[0].as_ref(),
        today - Days::new(4),
        today,
        &default_funnel(),
        &activity::filter::Filter::none(),
    )
    .await
    .expect("reads rows");
    assert_ne!(reference, before, "the new rows change the day");
    let now = read_until_current(&cache, &stores, today).await;
    assert_eq!(now, reference, "the refresh lands");
}

/// Once summing a changed day took longer than the wait, a read shows the
/// kept day at once (waiting would be futile); once it is quick again, reads
/// wait for it again. Runs on one thread: the refresh a read starts cannot
/// run before the read decides whether to wait.
#[tokio::test]
async fn a_read_waits_only_for_a_sum_that_can_land_in_time() {
    let slow = slow();
    let stores: Vec<Arc<dyn ActivityStore>> = vec![slow.clone()];
    let today = Utc::now().date_naive();
    let name = stores[0].name().clone();
    let reference = |stores: Vec<Arc<dyn ActivityStore>>| async move {
        activity::store::read_and_summarize(
            stores[0].as_ref(),
            today - Days::new(4),
            today,
            &default_funnel(),
            &activity::filter::Filter::none(),
        )
        .await
        .expect("reads rows")
    };
    let record = |visitors: u32, seed: u64| {
        let stores = stores.clone();
        let rows = activity::sample::day_rows(&name, today, visitors, seed);
        async move { stores[0].record(&rows).await.expect("kept") }
    };
    record(30, 1).await;
    let cache = Arc::new(SummaryCache::default());
    read(&cache, &stores, today).await;

    // Summing the changed day takes 300 ms: the refresh lands after the read.
    record(50, 2).await;
    let slow_sum = reference(stores.clone()).await;
    let landed = read_until_current(&cache, &stores, today).await;
    assert_eq!(landed, slow_sum, "the slow refresh lands");

    // Now summing would be instant, but the last one took 300 ms: the read
    // does not wait and shows the day as kept.
    slow.set_summary_delay(Duration::ZERO);
    record(20, 3).await;
    let (shown, _) = read(&cache, &stores, today).await;
    assert_eq!(
        shown, slow_sum,
        "no wait after a sum slower than FRESH_WAIT"
    );
    let quick_sum = reference(stores.clone()).await;
    assert_ne!(quick_sum, slow_sum, "the new rows change the day");
    let landed = read_until_current(&cache, &stores, today).await;
    assert_eq!(landed, quick_sum, "the refresh lands");

    // That sum was quick: the next read waits for its refresh again.
    record(10, 4).await;
    let (shown, _) = read(&cache, &stores, today).await;
    assert_eq!(
        shown,
        reference(stores.clone()).await,
        "a quick sum is waited for"
    );
}

/// A stylesheet fetched after its page was written changes no request
/// count, yet moves the visitor-day to people: the kept day is summed again.
#[tokio::test]
async fn a_mark_alone_makes_the_kept_day_current_again() {
    use activity::evidence::{Evidence, FilesMark, Shape};
    use activity::rows::{Batch, Seen};
    let folder = tempfile::tempdir().expect("a folder");
    let stores = vec![sqlite(&folder).await];
    let now = Utc::now();
    let name = stores[0].name().clone();
    let visitor = activity::VisitorToken::parse(&"7".repeat(32)).expect("a token");
    let hit = activity::Hit {
        at: now,
        visitor: visitor.clone(),
        network: activity::address::Network::of(None),
        country: None,
        path: "/".to_owned(),
        store: name.clone(),
        kind: activity::Kind::Person,
        campaign: None,
        goal: None,
        source: None,
        shape: Shape::PageLoad,
        evidence: Evidence::NONE,
        bot_class: None,
    };
    stores[0].record(&Batch::fold([&hit])).await.expect("kept");
    let cache = Arc::new(SummaryCache::default());
    let kinds = |summaries: Vec<DaySummary>| summaries.last().map(|s| s.kinds);
    let before = kinds(read(&cache, &stores, now.date_naive()).await.0);
    assert_eq!(before.map(|k| (k.people, k.bots)), Some((0, 1)));
    let mark = Seen::Files(FilesMark {
        store: name,
        day: now.date_naive(),
        visitor,
    });
    stores[0]
        .record(&Batch::fold_all([&mark]))
        .await
        .expect("kept");
    let mut after = before;
    for _ in 0..50 {
        after = kinds(read(&cache, &stores, now.date_naive()).await.0);
        if after != before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(after.map(|k| (k.people, k.bots)), Some((1, 0)));
}

#[tokio::test]
async fn a_day_is_read_again_only_when_its_figures_change() {
    let folder = tempfile::tempdir().expect("a folder");
    let stores = vec![sqlite(&folder).await];
    let today = Utc::now().date_naive();
    let name = stores[0].name().clone();
    for back in 1..=3 {
        let day = today - Days::new(back);
        let rows = activity::sample::day_rows(&name, day, 40, back);
        stores[0].record(&rows).await.expect("kept");
    }
    let cache = Arc::new(SummaryCache::default());

    let (cold, operations) = read(&cache, &stores, today).await;
    assert_eq!(cold.len(), 3);
    assert_eq!(
        operations, 6,
        "three marks, the kept note (none yet), one summary read, the note kept"
    );
    saved(&stores[0]).await;
    let (warm, operations) = read(&cache, &stores, today).await;
    assert_eq!(warm, cold);
    assert_eq!(operations, 3, "only the marks: nothing changed");

    // An import adds to a past day: that day, and only its figures, change.
    let past = today - Days::new(2);
    let more = activity::sample::day_rows(&name, past, 10, 99);
    stores[0].record(&more).await.expect("kept");
    let reference = activity::store::read_and_summarize(
        stores[0].as_ref(),
        today - Days::new(4),
        today,
        &default_funnel(),
        &activity::filter::Filter::none(),
    )
    .await
    .expect("reads rows");
    // Shown as kept for one read at most if summing takes longer than
    // FRESH_WAIT; then what the rows say now.
    let fresh = read_until_current(&cache, &stores, today).await;
    assert_eq!(fresh, reference, "what the rows say now");
    let changed: Vec<NaiveDate> = fresh
        .iter()
        .zip(&cold)
        .filter(|(now, before)| now != before)
        .map(|(now, _)| now.day)
        .collect();
    assert_eq!(changed, vec![past]);
}

/// After a restart (the file opened again, a new cache), the first read
/// takes the summaries kept in the store and sums no day; a day changed
/// since is summed again; a note made for another funnel, or one that
/// cannot be read, is not used.
#[tokio::test]
async fn the_summaries_outlive_a_restart() {
    let folder = tempfile::tempdir().expect("a folder");
    let today = Utc::now().date_naive();
    let cold = {
        let stores = vec![sqlite(&folder).await];
        let name = stores[0].name().clone();
        for back in 1..=3 {
            let day = today - Days::new(back);
            let rows = activity::sample::day_rows(&name, day, 40, back);
            stores[0].record(&rows).await.expect("kept");
        }
        let cache = Arc::new(SummaryCache::default());
        let (cold, _) = read(&cache, &stores, today).await;
        saved(&stores[0]).await;
        stores[0].close().await;
        cold
    };

    let stores = vec![sqlite(&folder).await];
    let cache = Arc::new(SummaryCache::default());
    let (first, operations) = read(&cache, &stores, today).await;
    assert_eq!(first, cold, "the kept summaries");
    assert_eq!(operations, 4, "three marks and the note: no day summed");

    // A day that changed while whocomes was stopped is summed again.
    let past = today - Days::new(2);
    let more = activity::sample::day_rows(stores[0].name(), past, 10, 99);
    stores[0].record(&more).await.expect("kept");
    let reference = activity::store::read_and_summarize(
        stores[0].as_ref(),
        today - Days::new(4),
        today,
        &default_funnel(),
        &activity::filter::Filter::none(),
    )
    .await
    .expect("reads rows");
    let restarted = Arc::new(SummaryCache::default());
    let fresh = read_until_current(&restarted, &stores, today).await;
    assert_eq!(fresh, reference, "the changed day summed again");

    // Another funnel: the note does not count its steps, so days are summed.
    let mut steps = default_funnel();
    steps.truncate(2);
    let other = Arc::new(SummaryCache::default());
    let marks = Marks::read(&stores, today - Days::new(4)).await;
    let before = stores[0].cost().operations;
    let summaries = other
        .summaries(&stores, &marks, today - Days::new(4), today, &steps)
        .await
        .expect("reads")
        .days;
    assert_eq!(summaries.len(), 3);
    assert!(summaries.iter().all(|s| s.steps.len() == 2));
    assert_eq!(
        stores[0].cost().operations - before,
        3,
        "the note, the days summed, the note kept for this funnel"
    );

    // The same steps renamed count alike: the kept note is used, no day summed.
    let mut renamed = steps.clone();
    for step in &mut renamed {
        step.name = format!("renamed {}", step.name);
    }
    let before = stores[0].cost().operations;
    let again = Arc::new(SummaryCache::default())
        .summaries(&stores, &marks, today - Days::new(4), today, &renamed)
        .await
        .expect("reads")
        .days;
    assert_eq!(
        stores[0].cost().operations - before,
        1,
        "only the note read"
    );
    assert_eq!(again, summaries, "the same counts under the new names");

    // A note that cannot be read is as none: the days are summed again.
    stores[0]
        .keep_cached("day-summaries", "{not json")
        .await
        .expect("kept");
    let (again, operations) = read(&Arc::new(SummaryCache::default()), &stores, today).await;
    assert_eq!(again, reference);
    assert_eq!(
        operations, 6,
        "three marks, the note, one summary read, the note kept"
    );
}
