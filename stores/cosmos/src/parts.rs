//! A batch cut into what each day's partition gets, document by document:
//! the deltas a write adds, what an earlier write already added taken off
//! them, and a delta applied to the document it changes.

use std::collections::{BTreeMap, BTreeSet};

use activity::StoreName;
use activity::bot_class::BotClass;
use activity::evidence::Evidence;
use activity::goal::Goal;
use activity::path::OTHER_PATHS;
use activity::rows::{Batch, HourRow, PathCount, VisitorDay};
use chrono::{DateTime, NaiveDate, Utc};

use crate::docs::{self, DayBody};

/// The most paths a visitor-day's document keeps (the rest are counted
/// under `(other paths)`, its total exact), and the most sources: a
/// document may not pass 2 MB.
pub const VISITOR_PATHS: usize = 1_000;
/// See [`VISITOR_PATHS`].
pub const VISITOR_SOURCES: usize = 1_000;

/// What one day's partition gets from a batch, by document id.
#[derive(Clone, Debug, Default)]
pub struct Part {
    /// Hourly rows to add.
    pub hours: BTreeMap<String, HourRow>,
    /// Visitor-days to add.
    pub visitors: BTreeMap<String, VisitorDay>,
    /// Visitor-days (not in `visitors`) that fetched the page's files.
    pub marked: BTreeSet<String>,
    /// What the day's own document gets.
    pub day: DayDelta,
}

/// What a day's own document gets from a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DayDelta {
    /// Requests.
    pub requests: u64,
    /// Marks of a browser's evidence.
    pub marks: u64,
    /// Bot requests per class.
    pub bots: BTreeMap<BotClass, u64>,
    /// Requests per hour and goal: requests, bots, self-reads.
    pub goal_hours: BTreeMap<(DateTime<Utc>, Goal), [u64; 3]>,
}

/// A batch's parts, by store and day.
pub type Parts = BTreeMap<(StoreName, NaiveDate), Part>;

/// Cuts `batch` into its days' parts.
pub fn split(batch: &Batch) -> Parts {
    let mut parts = Parts::new();
    for row in &batch.hours {
        let part = parts
            .entry((row.store.clone(), row.hour.date_naive()))
            .or_default();
        part.day.requests += row.requests;
        part.hours
            .insert(docs::hour_id(row.hour, &row.path), row.clone());
    }
    for row in &batch.visitors {
        parts
            .entry((row.store.clone(), row.day))
            .or_default()
            .visitors
            .insert(docs::visitor_id(row), row.clone());
    }
    for mark in &batch.marks {
        let part = parts.entry((mark.store.clone(), mark.day)).or_default();
        part.day.marks += 1;
        part.marked.insert(format!("v{}", mark.visitor));
    }
    for row in &batch.goal_hours {
        let kept = parts
            .entry((row.store.clone(), row.hour.date_naive()))
            .or_default()
            .day
            .goal_hours
            .entry((row.hour, row.goal.clone()))
            .or_default();
        kept[0] += row.requests;
        kept[1] += row.bots;
        kept[2] += row.self_reads;
    }
    for bot in &batch.bot_days {
        *parts
            .entry((bot.store.clone(), bot.day))
            .or_default()
            .day
            .bots
            .entry(bot.class)
            .or_default() += bot.requests;
    }
    parts
}

impl Part {
    /// Every document id the part changes, the day's own first.
    pub fn ids(&self) -> Vec<String> {
        let mut ids = vec![docs::DAY_ID.to_owned()];
        ids.extend(self.hours.keys().cloned());
        ids.extend(self.visitors.keys().cloned());
        ids.extend(self.marked.iter().cloned());
        ids
    }

