//! The rows a store keeps, and what a store says about itself (SPEC §6).
//!
//! No row holds one request: activity is kept per hour and path, and per
//! visitor-day. A visitor-day row holds a token and a network, never an
//! address; its paths and sources are the same cleaned values a hit carries.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::address::Network;
use crate::hit::StoreName;
use crate::source::Source;
use crate::token::VisitorToken;

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
    /// The requests made by people.
    pub fn people(&self) -> u64 {
        self.requests.saturating_sub(self.bots + self.self_reads)
    }
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
    /// The most requested paths, most first.
    pub top_paths: Vec<PathCount>,
    /// The sources of its page loads, most first.
    pub sources: Vec<SourceCount>,
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
