//! A range's figures: the days of a range of days and of the period before
//! it, summed from the kept day summaries, with each store's requests per
//! day and its state. What the Admin tab's cards show, before any words.

use std::collections::BTreeMap;
use std::sync::Arc;

use activity::StoreName;
use activity::filter::Filter;
use activity::report::{self, FunnelCount, KindCounts, PathTotal};
use activity::rows::{Availability, Cost};
use activity::store::StoreError;
use activity::summary::DaySummary;
use chrono::{Days, NaiveDate};

use crate::Reading;
use crate::cache::Summaries;
use crate::deadline::within;
use crate::marks::Marks;

/// How many paths [`RangeFigures::top_paths`] lists.
pub const TOP_PATHS: usize = 10;

/// The first day of a range of `days` days (at least one) ending `last`.
pub fn first_day(last: NaiveDate, days: u16) -> NaiveDate {
    last - Days::new(u64::from(days.max(1)) - 1)
}

/// A range of days, summed.
#[derive(Debug)]
pub struct RangeFigures {
    /// Its first day.
    pub first: NaiveDate,
    /// Its last day.
    pub last: NaiveDate,
    /// Each of its days, oldest first, with its visitor-days by kind.
    pub days: Vec<(NaiveDate, KindCounts)>,
    /// Its days' counts summed: visitor-days by kind, sources, funnel
    /// steps and bot classes (its `paths` are left empty: see `top_paths`).
    pub sums: DaySummary,
    /// The same for the period of as many days before it.
    pub previous: DaySummary,
    /// All its requests, over every store that could be read.
    pub requests: u64,
    /// All the previous period's requests.
    pub previous_requests: u64,
    /// The funnel's steps, with people visitor-days.
    pub funnel: Vec<FunnelCount>,
    /// The most requested paths.
    pub top_paths: Vec<PathTotal>,
    /// Each store, in the reading's order.
    pub stores: Vec<StoreFigures>,
    /// Whether every day was summed as the stores hold it now (`false`: a
    /// changed day is being summed again and shown as it was).
    pub current: bool,
    /// Why the day summaries could not be read, if they could not (every
    /// store then shows it too).
    pub summary_error: Option<StoreError>,
}

