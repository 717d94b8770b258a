//! Writing: a batch as multi-row upserts in one transaction (one statement
//! per table), and retention.

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{Retention, StoreError};
use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::SqlitePool;

use crate::failed;
use crate::rule;
use activity::kind_sql;

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
                int(row.self_reads),
                row.evidence.0,
                row.bot_classes.0
            ])
        })
        .collect();
    let marks: Vec<_> = batch
        .marks
        .iter()
        .map(|mark| {
            json!([
                mark.store.as_str(),
                mark.day.to_string(),
                mark.visitor.as_str()
            ])
        })
        .collect();
    let bot_days: Vec<_> = batch
        .bot_days
        .iter()
        .map(|row| {
            json!([
                row.store.as_str(),
                row.day.to_string(),
                row.class.as_str(),
                int(row.requests)
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
        // After the visitor rows, so that a mark finds a row of this batch too.
        (MARK_FILES, marks.clone()),
        (COUNT_MARKS, marks),
        (UPSERT_BOT_DAYS, bot_days),
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
     (store, day, visitor, network, first_seen, last_seen, requests, bots, self_reads, evidence, bot_classes) \
     SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8, \
            value->>9, value->>10 \
     FROM json_each(?1) WHERE true \
     ON CONFLICT (store, day, visitor) DO UPDATE SET \
     network = CASE WHEN excluded.last_seen >= last_seen THEN excluded.network ELSE network END, \
     first_seen = MIN(first_seen, excluded.first_seen), \
     last_seen = MAX(last_seen, excluded.last_seen), \
     requests = requests + excluded.requests, \
     bots = bots + excluded.bots, \
     self_reads = self_reads + excluded.self_reads, \
     evidence = evidence | excluded.evidence, \
     bot_classes = bot_classes | excluded.bot_classes";

/// A browser's evidence on visitor-days already kept (a file fetched after
/// the page's hit was written); a mark without a row marks nothing.
const MARK_FILES: &str = "UPDATE visitor_days SET evidence = evidence | 1 \
     WHERE (store, day, visitor) IN (SELECT value->>0, value->>1, value->>2 FROM json_each(?1))";

/// The batch's marks per day, so a kept day summary knows it changed.
const COUNT_MARKS: &str = "INSERT INTO day_totals (store, day, requests, marks) \
     SELECT value->>0, value->>1, 0, COUNT(*) FROM json_each(?1) GROUP BY 1, 2 \
     ON CONFLICT (store, day) DO UPDATE SET marks = marks + excluded.marks";

const UPSERT_BOT_DAYS: &str = "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
     SELECT value->>0, value->>1, value->>2, value->>3, 0 FROM json_each(?1) WHERE true \
     ON CONFLICT (store, day, class) DO UPDATE SET requests = requests + excluded.requests";

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
    let cutoff = retention.first_visitor_day(now).to_string();
    let mut tx = pool.begin().await.map_err(failed)?;
    let keep_kinds = format!(
        "INSERT INTO day_kinds (store, day, people, bots, self_reads) \
         SELECT store, day, \
                SUM(CASE WHEN {people} THEN 1 ELSE 0 END), \
                SUM(CASE WHEN {bots} THEN 1 ELSE 0 END), \
                SUM(CASE WHEN {self_reads} THEN 1 ELSE 0 END) \
         FROM visitor_days WHERE store = ?1 AND day < ?2 GROUP BY store, day \
         ON CONFLICT (store, day) DO UPDATE SET \
           people = people + excluded.people, \
           bots = bots + excluded.bots, \
           self_reads = self_reads + excluded.self_reads",
        people = kind_sql::people(""),
        bots = kind_sql::bots(""),
        self_reads = kind_sql::self_reads("")
    );
    let keep_classes = format!(
        "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
         SELECT v.store, v.day, c.value->>0, 0, COUNT(*) \
         FROM visitor_days v JOIN json_each(?3) c ON ({classes} & (c.value->>1)) != 0 \
         WHERE v.store = ?1 AND v.day < ?2 AND {bots} GROUP BY v.store, v.day, c.value->>0 \
         ON CONFLICT (store, day, class) DO UPDATE SET visitor_days = visitor_days + excluded.visitor_days",
        classes = kind_sql::classes("v."),
        bots = kind_sql::bots("v.")
    );
    // A disguised visitor-day's person-looking requests are a scanner's.
    let keep_disguised = format!(
        "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
         SELECT store, day, 'scanner', SUM(requests - bots - self_reads), 0 \
         FROM visitor_days WHERE store = ?1 AND day < ?2 AND {disguised} \
         GROUP BY store, day \
         ON CONFLICT (store, day, class) DO UPDATE SET requests = requests + excluded.requests",
        disguised = kind_sql::disguised("")
    );
    for (sql, bits) in [
        (keep_kinds, None),
        (keep_classes, Some(rule::class_bits())),
        (keep_disguised, None),
    ] {
        let mut query = sqlx::query(&sql).bind(store.as_str()).bind(&cutoff);
        if let Some(bits) = bits {
            query = query.bind(bits);
        }
        query.execute(&mut *tx).await.map_err(failed)?;
    }
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
    if let Some(cutoff) = retention.first_hour(now).map(|hour| hour.timestamp()) {
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
