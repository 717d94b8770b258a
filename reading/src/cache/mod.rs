//! The day summaries a range sums, kept between reads. Each read asks every
//! store for its [`Marks`] and sums again only the days whose marks changed
//! since their summary was kept (on a live site: today), waiting for that at
//! most [`FRESH_WAIT`]: a day summed before is shown as it was if summing
//! takes longer (never more than one refresh behind), and at once if the
//! last summing of changed days took longer than that wait (waiting would
//! be futile: a busy day on a large store); a day never summed is waited
//! for.
//!
//! The cache is also saved in the first store (`saved`, through
//! `ActivityStore::keep_cached`: the one write the read side makes), at
//! most every [`SAVE_EVERY`]: the first read after a restart takes it from
//! there (with how long changed days took to sum) and sums again only the
//! days that changed since.

pub mod filtered;
mod saved;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use activity::filter::Filter;
use activity::report::FunnelStep;
use activity::store::{ActivityStore, StoreError};
use activity::summary::DaySummary;
use chrono::{Days, NaiveDate};

use crate::lock::lock;
use crate::marks::{Mark, Marks};
use crate::merge;
use saved::SavedDay;

/// How long a read waits for changed days to be summed again before it
/// shows what was kept (the sum then lands for the next read).
pub const FRESH_WAIT: Duration = Duration::from_millis(50);

/// The name the saved cache is kept under in the first store.
pub const SAVED_NAME: &str = saved::NAME;

/// How often the summaries are written to the store, at most.
pub const SAVE_EVERY: Duration = Duration::from_secs(60);

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
/// The most days one sum asks a store for.
const SUM_DAYS: u64 = 7;

type Stale = Vec<(NaiveDate, Vec<Option<Mark>>)>;

/// The summaries a read gets, and whether they are current.
#[derive(Debug)]
pub struct Summaries {
    /// The days that have rows, oldest first.
    pub days: Vec<Arc<DaySummary>>,
    /// Whether every day was summed under the marks the read was given;
    /// `false`: a changed day is still being summed and is shown as it was.
    pub current: bool,
}

