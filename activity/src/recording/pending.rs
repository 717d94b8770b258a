//! Rows folded and not yet written: batches added together, keyed as the
//! stores key their rows (an hour and path; a store, day and token; a day
//! and bot class), so that a row seen in many folds is one row when it is
//! written. The writer keeps one between writes (SPEC §6: each row is
//! written at most once per interval), and the same one holds what waits
//! while a store fails, so more requests from the same visitors cost no
//! more memory; it knows its size in bytes ([`PendingRows::bytes`]) and,
//! past a budget, gives up whole visitor-days, the oldest first
//! ([`PendingRows::give_up_beyond`]). [`Batch::merge`] is two batches
//! added into one.

use std::collections::{BTreeMap, BTreeSet};
use std::mem::size_of;

use chrono::{DateTime, NaiveDate, Utc};

use crate::port::rows::{Batch, BotDay, GoalHour, HourRow, VisitorDay};
use crate::request::bot_class::BotClass;
use crate::request::evidence::Evidence;
use crate::request::goal::Goal;
use crate::request::hit::StoreName;
use crate::request::mark::FilesMark;
use crate::visitor::token::VisitorToken;

type HourKey = (StoreName, DateTime<Utc>, String);
type VisitorKey = (StoreName, NaiveDate, VisitorToken);
type BotKey = (StoreName, NaiveDate, BotClass);
type GoalKey = (StoreName, DateTime<Utc>, Goal);

/// Batches added together, not yet written.
#[derive(Debug, Default)]
pub struct PendingRows {
    /// An hour's counts: requests, bots, self-reads.
    hours: BTreeMap<HourKey, [u64; 3]>,
    visitors: BTreeMap<VisitorKey, VisitorDay>,
    /// Marks whose visitor-day is in no pending row (the store sets them).
    marks: BTreeSet<FilesMark>,
    bot_days: BTreeMap<BotKey, u64>,
    /// A goal's hour: requests, bots, self-reads.
    goal_hours: BTreeMap<GoalKey, [u64; 3]>,
    hits: u64,
    files: u64,
    /// What the rows take in memory, as [`bytes`](Self::bytes) says.
    bytes: usize,
}

/// What the writer gave up to stay within its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GivenUp {
    /// Visitor-days given up.
    pub visitor_days: u64,
    /// Their requests (counted as lost hits).
    pub hits: u64,
}

impl PendingRows {
    /// Adds a batch: counts added to the rows already pending, new rows
    /// kept, a mark set on its pending visitor-day (from this batch or an
    /// earlier one) or kept for the store.
    pub fn add(&mut self, batch: Batch) {
        for row in batch.hours {
            let key = (row.store, row.hour, row.path);
            if !self.hours.contains_key(&key) {
                self.bytes += hour_bytes(&key.2);
            }
            let kept = self.hours.entry(key).or_default();
            kept[0] += row.requests;
            kept[1] += row.bots;
            kept[2] += row.self_reads;
        }
        let mut new_visitors = false;
        for row in batch.visitors {
            let key = (row.store.clone(), row.day, row.visitor.clone());
            match self.visitors.get_mut(&key) {
                Some(kept) => {
                    let before = visitor_bytes(kept);
                    kept.absorb(row);
                    self.bytes = (self.bytes + visitor_bytes(kept)).saturating_sub(before);
                }
                None => {
                    self.bytes += visitor_bytes(&row);
                    self.visitors.insert(key, row);
                    new_visitors = true;
                }
            }
        }
        // A mark kept earlier finds its visitor-day among the new rows.
        if new_visitors && !self.marks.is_empty() {
            let visitors = &mut self.visitors;
            self.marks.retain(|mark| !set_files(visitors, mark));
        }
        for mark in batch.marks {
            if !set_files(&mut self.visitors, &mark) {
                self.marks.insert(mark);
            }
        }
        for row in batch.bot_days {
            *self
                .bot_days
                .entry((row.store, row.day, row.class))
                .or_default() += row.requests;
        }
        for row in batch.goal_hours {
            let key = (row.store, row.hour, row.goal);
            if !self.goal_hours.contains_key(&key) {
                self.bytes += hour_bytes(key.2.name());
            }
            let kept = self.goal_hours.entry(key).or_default();
            kept[0] += row.requests;
            kept[1] += row.bots;
            kept[2] += row.self_reads;
        }
        self.hits += batch.hits;
        self.files += batch.files;
    }

