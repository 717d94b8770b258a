//! What a batch adds to each day's totals, and counts as the engines keep
//! them (signed 64-bit integers).

use std::collections::BTreeMap;

use activity::rows::Batch;
use chrono::NaiveDate;

/// A count as a signed integer column; counts never come near the limit.
pub fn int(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// A count read back (a negative one, which whocomes never writes, is 0).
pub fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// The batch's requests per store and day, summed from its hourly rows (a
/// statement may not upsert one key twice).
pub fn day_requests(batch: &Batch) -> Vec<((&str, NaiveDate), u64)> {
    let mut days: BTreeMap<(&str, NaiveDate), u64> = BTreeMap::new();
    for row in &batch.hours {
        *days
            .entry((row.store.as_str(), row.hour.date_naive()))
            .or_default() += row.requests;
    }
    days.into_iter().collect()
}

/// The batch's marks of a browser's evidence per store and day, every mark
/// counted whether or not its visitor-day is kept: a reader that kept a
/// day's summary learns from them that the day changed.
pub fn day_marks(batch: &Batch) -> Vec<((&str, NaiveDate), u64)> {
    let mut days: BTreeMap<(&str, NaiveDate), u64> = BTreeMap::new();
    for mark in &batch.marks {
        *days.entry((mark.store.as_str(), mark.day)).or_default() += 1;
    }
    days.into_iter().collect()
}
