//! People's visits summed (ACCURACY.md, "Visits"): of the people
//! visitor-days that loaded a page, how many pages they loaded, how many
//! loaded one page and left (the bounce rate), how long they stayed, in how
//! many visits, where they came in and went out, and which campaign
//! brought them.
//!
//! A day's sums add up like the rest of its summary, so a range's visits
//! are its days' visits summed; the rates are made from the sums at the
//! end, never averaged. Stores sum them in their engine
//! (`stores/sql/src/summary.rs`); [`VisitSums::add`] is the reference.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::port::page_loads::PageLoads;
use crate::request::campaign::Campaign;
use crate::request::path::OTHER_PATHS;

/// The UTC hour (0 to 23) of a first page load: the hour a visitor-day
/// arrives in. Stores' engines take it from the entry's Unix milliseconds
/// (`entry_at / 3600000 % 24`, the same hour).
pub fn arrival_hour(at: chrono::DateTime<chrono::Utc>) -> usize {
    use chrono::Timelike as _;
    at.hour() as usize
}

/// The most entry or exit pages a day keeps by name; the rest are summed
/// under [`OTHER_PATHS`].
pub const DAY_ENTRY_PAGES: usize = 100;

/// People's visits over a day or a range.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitSums {
    /// People visitor-days that loaded at least one page.
    pub visitor_days: u64,
    /// Their page loads.
    pub page_loads: u64,
    /// Of them, the visitor-days that loaded exactly one page.
    pub one_page: u64,
    /// Their visits (a gap of 30 minutes or more starts another).
    pub visits: u64,
    /// Their time on site, in milliseconds.
    pub stay_ms: u64,
    /// Visitor-days by the page they came in on.
    pub entries: BTreeMap<String, u64>,
    /// Visitor-days by the page they left from.
    pub exits: BTreeMap<String, u64>,
    /// Visitor-days by the campaign of their first tagged page load.
    #[serde(default, with = "campaign_list")]
    pub campaigns: BTreeMap<Campaign, u64>,
    /// Visitor-days by the UTC hour of their first page load (0 to 23):
    /// when they arrived.
    #[serde(default)]
    pub arrivals: [u64; 24],
    /// People visitor-days by each path they requested (a page's
    /// visitors, as a `page` filter counts them), whether or not they
    /// loaded a page: added by [`add_readers`](Self::add_readers).
    #[serde(default)]
    pub readers: BTreeMap<String, u64>,
}

impl VisitSums {
    /// Adds one people visitor-day's page loads (one without any adds
    /// nothing).
    pub fn add(&mut self, pages: &PageLoads) {
        if pages.count == 0 {
            return;
        }
        self.visitor_days += 1;
        self.page_loads += pages.count;
        self.one_page += u64::from(pages.count == 1);
        self.visits += pages.visits;
        self.stay_ms += pages.stay_ms;
        if let Some(entry) = &pages.entry {
            *self.entries.entry(entry.path.clone()).or_default() += 1;
            self.arrivals[arrival_hour(entry.at)] += 1;
        }
        if let Some(exit) = &pages.exit {
            *self.exits.entry(exit.path.clone()).or_default() += 1;
        }
        if let Some(tagged) = &pages.campaign {
            *self.campaigns.entry(tagged.campaign.clone()).or_default() += 1;
        }
    }

    /// Adds one people visitor-day's requested paths to [`readers`](Self::readers).
    pub fn add_readers<'a>(&mut self, paths: impl IntoIterator<Item = &'a String>) {
        for path in paths {
            *self.readers.entry(path.clone()).or_default() += 1;
        }
    }

    /// Adds another day's or store's sums.
    pub fn absorb(&mut self, other: &VisitSums) {
        self.visitor_days += other.visitor_days;
        self.page_loads += other.page_loads;
        self.one_page += other.one_page;
        self.visits += other.visits;
        self.stay_ms += other.stay_ms;
        for (arrivals, more) in self.arrivals.iter_mut().zip(other.arrivals) {
            *arrivals += more;
        }
        for (path, count) in &other.entries {
            *self.entries.entry(path.clone()).or_default() += count;
        }
        for (path, count) in &other.exits {
            *self.exits.entry(path.clone()).or_default() += count;
        }
        for (campaign, count) in &other.campaigns {
            *self.campaigns.entry(campaign.clone()).or_default() += count;
        }
        for (path, count) in &other.readers {
            *self.readers.entry(path.clone()).or_default() += count;
        }
    }

    /// Keeps the [`DAY_ENTRY_PAGES`] most common entry and exit pages (and
    /// campaigns, and paths by readers) by name, the rest summed under [`OTHER_PATHS`], so a day's sums stay
    /// small however many pages a site has.
    pub fn keep_top(&mut self) {
        keep_top(&mut self.entries, OTHER_PATHS.to_owned());
        keep_top(&mut self.exits, OTHER_PATHS.to_owned());
        keep_top(&mut self.campaigns, other_campaigns());
        keep_top(&mut self.readers, OTHER_PATHS.to_owned());
    }

    /// Visitor-days that arrived in the UTC hour `hour` (0 to 23; later
    /// hours hold none).
    pub fn arrived_in(&self, hour: u32) -> u64 {
        self.arrivals.get(hour as usize).copied().unwrap_or(0)
    }

    /// Pages per visitor-day, if any loaded one.
    pub fn pages_per_visitor_day(&self) -> Option<f64> {
        ratio(self.page_loads, self.visitor_days)
    }

    /// The share of visitor-days that loaded one page, 0 to 1.
    pub fn bounce_rate(&self) -> Option<f64> {
        ratio(self.one_page, self.visitor_days)
    }

    /// The mean time on site per visit, in seconds.
    pub fn seconds_per_visit(&self) -> Option<f64> {
        ratio(self.stay_ms, self.visits).map(|ms| ms / 1000.0)
    }

    /// The most common entry (or exit) pages or campaigns, most first, ties
    /// by name.
    pub fn top<K: Ord + Clone>(counts: &BTreeMap<K, u64>, limit: usize) -> Vec<(K, u64)> {
        let mut top: Vec<(K, u64)> = counts
            .iter()
            .map(|(key, count)| (key.clone(), *count))
            .collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(limit);
        top
    }
}

