//! The reference readers: what an adapter with no quicker way calls for a
//! port method that can be answered from its rows (a page of rows, the
//! visitor table's newest rows, day totals, a day's summary). The store
//! contract checks every adapter's own answers against these.

use chrono::{DateTime, NaiveDate, Utc};

use crate::port::rows::{HourRow, VisitorDay};
use crate::port::store::{ActivityStore, StoreError};
use crate::sums::filter::Filter;
use crate::sums::report::{FunnelStep, merge_visitors};
use crate::sums::summary::{self, DaySummary};
use crate::visitor::token::VisitorToken;

/// [`ActivityStore::hours_page`] for a store with no quicker way: reads
/// every row from `since` on and keeps the page.
pub async fn page_of_hours(
    store: &(impl ActivityStore + ?Sized),
    since: DateTime<Utc>,
    after: Option<(DateTime<Utc>, String)>,
    limit: usize,
) -> Result<Vec<HourRow>, StoreError> {
    let mut rows = store.hours_since(since).await?;
    rows.sort_by(|a, b| (a.hour, &a.path).cmp(&(b.hour, &b.path)));
    Ok(rows
        .into_iter()
        .filter(|row| {
            after
                .as_ref()
                .is_none_or(|(hour, path)| (row.hour, &row.path) > (*hour, path))
        })
        .take(limit)
        .collect())
}

/// [`ActivityStore::visitors_page`] for a store with no quicker way: reads
/// every row from `since` on and keeps the page.
pub async fn page_of_visitors(
    store: &(impl ActivityStore + ?Sized),
    since: NaiveDate,
    after: Option<(NaiveDate, VisitorToken)>,
    limit: usize,
) -> Result<Vec<VisitorDay>, StoreError> {
    let mut rows = store.visitors_since(since).await?;
    rows.sort_by(|a, b| (a.day, &a.visitor).cmp(&(b.day, &b.visitor)));
    Ok(rows
        .into_iter()
        .filter(|row| {
            after
                .as_ref()
                .is_none_or(|(day, visitor)| (row.day, &row.visitor) > (*day, visitor))
        })
        .take(limit)
        .collect())
}

/// The newest visitor-days from `since` on, at most `limit`, and how many
/// there are in all, read through [`ActivityStore::visitors_since`]: for a
/// store with no quicker way to the visitor table's page.
pub async fn latest_of_all<S: ActivityStore + ?Sized>(
    store: &S,
    since: NaiveDate,
    limit: usize,
) -> Result<(Vec<VisitorDay>, u64), StoreError> {
    let mut rows = store.visitors_since(since).await?;
    let total = rows.len() as u64;
    rows.sort_by(|a, b| (&b.day, &b.visitor).cmp(&(&a.day, &a.visitor)));
    rows.truncate(limit);
    Ok((rows, total))
}

/// Requests per day from `since` on, summed from the hourly rows: for a
/// store that keeps no day totals of its own.
pub async fn day_requests_from_hours<S: ActivityStore + ?Sized>(
    store: &S,
    since: NaiveDate,
) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
    Ok(summary::day_requests(
        &store.hours_since(summary::midnight(since)).await?,
    ))
}

/// Reads a store's rows from `first` on and summarizes the days from
/// `first` to `last`: what every store's own `day_summaries` must equal.
pub async fn read_and_summarize<S: ActivityStore + ?Sized>(
    store: &S,
    first: NaiveDate,
    last: NaiveDate,
    steps: &[FunnelStep],
    filter: &Filter,
) -> Result<Vec<DaySummary>, StoreError> {
    let visitors = store.visitors_since(first).await?;
    if !filter.is_empty() {
        return Ok(summary::summarize_filtered(
            first,
            last,
            &merge_visitors(&visitors),
            steps,
            filter,
        ));
    }
    let expired = store.expired_kinds_since(first).await?;
    let hours = store.hours_since(summary::midnight(first)).await?;
    let bot_days = store.bot_days_since(first).await?;
    Ok(summary::summarize(
        first,
        last,
        &merge_visitors(&visitors),
        &expired,
        &hours,
        &bot_days,
        steps,
    ))
}
