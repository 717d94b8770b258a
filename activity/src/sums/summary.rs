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

use crate::port::rows::HourRow;
use crate::request::bot_class::BotClass;
use crate::request::goal::Goal;
use crate::request::source::Source;
use crate::sums::filter::Filter;
use crate::sums::report::{
    self, BotCount, FunnelStep, KindCounts, MergedVisitor, PathTotal, SourceReport,
};
use crate::sums::visits::VisitSums;
use crate::verdict::rule::VisitorKind;
use crate::visitor::country::Country;

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
    /// The day's most requested paths (at most [`DAY_PATHS`]), by path;
    /// the requests of the rest are summed under
    /// [`OTHER_PATHS`](crate::request::path::OTHER_PATHS), so the day's total is exact.
    pub paths: Vec<PathTotal>,
    /// Scanners and crawlers by class: requests and visitor-days.
    pub bots: BTreeMap<BotClass, BotCount>,
    /// People visitor-days by the country their address was in.
    pub countries: BTreeMap<Country, u64>,
    /// People visitor-days whose address was in no known country's block.
    pub no_country: u64,
    /// People's visits: page loads, one-page visitor-days, time on site,
    /// entry and exit pages.
    #[serde(default)]
    pub visits: VisitSums,
    /// Each goal reached: its visitor-days by kind (a visitor-day counts
    /// once however often it reached it) and its requests.
    #[serde(default)]
    pub goals: BTreeMap<Goal, GoalTotal>,
}

/// One goal on one day (or a range's days summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalTotal {
    /// The visitor-days that reached it, by kind.
    pub visitor_days: KindCounts,
    /// The requests that reached it, of every kind.
    pub requests: u64,
}

