//! Which visitor-days a view counts: a filter is conditions that must all
//! hold (AND), each on one dimension of a visitor-day — a path it
//! requested, its entry or exit page, a source, a campaign label, a goal it
//! reached, its country, kind, bot class or store — with `is`, `is not`, `contains` or
//! `contains not` and one or more values (any of them).
//!
//! [`Filter::matches`] is the rule, on a visitor-day merged across stores;
//! the SQL stores answer the same filter in their engine
//! (`stores/sql/src/filter.rs`), and the store contract checks them against
//! this rule filter by filter. The tab's address and the stats API write
//! filters in [`Filter::parse_pair`]'s words.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::request::source::{Source, SourceGroup};
use crate::sums::report::MergedVisitor;
use crate::verdict::rule::VisitorKind;

/// The most conditions a filter holds.
pub const MAX_CONDITIONS: usize = 10;
/// The most values one condition holds.
pub const MAX_VALUES: usize = 20;
/// The longest value, in bytes (a path is kept to 512).
pub const MAX_VALUE_BYTES: usize = 512;

/// What a condition looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// A path the visitor-day requested.
    Page,
    /// The path of its first page load.
    EntryPage,
    /// The path of its last page load.
    ExitPage,
    /// A source of its page loads: a group's word (`linkedin`, `github`,
    /// `search`, `other-site`, `tagged`, `typed`), a referrer's host or a
    /// tag (`tag:resume`).
    Source,
    /// Its campaign's `utm_source`.
    UtmSource,
    /// Its campaign's `utm_medium`.
    UtmMedium,
    /// Its campaign's `utm_campaign`.
    UtmCampaign,
    /// A goal it reached (`signup`).
    Goal,
    /// The two-letter code of its country.
    Country,
    /// `person`, `bot` or `self-read`.
    Kind,
    /// One of its bot classes (`ai-crawler`).
    BotClass,
    /// A store that saw it.
    Store,
}

impl Dimension {
    /// Every dimension, in the order filters are shown.
    pub const ALL: [Self; 12] = [
        Self::Page,
        Self::EntryPage,
        Self::ExitPage,
        Self::Source,
        Self::UtmSource,
        Self::UtmMedium,
        Self::UtmCampaign,
        Self::Goal,
        Self::Country,
        Self::Kind,
        Self::BotClass,
        Self::Store,
    ];

    /// Its word in an address (`entry_page`).
    pub fn word(self) -> &'static str {
        match self {
            Self::Page => "page",
            Self::EntryPage => "entry_page",
            Self::ExitPage => "exit_page",
            Self::Source => "source",
            Self::UtmSource => "utm_source",
            Self::UtmMedium => "utm_medium",
            Self::UtmCampaign => "utm_campaign",
            Self::Goal => "goal",
            Self::Country => "country",
            Self::Kind => "kind",
            Self::BotClass => "bot_class",
            Self::Store => "store",
        }
    }

    /// Its name on the tab (`entry page`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Page => "page",
            Self::EntryPage => "entry page",
            Self::ExitPage => "exit page",
            Self::Source => "source",
            Self::UtmSource => "campaign source",
            Self::UtmMedium => "campaign medium",
            Self::UtmCampaign => "campaign",
            Self::Goal => "goal",
            Self::Country => "country",
            Self::Kind => "kind",
            Self::BotClass => "bot class",
            Self::Store => "store",
        }
    }

    /// The dimension a word names.
    pub fn of_word(word: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|dimension| dimension.word() == word)
    }
}

/// How a condition compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Equal to one of the values.
    Is,
    /// Equal to none of them.
    IsNot,
    /// Holds one of them.
    Contains,
    /// Holds none of them.
    ContainsNot,
}

