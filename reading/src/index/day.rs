//! One day's visitor-days, merged across stores, held compactly in memory
//! for filtered reads: each text (a path, a source, a campaign's label, a
//! store's name) kept once, each row its counts and the texts' numbers,
//! and for every filter dimension which rows hold which text
//! ([`filter::held_texts`], the filter's own rule), so that a filter picks
//! its rows by the distinct texts it matches, not by reading every row.
//!
//! The rows a filter picks are made back into visitor-days and summed by
//! the reference summing (`summary::summarize_filtered`), so a day summed
//! here is the day a store sums under the same filter. No token is kept:
//! a summary never reads one, and the index need not hold it.

use std::collections::{BTreeMap, HashMap};

use activity::StoreName;
use activity::bot_class::ClassSet;
use activity::country::Country;
use activity::evidence::Evidence;
use activity::filter::{self, Dimension, Filter};
use activity::page_loads::{CampaignAt, PageAt, PageLoads};
use activity::report::{FunnelStep, MergedVisitor};
use activity::source::Source;
use activity::summary::{self, DaySummary};
use activity::token::VisitorToken;
use chrono::{DateTime, NaiveDate, Utc};
use fixedbitset::FixedBitSet;

/// Where a row's list starts in a shared list, and how long it is.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn of<T>(list: &[T], from: usize) -> Option<Self> {
        Some(Self {
            start: u32::try_from(from).ok()?,
            len: u32::try_from(list.len() - from).ok()?,
        })
    }

    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

/// A page load kept: when, and its path's number.
type Page = (DateTime<Utc>, u32);

/// One visitor-day, its texts by number.
#[derive(Debug)]
struct Row {
    requests: u64,
    bots: u64,
    self_reads: u64,
    evidence: Evidence,
    classes: ClassSet,
    country: Option<Country>,
    page_loads: u64,
    stay_ms: u64,
    visits: u64,
    entry: Option<Page>,
    exit: Option<Page>,
    paths: Span,
    sources: Span,
    stores: Span,
}

/// A row's campaign: when, and its three labels' numbers.
type CampaignRow = (DateTime<Utc>, [Option<u32>; 3]);

/// One day's visitor-days, held for filtered reads.
#[derive(Debug)]
pub(crate) struct DayRows {
    day: NaiveDate,
    texts: Vec<Box<str>>,
    sources: Vec<Source>,
    rows: Vec<Row>,
    /// Every row's paths and requests, row after row.
    paths: Vec<(u32, u64)>,
    /// Every row's sources (by number in `sources`) and page loads.
    source_loads: Vec<(u32, u64)>,
    /// The stores that saw the day's visitor-days.
    store_names: Vec<StoreName>,
    /// Every row's stores (by number in `store_names`).
    stores: Vec<u32>,
    /// The campaigns of the rows that have one, by row.
    campaigns: HashMap<u32, CampaignRow>,
    /// Per dimension (in [`Dimension::ALL`]'s order): each text held, with
    /// the rows that hold it.
    held: Vec<Vec<(Box<str>, Vec<u32>)>>,
}

/// Texts kept once, each by its number.
#[derive(Default)]
struct Texts {
    numbers: HashMap<Box<str>, u32>,
    texts: Vec<Box<str>>,
}

impl Texts {
    fn number(&mut self, text: &str) -> u32 {
        if let Some(number) = self.numbers.get(text) {
            return *number;
        }
        let number = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        self.texts.push(text.into());
        self.numbers.insert(text.into(), number);
        number
    }
}

