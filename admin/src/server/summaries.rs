//! The day summaries the overview sums, kept between reads. Each read asks
//! every store for two small lists — requests per day and the days whose
//! visitor rows expired — and sums again only the days whose figures
//! changed since their summary was kept (on a live site: today), waiting
//! for that at most [`FRESH_WAIT`]. With one
//! store the store sums the days in its engine; with several, their rows
//! are read and merged here, so a token seen on two stores is one
//! visitor-day.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use activity::report::{self, FunnelStep, KindCounts};
use activity::store::{ActivityStore, StoreError};
use activity::summary::{self, DaySummary};
use chrono::{Days, NaiveDate};

/// How far back kept summaries are worth keeping: the longest range and
/// the period before it.
const KEEP_DAYS: u64 = 2 * 366;

/// What one store says about one day. A kept summary is current while
/// every store says the same as when it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Mark {
    /// Its requests.
    requests: u64,
    /// Its marks of a browser's evidence (a file fetched after the page).
    files: u64,
    /// Whether its visitor rows have expired.
    expired: bool,
}

/// What every store says about each day (`None`: the store could not be read).
#[derive(Debug, Default)]
pub struct Marks {
    /// Per store, in the Admin's order: its requests per day.
    pub requests: Vec<Option<BTreeMap<NaiveDate, u64>>>,
    /// Per store: marks of a browser's evidence per day.
    marks: Vec<Option<BTreeMap<NaiveDate, u64>>>,
    /// Per store: the days whose visitor rows have expired.
    expired: Vec<Option<BTreeMap<NaiveDate, KindCounts>>>,
    /// Per store: why it could not be read.
    pub errors: Vec<Option<String>>,
}

impl Marks {
    /// Reads the marks of every store from `since` on.
    pub async fn read(stores: &[Arc<dyn ActivityStore>], since: NaiveDate) -> Self {
        let reads = futures::future::join_all(stores.iter().map(|store| async move {
            let (requests, files, expired) = futures::join!(
                store.day_requests(since),
                store.day_marks(since),
                store.expired_kinds_since(since)
            );
            Ok::<_, StoreError>((requests?, files?, expired?))
        }))
        .await;
        let mut marks = Marks::default();
        for read in reads {
            match read {
                Ok((requests, files, expired)) => {
                    marks.requests.push(Some(requests.into_iter().collect()));
                    marks.marks.push(Some(files.into_iter().collect()));
                    marks.expired.push(Some(expired.into_iter().collect()));
                    marks.errors.push(None);
                }
                Err(error) => {
                    marks.requests.push(None);
                    marks.marks.push(None);
                    marks.expired.push(None);
                    marks.errors.push(Some(error.to_string()));
                }
            }
        }
        marks
    }

    /// Every store's mark for `day`; `None` when no readable store has
    /// anything on it.
    fn of(&self, day: NaiveDate) -> Option<Vec<Option<Mark>>> {
        let marks: Vec<Option<Mark>> = self
            .requests
            .iter()
            .zip(&self.marks)
            .zip(&self.expired)
            .map(|((requests, files), expired)| {
                let requests = requests.as_ref()?.get(&day).copied().unwrap_or(0);
                let files = files.as_ref()?.get(&day).copied().unwrap_or(0);
                let expired = expired.as_ref()?.contains_key(&day);
                Some(Mark {
                    requests,
                    files,
                    expired,
                })
            })
            .collect();
        marks
            .iter()
            .any(|mark| matches!(mark, Some(mark) if *mark != Mark::default()))
            .then_some(marks)
    }

    /// The stores that could be read.
    fn readable(&self, stores: &[Arc<dyn ActivityStore>]) -> Vec<Arc<dyn ActivityStore>> {
        stores
            .iter()
            .zip(&self.errors)
            .filter(|(_, error)| error.is_none())
            .map(|(store, _)| Arc::clone(store))
            .collect()
    }
}

/// How long a read waits for changed days to be summed again before it
/// shows what was kept (the sum then lands for the next read).
pub const FRESH_WAIT: Duration = Duration::from_millis(50);

/// A day's summary and the marks it was made under.
#[derive(Debug)]
struct Kept {
    marks: Vec<Option<Mark>>,
    summary: Arc<DaySummary>,
}

/// The days to sum again, each with the marks it is summed under.
type Stale = Vec<(NaiveDate, Vec<Option<Mark>>)>;

