//! Visitor-days held in memory, day by day, so that a filter never read
//! before is answered at once instead of after the stores sum every row
//! of the range (seconds on a busy site): each day's rows, merged across
//! stores, with the marks they were read under (`day.rs` holds them).
//!
//! The index is filled at start (`Reading::warm`) and kept up to date in
//! the background: a read that finds a day held under older marks (on a
//! live site: today) answers from what is held, says it is not current,
//! and sets the day to be read again, one refresh at a time. A day the
//! index does not hold is summed by the stores, as before. Days whose
//! visitor rows have expired hold nothing. At most [`ROWS`] visitor-days
//! are held, the newest days first.

mod day;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use activity::filter::Filter;
use activity::report::{self, FunnelStep};
use activity::rows::VisitorDay;
use activity::store::{ActivityStore, StoreError};
use activity::summary::DaySummary;
use chrono::NaiveDate;
use tokio::sync::watch;

use crate::lock::lock;
use crate::marks::Mark;
use day::DayRows;

/// The most visitor-days the index holds (about 200 bytes each, measured
/// in BENCHMARKS.md): past it, the oldest days are left to the stores.
pub const ROWS: usize = 2_000_000;

/// How many visitor rows a day's load reads from a store at a time.
const PAGE: usize = 5_000;

/// Days with the marks they are (to be) read under.
pub(crate) type Marked = Vec<(NaiveDate, Vec<Option<Mark>>)>;

/// A day summed from the index: the marks its rows were read under, and
/// its summary (`None`: no visitor-day of the day passes the filter).
pub(crate) type SummedDay = (NaiveDate, Vec<Option<Mark>>, Option<DaySummary>);

/// One day held: the marks it was read under, its rows (`None`: its
/// visitor rows have expired, or it had none), and when a read last
/// wanted it.
#[derive(Clone, Debug)]
struct Held {
    marks: Vec<Option<Mark>>,
    rows: Option<Arc<DayRows>>,
    wanted: Instant,
}

/// How long a day's rows are held without a read wanting them: a day no
/// view has shown for a week (its rows expired in the stores since, or a
/// range nobody looks at) leaves the memory at the next refresh.
pub const UNWANTED: Duration = Duration::from_secs(7 * 24 * 3600);

/// Every store's visitor-days, by day, held in memory.
#[derive(Debug)]
pub struct VisitorIndex {
    /// The most visitor-days held.
    bound: usize,
    days: Mutex<BTreeMap<NaiveDate, Held>>,
    /// One refresh at a time.
    loading: tokio::sync::Mutex<()>,
    /// Whether a refresh is set to run or running.
    refreshing: AtomicBool,
    /// The days the refresh running reads next (the latest asked for).
    next: Mutex<Option<Marked>>,
    /// Counts the days read: a reader waits for it to change.
    read: watch::Sender<u64>,
    /// How long the last day read again (a changed day: today) took.
    reread: Mutex<Option<Duration>>,
}

impl Default for VisitorIndex {
    fn default() -> Self {
        Self::holding(ROWS)
    }
}

impl VisitorIndex {
    /// An index that holds at most `rows` visitor-days.
    pub fn holding(rows: usize) -> Self {
        Self {
            bound: rows,
            days: Mutex::default(),
            loading: tokio::sync::Mutex::default(),
            refreshing: AtomicBool::default(),
            next: Mutex::default(),
            read: watch::Sender::new(0),
            reread: Mutex::default(),
        }
    }

    /// The days of `wanted` the index holds, summed under `filter`, each
    /// with the marks it was read under (older than wanted for a day that
    /// changed since); a day it does not hold is left out. Summing is work
    /// for a processor, not for a store: it runs on a thread for such work.
    pub(crate) async fn summaries(
        &self,
        wanted: &[(NaiveDate, Vec<Option<Mark>>)],
        steps: &[FunnelStep],
        filter: &Filter,
    ) -> Vec<SummedDay> {
        let held: Vec<(NaiveDate, Held)> = {
            let mut days = lock(&self.days);
            let now = Instant::now();
            wanted
                .iter()
                .filter_map(|(day, _)| {
                    let held = days.get_mut(day)?;
                    held.wanted = now;
                    Some((*day, held.clone()))
                })
                .collect()
        };
        if held.is_empty() {
            return Vec::new();
        }
        let (steps, filter) = (steps.to_vec(), filter.clone());
        tokio::task::spawn_blocking(move || {
            // The days split between the processor's cores.
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            let share = held.len().div_ceil(cores.clamp(1, 4));
            let sum = |days: &[(NaiveDate, Held)]| -> Vec<SummedDay> {
                days.iter()
                    .map(|(day, held)| {
                        let summary = held.rows.as_ref().and_then(|r| r.summary(&steps, &filter));
                        (*day, held.marks.clone(), summary)
                    })
                    .collect()
            };
            std::thread::scope(|scope| {
                let parts: Vec<_> = held
                    .chunks(share.max(1))
                    .map(|days| scope.spawn(|| sum(days)))
                    .collect();
                parts
                    .into_iter()
                    .flat_map(|part| part.join().unwrap_or_default())
                    .collect()
            })
        })
        .await
        .unwrap_or_default()
    }

