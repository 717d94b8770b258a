//! A range's figures over stores: days whose visitor rows expired still
//! count by kind, a visitor seen on two stores is one visitor-day (and each
//! store's line keeps its own requests), and a store that cannot be read is
//! reported while the others are summed.

use std::sync::Arc;

use activity::StoreName;
use activity::report;
use activity::rows::Batch;
use activity::sample::funnel as default_funnel;
use activity::store::{ActivityStore, Gone, MemoryStore, Retention, StoreError};
use chrono::{DateTime, Days, NaiveDate, TimeZone as _, Utc};
use whocomes_reading::Reading;

fn memory(name: &str) -> Arc<MemoryStore> {
    Arc::new(MemoryStore::new(
        StoreName::parse(name).expect("a name"),
        Retention::default(),
    ))
}

fn reading(stores: Vec<Arc<dyn ActivityStore>>) -> Reading {
    Reading::new(stores, default_funnel())
}

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
        .single()
        .expect("a time")
}

/// One day of made-up rows for `store`, a given number of visitor-days.
fn day(store: &MemoryStore, day: NaiveDate, visitors: u32) -> Batch {
    activity::sample::day_rows(store.name(), day, visitors, 3)
}

#[tokio::test]
async fn days_past_the_visitor_retention_still_count_by_kind() {
    let now = noon();
    let store = memory("sqlite");
    let old = now.date_naive() - Days::new(40);
    let batch = day(&store, old, 50);
    let expected = report::daily_kinds(&report::merge_visitors(&batch.visitors))[&old];
    store.record(&batch).await.expect("kept");
    store.enforce_retention(now).await.expect("expires");
    assert!(store.visitors_since(old).await.expect("reads").is_empty());

    let reading = reading(vec![store]);
    let long = reading.range(90, now.date_naive()).await;
    let shown = long.days.iter().find(|(d, _)| *d == old).expect("in range");
    assert_eq!(shown.1, expected);
    assert_eq!(long.sums.kinds, expected);
    // In the 30-day range it is the previous period.
    let short = reading.range(30, now.date_naive()).await;
    assert_eq!(short.previous.kinds, expected);
    assert_eq!(short.sums.kinds.total(), 0);
    assert_eq!(short.days.len(), 30);
}

#[tokio::test]
async fn a_visitor_on_two_stores_counts_once_merged_and_on_each_line() {
    let today = noon().date_naive();
    let (one, two) = (memory("one"), memory("two"));
    // The same made-up visitors (same key, same addresses) on both stores.
    one.record(&day(&one, today, 20)).await.expect("kept");
    two.record(&day(&two, today, 20)).await.expect("kept");
    let view = reading(vec![one, two]).range(7, today).await;
    let today_kinds = view.days.last().expect("today").1;
    assert_eq!(today_kinds.total(), 20, "each visitor once");
    let lines: Vec<u64> = view
        .stores
        .iter()
        .map(|s| *s.requests.last().expect("today"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0] > 0 && lines[0] == lines[1],
        "each store's own requests: {lines:?}"
    );
    assert_eq!(view.requests, lines[0] + lines[1]);
}

#[tokio::test]
async fn a_store_that_cannot_be_read_is_reported_and_the_others_summed() {
    let today = noon().date_naive();
    let kept = memory("kept");
    kept.record(&day(&kept, today, 10)).await.expect("kept");
    let broken = memory("broken");
    broken.set_gone(Some(Gone::Failing("the server went away".to_owned())));
    let view = reading(vec![kept, broken]).range(7, today).await;
    assert_eq!(view.days.last().expect("today").1.total(), 10);
    assert!(view.stores[0].error.is_none());
    assert!(view.stores[1].error.is_some(), "{:?}", view.stores[1]);
    assert!(!view.stores[1].availability.available);
}