/// Summaries of days, kept while their marks do not change.
#[derive(Debug, Default)]
pub struct SummaryCache {
    days: Mutex<HashMap<NaiveDate, Kept>>,
    refreshing: AtomicBool,
}

impl SummaryCache {
    /// The summaries of the days from `first` to `last` that have rows,
    /// oldest first. Days whose marks changed are summed again; a day that
    /// was summed before is shown as it was if that takes longer than
    /// [`FRESH_WAIT`] (never more than one refresh behind), a day never
    /// summed is waited for.
    pub async fn summaries(
        self: &Arc<Self>,
        stores: &[Arc<dyn ActivityStore>],
        marks: &Marks,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
    ) -> Result<Vec<Arc<DaySummary>>, StoreError> {
        let wanted: Stale = first
            .iter_days()
            .take_while(|day| *day <= last)
            .filter_map(|day| Some((day, marks.of(day)?)))
            .collect();
        let (stale, unseen): (Stale, bool) = {
            let kept = self.lock();
            let stale: Stale = wanted
                .iter()
                .filter(|(day, marks)| kept.get(day).is_none_or(|kept| kept.marks != *marks))
                .cloned()
                .collect();
            let unseen = stale.iter().any(|(day, _)| !kept.contains_key(day));
            (stale, unseen)
        };
        if !stale.is_empty() {
            let stores = marks.readable(stores);
            if unseen {
                self.refresh(&stores, stale, steps).await?;
            } else if !self.refreshing.swap(true, Ordering::AcqRel) {
                let cache = Arc::clone(self);
                let steps = steps.to_vec();
                let task = tokio::spawn(async move {
                    let _done = Refreshing(&cache.refreshing);
                    cache.refresh(&stores, stale, &steps).await
                });
                match tokio::time::timeout(FRESH_WAIT, task).await {
                    Ok(Ok(result)) => result?,
                    Ok(Err(failed)) => {
                        return Err(StoreError::Failed(format!(
                            "summing the days failed: {failed}"
                        )));
                    }
                    // Still summing: what was kept is shown this time.
                    Err(_) => {}
                }
            }
        }
        let kept = self.lock();
        Ok(wanted
            .iter()
            .filter_map(|(day, _)| kept.get(day).map(|kept| Arc::clone(&kept.summary)))
            .collect())
    }