impl Op {
    /// Its mark in an address, before the values (`is`: none).
    pub fn mark(self) -> &'static str {
        match self {
            Self::Is => "",
            Self::IsNot => "!",
            Self::Contains => "~",
            Self::ContainsNot => "!~",
        }
    }

    /// Its words on the tab.
    pub fn words(self) -> &'static str {
        match self {
            Self::Is => "is",
            Self::IsNot => "is not",
            Self::Contains => "contains",
            Self::ContainsNot => "does not contain",
        }
    }

    /// Whether it asks that no value match.
    pub fn negated(self) -> bool {
        matches!(self, Self::IsNot | Self::ContainsNot)
    }

    /// Whether a value matches a held text.
    fn compares(self, held: &str, value: &str) -> bool {
        match self {
            Self::Is | Self::IsNot => held == value,
            Self::Contains | Self::ContainsNot => held.contains(value),
        }
    }
}

/// One condition: a dimension compared with values.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Condition {
    /// What it looks at.
    pub dimension: Dimension,
    /// How it compares.
    pub op: Op,
    /// Any of these (at least one).
    pub values: Vec<String>,
}

/// Why a filter was refused, naming the part that is wrong (never echoing
/// more of the value than its dimension).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterError {
    /// Not a dimension's word.
    Dimension(String),
    /// A condition without a value, or a value too long.
    Value(Dimension),
    /// More conditions or values than allowed.
    TooMany,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Dimension(word) => {
                let known: Vec<&str> = Dimension::ALL.iter().map(|d| d.word()).collect();
                let shown: String = word.chars().take(32).collect();
                write!(
                    f,
                    "no dimension is called {shown:?}; known: {}",
                    known.join(", ")
                )
            }
            Self::Value(dimension) => write!(
                f,
                "{}: each value is 1 to {MAX_VALUE_BYTES} bytes",
                dimension.word()
            ),
            Self::TooMany => write!(
                f,
                "at most {MAX_CONDITIONS} conditions of at most {MAX_VALUES} values each"
            ),
        }
    }
}

impl std::error::Error for FilterError {}

/// Conditions that must all hold; none: every visitor-day.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Filter {
    /// The conditions, in the order given.
    pub conditions: Vec<Condition>,
}

