//! The read side's one query: a range of days, a [`Filter`], metrics and at
//! most one dimension to break them down by. Every answer is made from the
//! same day summaries the Admin tab's cards are made from (the kept ones
//! when there is no filter), and a breakdown's row is the query's metrics
//! under the filter with the row's own condition added: so a row of the
//! API and a row of the tab under that filter cannot disagree. A breakdown
//! of people's visitors alone is read from the summaries' own counts of
//! each value (a card's rows: the same visitor-days, each day's 100 most
//! common pages by name), without a sum per row.
//!
//! Metrics are of visitor-days (SPEC §4): `visitors` over several days is
//! the sum of each day's, and `visits`, `pageviews`, `bounce_rate` and
//! `visit_duration` are people's (docs/ACCURACY.md, "Visits").

use std::collections::BTreeMap;
use std::sync::Arc;

use activity::filter::{Condition, Dimension, Filter, Op, group_word, kind_word};
use activity::report::merge_visitors;
use activity::source::SourceGroup;
use activity::store::StoreError;
use activity::summary::DaySummary;
use activity::verdict::rule::VisitorKind;
use chrono::{DateTime, Datelike as _, NaiveDate, Utc};

use crate::Reading;
use crate::deadline::within;
use crate::marks::Marks;

/// What a query can count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Visitor-days: people's unless the filter names kinds.
    Visitors,
    /// People's visits (page loads under 30 minutes apart are one visit).
    Visits,
    /// People's page loads.
    Pageviews,
    /// Page loads per visit, to two decimals.
    ViewsPerVisit,
    /// The percentage of people's visitor-days with one page load.
    BounceRate,
    /// Seconds on the site per visit.
    VisitDuration,
}

impl Metric {
    /// Every metric, by its name.
    pub const ALL: [Self; 6] = [
        Self::Visitors,
        Self::Visits,
        Self::Pageviews,
        Self::ViewsPerVisit,
        Self::BounceRate,
        Self::VisitDuration,
    ];

    /// Its name, as Plausible's API spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Visitors => "visitors",
            Self::Visits => "visits",
            Self::Pageviews => "pageviews",
            Self::ViewsPerVisit => "views_per_visit",
            Self::BounceRate => "bounce_rate",
            Self::VisitDuration => "visit_duration",
        }
    }

    /// The metric of a name.
    pub fn of_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|metric| metric.name() == name)
    }

    /// Its value over summed days; `kinds`: whether the filter names kinds
    /// (then `visitors` counts every kind it lets through, else people).
    fn of(self, sum: &DaySummary, kinds: bool) -> f64 {
        let visits = &sum.visits;
        let ratio = |part: u64, whole: u64| {
            if whole == 0 {
                0.0
            } else {
                part as f64 / whole as f64
            }
        };
        match self {
            Self::Visitors if kinds => sum.kinds.total() as f64,
            Self::Visitors => sum.kinds.people as f64,
            Self::Visits => visits.visits as f64,
            Self::Pageviews => visits.page_loads as f64,
            Self::ViewsPerVisit => {
                (ratio(visits.page_loads, visits.visits) * 100.0).round() / 100.0
            }
            Self::BounceRate => (ratio(visits.one_page, visits.visitor_days) * 100.0).round(),
            Self::VisitDuration => (ratio(visits.stay_ms, visits.visits) / 1000.0).round(),
        }
    }
}

/// What a query can break its metrics down by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breakdown {
    /// Each day of the range, oldest first.
    Day,
    /// Each calendar month the range touches, oldest first (its row's value
    /// is its first day).
    Month,
    /// Each UTC hour of each day of the range, oldest first (its row's
    /// value is `YYYY-MM-DD HH:00:00`): people visitor-days by the hour
    /// they arrived in (their first page load), so `visitors` only; the
    /// other metrics are not kept by the hour and answer 0.
    Hour,
    /// A filter dimension: page, entry and exit page, source, the campaign
    /// labels, country, kind. Its rows are its values, most visitors first.
    By(Dimension),
}

/// A query of the read side.
#[derive(Clone, Debug)]
pub struct Query {
    /// The first day, UTC.
    pub first: NaiveDate,
    /// The last day, included.
    pub last: NaiveDate,
    /// The visitor-days counted.
    pub filter: Filter,
    /// What is counted, in the order answered.
    pub metrics: Vec<Metric>,
    /// What the metrics are broken down by, if anything.
    pub by: Option<Breakdown>,
    /// The most rows answered (a dimension's; days are all answered).
    pub limit: usize,
    /// How many of a dimension's rows are skipped first.
    pub offset: usize,
}

/// The most rows a breakdown sums one by one (its metrics need more than
/// the summaries' own counts: [`Query::sums_per_row`]).
pub const SUMMED_ROWS: usize = 100;