    /// Sums the `stale` days again and keeps them with their marks.
    async fn refresh(
        &self,
        stores: &[Arc<dyn ActivityStore>],
        stale: Stale,
        steps: &[FunnelStep],
    ) -> Result<(), StoreError> {
        let (Some((from, _)), Some((to, _))) = (stale.first(), stale.last()) else {
            return Ok(());
        };
        let (from, to) = (*from, *to);
        let fresh = read(stores, from, to, steps).await?;
        let mut fresh: HashMap<NaiveDate, DaySummary> =
            fresh.into_iter().map(|s| (s.day, s)).collect();
        let mut kept = self.lock();
        for (day, marks) in stale {
            let summary = fresh
                .remove(&day)
                .unwrap_or_else(|| DaySummary::empty(day, steps.len()));
            kept.insert(
                day,
                Kept {
                    marks,
                    summary: Arc::new(summary),
                },
            );
        }
        if let Some(oldest) = to.checked_sub_days(Days::new(KEEP_DAYS)) {
            kept.retain(|day, _| *day >= oldest);
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<NaiveDate, Kept>> {
        self.days
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Clears the "a refresh is running" flag when the refresh ends, however.
struct Refreshing<'a>(&'a AtomicBool);

impl Drop for Refreshing<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The summaries of the days from `first` to `last` over `stores`.
async fn read(
    stores: &[Arc<dyn ActivityStore>],
    first: NaiveDate,
    last: NaiveDate,
    steps: &[FunnelStep],
) -> Result<Vec<DaySummary>, StoreError> {
    match stores {
        [] => Ok(Vec::new()),
        [store] => store.day_summaries(first, last, steps).await,
        several => {
            let reads = futures::future::join_all(several.iter().map(|store| async move {
                let (visitors, expired, hours, bots) = futures::join!(
                    store.visitors_since(first),
                    store.expired_kinds_since(first),
                    store.hours_since(summary::midnight(first)),
                    store.bot_days_since(first)
                );
                Ok::<_, StoreError>((visitors?, expired?, hours?, bots?))
            }))
            .await;
            let (mut visitors, mut expired, mut hours, mut bots) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for read in reads {
                let (v, e, h, b) = read?;
                visitors.extend(v);
                expired.extend(e);
                hours.extend(h);
                bots.extend(b);
            }
            Ok(summary::summarize(
                first,
                last,
                &report::merge_visitors(&visitors),
                &expired,
                &hours,
                &bots,
                steps,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use activity::StoreName;
    use activity::report::default_funnel;
    use activity::store::Retention;
    use chrono::Utc;

    use super::*;

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

    /// Reads the summaries of the last five days through `cache`, and how
    /// many operations the store performed for it.
    async fn read(
        cache: &Arc<SummaryCache>,
        stores: &[Arc<dyn ActivityStore>],
        today: NaiveDate,
    ) -> (Vec<DaySummary>, u64) {
        let before = stores[0].cost().operations;
        let first = today - Days::new(4);
        let marks = Marks::read(stores, first).await;
        let summaries = cache
            .summaries(stores, &marks, first, today, &default_funnel())
            .await
            .expect("reads");
        let summaries = summaries.iter().map(|s| (**s).clone()).collect();
        (summaries, stores[0].cost().operations - before)
    }

    /// A store that takes 300 ms to sum days (a big one), in memory.
    struct Slow(activity::store::MemoryStore);

    #[async_trait::async_trait]
    impl ActivityStore for Slow {
        fn name(&self) -> &StoreName {
            self.0.name()
        }
        async fn availability(&self) -> activity::rows::Availability {
            self.0.availability().await
        }
        async fn record(&self, batch: &activity::rows::Batch) -> Result<(), StoreError> {
            self.0.record(batch).await
        }
        async fn hours_since(
            &self,
            since: chrono::DateTime<Utc>,
        ) -> Result<Vec<activity::rows::HourRow>, StoreError> {
            self.0.hours_since(since).await
        }
        async fn visitors_since(
            &self,
            since: NaiveDate,
        ) -> Result<Vec<activity::rows::VisitorDay>, StoreError> {
            self.0.visitors_since(since).await
        }
        async fn day_summaries(
            &self,
            first: NaiveDate,
            last: NaiveDate,
            steps: &[FunnelStep],
        ) -> Result<Vec<DaySummary>, StoreError> {
            tokio::time::sleep(Duration::from_millis(300)).await;
            self.0.day_summaries(first, last, steps).await
        }
        async fn enforce_retention(&self, now: chrono::DateTime<Utc>) -> Result<(), StoreError> {
            self.0.enforce_retention(now).await
        }
        async fn expired_kinds_since(
            &self,
            since: NaiveDate,
        ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
            self.0.expired_kinds_since(since).await
        }
        async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
            self.0.day_marks(since).await
        }
        async fn bot_days_since(
            &self,
            since: NaiveDate,
        ) -> Result<Vec<(NaiveDate, activity::bot_class::BotClass, report::BotCount)>, StoreError>
        {
            self.0.bot_days_since(since).await
        }
        fn cost(&self) -> activity::rows::Cost {
            self.0.cost()
        }
    }

    #[tokio::test]
    async fn a_slow_sum_shows_the_kept_day_once_then_the_new_one() {
        let store = Slow(activity::store::MemoryStore::new(
            StoreName::parse("slow").expect("a name"),
            Retention::default(),
        ));
        let stores: Vec<Arc<dyn ActivityStore>> = vec![Arc::new(store)];
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
        )
        .await
        .expect("reads rows");
        assert_ne!(reference, before, "the new rows change the day");
        let mut now = Vec::new();
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            now = read(&cache, &stores, today).await.0;
            if now == reference {
                break;
            }
        }
        assert_eq!(now, reference, "the refresh lands");
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
            path: "/".to_owned(),
            store: name.clone(),
            kind: activity::Kind::Person,
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
        assert_eq!(operations, 4, "three marks and one summary read");
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
        )
        .await
        .expect("reads rows");
        // Shown as kept for one read at most if summing takes longer than
        // FRESH_WAIT; then what the rows say now.
        let mut fresh = Vec::new();
        for _ in 0..50 {
            fresh = read(&cache, &stores, today).await.0;
            if fresh == reference {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(fresh, reference, "what the rows say now");
        let changed: Vec<NaiveDate> = fresh
            .iter()
            .zip(&cold)
            .filter(|(now, before)| now != before)
            .map(|(now, _)| now.day)
            .collect();
        assert_eq!(changed, vec![past]);
    }
}
