//! The documents a Cosmos DB store keeps, and how they are named.
//!
//! One logical partition per store and UTC day (`STORE|2026-12-03`) holds
//! that day's documents: one per hour and path (`h…`), one per visitor-day
//! (`v…`) with its paths and sources, and the day's own (`day`: all
//! requests, marks, bot requests per class, and what retention kept of
//! expired visitor-days). One more partition per store (`STORE|meta`)
//! holds the list of days, the readers' notes and the imported logs.
//! Every read the port asks for is a point read or a query within one
//! partition; a day's documents can be written together.
//!
//! Each document written also lists the last few writes applied to it
//! (`applied`), by a random name per write: a write retried after its reply
//! was lost can tell whether it already counted (see `write.rs`).

use std::collections::BTreeMap;

use activity::StoreName;
use activity::bot_class::BotClass;
use activity::goal::Goal;
use activity::report::{BotCount, KindCounts};
use activity::rows::{HourRow, VisitorDay};
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The partition key's path in the container.
pub const PARTITION_KEY_PATH: &str = "/pk";
/// How many writes a document remembers having taken.
pub const APPLIED_KEPT: usize = 16;

/// What a document is: the `t` field.
pub mod kind {
    /// An hour and path's requests.
    pub const HOUR: &str = "h";
    /// A visitor-day.
    pub const VISITOR: &str = "v";
    /// A day's own totals.
    pub const DAY: &str = "d";
    /// The list of days with documents.
    pub const DAYS: &str = "days";
    /// A reader's note.
    pub const NOTE: &str = "n";
    /// What was imported of a log.
    pub const IMPORT: &str = "i";
}

/// The id of a day's own document.
pub const DAY_ID: &str = "day";
/// The id of the list of days.
pub const DAYS_ID: &str = "days";

/// The partition of a store's day.
pub fn day_partition(store: &StoreName, day: NaiveDate) -> String {
    format!("{store}|{day}")
}

/// The partition of a store's list of days, notes and imports.
pub fn meta_partition(store: &StoreName) -> String {
    format!("{store}|meta")
}

/// A short hex digest: ids may not hold `/`, and a path can.
fn digest(text: &str, chars: usize) -> String {
    let mut hex = hex::encode(Sha256::digest(text.as_bytes()));
    hex.truncate(chars);
    hex
}

/// An hour's time as documents keep it: fixed width, so that its text
/// sorts as the time does.
pub fn hour_text(hour: DateTime<Utc>) -> String {
    hour.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The id of an hour and path's document (within its day's partition).
pub fn hour_id(hour: DateTime<Utc>, path: &str) -> String {
    format!("h{}{}", hour.format("%H"), digest(path, 40))
}

/// The id of a visitor-day's document (within its day's partition).
pub fn visitor_id(row: &VisitorDay) -> String {
    format!("v{}", row.visitor)
}

/// The id of a note's document.
pub fn note_id(name: &str) -> String {
    format!("n{}", digest(name, 48))
}

/// The id of an imported log's document.
pub fn import_id(log: &str) -> String {
    format!("i{}", digest(log, 48))
}

/// What every document carries besides its body.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Doc<T> {
    /// Unique within the partition.
    pub id: String,
    /// The partition.
    pub pk: String,
    /// What it is ([`kind`]).
    pub t: String,
    /// The text reads sort by: the hour and path, or the visitor's token.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub k: String,
    /// The last writes applied to it, newest last.
    #[serde(default)]
    pub applied: Vec<String>,
    /// The version read, for a write that must not overwrite another's.
    #[serde(rename = "_etag", default, skip_serializing)]
    pub etag: Option<String>,
    /// What it holds.
    #[serde(flatten)]
    pub body: T,
}

impl<T> Doc<T> {
    /// A new document.
    pub fn new(id: String, pk: String, t: &str, k: String, body: T) -> Self {
        Self {
            id,
            pk,
            t: t.to_owned(),
            k,
            applied: Vec::new(),
            etag: None,
            body,
        }
    }

    /// Notes that the write named `write` was applied to it.
    pub fn applied_by(&mut self, write: &str) {
        self.applied.push(write.to_owned());
        let extra = self.applied.len().saturating_sub(APPLIED_KEPT);
        self.applied.drain(..extra);
    }
}

/// An hour and path's requests.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HourBody {
    /// The row, as the port reads it.
    pub row: HourRow,
    /// The hour as fixed-width text (what queries compare).
    pub hour: String,
}

/// A visitor-day.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VisitorBody {
    /// The row, with its paths and sources.
    pub row: VisitorDay,
}

/// A day's own totals.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DayBody {
    /// The day.
    pub day: Option<NaiveDate>,
    /// All requests, while the day's hourly rows are kept.
    #[serde(default)]
    pub requests: Option<u64>,
    /// Marks of a browser's evidence recorded.
    #[serde(default)]
    pub marks: u64,
    /// Bot requests per class.
    #[serde(default)]
    pub bots: BTreeMap<BotClass, u64>,
    /// The visitor-days by kind kept when the day's visitor documents expired.
    #[serde(default)]
    pub expired: Option<KindCounts>,
    /// The visitor-days per bot class kept then.
    #[serde(default)]
    pub expired_classes: BTreeMap<BotClass, BotCount>,
    /// Whether every hourly document of the day has expired.
    #[serde(default)]
    pub hours_gone: bool,
    /// The goals reached per hour (at most 100 goals an hour, so a few
    /// thousand rows a day at most): kept, and expired, with the hours.
    #[serde(default)]
    pub goal_hours: Vec<GoalHourCounts>,
    /// Set while the day's visitor documents are being deleted, their
    /// counts already in `expired`: readers leave them out.
    #[serde(default)]
    pub expiring: bool,
}

/// One goal in one hour of a day's document (its store is the partition's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalHourCounts {
    /// The start of the hour.
    pub hour: DateTime<Utc>,
    /// The goal.
    pub goal: Goal,
    /// Its requests.
    pub requests: u64,
    /// Of them, the bots'.
    pub bots: u64,
    /// Of them, the site's own reads.
    pub self_reads: u64,
}

/// The list of days that have a partition.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DaysBody {
    /// Oldest first.
    pub days: Vec<NaiveDate>,
}

/// A reader's note.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NoteBody {
    /// Its name.
    pub name: String,
    /// What it says.
    pub body: String,
}

/// What was imported of a log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ImportBody {
    /// The log's identity.
    pub log: String,
    /// How many of its bytes.
    pub bytes: u64,
    /// Their digest.
    pub digest: String,
}
