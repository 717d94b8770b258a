//! The rows a store keeps, and what a store says about itself (SPEC §6).
//!
//! No row holds one request: activity is kept per hour and path, and per
//! visitor-day. A visitor-day row holds a token and a network, never an
//! address; its paths and sources are the same cleaned values a hit carries.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::port::page_loads::{Load, PageLoads};
use crate::request::bot_class::{BotClass, ClassSet};
use crate::request::evidence::{Evidence, Shape};
use crate::request::goal::{GOALS_PER_VISITOR_DAY, Goal};
use crate::request::kind::Kind;
use crate::visitor::address::Network;
use crate::visitor::country::Country;
// 0.2's path of what the writer's queue carries.
use crate::request::hit::{Hit, StoreName};
use crate::request::mark::FilesMark;
pub use crate::request::seen::Seen;
use crate::request::source::Source;
use crate::verdict::rule::DayCounts;
use crate::visitor::token::VisitorToken;

/// Requests to one path in one hour, on one store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HourRow {
    /// The store that served them.
    pub store: StoreName,
    /// The start of the hour (UTC).
    pub hour: DateTime<Utc>,
    /// The cleaned path.
    pub path: String,
    /// All counted requests.
    pub requests: u64,
    /// How many of them were bots.
    pub bots: u64,
    /// How many of them were the site's own reads.
    pub self_reads: u64,
}

impl HourRow {
    /// The row of an hour's counts as a fold keeps them: requests, bots,
    /// self-reads.
    pub(crate) fn of_counts(
        (store, hour, path): (StoreName, DateTime<Utc>, String),
        [requests, bots, self_reads]: [u64; 3],
    ) -> Self {
        Self {
            store,
            hour,
            path,
            requests,
            bots,
            self_reads,
        }
    }

    /// The requests made by people.
    pub fn people(&self) -> u64 {
        self.requests.saturating_sub(self.bots + self.self_reads)
    }
}

/// Requests that reached one goal in one hour, on one store: what a goal
/// keeps after its visitor-days expire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalHour {
    /// The store that served them.
    pub store: StoreName,
    /// The start of the hour (UTC).
    pub hour: DateTime<Utc>,
    /// The goal.
    pub goal: Goal,
    /// All counted requests that reached it.
    pub requests: u64,
    /// How many of them were bots.
    pub bots: u64,
    /// How many of them were the site's own reads.
    pub self_reads: u64,
}

/// How often a path was requested within a visitor-day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathCount {
    /// The cleaned path.
    pub path: String,
    /// Requests for it.
    pub requests: u64,
}

/// How often a source brought a visitor within a visitor-day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceCount {
    /// The referrer's host or the link's tag.
    pub source: Source,
    /// Page loads it brought.
    pub page_loads: u64,
}

/// How often a visitor-day's requests reached a goal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalCount {
    /// The goal.
    pub goal: Goal,
    /// Its requests that reached it.
    pub requests: u64,
}

/// One visitor token on one UTC day, on one store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitorDay {
    /// The store that served the requests.
    pub store: StoreName,
    /// The UTC day.
    pub day: NaiveDate,
    /// The day's token (it means nothing on any other day).
    pub visitor: VisitorToken,
    /// The network the requests came from (the last one seen).
    pub network: Network,
    /// The country its address was in (the last one known), if the table
    /// knew one: a code, nothing finer.
    #[serde(default)]
    pub country: Option<Country>,
    /// The first request of the day.
    pub first_seen: DateTime<Utc>,
    /// The last request of the day.
    pub last_seen: DateTime<Utc>,
    /// All counted requests.
    pub requests: u64,
    /// How many of them were bots.
    pub bots: u64,
    /// How many of them were the site's own reads.
    pub self_reads: u64,
    /// What its requests showed of a browser or of an impostor.
    pub evidence: Evidence,
    /// The classes of its bot requests.
    pub bot_classes: ClassSet,
    /// The most requested paths, most first.
    pub top_paths: Vec<PathCount>,
    /// The sources of its page loads, most first.
    pub sources: Vec<SourceCount>,
    /// Its page loads as visits: entry and exit page, time on site.
    #[serde(default)]
    pub pages: PageLoads,
    /// The goals its requests reached, most first (at most
    /// [`GOALS_PER_VISITOR_DAY`], the rest under `(other goals)`).
    #[serde(default)]
    pub goals: Vec<GoalCount>,
}