    /// Whether nothing is pending (no row: hourly rows stay when their
    /// visitor-days are given up).
    pub fn is_empty(&self) -> bool {
        self.rows() == 0
    }

    /// The rows pending: hourly rows, visitor-days, bot days, marks and
    /// goals' hours (a
    /// visitor-day's paths and sources ride with it, at most a few per
    /// visitor-day under the hourly path budget).
    pub fn rows(&self) -> usize {
        self.hours.len()
            + self.visitors.len()
            + self.bot_days.len()
            + self.marks.len()
            + self.goal_hours.len()
    }

    /// The hits folded into them.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// The marks of file requests folded into them.
    pub fn files(&self) -> u64 {
        self.files
    }

    /// What the rows take in memory: an estimate from their number and
    /// their texts' lengths (each row, its key, its texts and the map's
    /// own cost per entry), within a small factor of what the allocator
    /// hands out for them. Kept as rows are added, so asking is free.
    pub fn bytes(&self) -> usize {
        self.bytes
            + (self.marks.len() * (size_of::<FilesMark>() + MAP_ENTRY))
            + self.bot_days.len() * (size_of::<BotKey>() + size_of::<u64>() + MAP_ENTRY)
    }

    /// What `batch`'s rows would take held, as [`bytes`](Self::bytes)
    /// counts them (without holding them).
    pub fn bytes_of(batch: &Batch) -> usize {
        batch
            .hours
            .iter()
            .map(|row| hour_bytes(&row.path))
            .sum::<usize>()
            + batch
                .goal_hours
                .iter()
                .map(|row| hour_bytes(row.goal.name()))
                .sum::<usize>()
            + batch.visitors.iter().map(visitor_bytes).sum::<usize>()
            + batch.marks.len() * (size_of::<FilesMark>() + MAP_ENTRY)
            + batch.bot_days.len() * (size_of::<BotKey>() + size_of::<u64>() + MAP_ENTRY)
    }

    /// Gives up visitor-days, the oldest day's first and within a day the
    /// longest unseen first, until what is held takes at most `most`
    /// bytes; their requests leave [`hits`](Self::hits) (they are lost).
    /// The hourly rows stay whole: the requests' totals are kept, only who
    /// made them is given up.
    pub fn give_up_beyond(&mut self, most: usize) -> GivenUp {
        let mut given_up = GivenUp::default();
        if self.bytes() <= most {
            return given_up;
        }
        let mut oldest: Vec<(NaiveDate, DateTime<Utc>, VisitorKey)> = self
            .visitors
            .iter()
            .map(|(key, row)| (row.day, row.last_seen, key.clone()))
            .collect();
        oldest.sort_unstable();
        for (_, _, key) in oldest {
            if self.bytes() <= most {
                break;
            }
            if let Some(row) = self.visitors.remove(&key) {
                self.bytes = self.bytes.saturating_sub(visitor_bytes(&row));
                self.hits = self.hits.saturating_sub(row.requests);
                given_up.visitor_days += 1;
                given_up.hits += row.requests;
            }
        }
        given_up
    }

    /// Everything pending as one batch, leaving it pending (a copy for a
    /// journal).
    pub fn to_batch(&self) -> Batch {
        PendingRows {
            hours: self.hours.clone(),
            visitors: self.visitors.clone(),
            marks: self.marks.clone(),
            bot_days: self.bot_days.clone(),
            goal_hours: self.goal_hours.clone(),
            hits: self.hits,
            files: self.files,
            bytes: self.bytes,
        }
        .into_batch()
    }

    /// Everything pending as one batch, leaving nothing pending.
    pub fn take(&mut self) -> Batch {
        std::mem::take(self).into_batch()
    }

