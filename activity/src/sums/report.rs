//! What the dashboard draws, as pure functions over stored rows: each
//! visitor-day's kind, the daily counts by kind, merging several stores,
//! the funnel, source groups and top paths (SPEC §3–§5, §7).

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::request::bot_class::{BotClass, ClassSet};
use crate::request::evidence::Evidence;
use crate::visitor::country::Country;
// The verdict's 0.2 paths: it has its own home now.
use crate::port::page_loads::PageLoads;
use crate::port::rows::{HourRow, VisitorDay};
use crate::request::goal::Goal;
use crate::request::hit::StoreName;
use crate::request::source::{Source, SourceGroup};
pub use crate::sums::funnel::FunnelStep;
use crate::sums::funnel::step_goal;
use crate::verdict::rule::DayCounts;
pub use crate::verdict::rule::{VisitorKind, classes_of, is_disguised, visitor_kind};
use crate::visitor::token::VisitorToken;

/// Requests and visitor-days of one bot class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotCount {
    /// Its requests (a disguised visitor-day's person-looking requests
    /// count as a scanner's).
    pub requests: u64,
    /// Visitor-days of scanners and crawlers that showed it (one
    /// visitor-day can show several classes).
    pub visitor_days: u64,
    /// Of those, claimed crawlers verified by their address (SPEC §3),
    /// counted while their visitor-day rows are kept.
    #[serde(default)]
    pub verified: u64,
}

impl std::ops::AddAssign for BotCount {
    fn add_assign(&mut self, more: Self) {
        self.requests += more.requests;
        self.visitor_days += more.visitor_days;
        self.verified += more.verified;
    }
}

/// One day's visitor-days by kind. The three add up to the total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCounts {
    /// People.
    pub people: u64,
    /// Scanners and crawlers (bots, and agents disguised as people).
    pub bots: u64,
    /// The site's own reads.
    pub self_reads: u64,
}

impl KindCounts {
    /// All visitor-days.
    pub fn total(&self) -> u64 {
        self.people + self.bots + self.self_reads
    }

    /// Counts one more visitor-day of `kind`.
    pub fn add(&mut self, kind: VisitorKind) {
        match kind {
            VisitorKind::Person => self.people += 1,
            VisitorKind::Bot => self.bots += 1,
            VisitorKind::SelfRead => self.self_reads += 1,
        }
    }
}

impl std::ops::AddAssign for KindCounts {
    fn add_assign(&mut self, more: Self) {
        self.people += more.people;
        self.bots += more.bots;
        self.self_reads += more.self_reads;
    }
}

/// One token on one day across every store that saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergedVisitor {
    /// The UTC day.
    pub day: NaiveDate,
    /// The day's token.
    pub visitor: VisitorToken,
    /// The stores that saw it.
    pub stores: BTreeSet<StoreName>,
    /// All counted requests, summed over stores.
    pub requests: u64,
    /// Bot requests, summed.
    pub bots: u64,
    /// Self-reads, summed.
    pub self_reads: u64,
    /// Evidence, over stores.
    pub evidence: Evidence,
    /// Bot classes, over stores.
    pub bot_classes: ClassSet,
    /// Requests per path, summed.
    pub paths: BTreeMap<String, u64>,
    /// Page loads per source, summed.
    pub sources: BTreeMap<Source, u64>,
    /// The country its address was in, if any store knew it.
    pub country: Option<Country>,
    /// Its page loads, over stores.
    #[serde(default)]
    pub pages: PageLoads,
    /// Requests per goal reached, summed.
    #[serde(default)]
    pub goals: BTreeMap<Goal, u64>,
}

impl MergedVisitor {
    /// Whether it took the funnel step named by `path`: requested the path,
    /// or reached the goal of a `goal:NAME` step.
    pub fn took(&self, path: &str) -> bool {
        match step_goal(path) {
            Some(goal) => self.goals.keys().any(|kept| kept.name() == goal),
            None => self.paths.contains_key(path),
        }
    }

    /// Its counts, as the verdict reads them.
    pub fn counts(&self) -> DayCounts {
        DayCounts::new(self.requests, self.bots, self.self_reads, self.evidence)
    }