/// Whether a store can keep activity right now, in words a page can show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Availability {
    /// Whether it is keeping activity.
    pub available: bool,
    /// One sentence: where it keeps it, or why it cannot.
    pub reason: String,
    /// How long a kept row lasts, in the store's own words.
    pub retention: String,
}

/// What keeping activity has cost a store since it started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// Writes and reads performed.
    pub operations: u64,
    /// Of those, how many failed.
    pub failures: u64,
    /// Time spent in them.
    pub time: Duration,
    /// What the engine bills in, when it bills (e.g. `(1200, "read units")`).
    pub units: Option<(u64, String)>,
}

/// Bot requests of one class on one day, on one store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotDay {
    /// The store that served them.
    pub store: StoreName,
    /// The UTC day.
    pub day: NaiveDate,
    /// The class.
    pub class: BotClass,
    /// Its requests.
    pub requests: u64,
}

/// A batch of hits folded into the rows a store keeps: what one write adds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    /// Per store, hour and path: the requests to add.
    pub hours: Vec<HourRow>,
    /// Per store, day and token: the requests, paths and sources to add
    /// (every path of the batch; a store keeps them all and reads the top ones).
    pub visitors: Vec<VisitorDay>,
    /// Visitor-days not in `visitors` that fetched one of the page's own
    /// files: a store sets [`Evidence::FILES`] on the rows it already has
    /// (a mark for a row it has not is dropped: nothing to mark).
    pub marks: Vec<FilesMark>,
    /// Per store, day and class: the bot requests to add.
    pub bot_days: Vec<BotDay>,
    /// Per store, hour and goal: the requests that reached it.
    #[serde(default)]
    pub goal_hours: Vec<GoalHour>,
    /// How many hits the batch holds.
    pub hits: u64,
    /// How many marks of file requests it took in, whether they found their
    /// visitor-day in the batch or wait in [`marks`](Self::marks).
    #[serde(default)]
    pub files: u64,
    /// The write's name, when the writer gave it one: a store that keeps
    /// the names of the writes it applied adds a batch of a name it has
    /// seen nothing (the same batch sent again after a lost reply, or
    /// again from a journal after a restart, counts once).
    #[serde(default)]
    pub id: Option<BatchId>,
}

/// The name of one write: 32 hexadecimal digits, made at random by the
/// writer, kept with the batch until the store has taken it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BatchId(String);

impl BatchId {
    /// A name from 16 random bytes.
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(format!("{:032x}", u128::from_be_bytes(bytes)))
    }

    /// The name as text (what a store keeps).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for BatchId {
    type Error = &'static str;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        if text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Self(text.to_ascii_lowercase()))
        } else {
            Err("a batch's name is 32 hexadecimal digits")
        }
    }
}

impl From<BatchId> for String {
    fn from(id: BatchId) -> Self {
        id.0
    }
}