    /// Everything pending as one batch.
    pub fn into_batch(self) -> Batch {
        Batch {
            hours: self
                .hours
                .into_iter()
                .map(|(key, counts)| HourRow::of_counts(key, counts))
                .collect(),
            visitors: self.visitors.into_values().collect(),
            marks: self.marks.into_iter().collect(),
            bot_days: self
                .bot_days
                .into_iter()
                .map(|((store, day, class), requests)| BotDay {
                    store,
                    day,
                    class,
                    requests,
                })
                .collect(),
            goal_hours: self
                .goal_hours
                .into_iter()
                .map(
                    |((store, hour, goal), [requests, bots, self_reads])| GoalHour {
                        store,
                        hour,
                        goal,
                        requests,
                        bots,
                        self_reads,
                    },
                )
                .collect(),
            hits: self.hits,
            files: self.files,
            id: None,
        }
    }
}

/// What a map entry costs besides its key and value (a B-tree's nodes
/// hold up to eleven, with their edges and spare room).
const MAP_ENTRY: usize = 24;

/// An hourly row (of a path or a goal) with its key.
fn hour_bytes(text: &str) -> usize {
    size_of::<HourKey>() + size_of::<[u64; 3]>() + MAP_ENTRY + text.len()
}

/// A visitor-day with its key: the row, its lists' room and their texts.
fn visitor_bytes(row: &VisitorDay) -> usize {
    let paths: usize = row
        .top_paths
        .iter()
        .map(|count| size_of::<crate::port::rows::PathCount>() + count.path.len())
        .sum();
    let sources: usize = row
        .sources
        .iter()
        .map(|count| size_of::<crate::port::rows::SourceCount>() + source_len(&count.source))
        .sum();
    let goals: usize = row
        .goals
        .iter()
        .map(|count| size_of::<crate::port::rows::GoalCount>() + count.goal.name().len())
        .sum();
    let pages = [&row.pages.entry, &row.pages.exit]
        .into_iter()
        .flatten()
        .map(|page| page.path.len())
        .sum::<usize>()
        + row.pages.campaign.as_ref().map_or(0, |at| {
            [&at.campaign.source, &at.campaign.medium, &at.campaign.name]
                .into_iter()
                .flatten()
                .map(String::len)
                .sum()
        });
    size_of::<VisitorKey>() + size_of::<VisitorDay>() + MAP_ENTRY + paths + sources + goals + pages
}

/// The length of a source's text.
fn source_len(source: &crate::request::source::Source) -> usize {
    use crate::request::source::Source;
    match source {
        Source::Referrer(text) | Source::Tag(text) => text.len(),
    }
}

/// Sets the files' evidence on the mark's visitor-day if it is pending.
fn set_files(visitors: &mut BTreeMap<VisitorKey, VisitorDay>, mark: &FilesMark) -> bool {
    match visitors.get_mut(&(mark.store.clone(), mark.day, mark.visitor.clone())) {
        Some(row) => {
            row.evidence |= Evidence::FILES;
            true
        }
        None => false,
    }
}

