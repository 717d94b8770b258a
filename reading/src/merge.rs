//! Several stores read as one. With one store the store sums its days in
//! its engine; with several, their rows are read together and summed here,
//! so that a token seen on two stores is one visitor-day. The visitor table
//! and the exports take every store's rows.

use std::sync::Arc;

use activity::StoreName;
use activity::filter::Filter;
use activity::report::{self, FunnelStep};
use activity::rows::VisitorDay;
use activity::store::{ActivityStore, StoreError};
use activity::summary::{self, DaySummary};
use chrono::NaiveDate;

/// The summaries of the days from `first` to `last` over `stores`, of the
/// visitor-days `filter` lets through.
pub(crate) async fn day_summaries(
    stores: &[Arc<dyn ActivityStore>],
    (first, last): (NaiveDate, NaiveDate),
    steps: &[FunnelStep],
    filter: &Filter,
) -> Result<Vec<DaySummary>, StoreError> {
    match stores {
        [] => Ok(Vec::new()),
        [store] => store.day_summaries(first, last, steps, filter).await,
        several if !filter.is_empty() => {
            let reads =
                futures::future::join_all(several.iter().map(|store| store.visitors_since(first)))
                    .await;
            let mut visitors = Vec::new();
            for read in reads {
                visitors.extend(read?);
            }
            Ok(summary::summarize_filtered(
                first,
                last,
                &report::merge_visitors(&visitors),
                steps,
                filter,
            ))
        }
        several => {
            let reads = futures::future::join_all(several.iter().map(|store| async move {
                let (visitors, expired, hours, bots) = futures::join!(
                    store.visitors_since(first),
                    store.expired_kinds_since(first),
                    store.hours_since(summary::midnight(first)),
                    store.bot_days_since(first)
                );
                Ok::<_, StoreError>((visitors?, expired?, hours?, bots?))
            }))
            .await;
            let (mut visitors, mut expired, mut hours, mut bots) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for read in reads {
                let (v, e, h, b) = read?;
                visitors.extend(v);
                expired.extend(e);
                hours.extend(h);
                bots.extend(b);
            }
            Ok(summary::summarize(
                first,
                last,
                &report::merge_visitors(&visitors),
                &expired,
                &hours,
                &bots,
                steps,
            ))
        }
    }
}

/// The newest visitor-days from `since` on over `stores`: at most `limit`
/// from each store, then the newest `limit` of them (newest day first, then
/// the latest seen); and how many there are in all. A store that cannot be
/// read adds nothing. With `until`, only the days up to it: a store's newest
/// rows may all be later, so then each store's rows of the range are read
/// whole (visitor-days are kept a few weeks, so that stays small).
pub(crate) async fn latest_visitors(
    stores: &[Arc<dyn ActivityStore>],
    since: NaiveDate,
    until: Option<NaiveDate>,
    limit: usize,
) -> (Vec<VisitorDay>, usize) {
    let reads = futures::future::join_all(stores.iter().map(|store| {
        crate::deadline::within("the visitor table", async move {
            match until {
                None => store.latest_visitors(since, limit).await,
                Some(until) => store.visitors_since(since).await.map(|mut rows| {
                    rows.retain(|row| row.day <= until);
                    let all = rows.len() as u64;
                    (rows, all)
                }),
            }
        })
    }))
    .await;
    let mut total = 0;
    let mut rows: Vec<VisitorDay> = Vec::new();
    for (page, all) in reads.into_iter().flatten() {
        rows.extend(page);
        total += usize::try_from(all).unwrap_or(usize::MAX);
    }
    rows.sort_by(|a, b| b.day.cmp(&a.day).then(b.last_seen.cmp(&a.last_seen)));
    rows.truncate(limit);
    (rows, total)
}

/// A store could not be read: which, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the store {store} cannot be read: {error}")]
pub struct Unreadable {
    /// The store.
    pub store: StoreName,
    /// Why.
    #[source]
    pub error: StoreError,
}