impl std::fmt::Display for BatchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Batch {
    /// Folds hits into rows. The order of the hits does not matter.
    pub fn fold<'a>(hits: impl IntoIterator<Item = &'a Hit>) -> Self {
        Self::fold_seen(hits.into_iter().map(SeenRef::Hit))
    }

    /// Folds what the writer took from the queue into rows: hits, and the
    /// marks of file requests (on a visitor-day of the batch, the mark is
    /// set on its row; else it is kept for the store). The order does not matter.
    pub fn fold_all<'a>(seen: impl IntoIterator<Item = &'a Seen>) -> Self {
        Self::fold_seen(seen.into_iter().map(|seen| match seen {
            Seen::Hit(hit) => SeenRef::Hit(hit),
            Seen::Files(mark) | Seen::Scripts(mark) => SeenRef::Files(mark),
        }))
    }

    /// Folds with keys borrowed from the hits: a row already in the fold
    /// costs a lookup, no copy; each distinct row's text is copied once,
    /// at the end.
    fn fold_seen<'a>(seen: impl Iterator<Item = SeenRef<'a>>) -> Self {
        let mut hours: FastMap<(&'a StoreName, DateTime<Utc>, &'a str), [u64; 3]> =
            FastMap::default();
        let mut visitors: FastMap<(&'a StoreName, NaiveDate, &'a VisitorToken), VisitorFold<'a>> =
            FastMap::default();
        let mut bot_days: FastMap<(&'a StoreName, NaiveDate, BotClass), u64> = FastMap::default();
        let mut goal_hours: FastMap<(&'a StoreName, DateTime<Utc>, &'a Goal), [u64; 3]> =
            FastMap::default();
        let mut marks: BTreeSet<&'a FilesMark> = BTreeSet::new();
        let (mut count, mut files) = (0, 0);
        for item in seen {
            let hit = match item {
                SeenRef::Hit(hit) => hit,
                SeenRef::Files(mark) => {
                    files += 1;
                    marks.insert(mark);
                    continue;
                }
            };
            count += 1;
            let (bot, own) = match hit.kind {
                Kind::Person => (0, 0),
                Kind::Bot => (1, 0),
                Kind::SelfRead => (0, 1),
            };
            let hour = hour_of(hit.at);
            let row = hours.entry((&hit.store, hour, &hit.path)).or_default();
            row[0] += 1;
            row[1] += bot;
            row[2] += own;
            if let Some(goal) = &hit.goal {
                let row = goal_hours.entry((&hit.store, hour, goal)).or_default();
                row[0] += 1;
                row[1] += bot;
                row[2] += own;
            }

            let day = hit.at.date_naive();
            if let Some(class) = hit.bot_class {
                *bot_days.entry((&hit.store, day, class)).or_default() += 1;
            }
            visitors
                .entry((&hit.store, day, &hit.visitor))
                .or_insert_with(|| VisitorFold::new(hit))
                .add(hit, bot, own);
        }
        marks.retain(
            |mark| match visitors.get_mut(&(&mark.store, mark.day, &mark.visitor)) {
                Some(visitor) => {
                    visitor.row.evidence |= Evidence::FILES;
                    false
                }
                None => true,
            },
        );
        // Rows in key order, as a store takes them (whatever the map's order).
        Self {
            hours: sorted(hours)
                .into_iter()
                .map(|((store, hour, path), counts)| {
                    HourRow::of_counts((store.clone(), hour, path.to_owned()), counts)
                })
                .collect(),
            visitors: sorted(visitors)
                .into_iter()
                .map(|(_, fold)| VisitorFold::finish(fold))
                .collect(),
            marks: marks.into_iter().cloned().collect(),
            bot_days: sorted(bot_days)
                .into_iter()
                .map(|((store, day, class), requests)| BotDay {
                    store: store.clone(),
                    day,
                    class,
                    requests,
                })
                .collect(),
            goal_hours: sorted(goal_hours)
                .into_iter()
                .map(
                    |((store, hour, goal), [requests, bots, self_reads])| GoalHour {
                        store: store.clone(),
                        hour,
                        goal: goal.clone(),
                        requests,
                        bots,
                        self_reads,
                    },
                )
                .collect(),
            hits: count,
            files,
            id: None,
        }
    }

    /// The rows a store upserts for it: hourly rows, visitor-days with
    /// their paths, sources and goals, bot days, marks and goals' hours.
    pub fn rows(&self) -> u64 {
        let visitors: usize = self
            .visitors
            .iter()
            .map(|row| 1 + row.top_paths.len() + row.sources.len() + row.goals.len())
            .sum();
        (self.hours.len()
            + visitors
            + self.bot_days.len()
            + self.marks.len()
            + self.goal_hours.len()) as u64
    }

    /// Whether the batch adds nothing.
    pub fn is_empty(&self) -> bool {
        self.hits == 0 && self.marks.is_empty()
    }
}

/// The maps a fold keeps its rows in while it runs: a lookup per hit, so
/// hashed (foldhash, seeded at random per map: a client choosing paths
/// cannot aim at collisions; the hourly path budget caps the paths anyway).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// A fold's rows in key order.
fn sorted<K: Ord, V>(map: FastMap<K, V>) -> Vec<(K, V)> {
    let mut rows: Vec<(K, V)> = map.into_iter().collect();
    rows.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    rows
}