impl Filter {
    /// No condition: every visitor-day.
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether it has no condition.
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }

    /// Adds a condition, within the bounds.
    pub fn with(mut self, condition: Condition) -> Result<Self, FilterError> {
        if condition.values.is_empty()
            || condition
                .values
                .iter()
                .any(|value| value.is_empty() || value.len() > MAX_VALUE_BYTES)
        {
            return Err(FilterError::Value(condition.dimension));
        }
        if self.conditions.len() >= MAX_CONDITIONS || condition.values.len() > MAX_VALUES {
            return Err(FilterError::TooMany);
        }
        self.conditions.push(condition);
        Ok(self)
    }

    /// A condition as an address writes it: `page=/about`, `source=!github`,
    /// `page=~/blog`, `country=FR|DE` (`|` between values; `!` is not, `~`
    /// contains, `!~` does not contain).
    pub fn parse_pair(name: &str, value: &str) -> Result<Condition, FilterError> {
        let dimension =
            Dimension::of_word(name).ok_or_else(|| FilterError::Dimension(name.to_owned()))?;
        let (op, rest) = if let Some(rest) = value.strip_prefix("!~") {
            (Op::ContainsNot, rest)
        } else if let Some(rest) = value.strip_prefix('!') {
            (Op::IsNot, rest)
        } else if let Some(rest) = value.strip_prefix('~') {
            (Op::Contains, rest)
        } else {
            (Op::Is, value)
        };
        Ok(Condition {
            dimension,
            op,
            values: rest.split('|').map(str::to_owned).collect(),
        })
    }

    /// Its conditions as an address's pairs, in [`parse_pair`](Self::parse_pair)'s words.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        self.conditions
            .iter()
            .map(|condition| {
                (
                    condition.dimension.word(),
                    format!("{}{}", condition.op.mark(), condition.values.join("|")),
                )
            })
            .collect()
    }

    /// The same filter and `condition` (a condition on the same dimension
    /// and comparison is replaced: a row's link narrows, never repeats).
    pub fn and(&self, condition: Condition) -> Self {
        let mut conditions: Vec<Condition> = self
            .conditions
            .iter()
            .filter(|kept| (kept.dimension, kept.op) != (condition.dimension, condition.op))
            .cloned()
            .collect();
        conditions.push(condition);
        conditions.truncate(MAX_CONDITIONS);
        Self { conditions }
    }

    /// The same filter without its condition number `at`.
    pub fn without(&self, at: usize) -> Self {
        let mut conditions = self.conditions.clone();
        if at < conditions.len() {
            conditions.remove(at);
        }
        Self { conditions }
    }

    /// As a query string's pairs, each value percent-encoded
    /// (`page=%2Fabout&source=!github`); nothing for no condition.
    pub fn to_query(&self) -> String {
        self.pairs()
            .iter()
            .map(|(name, value)| format!("{name}={}", encode(value)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// A filter from [`to_query`](Self::to_query)'s form; a pair whose name
    /// is no dimension's is refused, as is a bad value.
    pub fn from_query(query: &str) -> Result<Self, FilterError> {
        query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .try_fold(Self::none(), |filter, pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
                filter.with(Self::parse_pair(name, &value)?)
            })
    }

    /// Whether a visitor-day (merged across stores) passes every condition.
    pub fn matches(&self, visitor: &MergedVisitor) -> bool {
        self.conditions
            .iter()
            .all(|condition| condition_holds(condition, visitor))
    }
}

/// Whether `condition` holds for `visitor`: some held text matches some
/// value (for `is not` and `does not contain`: none does).
fn condition_holds(condition: &Condition, visitor: &MergedVisitor) -> bool {
    condition.holds_for(
        held_texts(visitor, condition.dimension)
            .iter()
            .map(|t| t.as_ref()),
    )
}

impl Condition {
    /// Whether it holds for a visitor-day that holds `held` on its
    /// dimension ([`held_texts`]): some held text matches some value (for
    /// `is not` and `does not contain`: none does).
    pub fn holds_for<'a>(&self, held: impl IntoIterator<Item = &'a str>) -> bool {
        held.into_iter().any(|text| self.matches_text(text)) != self.op.negated()
    }

    /// Whether one held text matches one of its values, before negation:
    /// what an index of held texts asks of each distinct text.
    pub fn matches_text(&self, held: &str) -> bool {
        self.values
            .iter()
            .any(|value| self.op.compares(held, value))
    }
}

/// What a visitor-day holds on `dimension`, each text as a condition's
/// values are written: its paths, its entry or exit page, its sources'
/// texts and their groups' words, its campaign's labels, its goals, its country's
/// code, its kind's word, its bot classes, its stores. The one place that
/// says what a filter looks at.
pub fn held_texts(visitor: &MergedVisitor, dimension: Dimension) -> Vec<Cow<'_, str>> {
    let campaign = visitor.pages.campaign.as_ref().map(|at| &at.campaign);
    fn borrowed(text: Option<&str>) -> Vec<Cow<'_, str>> {
        text.map(Cow::Borrowed).into_iter().collect()
    }
    match dimension {
        Dimension::Page => visitor
            .paths
            .keys()
            .map(|p| Cow::Borrowed(p.as_str()))
            .collect(),
        Dimension::EntryPage => borrowed(visitor.pages.entry.as_ref().map(|p| p.path.as_str())),
        Dimension::ExitPage => borrowed(visitor.pages.exit.as_ref().map(|p| p.path.as_str())),
        Dimension::Source => {
            let mut held: Vec<Cow<'_, str>> = visitor
                .sources
                .keys()
                .map(|source| Cow::Owned(source.to_string()))
                .collect();
            for group in source_groups(visitor.sources.keys()) {
                held.push(Cow::Borrowed(group_word(group)));
            }
            held
        }
        Dimension::UtmSource => borrowed(campaign.and_then(|c| c.source.as_deref())),
        Dimension::UtmMedium => borrowed(campaign.and_then(|c| c.medium.as_deref())),
        Dimension::UtmCampaign => borrowed(campaign.and_then(|c| c.name.as_deref())),
        Dimension::Goal => visitor
            .goals
            .keys()
            .map(|goal| Cow::Borrowed(goal.name()))
            .collect(),
        Dimension::Country => borrowed(visitor.country.as_ref().map(|c| c.as_str())),
        Dimension::Kind => vec![Cow::Borrowed(kind_word(visitor.kind()))],
        Dimension::BotClass => visitor
            .classes()
            .iter()
            .map(|class| Cow::Borrowed(class.as_str()))
            .collect(),
        Dimension::Store => visitor
            .stores
            .iter()
            .map(|s| Cow::Borrowed(s.as_str()))
            .collect(),
    }
}

