//! One day's visitor-days, merged across stores, held compactly in memory
//! for filtered reads: each text (a path, a campaign) and each set of
//! sources kept once and numbered (goals too), each row its counts, its verdict (kind,
//! classes) and the numbers of its texts; and for every filter dimension
//! which rows hold which text ([`filter::held_texts`], the filter's own
//! rule), so that a filter picks its rows by the distinct texts it
//! matches, not by reading every row.
//!
//! The rows a filter picks are summed here by number, as a store's engine
//! sums them (`stores/sql/src/summary.rs`): this is the index's twin of
//! `summary::summarize_filtered`, the reference, and the tests hold it to
//! the reference on every dimension and comparison. No token or address
//! is kept, and of times only the hour a visitor-day arrived in.

use std::collections::{BTreeMap, HashMap};

use activity::bot_class::{BotClass, ClassSet};
use activity::campaign::Campaign;
use activity::country::Country;
use activity::evidence::Evidence;
use activity::filter::{self, Dimension, Filter};
use activity::funnel::step_goal;
use activity::goal::Goal;
use activity::report::{BotCount, FunnelStep, MergedVisitor, PathTotal, VisitorKind};
use activity::source::Source;
use activity::summary::{DaySummary, DaySums, GoalTotal};
use activity::visits::arrival_hour;
use chrono::NaiveDate;
use fixedbitset::FixedBitSet;

/// Where a row's paths start in the day's list of paths, and how many.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

/// One visitor-day: its counts, its verdict, its texts by number.
#[derive(Debug)]
struct Row {
    requests: u64,
    bots: u64,
    self_reads: u64,
    kind: VisitorKind,
    /// The classes it counts under (the verdict's).
    classes: ClassSet,
    /// Moved to scanners and crawlers for want of evidence.
    disguised: bool,
    /// A claimed crawler verified by its address.
    verified: bool,
    country: Option<Country>,
    page_loads: u64,
    stay_ms: u64,
    visits: u64,
    /// Its entry page (by number) and the UTC hour it arrived in.
    entry: Option<(u32, u8)>,
    /// Its exit page and campaign, by number.
    exit: Option<u32>,
    campaign: Option<u32>,
    /// Its set of sources, by number in `source_sets`.
    sources: u32,
    paths: Span,
    /// Its goals, in `goal_requests`.
    goals: Span,
}

/// One day's visitor-days, held for filtered reads.
#[derive(Debug)]
pub(crate) struct DayRows {
    day: NaiveDate,
    /// Paths by number.
    paths: Vec<Box<str>>,
    campaigns: Vec<Campaign>,
    /// Each distinct set of sources a visitor-day came from.
    source_sets: Vec<Vec<Source>>,
    rows: Vec<Row>,
    /// Every row's paths (by number) and requests, row after row.
    requests: Vec<(u32, u64)>,
    /// Goals by number.
    goals: Vec<Goal>,
    /// Every row's goals (by number) and requests, row after row.
    goal_requests: Vec<(u32, u64)>,
    /// Per dimension (in [`Dimension::ALL`]'s order): each text held, with
    /// the rows that hold it.
    held: Vec<Vec<(Box<str>, Vec<u32>)>>,
}

/// Values kept once, each by its number.
struct Numbered<T> {
    numbers: HashMap<T, u32>,
    values: Vec<T>,
}

impl<T> Default for Numbered<T> {
    fn default() -> Self {
        Self {
            numbers: HashMap::new(),
            values: Vec::new(),
        }
    }
}

impl<T: Clone + Eq + std::hash::Hash> Numbered<T> {
    /// The number of `value`; `None` past four billion values.
    fn number(&mut self, value: &T) -> Option<u32> {
        if let Some(number) = self.numbers.get(value) {
            return Some(*number);
        }
        let number = u32::try_from(self.values.len()).ok()?;
        self.values.push(value.clone());
        self.numbers.insert(value.clone(), number);
        Some(number)
    }
}