impl DayRows {
    /// Holds `visitors` (one day's, merged across stores). `None` when a
    /// list is too long to number (billions of texts: never on a real day);
    /// such a day is summed by the stores.
    pub(crate) fn new(day: NaiveDate, visitors: &[MergedVisitor]) -> Option<Self> {
        let mut texts = Texts::default();
        let mut sources: Vec<Source> = Vec::new();
        let mut source_numbers: HashMap<Source, u32> = HashMap::new();
        let mut rows = Vec::with_capacity(visitors.len());
        let (mut paths, mut source_loads, mut stores) = (Vec::new(), Vec::new(), Vec::new());
        let mut campaigns = HashMap::new();
        let mut store_names: Vec<StoreName> = Vec::new();
        let mut held: Vec<BTreeMap<Box<str>, Vec<u32>>> =
            vec![BTreeMap::new(); Dimension::ALL.len()];
        for (at, visitor) in visitors.iter().enumerate() {
            let at = u32::try_from(at).ok()?;
            let from = paths.len();
            for (path, requests) in &visitor.paths {
                paths.push((texts.number(path), *requests));
            }
            let path_span = Span::of(&paths, from)?;
            let from = source_loads.len();
            for (source, loads) in &visitor.sources {
                let number = match source_numbers.get(source) {
                    Some(number) => *number,
                    None => {
                        let number = u32::try_from(sources.len()).ok()?;
                        sources.push(source.clone());
                        source_numbers.insert(source.clone(), number);
                        number
                    }
                };
                source_loads.push((number, *loads));
            }
            let source_span = Span::of(&source_loads, from)?;
            let from = stores.len();
            for store in &visitor.stores {
                let number = match store_names.iter().position(|kept| kept == store) {
                    Some(number) => number,
                    None => {
                        store_names.push(store.clone());
                        store_names.len() - 1
                    }
                };
                stores.push(u32::try_from(number).ok()?);
            }
            let store_span = Span::of(&stores, from)?;
            let mut page = |page: &Option<PageAt>| {
                page.as_ref()
                    .map(|page| (page.at, texts.number(&page.path)))
            };
            let (entry, exit) = (page(&visitor.pages.entry), page(&visitor.pages.exit));
            if let Some(CampaignAt { at: when, campaign }) = &visitor.pages.campaign {
                let mut label = |label: &Option<String>| label.as_deref().map(|l| texts.number(l));
                let labels = [
                    label(&campaign.source),
                    label(&campaign.medium),
                    label(&campaign.name),
                ];
                campaigns.insert(at, (*when, labels));
            }
            rows.push(Row {
                requests: visitor.requests,
                bots: visitor.bots,
                self_reads: visitor.self_reads,
                evidence: visitor.evidence,
                classes: visitor.bot_classes,
                country: visitor.country,
                page_loads: visitor.pages.count,
                stay_ms: visitor.pages.stay_ms,
                visits: visitor.pages.visits,
                entry,
                exit,
                paths: path_span,
                sources: source_span,
                stores: store_span,
            });
            for (dimension, held) in Dimension::ALL.iter().zip(held.iter_mut()) {
                for text in filter::held_texts(visitor, *dimension) {
                    held.entry(text.as_ref().into()).or_default().push(at);
                }
            }
        }
        Some(Self {
            day,
            texts: texts.texts,
            sources,
            rows,
            paths,
            source_loads,
            store_names,
            stores,
            campaigns,
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

    /// The row `at`, made back into a visitor-day (with a stand-in token).
    fn visitor(&self, at: usize, token: &VisitorToken) -> MergedVisitor {
        let row = &self.rows[at];
        let text = |number: u32| self.texts[number as usize].to_string();
        let page = |page: Option<Page>| {
            page.map(|(at, path)| PageAt {
                at,
                path: text(path),
            })
        };
        let campaign = u32::try_from(at)
            .ok()
            .and_then(|at| self.campaigns.get(&at))
            .map(|(when, [source, medium, name])| CampaignAt {
                at: *when,
                campaign: activity::campaign::Campaign {
                    source: source.map(text),
                    medium: medium.map(text),
                    name: name.map(text),
                },
            });
        MergedVisitor {
            day: self.day,
            visitor: token.clone(),
            stores: self.stores[row.stores.range()]
                .iter()
                .map(|number| self.store_names[*number as usize].clone())
                .collect(),
            requests: row.requests,
            bots: row.bots,
            self_reads: row.self_reads,
            evidence: row.evidence,
            bot_classes: row.classes,
            paths: self.paths[row.paths.range()]
                .iter()
                .map(|(path, requests)| (text(*path), *requests))
                .collect(),
            sources: self.source_loads[row.sources.range()]
                .iter()
                .map(|(source, loads)| (self.sources[*source as usize].clone(), *loads))
                .collect(),
            country: row.country,
            pages: PageLoads {
                count: row.page_loads,
                entry: page(row.entry),
                exit: page(row.exit),
                stay_ms: row.stay_ms,
                visits: row.visits,
                campaign,
            },
        }
    }

    /// The day summed under `filter` (`None`: no visitor-day passes it),
    /// as a store sums it.
    pub(crate) fn summary(&self, steps: &[FunnelStep], filter: &Filter) -> Option<DaySummary> {
        let token = stand_in_token();
        let chosen: Vec<MergedVisitor> = self
            .chosen(filter)
            .ones()
            .map(|at| self.visitor(at, &token))
            .collect();
        summary::summarize_filtered(self.day, self.day, &chosen, steps, &Filter::none()).pop()
    }
}

/// The token every visitor-day made back from the index carries: the
/// index keeps none, and a summary reads none.
fn stand_in_token() -> VisitorToken {
    VisitorToken::parse("00000000000000000000000000000000")
        .unwrap_or_else(|| unreachable!("32 hex characters are a token"))
}
