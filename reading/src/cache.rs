//! The day summaries a range sums, kept between reads. Each read asks every
//! store for its [`Marks`] and sums again only the days whose marks changed
//! since their summary was kept (on a live site: today), waiting for that at
//! most [`FRESH_WAIT`]: a day summed before is shown as it was if summing
//! takes longer (never more than one refresh behind); a day never summed is
//! waited for.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use activity::report::FunnelStep;
use activity::store::{ActivityStore, StoreError};
use activity::summary::DaySummary;
use chrono::{Days, NaiveDate};

use crate::marks::{Mark, Marks};
use crate::merge;

/// How long a read waits for changed days to be summed again before it
/// shows what was kept (the sum then lands for the next read).
pub const FRESH_WAIT: Duration = Duration::from_millis(50);

/// How far back kept summaries are worth keeping: the longest range and
/// the period before it.
const KEEP_DAYS: u64 = 2 * 366;

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
    /// oldest first, over the stores `marks` could read.
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
        let fresh = merge::day_summaries(stores, from, to, steps).await?;
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