impl DayRows {
    /// Holds `visitors` (one day's, merged across stores). `None` when a
    /// list is too long to number (billions: never on a real day); such a
    /// day is summed by the stores.
    pub(crate) fn new(day: NaiveDate, visitors: &[MergedVisitor]) -> Option<Self> {
        let mut paths: Numbered<Box<str>> = Numbered::default();
        let mut campaigns: Numbered<Campaign> = Numbered::default();
        let mut source_sets: Numbered<Vec<Source>> = Numbered::default();
        let mut goals: Numbered<Goal> = Numbered::default();
        let mut rows = Vec::with_capacity(visitors.len());
        let mut requests = Vec::new();
        let mut goal_requests = Vec::new();
        let mut held: Vec<BTreeMap<Box<str>, Vec<u32>>> =
            vec![BTreeMap::new(); Dimension::ALL.len()];
        for (at, visitor) in visitors.iter().enumerate() {
            let at = u32::try_from(at).ok()?;
            let start = u32::try_from(requests.len()).ok()?;
            for (path, count) in &visitor.paths {
                requests.push((paths.number(&path.as_str().into())?, *count));
            }
            let span = Span {
                start,
                len: u32::try_from(requests.len()).ok()? - start,
            };
            let goal_start = u32::try_from(goal_requests.len()).ok()?;
            for (goal, count) in &visitor.goals {
                goal_requests.push((goals.number(goal)?, *count));
            }
            let goal_span = Span {
                start: goal_start,
                len: u32::try_from(goal_requests.len()).ok()? - goal_start,
            };
            let pages = &visitor.pages;
            let entry = match &pages.entry {
                Some(page) => Some((
                    paths.number(&page.path.as_str().into())?,
                    u8::try_from(arrival_hour(page.at)).ok()?,
                )),
                None => None,
            };
            let exit = match &pages.exit {
                Some(page) => Some(paths.number(&page.path.as_str().into())?),
                None => None,
            };
            let campaign = match &pages.campaign {
                Some(at) => Some(campaigns.number(&at.campaign)?),
                None => None,
            };
            let sources: Vec<Source> = visitor.sources.keys().cloned().collect();
            let verdict = visitor.counts().verdict();
            rows.push(Row {
                requests: visitor.requests,
                bots: visitor.bots,
                self_reads: visitor.self_reads,
                kind: verdict.kind,
                classes: verdict.classes(visitor.bot_classes),
                disguised: verdict.disguised(),
                verified: visitor.evidence.has(Evidence::VERIFIED),
                country: visitor.country,
                page_loads: pages.count,
                stay_ms: pages.stay_ms,
                visits: pages.visits,
                entry,
                exit,
                campaign,
                sources: source_sets.number(&sources)?,
                paths: span,
                goals: goal_span,
            });
            for (dimension, held) in Dimension::ALL.iter().zip(held.iter_mut()) {
                for text in filter::held_texts(visitor, *dimension) {
                    held.entry(text.as_ref().into()).or_default().push(at);
                }
            }
        }
        Some(Self {
            day,
            paths: paths.values,
            campaigns: campaigns.values,
            source_sets: source_sets.values,
            rows,
            requests,
            goals: goals.values,
            goal_requests,
            held: held
                .into_iter()
                .map(|held| held.into_iter().collect())
                .collect(),
        })
    }