    /// Whether it holds `day` (under any marks).
    #[cfg(test)]
    fn holds(&self, day: NaiveDate) -> bool {
        lock(&self.days).contains_key(&day)
    }

    /// Whether every day of `wanted` is held under the marks wanted.
    pub(crate) fn current(&self, wanted: &[(NaiveDate, Vec<Option<Mark>>)]) -> bool {
        let days = lock(&self.days);
        wanted
            .iter()
            .all(|(day, marks)| days.get(day).is_some_and(|held| held.marks == *marks))
    }

    /// How many visitor-days are held.
    pub fn len(&self) -> usize {
        held_rows(&lock(&self.days))
    }

    /// About how many bytes the held days take (their rows, lists and
    /// texts).
    pub fn bytes(&self) -> usize {
        lock(&self.days)
            .values()
            .filter_map(|held| held.rows.as_ref())
            .map(|rows| rows.bytes())
            .sum()
    }

    /// Whether no visitor-day is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads every day of `wanted` that is not held under its marks,
    /// newest first, until as many rows as it may hold are held. A day a store could not be
    /// read on is left as it was.
    pub(crate) async fn refresh(
        &self,
        stores: &[Arc<dyn ActivityStore>],
        wanted: &Marked,
    ) -> Result<(), StoreError> {
        let _one = self.loading.lock().await;
        for (day, marks) in wanted.iter().rev() {
            let current = lock(&self.days)
                .get(day)
                .is_some_and(|held| held.marks == *marks);
            // Held already, or a store that cannot be read now.
            if current || marks.iter().any(Option::is_none) {
                continue;
            }
            let began = Instant::now();
            let held_before = lock(&self.days).contains_key(day);
            let rows = if marks.iter().flatten().any(|mark| mark.may_have_rows()) {
                let visitors = day_rows(stores, *day).await?;
                let day = *day;
                let built = tokio::task::spawn_blocking(move || {
                    DayRows::new(day, &report::merge_visitors(&visitors))
                })
                .await
                .ok()
                .flatten();
                match built {
                    Some(rows) => Some(Arc::new(rows)),
                    // Too big to number: left to the stores.
                    None => continue,
                }
            } else {
                None
            };
            if held_before {
                *lock(&self.reread) = Some(began.elapsed());
            }
            let mut days = lock(&self.days);
            days.insert(
                *day,
                Held {
                    marks: marks.clone(),
                    rows,
                    wanted: Instant::now(),
                },
            );
            self.read.send_modify(|read| *read += 1);
            // Days no read wanted for a while leave; over the bound, the
            // oldest days' rows go, and no older day is read.
            days.retain(|_, held| held.rows.is_none() || held.wanted.elapsed() < UNWANTED);
            let mut oldest_gone = None;
            while held_rows(&days) > self.bound {
                let oldest = days
                    .iter()
                    .find(|(_, held)| held.rows.is_some())
                    .map(|(day, _)| *day);
                oldest_gone = oldest.and_then(|day| days.remove(&day).map(|_| day));
            }
            if oldest_gone.is_some_and(|gone| gone >= *day) {
                break;
            }
        }
        Ok(())
    }

    /// [`refresh`](Self::refresh) of `wanted` in a task of its own: one
    /// at a time, so that a read finding today changed while days are
    /// being read does not start another load; the task reads the days
    /// asked for last once it is done.
    pub(crate) fn refresh_soon(
        self: &Arc<Self>,
        stores: &[Arc<dyn ActivityStore>],
        wanted: Marked,
    ) {
        *lock(&self.next) = Some(wanted);
        if self.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let (index, stores) = (Arc::clone(self), stores.to_vec());
        tokio::spawn(async move {
            loop {
                let next = lock(&index.next).take();
                let Some(wanted) = next else {
                    index.refreshing.store(false, Ordering::Release);
                    // Asked for between the take and the store: read too.
                    if lock(&index.next).is_none() || index.refreshing.swap(true, Ordering::AcqRel)
                    {
                        return;
                    }
                    continue;
                };
                if let Err(error) = index.refresh(&stores, &wanted).await {
                    tracing::warn!(
                        error = error.kind(),
                        "the visitor index could not be read again"
                    );
                }
            }
        });
    }