    /// Takes off what `earlier` added to document `id` (an earlier write
    /// known to have been applied to it). Only counts are taken off: the
    /// rest of a visitor-day (times, evidence, classes, entry and exit
    /// pages) adds the same twice. Its page loads' count, stay and visits
    /// are counts: the part written again overlaps the document, and
    /// overlapping page loads add theirs.
    pub fn take_off(&mut self, id: &str, earlier: &Part) {
        if id == docs::DAY_ID {
            let day = &mut self.day;
            day.requests = day.requests.saturating_sub(earlier.day.requests);
            day.marks = day.marks.saturating_sub(earlier.day.marks);
            for (class, requests) in &earlier.day.bots {
                if let Some(kept) = day.bots.get_mut(class) {
                    *kept = kept.saturating_sub(*requests);
                }
            }
            for (key, before) in &earlier.day.goal_hours {
                if let Some(kept) = day.goal_hours.get_mut(key) {
                    for (count, before) in kept.iter_mut().zip(before) {
                        *count = count.saturating_sub(*before);
                    }
                }
            }
        } else if let (Some(row), Some(before)) = (self.hours.get_mut(id), earlier.hours.get(id)) {
            row.requests = row.requests.saturating_sub(before.requests);
            row.bots = row.bots.saturating_sub(before.bots);
            row.self_reads = row.self_reads.saturating_sub(before.self_reads);
        } else if let (Some(row), Some(before)) =
            (self.visitors.get_mut(id), earlier.visitors.get(id))
        {
            row.requests = row.requests.saturating_sub(before.requests);
            row.bots = row.bots.saturating_sub(before.bots);
            row.self_reads = row.self_reads.saturating_sub(before.self_reads);
            let (pages, earlier) = (&mut row.pages, &before.pages);
            pages.count = pages.count.saturating_sub(earlier.count);
            pages.stay_ms = pages.stay_ms.saturating_sub(earlier.stay_ms);
            pages.visits = pages.visits.saturating_sub(earlier.visits);
            for path in &before.top_paths {
                if let Some(kept) = row.top_paths.iter_mut().find(|p| p.path == path.path) {
                    kept.requests = kept.requests.saturating_sub(path.requests);
                }
            }
            row.top_paths.retain(|path| path.requests > 0);
            for source in &before.sources {
                if let Some(kept) = row.sources.iter_mut().find(|s| s.source == source.source) {
                    kept.page_loads = kept.page_loads.saturating_sub(source.page_loads);
                }
            }
            row.sources.retain(|source| source.page_loads > 0);
            for goal in &before.goals {
                if let Some(kept) = row.goals.iter_mut().find(|g| g.goal == goal.goal) {
                    kept.requests = kept.requests.saturating_sub(goal.requests);
                }
            }
            row.goals.retain(|goal| goal.requests > 0);
        }
    }
}

/// Adds an hourly delta to what the document holds.
pub fn add_hour(kept: &mut HourRow, delta: &HourRow) {
    kept.requests += delta.requests;
    kept.bots += delta.bots;
    kept.self_reads += delta.self_reads;
}

/// Adds a visitor-day delta to what the document holds, within the
/// document's bounds.
pub fn add_visitor(kept: &mut VisitorDay, delta: &VisitorDay) {
    kept.absorb(delta.clone());
    bound(kept);
}

/// Sets the files' evidence on a visitor-day.
pub fn mark(kept: &mut VisitorDay) {
    kept.evidence |= Evidence::FILES;
}

/// Keeps a new visitor-day's document within bounds.
pub fn bound(row: &mut VisitorDay) {
    if row.top_paths.len() > VISITOR_PATHS {
        // Most first: the tail is the least requested.
        let rest: u64 = row
            .top_paths
            .drain(VISITOR_PATHS - 1..)
            .map(|path| path.requests)
            .sum();
        match row.top_paths.iter_mut().find(|p| p.path == OTHER_PATHS) {
            Some(other) => other.requests += rest,
            None => row.top_paths.push(PathCount {
                path: OTHER_PATHS.to_owned(),
                requests: rest,
            }),
        }
        row.top_paths.sort_by(|a, b| {
            b.requests
                .cmp(&a.requests)
                .then_with(|| a.path.cmp(&b.path))
        });
    }
    row.sources.truncate(VISITOR_SOURCES);
}

/// Adds a day's delta to its document.
pub fn add_day(kept: &mut DayBody, delta: &DayDelta, day: NaiveDate, has_hours: bool) {
    kept.day = Some(day);
    if has_hours || delta.requests > 0 {
        kept.requests = Some(kept.requests.unwrap_or(0) + delta.requests);
        kept.hours_gone = false;
    }
    kept.marks += delta.marks;
    for (class, requests) in &delta.bots {
        *kept.bots.entry(*class).or_default() += requests;
    }
    for ((hour, goal), [requests, bots, self_reads]) in &delta.goal_hours {
        match kept
            .goal_hours
            .iter_mut()
            .find(|row| row.hour == *hour && row.goal == *goal)
        {
            Some(row) => {
                row.requests += requests;
                row.bots += bots;
                row.self_reads += self_reads;
            }
            None => kept.goal_hours.push(docs::GoalHourCounts {
                hour: *hour,
                goal: goal.clone(),
                requests: *requests,
                bots: *bots,
                self_reads: *self_reads,
            }),
        }
    }
}