impl Batch {
    /// This batch and a later one as one batch (for retrying a failed write
    /// together with what arrived meanwhile).
    pub fn merge(self, later: Batch) -> Batch {
        let mut pending = PendingRows::default();
        pending.add(self);
        pending.add(later);
        pending.into_batch()
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;

    use super::*;
    use crate::testing::sample;

    /// However a stream of hits is cut into folds, the rows pending after
    /// adding the folds are the rows of one fold of them all.
    #[test]
    fn folds_added_are_one_fold() {
        let name = StoreName::parse("sqlite").expect("a name");
        let at = Utc
            .with_ymd_and_hms(2026, 12, 4, 9, 0, 0)
            .single()
            .expect("a time");
        let hits = sample::hits(&name, at, 3_000, 11);
        let whole = Batch::fold(&hits);
        for size in [1, 7, 250, 1_000] {
            let mut pending = PendingRows::default();
            for chunk in hits.chunks(size) {
                pending.add(Batch::fold(chunk));
            }
            assert_eq!(pending.hits(), 3_000);
            let rows = whole.hours.len() + whole.visitors.len() + whole.bot_days.len();
            assert_eq!(pending.rows(), rows, "folds of {size}");
            assert_eq!(pending.take(), whole, "folds of {size}");
            assert!(pending.is_empty(), "taken");
        }
    }

    /// Past the budget, visitor-days go oldest day first, and within a
    /// day the longest unseen first; the hourly rows and the rest stay,
    /// and what is given up leaves the hits.
    #[test]
    fn the_oldest_visitor_days_are_given_up_first() {
        let name = StoreName::parse("pg").expect("a name");
        let day = |d| {
            Utc.with_ymd_and_hms(2026, 12, d, 8, 0, 0)
                .single()
                .expect("a time")
        };
        let mut pending = PendingRows::default();
        for (d, seed) in [(6, 1), (7, 2)] {
            pending.add(Batch::fold(&sample::hits(&name, day(d), 400, seed)));
        }
        let before = pending.to_batch();
        let (bytes, hits) = (pending.bytes(), pending.hits());
        let most = bytes / 2;
        let given_up = pending.give_up_beyond(most);
        assert!(pending.bytes() <= most, "{} > {most}", pending.bytes());
        assert!(given_up.visitor_days > 0);
        assert_eq!(pending.hits(), hits - given_up.hits, "their requests leave");
        let after = pending.to_batch();
        assert_eq!(after.hours, before.hours, "the hourly rows stay whole");
        let kept: BTreeSet<_> = after
            .visitors
            .iter()
            .map(|row| (row.day, row.visitor.clone()))
            .collect();
        let (gone, stayed): (Vec<_>, Vec<_>) = before
            .visitors
            .iter()
            .partition(|row| !kept.contains(&(row.day, row.visitor.clone())));
        assert_eq!(gone.len() as u64, given_up.visitor_days);
        assert_eq!(
            gone.iter().map(|row| row.requests).sum::<u64>(),
            given_up.hits
        );
        let newest_gone = gone.iter().map(|row| (row.day, row.last_seen)).max();
        let oldest_kept = stayed.iter().map(|row| (row.day, row.last_seen)).min();
        assert!(
            newest_gone <= oldest_kept,
            "{newest_gone:?} after {oldest_kept:?}"
        );
        // Within the budget, nothing goes.
        assert_eq!(pending.give_up_beyond(usize::MAX), GivenUp::default());
    }

    /// The estimate follows the rows: a fold of the same visitors again
    /// adds nothing, new visitors add about what the first ones took.
    #[test]
    fn the_same_visitors_again_cost_no_more_bytes() {
        let name = StoreName::parse("pg").expect("a name");
        let at = Utc
            .with_ymd_and_hms(2026, 12, 7, 9, 0, 0)
            .single()
            .expect("a time");
        let hits = sample::hits(&name, at, 2_000, 5);
        let mut pending = PendingRows::default();
        pending.add(Batch::fold(&hits));
        let once = pending.bytes();
        assert!(once > 100 * pending.visitors.len(), "{once}");
        assert_eq!(
            PendingRows::bytes_of(&Batch::fold(&hits)),
            once,
            "unheld, the same"
        );
        for _ in 0..5 {
            pending.add(Batch::fold(&hits));
        }
        assert_eq!(pending.bytes(), once, "the same rows, counted up");
        assert_eq!(pending.hits(), 12_000);
    }

    /// A mark kept for the store finds its visitor-day when that day's
    /// first hit comes in a later fold.
    #[test]
    fn a_mark_waits_for_its_visitor_day() {
        let name = StoreName::parse("sqlite").expect("a name");
        let at = Utc
            .with_ymd_and_hms(2026, 12, 4, 9, 0, 0)
            .single()
            .expect("a time");
        let mut hits = sample::hits(&name, at, 1, 3);
        hits[0].evidence = Evidence::NONE;
        let mark = FilesMark {
            store: name.clone(),
            day: hits[0].at.date_naive(),
            visitor: hits[0].visitor.clone(),
        };
        let mut pending = PendingRows::default();
        pending.add(Batch {
            marks: vec![mark],
            files: 1,
            ..Batch::default()
        });
        assert_eq!(pending.rows(), 1, "the mark alone");
        pending.add(Batch::fold(&hits));
        let batch = pending.take();
        assert!(batch.marks.is_empty(), "set on its row");
        assert!(batch.visitors[0].evidence.has(Evidence::FILES));
        assert_eq!((batch.hits, batch.files), (1, 1));
    }
}