/// A store that never answers holds the page for the deadline at most:
/// the others are drawn, and its card says it did not answer in time.
#[tokio::test(start_paused = true)]
async fn a_store_that_never_answers_holds_the_tab_for_a_bounded_time() {
    let today = noon().date_naive();
    let kept = memory("kept");
    kept.record(&day(&kept, today, 10)).await.expect("kept");
    let stalled = memory("stalled");
    stalled.set_gone(Some(Gone::Silent));
    let reading = reading(vec![kept, stalled]);
    let started = tokio::time::Instant::now();
    let view = reading.range(7, today).await;
    let took = started.elapsed();
    let deadline = whocomes_reading::deadline::READ_DEADLINE;
    assert!(took <= deadline * 3, "answered in {took:?}");
    assert_eq!(
        view.stores[1].error,
        Some(StoreError::Busy { retry_after: None }),
        "{:?}",
        view.stores[1]
    );
    assert!(!view.stores[1].availability.available);
    let started = tokio::time::Instant::now();
    let (rows, _) = reading.latest_visitors(today, None, 10).await;
    assert!(started.elapsed() <= deadline, "the visitor table too");
    assert_eq!(rows.len(), 10, "the other store's rows are there");
}

/// A store with yesterday's 40 visitor-days whose sums take a second
/// longer than a reader waits, its reading, and today.
async fn slower_than_the_deadline() -> (Arc<MemoryStore>, Reading, NaiveDate) {
    let store = memory("big");
    let today = Utc::now().date_naive();
    store
        .record(&day(&store, today - Days::new(1), 40))
        .await
        .expect("kept");
    store.set_summary_delay(
        whocomes_reading::deadline::READ_DEADLINE + std::time::Duration::from_secs(1),
    );
    let reading = reading(vec![store.clone() as Arc<dyn ActivityStore>]);
    (store, reading, today)
}

/// A store whose first sum takes longer than a reader waits: the tab's
/// read gives up at the deadline, the start's warm-up does not, and the
/// reads after it answer from what it kept.
#[tokio::test]
async fn a_first_sum_longer_than_the_deadline_is_finished_by_the_warm_up() {
    let (_, reading, today) = slower_than_the_deadline().await;
    reading
        .warm(7, today)
        .await
        .expect("the warm-up sums every day");
    let began = std::time::Instant::now();
    let view = reading.range(7, today).await;
    assert!(
        began.elapsed() < whocomes_reading::deadline::READ_DEADLINE / 2,
        "answered from the kept summaries in {:?}",
        began.elapsed()
    );
    assert!(view.summary_error.is_none(), "{:?}", view.summary_error);
    assert!(view.sums.kinds.total() > 0, "yesterday is counted");
}

/// A filter never read, on days the visitor index does not hold yet (a
/// store slower than the deadline, just started): the stores' sum, given
/// up at the deadline, goes on and is kept, so the same filter read again
/// answers at once, with what the rows say; a third new filter while two
/// are being summed is refused as busy at once, so one client's stream of
/// filters holds a bounded share of the store. Once the index holds the
/// days (read in the background meanwhile), a new filter answers at once.
#[tokio::test(start_paused = true)]
async fn a_filtered_sum_outlasting_the_deadline_is_kept_and_new_ones_are_bounded() {
    use activity::filter::Filter;
    use tokio::time::Instant;
    let (store, reading, today) = slower_than_the_deadline().await;
    let yesterday = today - Days::new(1);
    let second = std::time::Duration::from_secs(1);
    let filter = Filter::from_query("kind=person").expect("a filter");
    let bots = Filter::from_query("kind=bot").expect("a filter");

    // Two new filters being summed by the store; a third is refused at once.
    let reads = (reading.clone(), reading.clone());
    let first = filter.clone();
    let other = bots.clone();
    let one = tokio::spawn(async move { reads.0.filtered(7, today, &first).await });
    let two = tokio::spawn(async move { reads.1.filtered(7, today, &other).await });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let began = Instant::now();
    let third = reading
        .filtered(
            7,
            today,
            &Filter::from_query("country=FR").expect("a filter"),
        )
        .await;
    assert!(
        matches!(third.summary_error, Some(StoreError::Busy { .. })),
        "{:?}",
        third.summary_error
    );
    assert!(began.elapsed() < second, "{:?}", began.elapsed());
    // A read of a filter being summed waits for that sum (it is not
    // refused, and does not start another).
    let began = Instant::now();
    let same = reading.filtered(7, today, &bots).await;
    assert!(
        began.elapsed() > 5 * second,
        "waited for the sum under way: {:?} {:?}",
        began.elapsed(),
        same.summary_error
    );
    let (one, two) = (one.await.expect("ran"), two.await.expect("ran"));
    assert!(
        one.summary_error.is_some() && two.summary_error.is_some(),
        "both outlasted the deadline"
    );
    tokio::time::sleep(2 * second).await;

    let began = Instant::now();
    let again = reading.filtered(7, today, &filter).await;
    assert!(again.summary_error.is_none(), "{:?}", again.summary_error);
    assert!(began.elapsed() < second, "{:?}", began.elapsed());
    let counted = |filter: Filter| {
        let store = store.clone();
        async move {
            let rows = activity::store::read_and_summarize(
                store.as_ref(),
                yesterday,
                yesterday,
                &default_funnel(),
                &filter,
            )
            .await
            .expect("the rows");
            rows.iter().map(|day| day.kinds.total()).sum::<u64>()
        }
    };
    let people = counted(filter.clone()).await;
    assert!(people > 0);
    assert_eq!(again.sums.kinds.people, people, "what the rows say");

    // The index holds yesterday now: a filter never read answers at once.
    let page = Filter::from_query("page=/").expect("a filter");
    let began = Instant::now();
    let fresh = reading.filtered(7, today, &page).await;
    assert!(fresh.summary_error.is_none(), "{:?}", fresh.summary_error);
    assert!(began.elapsed() < second, "{:?}", began.elapsed());
    let wanted = counted(page).await;
    assert!(wanted > 0);
    assert_eq!(fresh.sums.kinds.total(), wanted, "what the rows say");
}