fn ratio(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// The campaigns a day's sums keep beyond its [`DAY_ENTRY_PAGES`] most
/// common, summed: its source reads `(other campaigns)`.
pub fn other_campaigns() -> Campaign {
    Campaign {
        source: Some(OTHER_CAMPAIGNS.to_owned()),
        medium: None,
        name: None,
    }
}

/// The source [`other_campaigns`] shows.
pub const OTHER_CAMPAIGNS: &str = "(other campaigns)";

fn keep_top<K: Ord + Clone>(counts: &mut BTreeMap<K, u64>, other: K) {
    if counts.len() <= DAY_ENTRY_PAGES {
        return;
    }
    let kept = VisitSums::top(counts, DAY_ENTRY_PAGES - 1);
    let kept_sum: u64 = kept.iter().map(|(_, count)| count).sum();
    let all: u64 = counts.values().sum();
    let mut top: BTreeMap<K, u64> = kept.into_iter().collect();
    *top.entry(other).or_default() += all - kept_sum;
    *counts = top;
}

/// A map keyed by campaigns, kept as a list of pairs (JSON keys are text).
mod campaign_list {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::request::campaign::Campaign;

    pub fn serialize<S: Serializer>(
        map: &BTreeMap<Campaign, u64>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        map.iter().collect::<Vec<_>>().serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<Campaign, u64>, D::Error> {
        Ok(Vec::<(Campaign, u64)>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, TimeDelta};

    use super::*;

    fn day(pages: &[(i64, &str)]) -> PageLoads {
        PageLoads::of(pages.iter().map(|(minute, path)| {
            (
                DateTime::UNIX_EPOCH + TimeDelta::minutes(*minute),
                *path,
                None,
            )
        }))
    }

    #[test]
    fn rates_come_from_the_sums() {
        let mut sums = VisitSums::default();
        sums.add(&day(&[(0, "/"), (2, "/cv"), (100, "/")]));
        sums.add(&day(&[(0, "/blog")]));
        sums.add(&PageLoads::default());
        assert_eq!(
            sums.visitor_days, 2,
            "a visitor-day without a page adds nothing"
        );
        assert_eq!((sums.page_loads, sums.one_page, sums.visits), (4, 1, 3));
        assert_eq!(sums.pages_per_visitor_day(), Some(2.0));
        assert_eq!(sums.bounce_rate(), Some(0.5));
        assert_eq!(
            sums.seconds_per_visit(),
            Some(40.0),
            "two minutes over three visits"
        );
        assert_eq!(sums.entries.get("/"), Some(&1));
        assert_eq!(sums.exits.get("/"), Some(&1));
        assert_eq!(VisitSums::default().bounce_rate(), None);
    }

    #[test]
    fn a_day_keeps_its_most_common_entry_pages_and_sums_the_rest() {
        let mut sums = VisitSums::default();
        for n in 0..300 {
            for _ in 0..=(n % 5) {
                sums.add(&day(&[(0, &format!("/{n}"))]));
            }
        }
        let all: u64 = sums.entries.values().sum();
        sums.keep_top();
        assert_eq!(sums.entries.len(), DAY_ENTRY_PAGES);
        assert_eq!(sums.entries.values().sum::<u64>(), all, "nothing is lost");
        assert!(sums.entries.contains_key(OTHER_PATHS));
        assert_eq!(
            sums.entries.get("/4"),
            Some(&5),
            "a common one is kept by name"
        );
    }
}