impl Query {
    /// Whether each row of its breakdown is the range summed again under
    /// the row's filter (a dimension's breakdown of more than people's
    /// visitors); such a query answers at most [`SUMMED_ROWS`] rows.
    pub fn sums_per_row(&self) -> bool {
        let kinds = self
            .filter
            .conditions
            .iter()
            .any(|condition| condition.dimension == Dimension::Kind);
        matches!(self.by, Some(Breakdown::By(dimension))
            if kinds || self.metrics != [Metric::Visitors] || dimension == Dimension::Kind)
    }
}

/// One row of an answer.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryRow {
    /// The breakdown's value (a day as `YYYY-MM-DD`, or the dimension's
    /// value as a filter takes it: `/about`, `linkedin`, `tag:resume`,
    /// `FR`, `person`); `None` without a breakdown.
    pub value: Option<String>,
    /// The query's metrics, in its order.
    pub figures: Vec<f64>,
}

/// The dimensions a query can break down by.
pub const BREAKDOWNS: [Dimension; 10] = [
    Dimension::Page,
    Dimension::EntryPage,
    Dimension::ExitPage,
    Dimension::Source,
    Dimension::UtmSource,
    Dimension::UtmMedium,
    Dimension::UtmCampaign,
    Dimension::Goal,
    Dimension::Country,
    Dimension::Kind,
];

impl Reading {
    /// Answers `query`: one row without a breakdown, a row a day with
    /// [`Breakdown::Day`], else a row for each of the dimension's values
    /// on the page asked for. A store that cannot be read is an error.
    pub async fn query(&self, query: &Query) -> Result<Vec<QueryRow>, StoreError> {
        let kinds = query
            .filter
            .conditions
            .iter()
            .any(|condition| condition.dimension == Dimension::Kind);
        let figures = |sum: &DaySummary| -> Vec<f64> {
            query.metrics.iter().map(|m| m.of(sum, kinds)).collect()
        };
        let days = self.days(query.first, query.last, &query.filter).await?;
        let steps = self.steps().len();
        let sum = |days: &[Arc<DaySummary>]| {
            let mut sum = DaySummary::empty(query.last, steps);
            for day in days {
                sum.add_counts(day);
            }
            sum
        };
        match query.by {
            None => Ok(vec![QueryRow {
                value: None,
                figures: figures(&sum(&days)),
            }]),
            Some(by @ (Breakdown::Day | Breakdown::Month)) => {
                let bucket = |day: NaiveDate| match by {
                    Breakdown::Month => day.with_day(1).unwrap_or(day),
                    _ => day,
                };
                let mut buckets: BTreeMap<NaiveDate, DaySummary> = query
                    .first
                    .iter_days()
                    .take_while(|day| *day <= query.last)
                    .map(|day| (bucket(day), DaySummary::empty(bucket(day), steps)))
                    .collect();
                for day in &days {
                    if let Some(sum) = buckets.get_mut(&bucket(day.day)) {
                        sum.add_counts(day);
                    }
                }
                Ok(buckets
                    .into_iter()
                    .map(|(day, sum)| QueryRow {
                        value: Some(day.to_string()),
                        figures: figures(&sum),
                    })
                    .collect())
            }
            Some(Breakdown::Hour) => {
                let by_day: BTreeMap<NaiveDate, &DaySummary> =
                    days.iter().map(|day| (day.day, day.as_ref())).collect();
                Ok(query
                    .first
                    .iter_days()
                    .take_while(|day| *day <= query.last)
                    .flat_map(|day| {
                        let summary = by_day.get(&day).copied();
                        (0..24u32).map(move |hour| QueryRow {
                            value: Some(format!("{day} {hour:02}:00:00")),
                            figures: query
                                .metrics
                                .iter()
                                .map(|metric| match (metric, summary) {
                                    (Metric::Visitors, Some(summary)) => {
                                        summary.visits.arrived_in(hour) as f64
                                    }
                                    _ => 0.0,
                                })
                                .collect(),
                        })
                    })
                    .collect())
            }
            Some(Breakdown::By(dimension)) => {
                let all = sum(&days);
                let values = values_of(&all, dimension);
                // People only, visitors only: the day summaries' own
                // counts of each value (what the tab's cards show), read
                // once, instead of the range summed again per row.
                if !query.sums_per_row() {
                    return Ok(values
                        .into_iter()
                        .skip(query.offset)
                        .take(query.limit)
                        .map(|(value, visitors)| QueryRow {
                            value: Some(value),
                            figures: vec![visitors as f64],
                        })
                        .collect());
                }
                let mut rows = Vec::new();
                let limit = query.limit.min(SUMMED_ROWS);
                for (value, _) in values.into_iter().skip(query.offset).take(limit) {
                    let narrowed = query.filter.and(Condition {
                        dimension,
                        op: Op::Is,
                        values: vec![value.clone()],
                    });
                    let days = self.days(query.first, query.last, &narrowed).await?;
                    let kinds = kinds || dimension == Dimension::Kind;
                    rows.push(QueryRow {
                        value: Some(value),
                        figures: query
                            .metrics
                            .iter()
                            .map(|m| m.of(&sum(&days), kinds))
                            .collect(),
                    });
                }
                Ok(rows)
            }
        }
    }