    /// The kind of this visitor-day.
    pub fn kind(&self) -> VisitorKind {
        self.counts().verdict().kind
    }

    /// The bot classes it counts under (none unless scanners and crawlers).
    pub fn classes(&self) -> ClassSet {
        self.counts().verdict().classes(self.bot_classes)
    }

    /// Whether it was moved to scanners and crawlers for want of evidence.
    pub fn disguised(&self) -> bool {
        self.counts().verdict().disguised()
    }
}

/// Merges visitor-day rows of any number of stores so that one token on one
/// day is one visitor. The result does not depend on the rows' order.
pub fn merge_visitors<'a>(rows: impl IntoIterator<Item = &'a VisitorDay>) -> Vec<MergedVisitor> {
    let mut merged: BTreeMap<(NaiveDate, VisitorToken), MergedVisitor> = BTreeMap::new();
    for row in rows {
        let entry = merged
            .entry((row.day, row.visitor.clone()))
            .or_insert_with(|| MergedVisitor {
                day: row.day,
                visitor: row.visitor.clone(),
                stores: BTreeSet::new(),
                requests: 0,
                bots: 0,
                self_reads: 0,
                evidence: Evidence::NONE,
                bot_classes: ClassSet::default(),
                paths: BTreeMap::new(),
                sources: BTreeMap::new(),
                country: None,
                pages: PageLoads::default(),
                goals: BTreeMap::new(),
            });
        entry.country = entry.country.or(row.country);
        entry.stores.insert(row.store.clone());
        entry.requests += row.requests;
        entry.bots += row.bots;
        entry.self_reads += row.self_reads;
        entry.evidence |= row.evidence;
        entry.bot_classes |= row.bot_classes;
        entry.pages.merge(&row.pages);
        for path in &row.top_paths {
            *entry.paths.entry(path.path.clone()).or_default() += path.requests;
        }
        for source in &row.sources {
            *entry.sources.entry(source.source.clone()).or_default() += source.page_loads;
        }
        for goal in &row.goals {
            *entry.goals.entry(goal.goal.clone()).or_default() += goal.requests;
        }
    }
    merged.into_values().collect()
}

/// People visitor-days by country (`None`: no country known).
pub fn people_by_country(visitors: &[MergedVisitor]) -> BTreeMap<Option<Country>, u64> {
    let mut countries: BTreeMap<Option<Country>, u64> = BTreeMap::new();
    for visitor in visitors.iter().filter(|v| v.kind() == VisitorKind::Person) {
        *countries.entry(visitor.country).or_default() += 1;
    }
    countries
}

/// Visitor-days per day, by kind.
pub fn daily_kinds(visitors: &[MergedVisitor]) -> BTreeMap<NaiveDate, KindCounts> {
    let mut days: BTreeMap<NaiveDate, KindCounts> = BTreeMap::new();
    for visitor in visitors {
        days.entry(visitor.day).or_default().add(visitor.kind());
    }
    days
}

/// Visitor-days per bot class, and the person-looking requests of the
/// disguised ones (which count as a scanner's requests).
pub fn class_visitor_days(visitors: &[MergedVisitor]) -> BTreeMap<BotClass, BotCount> {
    let mut classes: BTreeMap<BotClass, BotCount> = BTreeMap::new();
    for visitor in visitors {
        let verified = u64::from(visitor.evidence.has(Evidence::VERIFIED));
        for class in visitor.classes().iter() {
            let count = classes.entry(class).or_default();
            count.visitor_days += 1;
            count.verified += verified;
        }
        if visitor.disguised() {
            classes.entry(BotClass::Scanner).or_default().requests +=
                visitor.requests - visitor.bots - visitor.self_reads;
        }
    }
    classes
}

/// What retention keeps of visitor-day rows it deletes (SPEC §6): their
/// kinds, and their classes' visitor-days and requests (verified crawlers
/// are counted only while their rows are kept). Each row on its own: rows
/// of one store, day and token are one visitor-day already.
pub fn expiring_totals<'a>(
    rows: impl IntoIterator<Item = &'a VisitorDay>,
) -> (KindCounts, BTreeMap<BotClass, BotCount>) {
    let mut kinds = KindCounts::default();
    let mut classes: BTreeMap<BotClass, BotCount> = BTreeMap::new();
    for row in rows {
        kinds.add(row.counts().verdict().kind);
        for (class, count) in class_visitor_days(&merge_visitors([row])) {
            *classes.entry(class).or_default() += BotCount {
                verified: 0,
                ..count
            };
        }
    }
    (kinds, classes)
}

