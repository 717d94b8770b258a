//! One day of activity summed for the Admin's cards — visitor-days by kind,
//! where people came from, the funnel's steps, every path's requests — and
//! the reference way of making it from stored rows.
//!
//! Days add up: a range's cards are its days' summaries summed, so a reader
//! can keep the summaries of days that no longer change. Stores make them in
//! their own engine (`ActivityStore::day_summaries`); the store contract
//! checks every store against `store::read_and_summarize`, which makes them
//! from a store's rows with [`summarize`].

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde::{Deserialize, Serialize};

use crate::bot_class::BotClass;
use crate::report::{
    self, BotCount, FunnelStep, KindCounts, MergedVisitor, PathTotal, SourceReport,
};
use crate::rows::HourRow;
use crate::source::Source;

/// The most funnel steps a store's engine counts in one pass (one bit each).
pub const MAX_STEPS: usize = 62;

/// One UTC day, summed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaySummary {
    /// The day.
    pub day: NaiveDate,
    /// Visitor-days by kind: those with rows, plus the kept counts of
    /// those whose rows have expired.
    pub kinds: KindCounts,
    /// People visitor-days by source group, with tags broken out.
    pub sources: SourceReport,
    /// People visitor-days that took each funnel step, in the steps' order.
    pub steps: Vec<u64>,
    /// Every path requested that day, by path.
    pub paths: Vec<PathTotal>,
    /// Scanners and crawlers by class: requests and visitor-days.
    pub bots: BTreeMap<BotClass, BotCount>,
}

impl DaySummary {
    /// A day with nothing in it, for a funnel of `steps` steps.
    pub fn empty(day: NaiveDate, steps: usize) -> Self {
        Self {
            day,
            kinds: KindCounts::default(),
            sources: SourceReport::default(),
            steps: vec![0; steps],
            paths: Vec::new(),
            bots: BTreeMap::new(),
        }
    }

    /// All requests of the day.
    pub fn requests(&self) -> u64 {
        self.paths.iter().map(|path| path.requests).sum()
    }

    /// Counts `visitor_days` people visitor-days that took the steps whose
    /// bits are set in `mask` (bit `i` is step `i`).
    pub fn add_steps(&mut self, mask: u64, visitor_days: u64) {
        for (at, count) in self.steps.iter_mut().enumerate() {
            if at < 64 && mask & (1 << at) != 0 {
                *count += visitor_days;
            }
        }
    }

    /// Adds another summary's counts (visitor-days by kind, sources, funnel
    /// steps) into this one; its paths are summed apart (see
    /// [`report::top_of`]), this one keeps its own.
    pub fn add_counts(&mut self, other: &DaySummary) {
        self.kinds += other.kinds;
        self.sources.absorb(&other.sources);
        for (count, more) in self.steps.iter_mut().zip(&other.steps) {
            *count += more;
        }
        self.add_bots(&other.bots);
    }

    /// Adds bot counts by class.
    pub fn add_bots(&mut self, bots: &BTreeMap<BotClass, BotCount>) {
        for (class, count) in bots {
            *self.bots.entry(*class).or_default() += *count;
        }
    }
}

/// Day summaries being filled in, one per day, in any order.
#[derive(Debug)]
pub struct DaySums {
    steps: usize,
    days: BTreeMap<NaiveDate, DaySummary>,
}

impl DaySums {
    /// None yet, for a funnel of `steps` steps.
    pub fn new(steps: usize) -> Self {
        Self {
            steps,
            days: BTreeMap::new(),
        }
    }

    /// The summary of `day`, empty until something is added.
    pub fn day(&mut self, day: NaiveDate) -> &mut DaySummary {
        self.days
            .entry(day)
            .or_insert_with(|| DaySummary::empty(day, self.steps))
    }

