//! Reading rows back into `activity`'s records, checking each value as it
//! comes: a row the records cannot hold is an error, not a guess.

use std::collections::HashMap;

use activity::StoreName;
use activity::VisitorToken;
use activity::address::Network;
use activity::rows::{HourRow, PathCount, SourceCount, VisitorDay};
use activity::source::Source;
use activity::store::StoreError;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{PgPool, Row};

use crate::failed;

fn invalid(what: &str) -> StoreError {
    StoreError::Failed(format!("a stored row has an invalid {what}"))
}

/// A column's value, or an error naming the column (never a panic).
fn get<'r, T>(row: &'r sqlx::postgres::PgRow, column: &str) -> Result<T, StoreError>
where
    T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    row.try_get(column).map_err(|_| invalid(column))
}

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

pub(crate) async fn hours_since(
    pool: &PgPool,
    store: &StoreName,
    since: DateTime<Utc>,
) -> Result<Vec<HourRow>, StoreError> {
    let rows = sqlx::query(
        "SELECT hour, path, requests, bots, self_reads FROM hours \
         WHERE store = $1 AND hour >= $2 ORDER BY hour, path",
    )
    .bind(store.as_str())
    .bind(since)
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    rows.iter()
        .map(|row| {
            Ok(HourRow {
                store: store.clone(),
                hour: get(row, "hour")?,
                path: get(row, "path")?,
                requests: count(get(row, "requests")?),
                bots: count(get(row, "bots")?),
                self_reads: count(get(row, "self_reads")?),
            })
        })
        .collect()
}

pub(crate) async fn visitors_since(
    pool: &PgPool,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<VisitorDay>, StoreError> {
    let rows = sqlx::query(
        "SELECT day, visitor, network, first_seen, last_seen, requests, bots, self_reads \
         FROM visitor_days WHERE store = $1 AND day >= $2 ORDER BY day, visitor",
    )
    .bind(store.as_str())
    .bind(since)
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    let mut visitors = Vec::with_capacity(rows.len());
    let mut index: HashMap<(NaiveDate, String), usize> = HashMap::with_capacity(rows.len());
    for row in &rows {
        let day: NaiveDate = get(row, "day")?;
        let visitor_text: String = get(row, "visitor")?;
        let network: String = get(row, "network")?;
        visitors.push(VisitorDay {
            store: store.clone(),
            day,
            visitor: VisitorToken::parse(&visitor_text).ok_or_else(|| invalid("visitor token"))?,
            network: Network::parse(&network).ok_or_else(|| invalid("network"))?,
            first_seen: get(row, "first_seen")?,
            last_seen: get(row, "last_seen")?,
            requests: count(get(row, "requests")?),
            bots: count(get(row, "bots")?),
            self_reads: count(get(row, "self_reads")?),
            top_paths: Vec::new(),
            sources: Vec::new(),
        });
        index.insert((day, visitor_text), visitors.len() - 1);
    }

    let paths = sqlx::query(
        "SELECT day, visitor, path, requests FROM visitor_paths \
         WHERE store = $1 AND day >= $2 ORDER BY requests DESC, path",
    )
    .bind(store.as_str())
    .bind(since)
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    for row in &paths {
        let key = (
            get::<NaiveDate>(row, "day")?,
            get::<String>(row, "visitor")?,
        );
        if let Some(&at) = index.get(&key) {
            visitors[at].top_paths.push(PathCount {
                path: get(row, "path")?,
                requests: count(get(row, "requests")?),
            });
        }
    }

    let sources = sqlx::query(
        "SELECT day, visitor, source, page_loads FROM visitor_sources \
         WHERE store = $1 AND day >= $2 ORDER BY page_loads DESC, source",
    )
    .bind(store.as_str())
    .bind(since)
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    for row in &sources {
        let key = (
            get::<NaiveDate>(row, "day")?,
            get::<String>(row, "visitor")?,
        );
        if let Some(&at) = index.get(&key) {
            let source =
                Source::try_from(get::<String>(row, "source")?).map_err(|_| invalid("source"))?;
            visitors[at].sources.push(SourceCount {
                source,
                page_loads: count(get(row, "page_loads")?),
            });
        }
    }
    Ok(visitors)
}