/// A hit or a mark, borrowed, while folding.
enum SeenRef<'a> {
    Hit(&'a Hit),
    Files(&'a FilesMark),
}

impl VisitorDay {
    /// What its verdict reads (SPEC §3): `row.counts().verdict()`.
    pub fn counts(&self) -> DayCounts {
        DayCounts::new(self.requests, self.bots, self.self_reads, self.evidence)
    }

    /// Adds a later row of the same store, day and token into this one.
    pub fn absorb(&mut self, later: VisitorDay) {
        if later.last_seen >= self.last_seen {
            self.network = later.network;
            self.country = later.country.or(self.country);
        } else {
            self.country = self.country.or(later.country);
        }
        self.first_seen = self.first_seen.min(later.first_seen);
        self.last_seen = self.last_seen.max(later.last_seen);
        self.requests += later.requests;
        self.bots += later.bots;
        self.self_reads += later.self_reads;
        self.evidence |= later.evidence;
        self.bot_classes |= later.bot_classes;
        self.pages.merge(&later.pages);
        for path in later.top_paths {
            match self.top_paths.iter_mut().find(|p| p.path == path.path) {
                Some(kept) => kept.requests += path.requests,
                None => self.top_paths.push(path),
            }
        }
        for source in later.sources {
            match self.sources.iter_mut().find(|s| s.source == source.source) {
                Some(kept) => kept.page_loads += source.page_loads,
                None => self.sources.push(source),
            }
        }
        for goal in later.goals {
            match self.goals.iter_mut().find(|g| g.goal == goal.goal) {
                Some(kept) => kept.requests += goal.requests,
                None => self.goals.push(goal),
            }
        }
        sort_counts(&mut self.top_paths, &mut self.sources);
        bound_goals(&mut self.goals);
    }
}

/// A visitor-day's parts a store keeps apart from its row, each under the
/// row's day and token.
#[derive(Debug, Default)]
pub struct Parts {
    /// Its paths.
    pub paths: Vec<(NaiveDate, VisitorToken, PathCount)>,
    /// Its sources.
    pub sources: Vec<(NaiveDate, VisitorToken, SourceCount)>,
    /// Its goals.
    pub goals: Vec<(NaiveDate, VisitorToken, GoalCount)>,
}

/// Puts the paths, sources and goals a store reads apart from their
/// visitor-day rows back on those rows (matched by day and token; a part
/// without its row is ignored), each list most first, ties by name.
pub fn attach_parts(visitors: &mut [VisitorDay], parts: Parts) {
    let Parts {
        paths,
        sources,
        goals,
    } = parts;
    let index: HashMap<(NaiveDate, VisitorToken), usize> = visitors
        .iter()
        .enumerate()
        .map(|(at, row)| ((row.day, row.visitor.clone()), at))
        .collect();
    for (day, visitor, path) in paths {
        if let Some(&at) = index.get(&(day, visitor)) {
            visitors[at].top_paths.push(path);
        }
    }
    for (day, visitor, source) in sources {
        if let Some(&at) = index.get(&(day, visitor)) {
            visitors[at].sources.push(source);
        }
    }
    for (day, visitor, goal) in goals {
        if let Some(&at) = index.get(&(day, visitor)) {
            visitors[at].goals.push(goal);
        }
    }
    for row in visitors.iter_mut() {
        sort_counts(&mut row.top_paths, &mut row.sources);
        bound_goals(&mut row.goals);
    }
}

/// Most first, ties by name, and at most [`GOALS_PER_VISITOR_DAY`]: the
/// least reached beyond it are added up under `(other goals)`.
pub fn bound_goals(goals: &mut Vec<GoalCount>) {
    let other = Goal::other();
    let sort = |goals: &mut Vec<GoalCount>| {
        goals.sort_by(|a, b| {
            b.requests
                .cmp(&a.requests)
                .then_with(|| a.goal.cmp(&b.goal))
        });
    };
    sort(goals);
    if goals.len() <= GOALS_PER_VISITOR_DAY {
        return;
    }
    let mut rest = 0;
    goals.retain(|goal| {
        let named = goal.goal != other;
        if !named {
            rest += goal.requests;
        }
        named
    });
    for goal in goals.drain(GOALS_PER_VISITOR_DAY - 1..) {
        rest += goal.requests;
    }
    goals.push(GoalCount {
        goal: other,
        requests: rest,
    });
    sort(goals);
}

/// Most first, ties by name: the order rows are shown and compared in.
fn sort_counts(paths: &mut [PathCount], sources: &mut [SourceCount]) {
    paths.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then_with(|| a.path.cmp(&b.path))
    });
    sources.sort_by(|a, b| {
        b.page_loads
            .cmp(&a.page_loads)
            .then_with(|| a.source.cmp(&b.source))
    });
}

/// The start of the UTC hour `at` falls in.
pub fn hour_of(at: DateTime<Utc>) -> DateTime<Utc> {
    let seconds = at.timestamp();
    let start = seconds - seconds.rem_euclid(3600);
    DateTime::from_timestamp(start, 0).unwrap_or(at)
}