    /// Counts `visitor_days` people visitor-days of `day` whose page loads
    /// came from exactly the sources in `set`, written space-separated as a
    /// store's engine joins them (`None`: no source, typed or unknown).
    /// Fails on a text that is not a source.
    pub fn add_source_set(
        &mut self,
        day: NaiveDate,
        set: Option<&str>,
        visitor_days: u64,
    ) -> Result<(), String> {
        let sources = set
            .into_iter()
            .flat_map(|text| text.split(' '))
            .map(|source| Source::try_from(source.to_owned()))
            .collect::<Result<Vec<Source>, String>>()?;
        self.day(day).sources.add(&sources, visitor_days);
        Ok(())
    }

    /// The summaries, oldest first, each one's paths by path.
    pub fn finish(self) -> Vec<DaySummary> {
        self.days
            .into_values()
            .map(|mut summary| {
                summary.paths.sort_by(|a, b| a.path.cmp(&b.path));
                summary
            })
            .collect()
    }
}

/// Each funnel path with its step's bit (`1 << step`), for a store that
/// counts steps in its engine. At most [`MAX_STEPS`] steps.
pub fn step_bits(steps: &[FunnelStep]) -> Vec<(String, i64)> {
    steps
        .iter()
        .take(MAX_STEPS)
        .enumerate()
        .flat_map(|(at, step)| {
            step.paths
                .iter()
                .map(move |path| (path.clone(), 1_i64 << at))
        })
        .collect()
}

/// The start of a UTC day.
pub fn midnight(day: NaiveDate) -> DateTime<Utc> {
    day.and_time(NaiveTime::MIN).and_utc()
}

/// The summaries of the days from `first` to `last` (both included) that
/// have any row, oldest first: `visitors` merged across stores (one token on
/// one day is one visitor-day), the `expired` days' kept kinds added, and
/// `hours` summed per path.
pub fn summarize(
    first: NaiveDate,
    last: NaiveDate,
    visitors: &[MergedVisitor],
    expired: &[(NaiveDate, KindCounts)],
    hours: &[HourRow],
    bot_days: &[(NaiveDate, BotClass, BotCount)],
    steps: &[FunnelStep],
) -> Vec<DaySummary> {
    let within = |day: NaiveDate| first <= day && day <= last;
    let mut days = DaySums::new(steps.len());
    let mut visitors_by_day: BTreeMap<NaiveDate, Vec<MergedVisitor>> = BTreeMap::new();
    for visitor in visitors.iter().filter(|v| within(v.day)) {
        visitors_by_day
            .entry(visitor.day)
            .or_default()
            .push(visitor.clone());
    }
    for (day, visitors) in &visitors_by_day {
        let summary = days.day(*day);
        if let Some(kinds) = report::daily_kinds(visitors).get(day) {
            summary.kinds += *kinds;
        }
        summary.sources.absorb(&report::source_groups(visitors));
        summary.add_bots(&report::class_visitor_days(visitors));
        for (count, more) in summary
            .steps
            .iter_mut()
            .zip(report::step_counts(visitors, steps))
        {
            *count += more;
        }
    }
    for (day, kinds) in expired.iter().filter(|(day, _)| within(*day)) {
        days.day(*day).kinds += *kinds;
    }
    for (day, class, count) in bot_days.iter().filter(|(day, _, _)| within(*day)) {
        *days.day(*day).bots.entry(*class).or_default() += *count;
    }
    let mut hours_by_day: BTreeMap<NaiveDate, Vec<&HourRow>> = BTreeMap::new();
    for hour in hours.iter().filter(|h| within(h.hour.date_naive())) {
        hours_by_day
            .entry(hour.hour.date_naive())
            .or_default()
            .push(hour);
    }
    for (day, hours) in hours_by_day {
        days.day(day).paths = report::path_totals(hours);
    }
    days.finish()
}

/// Requests per UTC day in `hours`, oldest first.
pub fn day_requests(hours: &[HourRow]) -> Vec<(NaiveDate, u64)> {
    let mut days: BTreeMap<NaiveDate, u64> = BTreeMap::new();
    for hour in hours {
        *days.entry(hour.hour.date_naive()).or_default() += hour.requests;
    }
    days.into_iter().collect()
}