    /// People seen by `store` whose latest request there was at `since`
    /// or after, today (UTC): Plausible's "current visitors" as
    /// visitor-days tell it, from the newest `limit` visitor-days.
    pub async fn people_since(&self, store: &str, since: DateTime<Utc>, limit: usize) -> usize {
        let (mut rows, _) = self.latest_visitors(since.date_naive(), None, limit).await;
        rows.retain(|row| row.store.as_str() == store);
        let recent: std::collections::BTreeSet<_> = rows
            .iter()
            .filter(|row| row.last_seen >= since)
            .map(|row| (row.day, &row.visitor))
            .collect();
        merge_visitors(&rows)
            .iter()
            .filter(|visitor| {
                recent.contains(&(visitor.day, &visitor.visitor))
                    && visitor.kind() == VisitorKind::Person
            })
            .count()
    }

    /// The day summaries from `first` to `last` (days with rows only) of the
    /// visitor-days `filter` lets through: the kept ones without a filter.
    async fn days(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        filter: &Filter,
    ) -> Result<Vec<Arc<DaySummary>>, StoreError> {
        let stores = self.stores();
        let mut marks = Marks::read(stores, first).await;
        self.last_known().fill(&mut marks, Utc::now());
        if filter.is_empty() {
            let read = self
                .cache()
                .summaries(stores, &marks, first, last, self.steps());
            return Ok(within("the day summaries", read).await?.days);
        }
        let read = self.filtered_cache().summaries(
            stores,
            &marks,
            (first, last),
            self.steps(),
            filter,
            self.index(),
        );
        Ok(within("the filtered day summaries", read).await?.days)
    }
}

/// A dimension's values over the summed days with the people visitor-days
/// the summaries count for each (a kind: its visitor-days), most first,
/// then by value. Values summed under "(other …)" are left out.
fn values_of(all: &DaySummary, dimension: Dimension) -> Vec<(String, u64)> {
    let mut counted: BTreeMap<String, u64> = BTreeMap::new();
    let mut count = |value: String, n: u64| *counted.entry(value).or_default() += n;
    let visits = &all.visits;
    let other = |path: &str| path == activity::path::OTHER_PATHS;
    match dimension {
        Dimension::Page => visits
            .readers
            .iter()
            .filter(|(p, _)| !other(p))
            .for_each(|(p, n)| count(p.clone(), *n)),
        Dimension::EntryPage => visits
            .entries
            .iter()
            .filter(|(p, _)| !other(p))
            .for_each(|(p, n)| count(p.clone(), *n)),
        Dimension::ExitPage => visits
            .exits
            .iter()
            .filter(|(p, _)| !other(p))
            .for_each(|(p, n)| count(p.clone(), *n)),
        Dimension::Source => {
            for (group, n) in &all.sources.groups {
                if *group != SourceGroup::Tagged {
                    count(group_word(*group).to_owned(), *n);
                }
            }
            for (tag, n) in &all.sources.tags {
                count(format!("tag:{tag}"), *n);
            }
        }
        Dimension::UtmSource | Dimension::UtmMedium | Dimension::UtmCampaign => {
            for (campaign, n) in &visits.campaigns {
                if *campaign == activity::visits::other_campaigns() {
                    continue;
                }
                let label = match dimension {
                    Dimension::UtmSource => &campaign.source,
                    Dimension::UtmMedium => &campaign.medium,
                    _ => &campaign.name,
                };
                if let Some(label) = label {
                    count(label.clone(), *n);
                }
            }
        }
        Dimension::Goal => {
            for (goal, total) in &all.goals {
                count(goal.to_string(), total.visitor_days.people);
            }
        }
        Dimension::Country => {
            for (country, n) in &all.countries {
                count(country.as_str().to_owned(), *n);
            }
        }
        Dimension::Kind => {
            let kinds = all.kinds;
            for (kind, n) in [
                (VisitorKind::Person, kinds.people),
                (VisitorKind::Bot, kinds.bots),
                (VisitorKind::SelfRead, kinds.self_reads),
            ] {
                if n > 0 {
                    count(kind_word(kind).to_owned(), n);
                }
            }
        }
        Dimension::BotClass | Dimension::Store => {}
    }
    let mut values: Vec<(String, u64)> = counted.into_iter().collect();
    values.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    values
}
