//! Day summaries under a filter, kept between reads as the unfiltered ones
//! are: by day, with the marks they were made under, so that a filter read
//! again (the owner clicking back, a tool asking every hour) sums only the
//! days that changed since (on a live site: today).
//!
//! A day is summed from the visitor index (`crate::index`: the kept days'
//! visitor-days in memory) when it holds it, else by the stores.
//! What a reader asks for is summed in a task of its own: a read given up
//! at the tab's deadline goes on and is kept, so the next read of that
//! filter answers from it. A read of a filter being summed waits for that
//! sum instead of starting another. A filter read before waits for its
//! changed days (today) at most `FRESH_WAIT` and is shown as it was
//! meanwhile, as the unfiltered days are. At most [`RUNNING`] sums run at once;
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

use super::{FRESH_WAIT, Summaries};
use crate::index::{Marked, SummedDay, VisitorIndex};
use crate::lock::lock;
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
    summing: Mutex<HashMap<Filter, watch::Receiver<Ended>>>,
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
        index: &Arc<VisitorIndex>,
    ) -> Result<Summaries, StoreError> {
        let wanted: Marked = marks.days_between(first, last);
        // The days to sum again, and whether any was never summed.
        let (stale, unseen): (Marked, bool) = {
            let kept = self.lock();
            let days = kept
                .iter()
                .find(|(kept, _)| kept == filter)
                .map(|(_, days)| days);
            let stale: Vec<_> = wanted
                .iter()
                .filter(|(day, marks)| {
                    days.and_then(|days| days.get(day))
                        .is_none_or(|(kept, _)| kept != marks)
                })
                .cloned()
                .collect();
            let unseen = stale
                .iter()
                .any(|(day, _)| days.and_then(|days| days.get(day)).is_none());
            (stale, unseen)
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
        if !stale.is_empty() {
            let being_summed = lock(&self.summing).get(filter).cloned();
            let ended = match being_summed {
                // Summed for another reader now: that sum is waited for.
                Some(ended) => Some(ended),
                None => match Arc::clone(&self.running).try_acquire_owned() {
                    Ok(permit) => {
                        let (done, ended) = watch::channel(None);
                        lock(&self.summing).insert(filter.clone(), ended.clone());
                        let ending = Ending {
                            cache: Arc::clone(self),
                            filter: filter.clone(),
                            done,
                        };
                        let stores = stores.to_vec();
                        let steps = steps.to_vec();
                        let index = Arc::clone(index);
                        // Its own task: given up by the reader, it goes on
                        // and is kept.
                        tokio::spawn(async move {
                            let _permit = permit;
                            let summed = sum(&index, &stores, stale, &steps, &ending.filter).await;
                            ending.finish(summed);
                        });
                        Some(ended)
                    }
                    // Every sum taken: a filter never summed is refused;
                    // one summed before is shown as it was.
                    Err(_) if unseen => return Err(StoreError::Busy { retry_after: None }),
                    Err(_) => None,
                },
            };
            if let Some(mut ended) = ended {
                let wait = ended.wait_for(Option::is_some);
                // A day never summed is waited for; days summed before that
                // changed (today) are waited for at most FRESH_WAIT, as the
                // unfiltered days are, and shown as they were meanwhile.
                let result = if unseen {
                    wait.await.ok().and_then(|result| result.clone())
                } else {
                    tokio::time::timeout(FRESH_WAIT, wait)
                        .await
                        .ok()
                        .and_then(Result::ok)
                        .and_then(|result| result.clone())
                };
                if unseen {
                    result.unwrap_or_else(|| {
                        Err(StoreError::Failed(
                            "the filtered sum ended unread".to_owned(),
                        ))
                    })?;
                }
            }
        }
        let mut kept = self.lock();
        let at = kept.iter().position(|(kept, _)| kept == filter);
        let Some(at) = at else {
            return if wanted.is_empty() {
                Ok(Summaries {
                    days: Vec::new(),
                    current: true,
                })
            } else {
                Err(StoreError::Busy { retry_after: None })
            };
        };
        // A day never summed that the sum waited for did not hold (another
        // reader's, of other days): refused as busy, never shown as empty.
        if unseen && wanted.iter().any(|(day, _)| !kept[at].1.contains_key(day)) {
            return Err(StoreError::Busy { retry_after: None });
        }
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

    /// Keeps the `summed` days under `filter` (each with the marks it was
    /// summed under), then forgets the least recently read filters over
    /// the bounds.
    fn keep(&self, filter: &Filter, summed: Vec<SummedDay>) {
        let mut kept = self.lock();
        // Moved (or put) last: the bounds forget others first.
        let mut entry = match kept.iter().position(|(kept, _)| kept == filter) {
            Some(at) => kept.remove(at).expect("found above"),
            None => (filter.clone(), Days::new()),
        };
        for (day, marks, summary) in summed {
            entry.1.insert(day, (marks, summary.map(Arc::new)));
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

/// The `stale` days summed under `filter`: those the visitor index holds
/// from it, the rest by the stores (over the days from the first to the
/// last of them). A day the index holds under older marks (today, on a
/// live site) is read again in the background and waited for at most
/// `FRESH_WAIT`; if it is still being read it is summed as held and kept
/// under the marks it was read under, so the next read sums it again.
async fn sum(
    index: &Arc<VisitorIndex>,
    stores: &[Arc<dyn ActivityStore>],
    stale: Marked,
    steps: &[FunnelStep],
    filter: &Filter,
) -> Result<Vec<SummedDay>, StoreError> {
    if !index.current(&stale) {
        index.refresh_soon(stores, stale.clone());
        index.current_within(&stale, FRESH_WAIT).await;
    }
    let mut summed = index.summaries(&stale, steps, filter).await;
    let unheld: Marked = stale
        .into_iter()
        .filter(|(day, _)| !summed.iter().any(|(held, _, _)| held == day))
        .collect();
    if let (Some((from, _)), Some((to, _))) = (unheld.first(), unheld.last()) {
        let mut fresh: HashMap<NaiveDate, DaySummary> =
            merge::day_summaries(stores, (*from, *to), steps, filter)
                .await?
                .into_iter()
                .map(|summary| (summary.day, summary))
                .collect();
        summed.extend(
            unheld
                .into_iter()
                .map(|(day, marks)| (day, marks, fresh.remove(&day))),
        );
    }
    Ok(summed)
}

/// What a filter's sum ended with: `None` while it runs.
type Ended = Option<Result<(), StoreError>>;

/// A filter's sum ending: what it summed is kept, it is no longer being
/// summed, and its waiters are told how it went (a panic too).
struct Ending {
    cache: Arc<FilteredCache>,
    filter: Filter,
    done: watch::Sender<Ended>,
}

impl Ending {
    /// Keeps what was summed (before its waiters are told, so they find it).
    fn finish(self, summed: Result<Vec<SummedDay>, StoreError>) {
        let result = summed.map(|summed| self.cache.keep(&self.filter, summed));
        if let Err(error) = &result {
            tracing::warn!(error = error.kind(), "a filtered sum failed");
        }
        self.done.send_replace(Some(result));
    }
}

impl Drop for Ending {
    fn drop(&mut self) {
        lock(&self.cache.summing).remove(&self.filter);
        self.done.send_if_modified(|ended| {
            let unsent = ended.is_none();
            if unsent {
                *ended = Some(Err(StoreError::Failed(
                    "the filtered sum stopped".to_owned(),
                )));
            }
            unsent
        });
    }
}
