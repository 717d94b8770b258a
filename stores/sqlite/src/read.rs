//! Reading rows back into `activity`'s records, checking each value as it
//! comes: a row the records cannot hold is an error, not a guess.

use activity::StoreName;
use activity::VisitorToken;
use activity::address::Network;
use activity::bot_class::{BotClass, ClassSet};
use activity::evidence::Evidence;
use activity::report::{BotCount, KindCounts};
use activity::rows::{HourRow, PathCount, SourceCount, VisitorDay, attach_parts};
use activity::source::Source;
use activity::store::StoreError;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{Row, SqlitePool};

use crate::failed;

pub(crate) fn invalid(what: &str) -> StoreError {
    StoreError::Corrupt(format!("an invalid {what}"))
}

/// A column's value, or an error naming the column (never a panic).
pub(crate) fn get<'r, T>(row: &'r sqlx::sqlite::SqliteRow, column: &str) -> Result<T, StoreError>
where
    T: sqlx::Decode<'r, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>,
{
    row.try_get(column).map_err(|_| invalid(column))
}

/// The day and token a path or source row belongs to.
fn key(row: &sqlx::sqlite::SqliteRow) -> Result<(NaiveDate, VisitorToken), StoreError> {
    let day_text: String = get(row, "day")?;
    let visitor: String = get(row, "visitor")?;
    Ok((
        day(&day_text)?,
        VisitorToken::parse(&visitor).ok_or_else(|| invalid("visitor token"))?,
    ))
}

pub(crate) fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn time_ms(value: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(value).ok_or_else(|| invalid("time"))
}

pub(crate) fn day(text: &str) -> Result<NaiveDate, StoreError> {
    text.parse().map_err(|_| invalid("day"))
}

pub(crate) async fn hours_since(
    pool: &SqlitePool,
    store: &StoreName,
    since: DateTime<Utc>,
) -> Result<Vec<HourRow>, StoreError> {
    let rows = sqlx::query(
        "SELECT hour, path, requests, bots, self_reads FROM hours \
         WHERE store = ?1 AND hour >= ?2 ORDER BY hour, path",
    )
    .bind(store.as_str())
    .bind(since.timestamp())
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    rows.iter()
        .map(|row| {
            Ok(HourRow {
                store: store.clone(),
                hour: DateTime::from_timestamp(get(row, "hour")?, 0)
                    .ok_or_else(|| invalid("hour"))?,
                path: get(row, "path")?,
                requests: count(get(row, "requests")?),
                bots: count(get(row, "bots")?),
                self_reads: count(get(row, "self_reads")?),
            })
        })
        .collect()
}