    /// Waits at most `wait` for every day of `wanted` to be held under its
    /// marks; whether they are. It does not wait when the last day read
    /// again took longer than `wait` (a busy day on a big store): waiting
    /// would be futile.
    pub(crate) async fn current_within(
        &self,
        wanted: &[(NaiveDate, Vec<Option<Mark>>)],
        wait: Duration,
    ) -> bool {
        if lock(&self.reread).is_some_and(|took| took > wait) {
            return self.current(wanted);
        }
        let mut read = self.read.subscribe();
        let current = async {
            loop {
                if self.current(wanted) {
                    return;
                }
                if read.changed().await.is_err() {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(wait, current).await;
        self.current(wanted)
    }
}

/// Every store's visitor rows of `day`, read a page at a time.
async fn day_rows(
    stores: &[Arc<dyn ActivityStore>],
    day: NaiveDate,
) -> Result<Vec<VisitorDay>, StoreError> {
    let mut rows = Vec::new();
    for store in stores {
        let mut after = None;
        loop {
            let page = store.visitors_page(day, after.take(), PAGE).await?;
            let full = page.len() == PAGE;
            after = page.last().map(|row| (row.day, row.visitor.clone()));
            let past = page.iter().any(|row| row.day != day);
            rows.extend(page.into_iter().filter(|row| row.day == day));
            // Rows come by day: one past `day` ends the store's rows.
            if !full || past {
                break;
            }
        }
    }
    Ok(rows)
}

fn held_rows(days: &BTreeMap<NaiveDate, Held>) -> usize {
    days.values()
        .filter_map(|held| held.rows.as_ref())
        .map(|rows| rows.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use activity::StoreName;
    use activity::filter::Filter;
    use activity::store::{MemoryStore, Retention};
    use activity::summary;
    use chrono::{Days, Utc};

    use super::*;
    use crate::marks::Marks;

    fn memory(name: &str) -> Arc<MemoryStore> {
        Arc::new(MemoryStore::new(
            StoreName::parse(name).expect("a name"),
            Retention::default(),
        ))
    }

    /// Every filter the index answers is the day a store sums under it:
    /// each dimension, each comparison, several conditions, over two
    /// stores that saw some of the same visitor-days (merged as one).
    #[tokio::test]
    async fn a_day_summed_from_the_index_is_the_day_the_rows_sum() {
        let (a, b) = (memory("one"), memory("two"));
        let today = Utc::now().date_naive();
        let yesterday = today - Days::new(1);
        for (store, visitors, seed) in [(&a, 300, 7), (&b, 400, 7)] {
            for day in [yesterday, today] {
                // The same seed: the first store's visitor-days are the
                // second's first 300.
                let mut batch = activity::sample::day_rows(store.name(), day, visitors, seed);
                // Some came by a tagged link; some showed no browser's
                // evidence (moved to scanners if they look like people).
                for (n, row) in batch.visitors.iter_mut().enumerate() {
                    if n % 7 == 0 {
                        row.sources.push(activity::rows::SourceCount {
                            source: activity::source::Source::Tag("resume".to_owned()),
                            page_loads: 1,
                        });
                    }
                    if n % 11 == 0 {
                        row.evidence = activity::evidence::Evidence::NONE;
                    }
                }
                store.record(&batch).await.expect("kept");
            }
        }
        let stores: Vec<Arc<dyn ActivityStore>> = vec![a.clone(), b.clone()];
        let marks = Marks::read(&stores, yesterday).await;
        let wanted = marks.days_between(yesterday, today);
        let index = VisitorIndex::default();
        assert!(!index.current(&wanted));
        index.refresh(&stores, &wanted).await.expect("read");
        assert!(index.current(&wanted));
        let mut rows = a.visitors_since(yesterday).await.expect("rows");
        rows.extend(b.visitors_since(yesterday).await.expect("rows"));
        let merged = report::merge_visitors(&rows);
        assert_eq!(index.len(), merged.len(), "one row per visitor-day");
        assert_eq!(merged.len(), 800, "the first store's are on both");
        let steps = activity::sample::funnel();
        let filters = [
            "page=/about",
            "page=!/about",
            "page=~notes",
            "page=!~o",
            "entry_page=/",
            "exit_page=~a",
            "source=linkedin",
            "source=!typed",
            "source=www.google.com",
            "source=~git",
            "source=tag:resume",
            "source=tagged&kind=person",
            "bot_class=scanner",
            "utm_source=newsletter",
            "utm_campaign=issue 1|issue 2",
            "utm_medium=!email",
            "country=FR|DE",
            "country=!FR",
            "kind=person",
            "kind=bot",
            "kind=!person",
            "bot_class=ai-crawler",
            "store=two",
            "store=!one",
            "kind=person&source=linkedin&page=/about",
            "country=~R&page=!~x&store=one",
            "page=/nowhere",
        ];
        for query in filters {
            let filter = Filter::from_query(query).expect("a filter");
            let reference = summary::summarize_filtered(yesterday, today, &merged, &steps, &filter);
            let indexed: Vec<DaySummary> = index
                .summaries(&wanted, &steps, &filter)
                .await
                .into_iter()
                .filter_map(|(_, _, summary)| summary)
                .collect();
            assert_eq!(indexed, reference, "{query}");
            let counted: u64 = reference.iter().map(|d| d.kinds.total()).sum();
            if query != "page=/nowhere" {
                assert!(counted > 0, "{query} lets some visitor-day through");
            }
        }
    }

    /// A day that changed is summed as held, with the marks it was read
    /// under, until a refresh reads it again; the bound on rows leaves the
    /// oldest days to the stores.
    #[tokio::test]
    async fn a_changed_day_is_held_as_it_was_until_read_again() {
        let store = memory("live");
        let today = Utc::now().date_naive();
        store
            .record(&activity::sample::day_rows(store.name(), today, 20, 3))
            .await
            .expect("kept");
        let stores: Vec<Arc<dyn ActivityStore>> = vec![store.clone()];
        let before = Marks::read(&stores, today).await.days_between(today, today);
        let index = VisitorIndex::default();
        index.refresh(&stores, &before).await.expect("read");
        store
            .record(&activity::sample::day_rows(store.name(), today, 45, 3))
            .await
            .expect("kept");
        let after = Marks::read(&stores, today).await.days_between(today, today);
        assert_ne!(before, after);
        assert!(!index.current(&after));
        let steps = activity::sample::funnel();
        let held = index.summaries(&after, &steps, &Filter::none()).await;
        assert_eq!(held[0].1, before[0].1, "under the marks it was read under");
        assert_eq!(held[0].2.as_ref().map(|d| d.kinds.total()), Some(20));
        index.refresh(&stores, &after).await.expect("read");
        let held = index.summaries(&after, &steps, &Filter::none()).await;
        assert_eq!(held[0].2.as_ref().map(|d| d.kinds.total()), Some(45));
        // A day never read is not held: the stores sum it.
        let other = vec![(today - Days::new(3), after[0].1.clone())];
        let summed = index.summaries(&other, &steps, &Filter::none()).await;
        assert!(summed.is_empty());
        assert!(!index.holds(other[0].0) && index.holds(today));
    }

    /// Past its bound the index holds the newest days and leaves the
    /// older ones to the stores.
    #[tokio::test]
    async fn the_bound_keeps_the_newest_days() {
        let store = memory("big");
        let today = Utc::now().date_naive();
        let days: Vec<NaiveDate> = (0..3).map(|back| today - Days::new(back)).collect();
        for day in &days {
            store
                .record(&activity::sample::day_rows(store.name(), *day, 20, 3))
                .await
                .expect("kept");
        }
        let stores: Vec<Arc<dyn ActivityStore>> = vec![store.clone()];
        let wanted = Marks::read(&stores, days[2])
            .await
            .days_between(days[2], today);
        let index = VisitorIndex::holding(45);
        index.refresh(&stores, &wanted).await.expect("read");
        assert_eq!(index.len(), 40, "two days of 20");
        let steps = activity::sample::funnel();
        assert!(
            !index.holds(days[2]),
            "the oldest day is left to the stores"
        );
        assert!(index.holds(days[1]) && index.holds(days[0]));
        let held = index.summaries(&wanted, &steps, &Filter::none()).await;
        assert_eq!(held.len(), 2, "the days held are summed");
    }
}