    /// How many visitor-days it holds.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// About how many bytes it holds: its rows, lists and texts (not the
    /// allocator's own).
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        let held: usize = self
            .held
            .iter()
            .flatten()
            .map(|(text, rows)| text.len() + size_of::<(Box<str>, Vec<u32>)>() + rows.len() * 4)
            .sum();
        let texts: usize = self.paths.iter().map(|path| path.len() + 16).sum();
        let sources: usize = self
            .source_sets
            .iter()
            .map(|set| 24 + set.len() * (size_of::<Source>() + 16))
            .sum();
        let goals: usize = self.goals.iter().map(|goal| goal.name().len() + 24).sum();
        self.rows.len() * size_of::<Row>()
            + (self.requests.len() + self.goal_requests.len()) * size_of::<(u32, u64)>()
            + goals
            + held
            + texts
            + sources
            + self.campaigns.len() * (size_of::<Campaign>() + 48)
    }

    /// The rows `filter` lets through.
    fn chosen(&self, filter: &Filter) -> FixedBitSet {
        let mut chosen = FixedBitSet::with_capacity(self.rows.len());
        chosen.insert_range(..);
        for condition in &filter.conditions {
            let Some(at) = Dimension::ALL
                .iter()
                .position(|d| *d == condition.dimension)
            else {
                continue;
            };
            let mut holding = FixedBitSet::with_capacity(self.rows.len());
            for (text, rows) in &self.held[at] {
                if condition.matches_text(text) {
                    holding.extend(rows.iter().map(|row| *row as usize));
                }
            }
            if condition.op.negated() {
                holding.toggle_range(..);
            }
            chosen.intersect_with(&holding);
        }
        chosen
    }

    /// The day summed under `filter` (`None`: no visitor-day passes it),
    /// as `summary::summarize_filtered` sums it: visitor-days by kind;
    /// people's sources, countries, visits, pages' readers and funnel
    /// steps; classes' visitor-days and requests; paths' requests by kind;
    /// goals' visitor-days by kind and requests.
    pub(crate) fn summary(&self, steps: &[FunnelStep], filter: &Filter) -> Option<DaySummary> {
        let chosen = self.chosen(filter);
        if chosen.is_clear() {
            return None;
        }
        // Which steps each path takes.
        let path_steps: Vec<Vec<usize>> = self
            .paths
            .iter()
            .map(|path| {
                steps
                    .iter()
                    .enumerate()
                    .filter(|(_, step)| step.paths.iter().any(|p| p.as_str() == &**path))
                    .map(|(at, _)| at)
                    .collect()
            })
            .collect();
        // Which steps each goal takes (`goal:NAME`).
        let goal_steps: Vec<Vec<usize>> = self
            .goals
            .iter()
            .map(|goal| {
                steps
                    .iter()
                    .enumerate()
                    .filter(|(_, step)| {
                        step.paths.iter().any(|p| step_goal(p) == Some(goal.name()))
                    })
                    .map(|(at, _)| at)
                    .collect()
            })
            .collect();
        let mut tally = Tally::new(self, steps.len());
        let mut took = FixedBitSet::with_capacity(steps.len());
        for at in chosen.ones() {
            let row = &self.rows[at];
            let paths = &self.requests[row.paths.range()];
            tally.kinds.add(row.kind);
            for class in row.classes.iter() {
                let count = tally.bots.entry(class).or_default();
                count.visitor_days += 1;
                count.verified += u64::from(row.verified);
                count.requests += row.bots;
            }
            if row.disguised {
                tally.bots.entry(BotClass::Scanner).or_default().requests +=
                    row.requests - row.bots - row.self_reads;
            }
            for (path, requests) in paths {
                let total = tally.paths[*path as usize]
                    .get_or_insert_with(|| PathTotal::new(&self.paths[*path as usize]));
                total.requests += requests;
                match row.kind {
                    VisitorKind::Person => total.people += requests,
                    VisitorKind::Bot => total.bots += requests,
                    VisitorKind::SelfRead => total.self_reads += requests,
                }
            }
            let goals = &self.goal_requests[row.goals.range()];
            for (goal, requests) in goals {
                let total = tally.goals.entry(*goal).or_default();
                total.visitor_days.add(row.kind);
                total.requests += requests;
            }
            if row.kind != VisitorKind::Person {
                continue;
            }
            tally.source_sets[row.sources as usize] += 1;
            *tally.countries.entry(row.country).or_default() += 1;
            took.clear();
            for (path, _) in paths {
                tally.readers[*path as usize] += 1;
                took.extend(path_steps[*path as usize].iter().copied());
            }
            for (goal, _) in goals {
                took.extend(goal_steps[*goal as usize].iter().copied());
            }
            for step in took.ones() {
                tally.steps[step] += 1;
            }
            // VisitSums::add's twin: a visitor-day without a page load adds
            // nothing.
            if row.page_loads > 0 {
                let visits = &mut tally.visits;
                visits.visitor_days += 1;
                visits.page_loads += row.page_loads;
                visits.one_page += u64::from(row.page_loads == 1);
                visits.visits += row.visits;
                visits.stay_ms += row.stay_ms;
                if let Some((entry, hour)) = row.entry {
                    tally.entries[entry as usize] += 1;
                    visits.arrivals[usize::from(hour)] += 1;
                }
                if let Some(exit) = row.exit {
                    tally.exits[exit as usize] += 1;
                }
                if let Some(campaign) = row.campaign {
                    tally.campaigns[campaign as usize] += 1;
                }
            }
        }
        Some(tally.finish(self))
    }
}