pub(crate) async fn visitors_since(
    pool: &SqlitePool,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<VisitorDay>, StoreError> {
    visitors(pool, store, since, None).await
}

/// The newest visitor-days from `since` on (newest day first, then by
/// token, both descending: the primary key read backwards, no sort), at
/// most `limit`, and how many there are in all.
pub(crate) async fn latest_visitors(
    pool: &SqlitePool,
    store: &StoreName,
    since: NaiveDate,
    limit: usize,
) -> Result<(Vec<VisitorDay>, u64), StoreError> {
    let total: i64 =
        sqlx::query_scalar("SELECT count(*) FROM visitor_days WHERE store = ?1 AND day >= ?2")
            .bind(store.as_str())
            .bind(since.to_string())
            .fetch_one(pool)
            .await
            .map_err(failed)?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = visitors(pool, store, since, Some(limit)).await?;
    Ok((rows, count(total)))
}

/// Which rows [`visitors`] reads: all from a day on, or the newest few.
fn chosen(limit: Option<i64>) -> (&'static str, &'static str) {
    match limit {
        None => ("ORDER BY day, visitor", ""),
        Some(_) => (
            "ORDER BY day DESC, visitor DESC LIMIT ?3",
            " AND (v.day, v.visitor) IN (SELECT day, visitor FROM visitor_days \
             WHERE store = ?1 AND day >= ?2 ORDER BY day DESC, visitor DESC LIMIT ?3)",
        ),
    }
}

async fn visitors(
    pool: &SqlitePool,
    store: &StoreName,
    since: NaiveDate,
    limit: Option<i64>,
) -> Result<Vec<VisitorDay>, StoreError> {
    let since = since.to_string();
    let (order, _) = chosen(limit);
    let query = format!(
        "SELECT day, visitor, network, first_seen, last_seen, requests, bots, self_reads, \
                evidence, bot_classes \
         FROM visitor_days WHERE store = ?1 AND day >= ?2 {order}"
    );
    let mut query = sqlx::query(&query).bind(store.as_str()).bind(&since);
    if let Some(limit) = limit {
        query = query.bind(limit);
    }
    let rows = query.fetch_all(pool).await.map_err(failed)?;
    let mut visitors = Vec::with_capacity(rows.len());
    for row in &rows {
        let day_text: String = get(row, "day")?;
        let visitor_text: String = get(row, "visitor")?;
        let network: String = get(row, "network")?;
        visitors.push(VisitorDay {
            store: store.clone(),
            day: day(&day_text)?,
            visitor: VisitorToken::parse(&visitor_text).ok_or_else(|| invalid("visitor token"))?,
            network: Network::parse(&network).ok_or_else(|| invalid("network"))?,
            first_seen: time_ms(get(row, "first_seen")?)?,
            last_seen: time_ms(get(row, "last_seen")?)?,
            requests: count(get(row, "requests")?),
            bots: count(get(row, "bots")?),
            self_reads: count(get(row, "self_reads")?),
            evidence: Evidence(
                u8::try_from(get::<i64>(row, "evidence")?).map_err(|_| invalid("evidence"))?,
            ),
            bot_classes: ClassSet(
                u16::try_from(get::<i64>(row, "bot_classes")?)
                    .map_err(|_| invalid("bot classes"))?,
            ),
            top_paths: Vec::new(),
            sources: Vec::new(),
        });
    }

    let paths = parts(
        pool,
        store,
        &since,
        "visitor_paths",
        "path",
        "requests",
        limit,
    )
    .await?
    .into_iter()
    .map(|(day, visitor, path, requests)| (day, visitor, PathCount { path, requests }))
    .collect();
    let sources = parts(
        pool,
        store,
        &since,
        "visitor_sources",
        "source",
        "page_loads",
        limit,
    )
    .await?
    .into_iter()
    .map(|(day, visitor, source, page_loads)| {
        let source = Source::try_from(source).map_err(|_| invalid("source"))?;
        Ok((day, visitor, SourceCount { source, page_loads }))
    })
    .collect::<Result<Vec<_>, StoreError>>()?;
    attach_parts(&mut visitors, paths, sources);
    Ok(visitors)
}

/// A visitor-day's paths or sources, kept apart from its row: each as
/// (day, token, name, count). `table` and its columns are this crate's own
/// names, never input.
async fn parts(
    pool: &SqlitePool,
    store: &StoreName,
    since: &str,
    table: &str,
    name: &str,
    counted: &str,
    limit: Option<i64>,
) -> Result<Vec<(NaiveDate, VisitorToken, String, u64)>, StoreError> {
    let (_, only) = chosen(limit);
    let query = format!(
        "SELECT v.day, v.visitor, p.{name}, p.{counted} \
         FROM visitor_days v JOIN {table} p ON p.visitor_day = v.id \
         WHERE v.store = ?1 AND v.day >= ?2{only}"
    );
    let mut query = sqlx::query(&query).bind(store.as_str()).bind(since);
    if let Some(limit) = limit {
        query = query.bind(limit);
    }
    let rows = query.fetch_all(pool).await.map_err(failed)?;
    rows.iter()
        .map(|row| {
            let (day, visitor) = key(row)?;
            Ok((day, visitor, get(row, name)?, count(get(row, counted)?)))
        })
        .collect()
}

pub(crate) async fn expired_kinds_since(
    pool: &SqlitePool,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
    let rows = sqlx::query(
        "SELECT day, people, bots, self_reads FROM day_kinds \
         WHERE store = ?1 AND day >= ?2 ORDER BY day",
    )
    .bind(store.as_str())
    .bind(since.to_string())
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    rows.iter()
        .map(|row| {
            let kinds = KindCounts {
                people: count(get(row, "people")?),
                bots: count(get(row, "bots")?),
                self_reads: count(get(row, "self_reads")?),
            };
            Ok((day(&get::<String>(row, "day")?)?, kinds))
        })
        .collect()
}

/// Bot requests per day and class, with expired days' visitor-days.
pub(crate) async fn bot_days_since(
    pool: &SqlitePool,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
    let rows = sqlx::query(
        "SELECT day, class, requests, visitor_days FROM day_bots \
         WHERE store = ?1 AND day >= ?2 ORDER BY day, class",
    )
    .bind(store.as_str())
    .bind(since.to_string())
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    rows.iter()
        .map(|row| {
            Ok((
                day(&get::<String>(row, "day")?)?,
                class(&get::<String>(row, "class")?)?,
                BotCount {
                    requests: count(get(row, "requests")?),
                    visitor_days: count(get(row, "visitor_days")?),
                },
            ))
        })
        .collect()
}

/// A bot class read back.
pub(crate) fn class(text: &str) -> Result<BotClass, StoreError> {
    BotClass::parse(text).ok_or_else(|| invalid("bot class"))
}