impl std::ops::AddAssign for GoalTotal {
    fn add_assign(&mut self, other: Self) {
        self.visitor_days += other.visitor_days;
        self.requests += other.requests;
    }
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
            countries: BTreeMap::new(),
            no_country: 0,
            visits: VisitSums::default(),
            goals: BTreeMap::new(),
        }
    }

    /// Counts `visitor_days` people visitor-days from `country` (`None`: no
    /// country known).
    pub fn add_country(&mut self, country: Option<Country>, visitor_days: u64) {
        match country {
            Some(country) => *self.countries.entry(country).or_default() += visitor_days,
            None => self.no_country += visitor_days,
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
        for (country, visitor_days) in &other.countries {
            self.add_country(Some(*country), *visitor_days);
        }
        self.no_country += other.no_country;
        self.visits.absorb(&other.visits);
        for (goal, total) in &other.goals {
            *self.goals.entry(goal.clone()).or_default() += *total;
        }
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

    /// The summaries, oldest first, each one's paths by path: the
    /// [`DAY_PATHS`] most requested, the rest under one row.
    pub fn finish(self) -> Vec<DaySummary> {
        self.days
            .into_values()
            .map(|mut summary| {
                summary.paths = keep_top_paths(std::mem::take(&mut summary.paths));
                summary.visits.keep_top();
                summary
            })
            .collect()
    }
}

/// The most paths a day's summary keeps: what the tab's Pages card can
/// draw from, and what a reader holds per day however many paths a store
/// keeps (a summary of a year holds at most 366 times this many).
pub const DAY_PATHS: usize = 200;

/// A day's paths by path: the [`DAY_PATHS`] most requested (the path's
/// text breaks ties), the requests of the rest added to
/// [`OTHER_PATHS`](crate::request::path::OTHER_PATHS).
fn keep_top_paths(mut paths: Vec<PathTotal>) -> Vec<PathTotal> {
    use crate::request::path::OTHER_PATHS;
    if paths.len() > DAY_PATHS {
        paths.sort_by(|a, b| {
            b.requests
                .cmp(&a.requests)
                .then_with(|| a.path.cmp(&b.path))
        });
        let mut other = PathTotal::new(OTHER_PATHS);
        for rest in paths.split_off(DAY_PATHS - 1) {
            other.absorb(&rest);
        }
        if let Some(kept) = paths.iter_mut().find(|kept| kept.path == OTHER_PATHS) {
            kept.absorb(&other);
        } else {
            paths.push(other);
        }
    }
    paths.sort_by(|a, b| a.path.cmp(&b.path));
    paths
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
        add_visitors(days.day(*day), visitors, steps);
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

/// What a day's visitor-days add to its summary: kinds, sources, bot
/// classes, countries, visits, goals and funnel steps.
fn add_visitors(summary: &mut DaySummary, visitors: &[MergedVisitor], steps: &[FunnelStep]) {
    for kinds in report::daily_kinds(visitors).values() {
        summary.kinds += *kinds;
    }
    summary.sources.absorb(&report::source_groups(visitors));
    summary.add_bots(&report::class_visitor_days(visitors));
    for (country, people) in report::people_by_country(visitors) {
        summary.add_country(country, people);
    }
    for visitor in visitors {
        let kind = visitor.kind();
        for (goal, requests) in &visitor.goals {
            let total = summary.goals.entry(goal.clone()).or_default();
            total.visitor_days.add(kind);
            total.requests += requests;
        }
    }
    for visitor in visitors.iter().filter(|v| v.kind() == VisitorKind::Person) {
        summary.visits.add(&visitor.pages);
        summary.visits.add_readers(visitor.paths.keys());
    }
    for (count, more) in summary
        .steps
        .iter_mut()
        .zip(report::step_counts(visitors, steps))
    {
        *count += more;
    }
}

/// The summaries of the days from `first` to `last` under a filter, made
/// from the visitor-days it lets through, which are all a filter can read:
/// days whose visitor rows have expired have none, and hourly rows cannot
/// be filtered. So a day's paths are its matching visitor-days' paths,
/// each request counted under its visitor-day's kind, and a bot class's
/// requests are its visitor-days' bot requests.
pub fn summarize_filtered(
    first: NaiveDate,
    last: NaiveDate,
    visitors: &[MergedVisitor],
    steps: &[FunnelStep],
    filter: &Filter,
) -> Vec<DaySummary> {
    let mut days = DaySums::new(steps.len());
    let mut visitors_by_day: BTreeMap<NaiveDate, Vec<MergedVisitor>> = BTreeMap::new();
    for visitor in visitors
        .iter()
        .filter(|v| first <= v.day && v.day <= last && filter.matches(v))
    {
        visitors_by_day
            .entry(visitor.day)
            .or_default()
            .push(visitor.clone());
    }
    for (day, visitors) in &visitors_by_day {
        let summary = days.day(*day);
        add_visitors(summary, visitors, steps);
        let mut paths: BTreeMap<&str, PathTotal> = BTreeMap::new();
        for visitor in visitors {
            let kind = visitor.kind();
            for class in visitor.classes().iter() {
                summary.bots.entry(class).or_default().requests += visitor.bots;
            }
            for (path, requests) in &visitor.paths {
                let total = paths.entry(path).or_insert_with(|| PathTotal::new(path));
                total.requests += requests;
                match kind {
                    VisitorKind::Person => total.people += requests,
                    VisitorKind::Bot => total.bots += requests,
                    VisitorKind::SelfRead => total.self_reads += requests,
                }
            }
        }
        summary.paths = paths.into_values().collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::path::OTHER_PATHS;

    fn total(path: &str, requests: u64) -> PathTotal {
        PathTotal {
            requests,
            people: requests,
            ..PathTotal::new(path)
        }
    }

    #[test]
    fn a_day_keeps_its_most_requested_paths_and_the_rest_in_one_row() {
        let mut sums = DaySums::new(0);
        let day = NaiveDate::from_ymd_opt(2026, 12, 3).expect("a day");
        let paths = &mut sums.day(day).paths;
        for n in 0..1_000u64 {
            paths.push(total(&format!("/{n:04}"), n + 1));
        }
        paths.push(total(OTHER_PATHS, 7));
        let all: u64 = paths.iter().map(|p| p.requests).sum();
        let summary = sums.finish().remove(0);
        assert_eq!(summary.paths.len(), DAY_PATHS);
        assert_eq!(summary.requests(), all, "the day's total stays exact");
        assert!(
            summary.paths.iter().any(|p| p.path == "/0999"),
            "the top is kept"
        );
        assert!(
            summary.paths.iter().all(|p| p.path != "/0000"),
            "the tail is not"
        );
        assert!(
            summary.paths.windows(2).all(|w| w[0].path < w[1].path),
            "by path"
        );
    }

    #[test]
    fn a_day_with_few_paths_keeps_them_all() {
        let mut sums = DaySums::new(0);
        let day = NaiveDate::from_ymd_opt(2026, 12, 3).expect("a day");
        sums.day(day).paths = vec![total("/b", 1), total("/a", 2)];
        let summary = sums.finish().remove(0);
        let kept: Vec<&str> = summary.paths.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(kept, ["/a", "/b"]);
    }
}
