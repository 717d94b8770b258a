//! A visitor-day's page loads read as visits: how many, the entry and exit
//! page, how long it stayed and in how many visits, the campaign that
//! brought it (its first page load's that carried one) — and how two parts
//! of one visitor-day (two batches, a row kept and a batch) add up.
//!
//! Time on site is the sum of the gaps shorter than [`STAY_GAP`] between
//! consecutive page loads; a gap of [`STAY_GAP`] or more starts a new visit,
//! so a morning and an evening read are two visits, not one long stay.
//! Parts that follow each other in time (every live batch) add up exactly;
//! parts that overlap (an access log imported out of order) add their own
//! stays and visits, and the stay is capped by the span from entry to exit.
//!
//! [`PageLoads::merge`] is the rule; its SQL twin is the visitor-day upsert
//! in `stores/sql/src/upsert.rs`, and the store contract checks each store
//! against it with parts written in every order.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::request::campaign::Campaign;

/// A gap between two page loads this long or longer ends a visit
/// (Plausible, Matomo and Umami use 30 minutes too).
pub const STAY_GAP: chrono::TimeDelta = chrono::TimeDelta::minutes(30);

/// [`STAY_GAP`] in milliseconds, as stores compare it.
pub const STAY_GAP_MS: i64 = STAY_GAP.num_milliseconds();

/// A page load: when, and its cleaned path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PageAt {
    /// When it was requested.
    pub at: DateTime<Utc>,
    /// The cleaned path, as paths are kept.
    pub path: String,
}

/// A page load's campaign, and when.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CampaignAt {
    /// When the page was loaded.
    pub at: DateTime<Utc>,
    /// Its link's campaign.
    pub campaign: Campaign,
}

/// A page load as [`PageLoads::of`] reads it: when, its path, its campaign.
pub type Load<'a> = (DateTime<Utc>, &'a str, Option<&'a Campaign>);

/// What a visitor-day's page loads say of its visits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageLoads {
    /// Top-level document loads (an API call, a script's request, a form
    /// post is not one).
    pub count: u64,
    /// The first page load (ties: the smaller path).
    pub entry: Option<PageAt>,
    /// The last page load (ties: the larger path).
    pub exit: Option<PageAt>,
    /// Time on site: the sum of the gaps under [`STAY_GAP`], in
    /// milliseconds.
    pub stay_ms: u64,
    /// Runs of page loads separated by [`STAY_GAP`] or more.
    pub visits: u64,
    /// The first page load whose link carried a campaign (ties: the
    /// smaller campaign).
    #[serde(default)]
    pub campaign: Option<CampaignAt>,
}