/// A kept filtered day is summed again when its rows change: visitors
/// written after a filtered read are in the next one.
#[tokio::test]
async fn a_kept_filtered_day_is_summed_again_when_its_rows_change() {
    use activity::filter::Filter;
    let store = memory("live");
    let today = Utc::now().date_naive();
    let yesterday = today - Days::new(1);
    for (at, visitors) in [(yesterday, 30), (today, 20)] {
        store
            .record(&day(&store, at, visitors))
            .await
            .expect("kept");
    }
    let reading = reading(vec![store.clone() as Arc<dyn ActivityStore>]);
    let filter = Filter::from_query("kind=person|bot").expect("a filter");
    let before = reading.filtered(7, today, &filter).await;
    assert!(before.summary_error.is_none(), "{:?}", before.summary_error);
    // The same day's sample again with more visitor-days (its first 20 are
    // the same tokens, so they merge).
    store.record(&day(&store, today, 45)).await.expect("kept");
    let after = reading.filtered(7, today, &filter).await;
    let rows = activity::store::read_and_summarize(
        store.as_ref(),
        yesterday,
        today,
        &default_funnel(),
        &filter,
    )
    .await
    .expect("the rows");
    let wanted: u64 = rows.iter().map(|day| day.kinds.total()).sum();
    assert_eq!(after.sums.kinds.total(), wanted);
    assert!(
        after.sums.kinds.total() > before.sums.kinds.total(),
        "today's new rows count"
    );
}

/// A filter read before waits for its changed day (today) at most the
/// fresh wait, as the unfiltered view does: meanwhile it is shown as it
/// was and said not to be current; the next read shows the new rows.
#[tokio::test(start_paused = true)]
async fn a_changed_day_under_a_filter_is_shown_as_it_was_while_summed_again() {
    use activity::filter::Filter;
    let store = memory("busy");
    let today = Utc::now().date_naive();
    store.record(&day(&store, today, 20)).await.expect("kept");
    let reading = reading(vec![store.clone() as Arc<dyn ActivityStore>]);
    let filter = Filter::from_query("kind=person|bot").expect("a filter");
    let before = reading.filtered(7, today, &filter).await;
    assert!(before.current && before.summary_error.is_none());
    store.set_summary_delay(std::time::Duration::from_secs(3));
    store.record(&day(&store, today, 45)).await.expect("kept");
    let began = tokio::time::Instant::now();
    let meanwhile = reading.filtered(7, today, &filter).await;
    assert!(
        began.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        began.elapsed()
    );
    assert!(!meanwhile.current, "said to be summed again");
    assert_eq!(meanwhile.sums.kinds, before.sums.kinds, "shown as it was");
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let after = reading.filtered(7, today, &filter).await;
    assert!(after.current, "{:?}", after.summary_error);
    assert!(
        after.sums.kinds.total() > before.sums.kinds.total(),
        "the new rows"
    );
}