/// What the chosen rows add up to, by number; made a summary at the end.
struct Tally {
    kinds: activity::report::KindCounts,
    bots: BTreeMap<BotClass, BotCount>,
    /// Per path: its requests by kind, once a chosen row requested it.
    paths: Vec<Option<PathTotal>>,
    source_sets: Vec<u64>,
    countries: BTreeMap<Option<Country>, u64>,
    readers: Vec<u64>,
    steps: Vec<u64>,
    visits: activity::visits::VisitSums,
    entries: Vec<u64>,
    exits: Vec<u64>,
    campaigns: Vec<u64>,
    goals: BTreeMap<u32, GoalTotal>,
}

impl Tally {
    fn new(day: &DayRows, steps: usize) -> Self {
        Self {
            kinds: Default::default(),
            bots: BTreeMap::new(),
            paths: vec![None; day.paths.len()],
            source_sets: vec![0; day.source_sets.len()],
            countries: BTreeMap::new(),
            readers: vec![0; day.paths.len()],
            steps: vec![0; steps],
            visits: Default::default(),
            entries: vec![0; day.paths.len()],
            exits: vec![0; day.paths.len()],
            campaigns: vec![0; day.campaigns.len()],
            goals: BTreeMap::new(),
        }
    }

    /// The day's summary, its lists by name and cut as every day's are.
    fn finish(self, day: &DayRows) -> DaySummary {
        let by_path = |counts: Vec<u64>| -> BTreeMap<String, u64> {
            counts
                .into_iter()
                .zip(&day.paths)
                .filter(|(count, _)| *count > 0)
                .map(|(count, path)| (path.to_string(), count))
                .collect()
        };
        let mut sums = DaySums::new(self.steps.len());
        let summary = sums.day(day.day);
        summary.kinds = self.kinds;
        for (set, count) in self.source_sets.iter().enumerate() {
            if *count > 0 {
                summary.sources.add(&day.source_sets[set], *count);
            }
        }
        summary.steps = self.steps;
        summary.bots = self.bots;
        for (country, count) in self.countries {
            summary.add_country(country, count);
        }
        summary.paths = self.paths.into_iter().flatten().collect();
        summary.goals = self
            .goals
            .into_iter()
            .map(|(goal, total)| (day.goals[goal as usize].clone(), total))
            .collect();
        summary.visits = activity::visits::VisitSums {
            entries: by_path(self.entries),
            exits: by_path(self.exits),
            readers: by_path(self.readers),
            campaigns: self
                .campaigns
                .into_iter()
                .zip(&day.campaigns)
                .filter(|(count, _)| *count > 0)
                .map(|(count, campaign)| (campaign.clone(), count))
                .collect(),
            ..self.visits
        };
        sums.finish()
            .pop()
            .unwrap_or_else(|| DaySummary::empty(day.day, 0))
    }
}
