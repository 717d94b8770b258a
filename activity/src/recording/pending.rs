//! Rows folded and not yet written: batches added together, keyed as the
//! stores key their rows (an hour and path; a store, day and token; a day
//! and bot class), so that a row seen in many folds is one row when it is
//! written. The writer keeps one between writes (SPEC §6: each row is
//! written at most once per interval); [`Batch::merge`] is two batches
//! added into one.

use std::collections::{BTreeMap, BTreeSet};

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
}

impl PendingRows {
    /// Adds a batch: counts added to the rows already pending, new rows
    /// kept, a mark set on its pending visitor-day (from this batch or an
    /// earlier one) or kept for the store.
    pub fn add(&mut self, batch: Batch) {
        for row in batch.hours {
            let kept = self
                .hours
                .entry((row.store, row.hour, row.path))
                .or_default();
            kept[0] += row.requests;
            kept[1] += row.bots;
            kept[2] += row.self_reads;
        }
        let mut new_visitors = false;
        for row in batch.visitors {
            let key = (row.store.clone(), row.day, row.visitor.clone());
            match self.visitors.get_mut(&key) {
                Some(kept) => kept.absorb(row),
                None => {
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
            let kept = self
                .goal_hours
                .entry((row.store, row.hour, row.goal))
                .or_default();
            kept[0] += row.requests;
            kept[1] += row.bots;
            kept[2] += row.self_reads;
        }
        self.hits += batch.hits;
        self.files += batch.files;
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.hits == 0 && self.marks.is_empty()
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
        }
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