/// A visitor-day while a batch is being folded; its paths and sources
/// borrowed from the hits until the fold ends.
struct VisitorFold<'a> {
    row: VisitorDay,
    paths: BTreeMap<&'a str, u64>,
    sources: BTreeMap<&'a Source, u64>,
    goals: BTreeMap<&'a Goal, u64>,
    page_loads: Vec<Load<'a>>,
}

impl<'a> VisitorFold<'a> {
    fn new(hit: &Hit) -> Self {
        Self {
            row: VisitorDay {
                store: hit.store.clone(),
                day: hit.at.date_naive(),
                visitor: hit.visitor.clone(),
                network: hit.network.clone(),
                country: hit.country,
                first_seen: hit.at,
                last_seen: hit.at,
                requests: 0,
                bots: 0,
                self_reads: 0,
                evidence: Evidence::NONE,
                bot_classes: ClassSet::default(),
                top_paths: Vec::new(),
                sources: Vec::new(),
                pages: PageLoads::default(),
                goals: Vec::new(),
            },
            paths: BTreeMap::new(),
            sources: BTreeMap::new(),
            goals: BTreeMap::new(),
            page_loads: Vec::new(),
        }
    }

    fn add(&mut self, hit: &'a Hit, bot: u64, own: u64) {
        let row = &mut self.row;
        if hit.at >= row.last_seen {
            row.network = hit.network.clone();
            row.country = hit.country.or(row.country);
        } else {
            row.country = row.country.or(hit.country);
        }
        row.first_seen = row.first_seen.min(hit.at);
        row.last_seen = row.last_seen.max(hit.at);
        row.requests += 1;
        row.bots += bot;
        row.self_reads += own;
        row.evidence |= hit.evidence;
        if let Some(class) = hit.bot_class {
            row.bot_classes.insert(class);
        }
        *self.paths.entry(&hit.path).or_default() += 1;
        if let Some(source) = &hit.source {
            *self.sources.entry(source).or_default() += 1;
        }
        if let Some(goal) = &hit.goal {
            *self.goals.entry(goal).or_default() += 1;
        }
        if hit.shape == Shape::PageLoad {
            self.page_loads
                .push((hit.at, &hit.path, hit.campaign.as_ref()));
        }
    }

    fn finish(self) -> VisitorDay {
        let mut row = self.row;
        row.pages = PageLoads::of(self.page_loads);
        row.top_paths = self
            .paths
            .into_iter()
            .map(|(path, requests)| PathCount {
                path: path.to_owned(),
                requests,
            })
            .collect();
        row.sources = self
            .sources
            .into_iter()
            .map(|(source, page_loads)| SourceCount {
                source: source.clone(),
                page_loads,
            })
            .collect();
        row.goals = self
            .goals
            .into_iter()
            .map(|(goal, requests)| GoalCount {
                goal: goal.clone(),
                requests,
            })
            .collect();
        sort_counts(&mut row.top_paths, &mut row.sources);
        bound_goals(&mut row.goals);
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goals(names: impl IntoIterator<Item = (String, u64)>) -> Vec<GoalCount> {
        names
            .into_iter()
            .map(|(name, requests)| GoalCount {
                goal: Goal::new(&name).expect("a label"),
                requests,
            })
            .collect()
    }

    #[test]
    fn a_visitor_day_names_its_most_reached_goals_and_adds_up_the_rest() {
        let mut many = goals((0..40).map(|n| (format!("goal {n}"), n + 1)));
        many.extend(goals([("(other goals)".to_owned(), 5)]));
        let all: u64 = many.iter().map(|g| g.requests).sum();
        bound_goals(&mut many);
        assert_eq!(many.len(), GOALS_PER_VISITOR_DAY);
        assert_eq!(many.iter().map(|g| g.requests).sum::<u64>(), all, "exact");
        assert_eq!(many[0].goal.name(), "(other goals)", "the rest, most first");
        assert!(many.iter().any(|g| g.goal.name() == "goal 39"));
        assert!(many.iter().all(|g| g.goal.name() != "goal 0"));
        let mut few = goals([
            ("b".to_owned(), 1),
            ("a".to_owned(), 1),
            ("c".to_owned(), 2),
        ]);
        bound_goals(&mut few);
        let names: Vec<&str> = few.iter().map(|g| g.goal.name()).collect();
        assert_eq!(names, ["c", "a", "b"], "most first, ties by name");
    }
}
