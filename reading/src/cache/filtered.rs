//! Day summaries under a filter, kept between reads as the unfiltered ones
//! are: by day, with the marks they were made under, so that a filter read
//! again (the owner clicking back, a tool asking every hour) sums only the
//! days that changed since (on a live site: today).
//!
//! What a reader asks for is summed in a task of its own: a read given up
//! at the tab's deadline goes on and is kept, so the next read of that
//! filter answers from it. A read of a filter being summed waits for that
//! sum instead of starting another. At most [`RUNNING`] sums run at once;
//! past that a read of another filter is refused as busy, so a client sending one new filter after
//! another holds a bounded share of the stores. At most [`FILTERS`] filters
//! and [`DAYS`] days are kept, the least recently read forgotten first.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use activity::filter::Filter;
use activity::report::FunnelStep;
use activity::store::{ActivityStore, StoreError};
use activity::summary::DaySummary;
use chrono::NaiveDate;
use tokio::sync::{Semaphore, watch};

use super::Summaries;
use crate::marks::{Mark, Marks};
use crate::merge;

/// The most filtered sums that run at once.
pub const RUNNING: usize = 2;

/// The most filters kept.
pub const FILTERS: usize = 16;

/// The most filtered day summaries kept, over every filter.
pub const DAYS: usize = 2048;

/// A filter's days: each with the marks it was summed under, and its
/// summary (`None`: no visitor-day of that day passes the filter).
type Days = HashMap<NaiveDate, (Vec<Option<Mark>>, Option<Arc<DaySummary>>)>;

/// Filtered day summaries, by filter, the most recently read last.
#[derive(Debug)]
pub struct FilteredCache {
    kept: Mutex<VecDeque<(Filter, Days)>>,
    running: Arc<Semaphore>,
    /// The filters being summed, each with what says when its sum ended.
    summing: Mutex<HashMap<Filter, watch::Receiver<bool>>>,
}

impl Default for FilteredCache {
    fn default() -> Self {
        Self {
            kept: Mutex::new(VecDeque::new()),
            running: Arc::new(Semaphore::new(RUNNING)),
            summing: Mutex::new(HashMap::new()),
        }
    }
}

impl FilteredCache {
    /// The summaries under `filter` of the days from `first` to `last` that
    /// have rows and visitor-days it lets through, oldest first.
    pub async fn summaries(
        self: &Arc<Self>,
        stores: &[Arc<dyn ActivityStore>],
        marks: &Marks,
        (first, last): (NaiveDate, NaiveDate),
        steps: &[FunnelStep],
        filter: &Filter,
    ) -> Result<Summaries, StoreError> {
        let wanted: Vec<(NaiveDate, Vec<Option<Mark>>)> = first
            .iter_days()
            .take_while(|day| *day <= last)
            .filter_map(|day| Some((day, marks.of(day)?)))
            .collect();
        let stale: Vec<(NaiveDate, Vec<Option<Mark>>)> = {
            let kept = self.lock();
            let days = kept
                .iter()
                .find(|(kept, _)| kept == filter)
                .map(|(_, days)| days);
            wanted
                .iter()
                .filter(|(day, marks)| {
                    days.and_then(|days| days.get(day))
                        .is_none_or(|(kept, _)| kept != marks)
                })
                .cloned()
                .collect()
        };
        // A store shown as it was last read cannot be summed now: what it
        // has is summed from the stores that answer, and not kept.
        if marks.any_stale() {
            let readable = marks.readable(stores);
            let days = merge::day_summaries(&readable, (first, last), steps, filter).await?;
            return Ok(Summaries {
                days: days.into_iter().map(Arc::new).collect(),
                current: false,
            });
        }
        if let (Some((from, _)), Some((to, _))) = (stale.first(), stale.last()) {
            let (from, to) = (*from, *to);
            let being_summed = lock(&self.summing).get(filter).cloned();
            match being_summed {
                // Summed for another reader now: that sum is waited for
                // (what it keeps is shown, current or not).
                Some(mut ended) => {
                    let _ = ended.wait_for(|ended| *ended).await;
                }
                None => {
                    let permit = Arc::clone(&self.running)
                        .try_acquire_owned()
                        .map_err(|_| StoreError::Busy { retry_after: None })?;
                    let (done, ended) = watch::channel(false);
                    lock(&self.summing).insert(filter.clone(), ended);
                    let cache = Arc::clone(self);
                    let stores = stores.to_vec();
                    let steps = steps.to_vec();
                    let filter = filter.clone();
                    // Its own task: given up by the reader, it goes on and is kept.
                    let task = tokio::spawn(async move {
                        let _permit = permit;
                        // Told when it ends, however it ends (a panic too).
                        let ending = Ending {
                            cache,
                            filter,
                            done,
                        };
                        let summed =
                            merge::day_summaries(&stores, (from, to), &steps, &ending.filter).await;
                        // Kept before its waiters are told, so they find it.
                        summed.map(|fresh| ending.cache.keep(&ending.filter, stale, fresh))
                    });
                    match task.await {
                        Ok(result) => result?,
                        Err(failed) => {
                            return Err(StoreError::Failed(format!(
                                "summing the filtered days failed: {failed}"
                            )));
                        }
                    }
                }
            }
        }
        let mut kept = self.lock();
        let at = kept.iter().position(|(kept, _)| kept == filter);
        let Some(at) = at else {
            return Ok(Summaries {
                days: Vec::new(),
                current: false,
            });
        };
        // Read now: the last to be forgotten.
        let entry = kept.remove(at).expect("found above");
        let days = wanted
            .iter()
            .filter_map(|(day, _)| entry.1.get(day).and_then(|(_, s)| s.clone()))
            .collect();
        let current = wanted
            .iter()
            .all(|(day, marks)| entry.1.get(day).is_some_and(|(kept, _)| kept == marks));
        kept.push_back(entry);
        Ok(Summaries { days, current })
    }

    /// Keeps the `fresh` summaries of the `stale` days under `filter`, then
    /// forgets the least recently read filters over the bounds.
    fn keep(
        &self,
        filter: &Filter,
        stale: Vec<(NaiveDate, Vec<Option<Mark>>)>,
        fresh: Vec<DaySummary>,
    ) {
        let mut fresh: HashMap<NaiveDate, DaySummary> =
            fresh.into_iter().map(|s| (s.day, s)).collect();
        let mut kept = self.lock();
        // Moved (or put) last: the bounds forget others first.
        let mut entry = match kept.iter().position(|(kept, _)| kept == filter) {
            Some(at) => kept.remove(at).expect("found above"),
            None => (filter.clone(), Days::new()),
        };
        for (day, marks) in stale {
            entry
                .1
                .insert(day, (marks, fresh.remove(&day).map(Arc::new)));
        }
        kept.push_back(entry);
        while kept.len() > FILTERS
            || (kept.len() > 1 && kept.iter().map(|(_, days)| days.len()).sum::<usize>() > DAYS)
        {
            kept.pop_front();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(Filter, Days)>> {
        lock(&self.kept)
    }
}

/// A filter's sum ending: it is no longer being summed, and its waiters
/// are told.
struct Ending {
    cache: Arc<FilteredCache>,
    filter: Filter,
    done: watch::Sender<bool>,
}

impl Drop for Ending {
    fn drop(&mut self) {
        lock(&self.cache.summing).remove(&self.filter);
        let _ = self.done.send(true);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