/// One store over a range.
#[derive(Debug)]
pub struct StoreFigures {
    /// The store.
    pub name: StoreName,
    /// Its requests on each day of the range (zero where it could not be read).
    pub requests: Vec<u64>,
    /// Whether it can keep activity now, and why.
    pub availability: Availability,
    /// What reading and writing it has cost since start.
    pub cost: Cost,
    /// Why it could not be read, if it could not.
    pub error: Option<StoreError>,
    /// When its figures were read, if they are shown as it was last read
    /// (it could not be read now: `error` says why).
    pub read_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl Reading {
    /// The figures of the `days` days (1 to 366) ending `last`, and of the
    /// period before. A store that cannot be read is left out of the sums
    /// and says why in its [`StoreFigures`].
    pub async fn range(&self, days: u16, last: NaiveDate) -> RangeFigures {
        self.filtered(days, last, &Filter::none()).await
    }

    /// Sums every day of the `days` days ending `last` (and of the period
    /// before) that no kept summary holds, without the tab's deadline: a
    /// big store's first sum can take longer than a reader waits, and one
    /// given up at the deadline would be given up at every start. What it
    /// sums is kept, so the tab's reads after it only sum what changed.
    /// Then it fills the visitor index with those days' visitor rows, so
    /// that a filter never read is answered without the stores.
    pub async fn warm(&self, days: u16, last: NaiveDate) -> Result<(), StoreError> {
        let previous_first = first_day(first_day(last, days) - Days::new(1), days);
        let stores = self.stores();
        let mut marks = Marks::read(stores, previous_first).await;
        self.last_known().fill(&mut marks, chrono::Utc::now());
        self.cache()
            .summaries(stores, &marks, previous_first, last, self.steps())
            .await?;
        // Then the visitor-days a filter reads, held for filters never
        // read before.
        if !marks.any_stale() {
            self.index()
                .refresh(stores, &marks.days_between(previous_first, last))
                .await?;
        }
        Ok(())
    }

    /// [`range`](Self::range) of the visitor-days `filter` lets through. With
    /// a condition the days are summed from the visitor rows (held in memory
    /// by the visitor index, else the stores'; kept for the filter by
    /// `cache::filtered` while their marks hold), so only days with visitor
    /// rows count, and the requests are those visitor-days' requests.
    pub async fn filtered(&self, days: u16, last: NaiveDate, filter: &Filter) -> RangeFigures {
        let first = first_day(last, days);
        let previous_first = first_day(first - Days::new(1), days);
        let stores = self.stores();
        let steps = self.steps();
        let mut marks = match within("the days' totals", async {
            Ok(Marks::read(stores, previous_first).await)
        })
        .await
        {
            Ok(marks) => marks,
            Err(error) => Marks::unread(stores.len(), error),
        };
        self.last_known().fill(&mut marks, chrono::Utc::now());
        let read = if filter.is_empty() {
            within(
                "the day summaries",
                self.cache()
                    .summaries(stores, &marks, previous_first, last, steps),
            )
            .await
        } else {
            within(
                "the filtered day summaries",
                self.filtered_cache().summaries(
                    stores,
                    &marks,
                    (previous_first, last),
                    steps,
                    filter,
                    self.index(),
                ),
            )
            .await
        };
        let (summaries, all_current, summary_error) = match read {
            Ok(Summaries { days, current }) => (days, current, None),
            Err(error) => (Vec::new(), false, Some(error)),
        };
        let (current, before): (Vec<Arc<DaySummary>>, Vec<Arc<DaySummary>>) =
            summaries.into_iter().partition(|s| s.day >= first);
        let sum = |days: &[Arc<DaySummary>]| {
            let mut sum = DaySummary::empty(last, steps.len());
            for day in days {
                sum.add_counts(day);
            }
            sum
        };
        let (sums, previous) = (sum(&current), sum(&before));
        let dates: Vec<NaiveDate> = first.iter_days().take_while(|d| *d <= last).collect();
        let kinds_on: BTreeMap<NaiveDate, KindCounts> =
            current.iter().map(|s| (s.day, s.kinds)).collect();
        let mut figures = Vec::with_capacity(stores.len());
        for ((store, requests), stale) in stores.iter().zip(marks.requests()).zip(marks.stale()) {
            let error = requests
                .err()
                .or(stale.map(|stale| &stale.error))
                .or(summary_error.as_ref())
                .cloned();
            figures.push(StoreFigures {
                name: store.name().clone(),
                read_at: stale.map(|stale| stale.read_at),
                requests: dates
                    .iter()
                    .map(|day| requests.ok().and_then(|r| r.get(day).copied()).unwrap_or(0))
                    .collect(),
                availability: within("whether it keeps activity", async {
                    Ok(store.availability().await)
                })
                .await
                .unwrap_or_else(|error| Availability {
                    available: false,
                    reason: error.to_string(),
                    retention: String::new(),
                }),
                cost: store.cost(),
                error,
            });
        }
        let (requests, previous_requests) = if filter.is_empty() {
            (
                marks.requests_between(first, last),
                marks.requests_between(previous_first, first - Days::new(1)),
            )
        } else {
            let of = |days: &[Arc<DaySummary>]| days.iter().map(|day| day.requests()).sum();
            (of(&current), of(&before))
        };
        RangeFigures {
            first,
            last,
            days: dates
                .iter()
                .map(|day| (*day, kinds_on.get(day).copied().unwrap_or_default()))
                .collect(),
            funnel: report::funnel_of_counts(steps, &sums.steps),
            top_paths: report::top_of(current.iter().flat_map(|s| &s.paths), TOP_PATHS),
            sums,
            previous,
            requests,
            previous_requests,
            stores: figures,
            current: all_current,
            summary_error,
        }
    }
}