/// Summaries of days, kept while their marks do not change.
#[derive(Debug, Default)]
pub struct SummaryCache {
    days: Mutex<HashMap<NaiveDate, Kept>>,
    refreshing: AtomicBool,
    /// Set once the saved cache has been read (or found missing).
    loaded: tokio::sync::OnceCell<()>,
    /// When the summaries were last written to the store.
    saved: Mutex<Option<Instant>>,
    /// How long the last summing of changed days took (kept in the saved cache
    /// too). Only those: the first summing of every day says nothing about
    /// how long today takes.
    resum: Mutex<Option<Duration>>,
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
    ) -> Result<Summaries, StoreError> {
        self.loaded
            .get_or_init(|| async {
                let (days, resum) = saved::load(stores, steps).await;
                *lock(&self.resum) = resum;
                let mut kept = self.lock();
                for day in days {
                    kept.entry(day.day).or_insert(Kept {
                        marks: day.marks,
                        summary: day.summary,
                    });
                }
            })
            .await;
        let wanted: Stale = marks.days_between(first, last);
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
        // A store shown as it was last read cannot sum its days now: the
        // days kept are shown as they were.
        if !stale.is_empty() && !marks.any_stale() {
            let readable = marks.readable(stores);
            if unseen {
                self.refresh(stores, &readable, stale, steps, Timed::No)
                    .await?;
            } else if !self.refreshing.swap(true, Ordering::AcqRel) {
                let cache = Arc::clone(self);
                let steps = steps.to_vec();
                let all = stores.to_vec();
                let task = tokio::spawn(async move {
                    let _done = Refreshing(&cache.refreshing);
                    cache
                        .refresh(&all, &readable, stale, &steps, Timed::Yes)
                        .await
                });
                // The last sum of changed days outlasted the wait: this one
                // will too, so the kept days are shown at once (not even a
                // yield, which would let a quick sum in after all).
                let futile = lock(&self.resum).is_some_and(|took| took > FRESH_WAIT);
                if !futile {
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
        }
        let kept = self.lock();
        let current = wanted
            .iter()
            .all(|(day, marks)| kept.get(day).is_some_and(|kept| kept.marks == *marks));
        let days = wanted
            .iter()
            .filter_map(|(day, _)| kept.get(day).map(|kept| Arc::clone(&kept.summary)))
            .collect();
        Ok(Summaries { days, current })
    }

    /// Sums the `stale` days again over the `readable` stores and keeps
    /// them with their marks (and, if `timed`, how long that took); if a
    /// save is due, writes every kept day to the first of `all` before the
    /// new days are shown (so that what a reader saw is what a restart finds).
    async fn refresh(
        &self,
        all: &[Arc<dyn ActivityStore>],
        readable: &[Arc<dyn ActivityStore>],
        stale: Stale,
        steps: &[FunnelStep],
        timed: Timed,
    ) -> Result<(), StoreError> {
        let (Some((from, _)), Some((to, _))) = (stale.first(), stale.last()) else {
            return Ok(());
        };
        let (from, to) = (*from, *to);
        let began = Instant::now();
        // A week at a time: what a sum holds in the engine's answer is a
        // week's rows, however long the range and however big the store.
        let mut fresh = Vec::new();
        let mut first = from;
        while first <= to {
            let last = (first + Days::new(SUM_DAYS - 1)).min(to);
            fresh.extend(
                merge::day_summaries(readable, (first, last), steps, &Filter::none()).await?,
            );
            first = last + Days::new(1);
        }
        if timed == Timed::Yes {
            *lock(&self.resum) = Some(began.elapsed());
        }
        let mut fresh: HashMap<NaiveDate, DaySummary> =
            fresh.into_iter().map(|s| (s.day, s)).collect();
        let summed: Vec<(NaiveDate, Kept)> = stale
            .into_iter()
            .map(|(day, marks)| {
                let summary = fresh
                    .remove(&day)
                    .unwrap_or_else(|| DaySummary::empty(day, steps.len()));
                let summary = Arc::new(summary);
                (day, Kept { marks, summary })
            })
            .collect();
        let oldest = to.checked_sub_days(Days::new(KEEP_DAYS));
        if self.save_due() {
            let saved_day = |day: &NaiveDate, kept: &Kept| SavedDay {
                day: *day,
                marks: kept.marks.clone(),
                summary: Arc::clone(&kept.summary),
            };
            let days: Vec<SavedDay> = {
                let kept = self.lock();
                let mut days: BTreeMap<NaiveDate, SavedDay> = kept
                    .iter()
                    .map(|(day, kept)| (*day, saved_day(day, kept)))
                    .collect();
                days.extend(
                    summed
                        .iter()
                        .map(|(day, kept)| (*day, saved_day(day, kept))),
                );
                days.retain(|day, _| oldest.is_none_or(|oldest| *day >= oldest));
                days.into_values().collect()
            };
            let resum = *lock(&self.resum);
            saved::save(all, steps, days, resum).await;
        }
        let mut kept = self.lock();
        kept.extend(summed);
        if let Some(oldest) = oldest {
            kept.retain(|day, _| *day >= oldest);
        }
        Ok(())
    }

    /// Whether the summaries should be written to the store now (not
    /// within [`SAVE_EVERY`] of the last time); if so, notes the time.
    fn save_due(&self) -> bool {
        let mut saved = lock(&self.saved);
        if saved.is_some_and(|at| at.elapsed() < SAVE_EVERY) {
            return false;
        }
        *saved = Some(Instant::now());
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<NaiveDate, Kept>> {
        lock(&self.days)
    }
}

/// Whether a refresh keeps how long its summing took: only the summing of
/// days summed before (changed days) says how long the next will take.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Timed {
    Yes,
    No,
}

/// Clears the "a refresh is running" flag when the refresh ends, however.
struct Refreshing<'a>(&'a AtomicBool);

impl Drop for Refreshing<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}