/// How many people visitor-days took one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunnelCount {
    /// The step's name.
    pub name: String,
    /// People visitor-days that requested any of its paths.
    pub visitors: u64,
    /// `visitors` as a share of the first step's (0 when the first is 0).
    pub share_of_first: f64,
}

/// The funnel: for each step, the people visitor-days that took it.
pub fn funnel(visitors: &[MergedVisitor], steps: &[FunnelStep]) -> Vec<FunnelCount> {
    funnel_of_counts(steps, &step_counts(visitors, steps))
}

/// For each step, how many people visitor-days requested any of its paths.
pub fn step_counts(visitors: &[MergedVisitor], steps: &[FunnelStep]) -> Vec<u64> {
    let people: Vec<&MergedVisitor> = visitors
        .iter()
        .filter(|v| v.kind() == VisitorKind::Person)
        .collect();
    steps
        .iter()
        .map(|step| {
            people
                .iter()
                .filter(|v| step.paths.iter().any(|path| v.took(path)))
                .count() as u64
        })
        .collect()
}

/// The funnel from each step's count (`counts` in the steps' order).
pub fn funnel_of_counts(steps: &[FunnelStep], counts: &[u64]) -> Vec<FunnelCount> {
    let first = counts.first().copied().unwrap_or(0);
    steps
        .iter()
        .zip(counts.iter().copied())
        .map(|(step, visitors)| FunnelCount {
            name: step.name.clone(),
            visitors,
            share_of_first: if first == 0 {
                0.0
            } else {
                visitors as f64 / first as f64
            },
        })
        .collect()
}

/// People visitor-days by where they came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceReport {
    /// Per group; a visitor-day with sources in two groups counts in both,
    /// one with none counts as typed and unknown.
    pub groups: BTreeMap<SourceGroup, u64>,
    /// Per tag, for the tagged group broken out.
    pub tags: BTreeMap<String, u64>,
}

impl SourceReport {
    /// Counts `visitor_days` people visitor-days whose page loads came from
    /// exactly `sources` (each source once; none: typed or unknown).
    pub fn add<'a>(&mut self, sources: impl IntoIterator<Item = &'a Source>, visitor_days: u64) {
        let mut groups = BTreeSet::new();
        for source in sources {
            groups.insert(SourceGroup::of(Some(source)));
            if let Source::Tag(tag) = source {
                *self.tags.entry(tag.clone()).or_default() += visitor_days;
            }
        }
        if groups.is_empty() {
            groups.insert(SourceGroup::Typed);
        }
        for group in groups {
            *self.groups.entry(group).or_default() += visitor_days;
        }
    }

    /// Adds another report (of other days) to this one.
    pub fn absorb(&mut self, other: &SourceReport) {
        for (group, count) in &other.groups {
            *self.groups.entry(*group).or_default() += count;
        }
        for (tag, count) in &other.tags {
            *self.tags.entry(tag.clone()).or_default() += count;
        }
    }
}

/// Where the people came from.
pub fn source_groups(visitors: &[MergedVisitor]) -> SourceReport {
    let mut report = SourceReport::default();
    for visitor in visitors.iter().filter(|v| v.kind() == VisitorKind::Person) {
        report.add(visitor.sources.keys(), 1);
    }
    report
}

/// Requests to one path over a range, by kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathTotal {
    /// The cleaned path.
    pub path: String,
    /// All requests.
    pub requests: u64,
    /// By people.
    pub people: u64,
    /// By bots.
    pub bots: u64,
    /// By the site itself.
    pub self_reads: u64,
}

impl PathTotal {
    /// Nothing requested yet.
    pub fn new(path: &str) -> Self {
        Self {
            path: path.to_owned(),
            requests: 0,
            people: 0,
            bots: 0,
            self_reads: 0,
        }
    }

    /// Adds another total of the same path.
    pub fn absorb(&mut self, other: &PathTotal) {
        self.requests += other.requests;
        self.people += other.people;
        self.bots += other.bots;
        self.self_reads += other.self_reads;
    }
}

