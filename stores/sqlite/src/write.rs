//! Writing: a batch as multi-row upserts in one transaction (one statement
//! per table), and retention.

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{Retention, StoreError};
use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::SqlitePool;

use crate::failed;

/// SQLite integers are signed; counts never come near the limit.
pub(crate) fn int(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// One statement per table, whatever the batch's size: the rows travel as
/// one JSON array bound to `?1` and are unpacked by SQLite's `json_each`, so
/// the statement text never changes and is prepared once per connection.
pub(crate) async fn record(pool: &SqlitePool, batch: &Batch) -> Result<(), StoreError> {
    let hours: Vec<_> = batch
        .hours
        .iter()
        .map(|row| {
            json!([
                row.store.as_str(),
                row.hour.timestamp(),
                row.path,
                int(row.requests),
                int(row.bots),
                int(row.self_reads)
            ])
        })
        .collect();
    let visitors: Vec<_> = batch
        .visitors
        .iter()
        .map(|row| {
            json!([
                row.store.as_str(),
                row.day.to_string(),
                row.visitor.as_str(),
                row.network.as_str(),
                row.first_seen.timestamp_millis(),
                row.last_seen.timestamp_millis(),
                int(row.requests),
                int(row.bots),
                int(row.self_reads)
            ])
        })
        .collect();
    let paths: Vec<_> = batch
        .visitors
        .iter()
        .flat_map(|row| {
            row.top_paths.iter().map(move |path| {
                json!([
                    row.store.as_str(),
                    row.day.to_string(),
                    row.visitor.as_str(),
                    path.path,
                    int(path.requests)
                ])
            })
        })
        .collect();
    let sources: Vec<_> = batch
        .visitors
        .iter()
        .flat_map(|row| {
            row.sources.iter().map(move |source| {
                json!([
                    row.store.as_str(),
                    row.day.to_string(),
                    row.visitor.as_str(),
                    source.source.to_string(),
                    int(source.page_loads)
                ])
            })
        })
        .collect();

    let mut tx = pool.begin().await.map_err(failed)?;
    for (sql, rows) in [
        (UPSERT_DAY_TOTALS, hours.clone()),
        (UPSERT_HOURS, hours),
        (UPSERT_VISITORS, visitors),
        (UPSERT_PATHS, paths),
        (UPSERT_SOURCES, sources),
    ] {
        if rows.is_empty() {
            continue;
        }
        let rows = serde_json::Value::Array(rows).to_string();
        sqlx::query(sql)
            .bind(rows)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
    }
    tx.commit().await.map_err(failed)
}

// `WHERE true` keeps SQLite from reading ON CONFLICT as a join's ON.
const UPSERT_HOURS: &str = "INSERT INTO hours (store, hour, path, requests, bots, self_reads) \
     SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 FROM json_each(?1) WHERE true \
     ON CONFLICT (store, hour, path) DO UPDATE SET \
     requests = requests + excluded.requests, \
     bots = bots + excluded.bots, \
     self_reads = self_reads + excluded.self_reads";

/// A batch's hourly rows summed per day, from the same JSON as the hours.
const UPSERT_DAY_TOTALS: &str = "INSERT INTO day_totals (store, day, requests) \
     SELECT value->>0, date(value->>1, 'unixepoch'), SUM(value->>3) FROM json_each(?1) \
     GROUP BY 1, 2 \
     ON CONFLICT (store, day) DO UPDATE SET requests = requests + excluded.requests";

const UPSERT_VISITORS: &str = "INSERT INTO visitor_days \
     (store, day, visitor, network, first_seen, last_seen, requests, bots, self_reads) \
     SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8 \
     FROM json_each(?1) WHERE true \
     ON CONFLICT (store, day, visitor) DO UPDATE SET \
     network = CASE WHEN excluded.last_seen >= last_seen THEN excluded.network ELSE network END, \
     first_seen = MIN(first_seen, excluded.first_seen), \
     last_seen = MAX(last_seen, excluded.last_seen), \
     requests = requests + excluded.requests, \
     bots = bots + excluded.bots, \
     self_reads = self_reads + excluded.self_reads";

const UPSERT_PATHS: &str = "INSERT INTO visitor_paths (store, day, visitor, path, requests) \
     SELECT value->>0, value->>1, value->>2, value->>3, value->>4 FROM json_each(?1) WHERE true \
     ON CONFLICT (store, day, visitor, path) DO UPDATE SET requests = requests + excluded.requests";

const UPSERT_SOURCES: &str = "INSERT INTO visitor_sources (store, day, visitor, source, page_loads) \
     SELECT value->>0, value->>1, value->>2, value->>3, value->>4 FROM json_each(?1) WHERE true \
     ON CONFLICT (store, day, visitor, source) DO UPDATE SET page_loads = page_loads + excluded.page_loads";

/// Keeps each expiring day's counts by kind in `day_kinds`, then deletes
/// visitor rows older than the retention (and hourly rows, if they expire).
pub(crate) async fn enforce_retention(
    pool: &SqlitePool,
    store: &StoreName,
    retention: Retention,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let cutoff =
        (now.date_naive() - chrono::Days::new(u64::from(retention.visitor_days))).to_string();
    let mut tx = pool.begin().await.map_err(failed)?;
    sqlx::query(
        "INSERT INTO day_kinds (store, day, people, scanners, own_reads) \
         SELECT store, day, \
                SUM(CASE WHEN requests > bots + self_reads THEN 1 ELSE 0 END), \
                SUM(CASE WHEN requests <= bots + self_reads AND bots > 0 THEN 1 ELSE 0 END), \
                SUM(CASE WHEN requests <= bots + self_reads AND bots = 0 THEN 1 ELSE 0 END) \
         FROM visitor_days WHERE store = ?1 AND day < ?2 GROUP BY store, day \
         ON CONFLICT (store, day) DO UPDATE SET \
           people = people + excluded.people, \
           scanners = scanners + excluded.scanners, \
           own_reads = own_reads + excluded.own_reads",
    )
    .bind(store.as_str())
    .bind(&cutoff)
    .execute(&mut *tx)
    .await
    .map_err(failed)?;
    for table in ["visitor_paths", "visitor_sources", "visitor_days"] {
        sqlx::query(&format!(
            "DELETE FROM {table} WHERE store = ?1 AND day < ?2"
        ))
        .bind(store.as_str())
        .bind(&cutoff)
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    }
    if let Some(days) = retention.hour_days {
        let cutoff = now.timestamp() - i64::from(days) * 86_400;
        // The day totals follow the hourly rows: gone before the cutoff's
        // day, summed again for that day (part of it went).
        for sql in [
            "DELETE FROM hours WHERE store = ?1 AND hour < ?2",
            "DELETE FROM day_totals WHERE store = ?1 AND day <= date(?2, 'unixepoch')",
            "INSERT INTO day_totals (store, day, requests) \
             SELECT store, date(hour, 'unixepoch'), SUM(requests) FROM hours \
             WHERE store = ?1 AND date(hour, 'unixepoch') = date(?2, 'unixepoch') \
             GROUP BY 1, 2",
        ] {
            sqlx::query(sql)
                .bind(store.as_str())
                .bind(cutoff)
                .execute(&mut *tx)
                .await
                .map_err(failed)?;
        }
    }
    tx.commit().await.map_err(failed)
}