impl PageLoads {
    /// The page loads of one visitor-day's part, in any order.
    pub fn of<'a>(loads: impl IntoIterator<Item = Load<'a>>) -> Self {
        let mut loads: Vec<Load<'a>> = loads.into_iter().collect();
        loads.sort_unstable();
        let campaign = loads
            .iter()
            .filter_map(|(at, _, campaign)| {
                campaign.map(|campaign| CampaignAt {
                    at: *at,
                    campaign: campaign.clone(),
                })
            })
            .min();
        let (Some(first), Some(last)) = (loads.first(), loads.last()) else {
            return Self::default();
        };
        let mut stay_ms = 0;
        let mut visits = 1;
        for pair in loads.windows(2) {
            let gap = (pair[1].0 - pair[0].0).num_milliseconds();
            if gap < STAY_GAP_MS {
                stay_ms += gap.unsigned_abs();
            } else {
                visits += 1;
            }
        }
        Self {
            count: loads.len() as u64,
            entry: Some(PageAt {
                at: first.0,
                path: first.1.to_owned(),
            }),
            exit: Some(PageAt {
                at: last.0,
                path: last.1.to_owned(),
            }),
            stay_ms,
            visits,
            campaign,
        }
    }

    /// Adds another part of the same visitor-day, written before or after
    /// this one: the result is the same whichever is `self`.
    pub fn merge(&mut self, other: &PageLoads) {
        let campaign = match (self.campaign.take(), &other.campaign) {
            (Some(mine), Some(theirs)) => Some(mine.min(theirs.clone())),
            (mine, theirs) => mine.or_else(|| theirs.clone()),
        };
        self.add(other);
        self.campaign = campaign;
    }

    /// [`merge`](Self::merge) but for the campaign.
    fn add(&mut self, other: &PageLoads) {
        let (Some(entry), Some(exit)) = (&self.entry, &self.exit) else {
            let count = self.count + other.count;
            *self = other.clone();
            self.count = count;
            return;
        };
        let (Some(other_entry), Some(other_exit)) = (&other.entry, &other.exit) else {
            self.count += other.count;
            return;
        };
        // The gap between the two parts, when one ends before the other
        // starts and the gap is short enough to be one visit.
        let gap = if exit.at <= other_entry.at {
            Some(other_entry.at - exit.at)
        } else if other_exit.at <= entry.at {
            Some(entry.at - other_exit.at)
        } else {
            None
        }
        .map(|gap| gap.num_milliseconds())
        .filter(|gap| *gap < STAY_GAP_MS);
        let entry = entry.clone().min(other_entry.clone());
        let exit = exit.clone().max(other_exit.clone());
        let span = (exit.at - entry.at).num_milliseconds().unsigned_abs();
        let bridge = gap.map_or(0, i64::unsigned_abs);
        self.stay_ms = (self.stay_ms + other.stay_ms + bridge).min(span);
        self.visits = (self.visits + other.visits).saturating_sub(u64::from(gap.is_some()));
        self.count += other.count;
        self.entry = Some(entry);
        self.exit = Some(exit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minute: i64) -> DateTime<Utc> {
        DateTime::UNIX_EPOCH + chrono::TimeDelta::minutes(minute)
    }

    fn loads(pages: &[(i64, &str)]) -> PageLoads {
        PageLoads::of(
            pages
                .iter()
                .map(|(minute, path)| (at(*minute), *path, None)),
        )
    }

    #[test]
    fn gaps_under_thirty_minutes_are_the_stay_and_longer_ones_start_a_visit() {
        let day = loads(&[
            (600, "/"),
            (602, "/about"),
            (610, "/cv"),
            (1200, "/"),
            (1201, "/x"),
        ]);
        assert_eq!(day.count, 5);
        assert_eq!(day.visits, 2, "morning and evening");
        assert_eq!(day.stay_ms, 11 * 60_000, "2 + 8 + 1 minutes");
        assert_eq!(day.entry.map(|page| page.path).as_deref(), Some("/"));
        assert_eq!(day.exit.map(|page| page.path).as_deref(), Some("/x"));
        let one = loads(&[(5, "/only")]);
        assert_eq!((one.count, one.visits, one.stay_ms), (1, 1, 0));
        assert_eq!(loads(&[]), PageLoads::default());
        let exactly = loads(&[(0, "/"), (30, "/")]);
        assert_eq!(
            (exactly.visits, exactly.stay_ms),
            (2, 0),
            "30 minutes ends a visit"
        );
    }

    /// Every way of cutting a day's page loads in two, merged either way
    /// round, gives what the whole day gives.
    #[test]
    fn parts_that_follow_each_other_merge_to_the_whole() {
        let pages = [
            (0, "/"),
            (3, "/b"),
            (3, "/a"),
            (40, "/c"),
            (55, "/d"),
            (200, "/e"),
        ];
        let whole = loads(&pages);
        for cut in 0..=pages.len() {
            let (before, after) = pages.split_at(cut);
            let mut forward = loads(before);
            forward.merge(&loads(after));
            assert_eq!(forward, whole, "cut at {cut}");
            let mut backward = loads(after);
            backward.merge(&loads(before));
            assert_eq!(backward, whole, "cut at {cut}, the later part first");
        }
    }

    #[test]
    fn overlapping_parts_never_stay_longer_than_their_span() {
        let mut merged = loads(&[(0, "/"), (20, "/b")]);
        merged.merge(&loads(&[(5, "/c"), (19, "/d")]));
        assert_eq!(merged.count, 4);
        assert!(merged.stay_ms <= 20 * 60_000, "{merged:?}");
        assert_eq!(merged.entry.map(|page| page.path).as_deref(), Some("/"));
        assert_eq!(merged.exit.map(|page| page.path).as_deref(), Some("/b"));
    }

    #[test]
    fn ties_keep_the_smaller_path_in_and_the_larger_out_whichever_comes_first() {
        let mut one = loads(&[(0, "/b")]);
        one.merge(&loads(&[(0, "/a")]));
        let mut other = loads(&[(0, "/a")]);
        other.merge(&loads(&[(0, "/b")]));
        assert_eq!(one, other);
        assert_eq!(one.entry.map(|page| page.path).as_deref(), Some("/a"));
        assert_eq!(one.exit.map(|page| page.path).as_deref(), Some("/b"));
    }

    #[test]
    fn the_first_campaign_is_the_visitor_days_whichever_part_comes_first() {
        let campaign = |name: &str| Campaign {
            source: Some("newsletter".to_owned()),
            medium: Some("email".to_owned()),
            name: Some(name.to_owned()),
        };
        let (spring, autumn) = (campaign("spring"), campaign("autumn"));
        let early = PageLoads::of([(at(5), "/", Some(&spring)), (at(6), "/b", None)]);
        let late = PageLoads::of([(at(1), "/x", None), (at(9), "/", Some(&autumn))]);
        let mut one = early.clone();
        one.merge(&late);
        let mut other = late.clone();
        other.merge(&early);
        assert_eq!(one, other);
        assert_eq!(
            one.campaign.map(|c| (c.at, c.campaign)),
            Some((at(5), spring))
        );
        let none = PageLoads::of([(at(0), "/", None)]);
        assert_eq!(none.campaign, None);
    }
}