/// Every path's requests, summed over hours and stores, by path.
pub fn path_totals<'a>(hours: impl IntoIterator<Item = &'a HourRow>) -> Vec<PathTotal> {
    let mut totals: BTreeMap<&str, PathTotal> = BTreeMap::new();
    for row in hours {
        totals
            .entry(&row.path)
            .or_insert_with(|| PathTotal::new(&row.path))
            .absorb(&PathTotal {
                path: String::new(),
                requests: row.requests,
                people: row.people(),
                bots: row.bots,
                self_reads: row.self_reads,
            });
    }
    totals.into_values().collect()
}

/// The `limit` most requested paths (ties by path), totals of one path summed.
pub fn top_of<'a>(totals: impl IntoIterator<Item = &'a PathTotal>, limit: usize) -> Vec<PathTotal> {
    let mut summed: BTreeMap<&str, PathTotal> = BTreeMap::new();
    for total in totals {
        summed
            .entry(&total.path)
            .or_insert_with(|| PathTotal::new(&total.path))
            .absorb(total);
    }
    let mut totals: Vec<PathTotal> = summed.into_values().collect();
    totals.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then_with(|| a.path.cmp(&b.path))
    });
    totals.truncate(limit);
    totals
}

/// The `limit` most requested paths (ties by path), summed over hours and stores.
pub fn top_paths<'a>(hours: impl IntoIterator<Item = &'a HourRow>, limit: usize) -> Vec<PathTotal> {
    top_of(&path_totals(hours), limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::rows::{PathCount, SourceCount};
    use crate::visitor::address::Network;
    use chrono::{TimeZone, Utc};

    fn token(n: u8) -> VisitorToken {
        serde_json::from_value(serde_json::json!(format!("{n:032x}"))).expect("a token")
    }

    fn row(
        store: &str,
        day: u32,
        visitor: u8,
        counts: (u64, u64, u64),
        paths: &[&str],
        sources: &[&str],
    ) -> VisitorDay {
        let (people, bots, own) = counts;
        let day = NaiveDate::from_ymd_opt(2026, 11, day).expect("a day");
        let seen = Utc.from_utc_datetime(&day.and_hms_opt(9, 0, 0).expect("a time"));
        VisitorDay {
            store: StoreName::parse(store).expect("a name"),
            day,
            visitor: token(visitor),
            network: Network::of(None),
            country: None,
            first_seen: seen,
            last_seen: seen,
            requests: people + bots + own,
            bots,
            self_reads: own,
            evidence: Evidence::FILES,
            bot_classes: ClassSet::default(),
            top_paths: paths
                .iter()
                .map(|p| PathCount {
                    path: (*p).to_owned(),
                    requests: 1,
                })
                .collect(),
            sources: sources
                .iter()
                .map(|s| SourceCount {
                    source: Source::try_from((*s).to_owned()).expect("a source"),
                    page_loads: 1,
                })
                .collect(),
            pages: Default::default(),
            goals: Vec::new(),
        }
    }

    #[test]
    fn a_visitor_day_is_exactly_one_kind() {
        let files = Evidence::FILES;
        assert_eq!(visitor_kind(3, 1, 1, files), VisitorKind::Person);
        assert_eq!(visitor_kind(2, 1, 1, files), VisitorKind::Bot);
        assert_eq!(visitor_kind(2, 0, 2, files), VisitorKind::SelfRead);
        assert_eq!(visitor_kind(0, 0, 0, files), VisitorKind::SelfRead);
        // Person-looking requests without a browser's evidence, or with an
        // impostor's sign: scanners and crawlers (disguised).
        assert_eq!(visitor_kind(3, 1, 1, Evidence::NONE), VisitorKind::Bot);
        assert!(is_disguised(3, 1, 1, Evidence::NONE));
        assert_eq!(
            visitor_kind(1, 0, 0, files | Evidence::OLD_PROTOCOL),
            VisitorKind::Bot
        );
        assert_eq!(visitor_kind(1, 0, 0, Evidence::WAIVED), VisitorKind::Person);
        assert_eq!(visitor_kind(1, 0, 1, Evidence::NONE), VisitorKind::SelfRead);
        let mut googlebot = ClassSet::default();
        googlebot.insert(BotClass::SearchEngine);
        assert_eq!(classes_of(2, 2, 0, Evidence::NONE, googlebot), googlebot);
        assert!(
            classes_of(2, 1, 0, files, googlebot).is_empty(),
            "people have no class"
        );
        assert!(
            classes_of(1, 0, 0, Evidence::NONE, ClassSet::default()).contains(BotClass::Scanner)
        );
    }

    #[test]
    fn one_token_on_two_stores_is_one_visitor() {
        let rows = [
            row("sqlite", 1, 1, (0, 2, 0), &["/"], &[]),
            row("postgres", 1, 1, (1, 0, 0), &["/about"], &[]),
            row("sqlite", 2, 1, (0, 0, 1), &["/"], &[]),
        ];
        let merged = merge_visitors(&rows);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].stores.len(), 2);
        assert_eq!(
            merged[0].kind(),
            VisitorKind::Person,
            "a person request on either store"
        );
        let days = daily_kinds(&merged);
        let first = days[&NaiveDate::from_ymd_opt(2026, 11, 1).expect("a day")];
        assert_eq!((first.people, first.bots, first.self_reads), (1, 0, 0));
    }

    #[test]
    fn the_funnel_counts_people_visitor_days_per_step() {
        let rows = [
            row(
                "sqlite",
                1,
                1,
                (3, 0, 0),
                &["/", "/inventory", "/resume.pdf"],
                &[],
            ),
            row("sqlite", 1, 2, (2, 0, 0), &["/", "/about"], &[]),
            row("sqlite", 1, 3, (1, 0, 0), &["/"], &[]),
            row("sqlite", 1, 4, (0, 5, 0), &["/", "/resume"], &[]),
        ];
        let steps = funnel(&merge_visitors(&rows), &crate::testing::sample::funnel());
        let counts: Vec<u64> = steps.iter().map(|step| step.visitors).collect();
        assert_eq!(counts, [3, 1, 1, 1]);
        assert!((steps[3].share_of_first - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(
            funnel(&[], &crate::testing::sample::funnel())[0].share_of_first,
            0.0
        );
    }

    #[test]
    fn sources_are_grouped_with_tags_broken_out() {
        let rows = [
            row(
                "sqlite",
                1,
                1,
                (1, 0, 0),
                &["/"],
                &["www.linkedin.com", "tag:resume"],
            ),
            row("sqlite", 1, 2, (1, 0, 0), &["/"], &["tag:resume"]),
            row("sqlite", 1, 3, (1, 0, 0), &["/"], &[]),
            row("sqlite", 1, 4, (0, 1, 0), &["/"], &["www.google.com"]),
        ];
        let report = source_groups(&merge_visitors(&rows));
        assert_eq!(report.groups[&SourceGroup::LinkedIn], 1);
        assert_eq!(report.groups[&SourceGroup::Tagged], 2);
        assert_eq!(report.groups[&SourceGroup::Typed], 1);
        assert!(
            !report.groups.contains_key(&SourceGroup::Search),
            "bots are not readers"
        );
        assert_eq!(report.tags["resume"], 2);
    }

    #[test]
    fn top_paths_sum_hours_and_stores() {
        let hour = |store: &str, path: &str, requests, bots, own| HourRow {
            store: StoreName::parse(store).expect("a name"),
            hour: Utc
                .with_ymd_and_hms(2026, 11, 1, 9, 0, 0)
                .single()
                .expect("a time"),
            path: path.to_owned(),
            requests,
            bots,
            self_reads: own,
        };
        let rows = [
            hour("sqlite", "/", 5, 1, 1),
            hour("postgres", "/", 4, 0, 0),
            hour("sqlite", "/about", 9, 9, 0),
            hour("sqlite", "/resume", 1, 0, 0),
        ];
        let top = top_paths(&rows, 2);
        assert_eq!(top.len(), 2);
        assert_eq!(
            (top[0].path.as_str(), top[0].requests, top[0].people),
            ("/", 9, 7)
        );
        assert_eq!((top[1].path.as_str(), top[1].bots), ("/about", 9));
    }
}