/// The groups a visitor-day's sources put it in (`typed` when it has none),
/// as the Sources card counts them.
pub fn source_groups<'a>(sources: impl IntoIterator<Item = &'a Source>) -> Vec<SourceGroup> {
    let mut groups: Vec<SourceGroup> = sources
        .into_iter()
        .map(|source| SourceGroup::of(Some(source)))
        .collect();
    if groups.is_empty() {
        groups.push(SourceGroup::Typed);
    }
    groups.sort();
    groups.dedup();
    groups
}

/// A value as a link writes it: what could end the pair or be read as
/// something else is percent-encoded; a path's slashes are kept.
pub fn encode(value: &str) -> String {
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
    const KEPT: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~')
        .remove(b'/')
        .remove(b'!')
        .remove(b'|')
        .remove(b':');
    utf8_percent_encode(value, KEPT).to_string()
}

/// A source group's word in a filter.
pub fn group_word(group: SourceGroup) -> &'static str {
    match group {
        SourceGroup::LinkedIn => "linkedin",
        SourceGroup::GitHub => "github",
        SourceGroup::Search => "search",
        SourceGroup::OtherSite => "other-site",
        SourceGroup::Tagged => "tagged",
        SourceGroup::Typed => "typed",
    }
}

/// A visitor-day kind's word in a filter.
pub fn kind_word(kind: VisitorKind) -> &'static str {
    match kind {
        VisitorKind::Person => "person",
        VisitorKind::Bot => "bot",
        VisitorKind::SelfRead => "self-read",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use chrono::{DateTime, NaiveDate, TimeDelta};

    use super::*;
    use crate::port::page_loads::PageLoads;
    use crate::request::evidence::Evidence;
    use crate::request::hit::StoreName;
    use crate::visitor::country::Country;
    use crate::visitor::token::VisitorToken;

    fn visitor(paths: &[&str], sources: &[&str]) -> MergedVisitor {
        let at = |minute| DateTime::UNIX_EPOCH + TimeDelta::minutes(minute);
        MergedVisitor {
            day: NaiveDate::from_ymd_opt(2026, 12, 1).expect("a day"),
            visitor: VisitorToken::parse(&"a".repeat(32)).expect("a token"),
            stores: BTreeSet::from([StoreName::parse("sqlite").expect("a name")]),
            requests: paths.len() as u64,
            bots: 0,
            self_reads: 0,
            evidence: Evidence::FILES,
            bot_classes: Default::default(),
            paths: paths.iter().map(|p| ((*p).to_owned(), 1)).collect(),
            sources: sources
                .iter()
                .map(|s| (Source::try_from((*s).to_owned()).expect("a source"), 1))
                .collect::<BTreeMap<_, _>>(),
            country: Country::parse("FR"),
            pages: PageLoads::of(
                paths
                    .iter()
                    .enumerate()
                    .map(|(n, path)| (at(n as i64), *path, None)),
            ),
            goals: BTreeMap::new(),
        }
    }

    fn filter(pairs: &[(&str, &str)]) -> Filter {
        pairs.iter().fold(Filter::none(), |filter, (name, value)| {
            filter
                .with(Filter::parse_pair(name, value).expect("a condition"))
                .expect("within bounds")
        })
    }

    #[test]
    fn conditions_combine_and_each_compares_its_own_way() {
        let reader = visitor(&["/", "/resume"], &["www.linkedin.com"]);
        let passes = |pairs: &[(&str, &str)]| filter(pairs).matches(&reader);
        assert!(passes(&[]), "no condition: everyone");
        assert!(passes(&[("source", "linkedin"), ("page", "/resume")]));
        assert!(!passes(&[("source", "linkedin"), ("page", "/about")]));
        assert!(passes(&[("source", "www.linkedin.com")]), "a host");
        assert!(passes(&[("page", "/about|/resume")]), "any of the values");
        assert!(passes(&[("page", "!/about")]));
        assert!(
            !passes(&[("page", "!/resume")]),
            "none of its paths may be it"
        );
        assert!(passes(&[("page", "~sum")]) && !passes(&[("page", "!~sum")]));
        assert!(passes(&[("entry_page", "/")]) && passes(&[("exit_page", "/resume")]));
        assert!(!passes(&[("entry_page", "/resume")]));
        assert!(passes(&[("country", "FR")]) && !passes(&[("country", "DE")]));
        assert!(passes(&[("kind", "person")]) && !passes(&[("kind", "bot")]));
        assert!(passes(&[("store", "sqlite")]));
        assert!(!passes(&[("utm_campaign", "spring")]), "no campaign");
        assert!(passes(&[("utm_campaign", "!spring")]));
        let typed = visitor(&["/"], &[]);
        assert!(filter(&[("source", "typed")]).matches(&typed));
        assert!(!filter(&[("source", "typed")]).matches(&reader));
    }

    #[test]
    fn an_address_round_trips_and_bad_words_are_named() {
        let written = filter(&[("page", "~/blog"), ("source", "!github|search")]);
        let pairs = written.pairs();
        assert_eq!(pairs[1], ("source", "!github|search".to_owned()));
        let again = pairs.iter().fold(Filter::none(), |f, (n, v)| {
            f.with(Filter::parse_pair(n, v).expect("parses"))
                .expect("fits")
        });
        assert_eq!(again, written);
        let error = Filter::parse_pair("referer", "x").expect_err("unknown");
        assert!(
            error.to_string().contains("\"referer\"") && error.to_string().contains("entry_page")
        );
        let empty = Filter::parse_pair("page", "").expect("parses");
        assert_eq!(
            Filter::none().with(empty),
            Err(FilterError::Value(Dimension::Page))
        );
        let odd = filter(&[("page", "/a b&c=d%"), ("utm_campaign", "spring sale")]);
        assert_eq!(
            odd.to_query(),
            "page=/a%20b%26c%3Dd%25&utm_campaign=spring%20sale"
        );
        assert_eq!(Filter::from_query(&odd.to_query()), Ok(odd));
        assert!(Filter::from_query("nothing=1").is_err());
        assert_eq!(Filter::from_query(""), Ok(Filter::none()));
        let narrowed = written.and(Filter::parse_pair("page", "~/notes").expect("parses"));
        assert_eq!(
            narrowed.conditions.len(),
            2,
            "the same comparison is replaced"
        );
        assert_eq!(narrowed.without(0).conditions.len(), 1);
        let many = (0..=MAX_CONDITIONS).try_fold(Filter::none(), |f, _| {
            f.with(Filter::parse_pair("page", "/").expect("parses"))
        });
        assert_eq!(many, Err(FilterError::TooMany));
    }
}
