//! Writing: a batch as multi-row upserts in one transaction (one statement
//! per table, columns bound as arrays), and retention.

use activity::StoreName;
use activity::rows::{Batch, VisitorDay};
use activity::store::{Retention, StoreError};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::failed;

/// PostgreSQL BIGINTs are signed; counts never come near the limit.
pub(crate) fn int(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// One statement per table, whatever the batch's size: each column travels
/// as one array and `UNNEST` turns the arrays back into rows, so the
/// statement text never changes and is prepared once per connection.
pub(crate) async fn record(pool: &PgPool, batch: &Batch) -> Result<(), StoreError> {
    let mut tx = pool.begin().await.map_err(failed)?;
    if !batch.hours.is_empty() {
        let rows = &batch.hours;
        sqlx::query(
            "INSERT INTO hours (store, hour, path, requests, bots, self_reads) \
             SELECT * FROM UNNEST($1::text[], $2::timestamptz[], $3::text[], $4::int8[], $5::int8[], $6::int8[]) \
             ON CONFLICT (store, hour, path) DO UPDATE SET \
             requests = hours.requests + excluded.requests, \
             bots = hours.bots + excluded.bots, \
             self_reads = hours.self_reads + excluded.self_reads",
        )
        .bind(rows.iter().map(|r| r.store.to_string()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.hour).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.path.clone()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.requests)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.bots)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.self_reads)).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    }
    if !batch.hours.is_empty() {
        // The batch's requests per day (a statement may not upsert one key twice).
        let mut totals: std::collections::BTreeMap<(&str, chrono::NaiveDate), u64> =
            std::collections::BTreeMap::new();
        for row in &batch.hours {
            *totals
                .entry((row.store.as_str(), row.hour.date_naive()))
                .or_default() += row.requests;
        }
        sqlx::query(
            "INSERT INTO day_totals (store, day, requests) \
             SELECT * FROM UNNEST($1::text[], $2::date[], $3::int8[]) \
             ON CONFLICT (store, day) DO UPDATE SET \
             requests = day_totals.requests + excluded.requests",
        )
        .bind(totals.keys().map(|(store, _)| *store).collect::<Vec<_>>())
        .bind(totals.keys().map(|(_, day)| *day).collect::<Vec<_>>())
        .bind(totals.values().map(|n| int(*n)).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    }
    if !batch.visitors.is_empty() {
        let rows = &batch.visitors;
        sqlx::query(
            "INSERT INTO visitor_days \
             (store, day, visitor, network, first_seen, last_seen, requests, bots, self_reads) \
             SELECT * FROM UNNEST($1::text[], $2::date[], $3::text[], $4::text[], \
                                  $5::timestamptz[], $6::timestamptz[], $7::int8[], $8::int8[], $9::int8[]) \
             ON CONFLICT (store, day, visitor) DO UPDATE SET \
             network = CASE WHEN excluded.last_seen >= visitor_days.last_seen \
                            THEN excluded.network ELSE visitor_days.network END, \
             first_seen = LEAST(visitor_days.first_seen, excluded.first_seen), \
             last_seen = GREATEST(visitor_days.last_seen, excluded.last_seen), \
             requests = visitor_days.requests + excluded.requests, \
             bots = visitor_days.bots + excluded.bots, \
             self_reads = visitor_days.self_reads + excluded.self_reads",
        )
        .bind(rows.iter().map(|r| r.store.to_string()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.day).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.visitor.to_string()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.network.to_string()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.first_seen).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.last_seen).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.requests)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.bots)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.self_reads)).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    }
    let paths: Vec<_> = batch
        .visitors
        .iter()
        .flat_map(|row| {
            row.top_paths
                .iter()
                .map(move |p| (row, p.path.clone(), p.requests))
        })
        .collect();
    upsert_parts(
        &mut tx,
        "INSERT INTO visitor_paths (store, day, visitor, path, requests) \
         SELECT * FROM UNNEST($1::text[], $2::date[], $3::text[], $4::text[], $5::int8[]) \
         ON CONFLICT (store, day, visitor, path) DO UPDATE SET \
         requests = visitor_paths.requests + excluded.requests",
        &paths,
    )
    .await?;
    let sources: Vec<_> = batch
        .visitors
        .iter()
        .flat_map(|row| {
            row.sources
                .iter()
                .map(move |s| (row, s.source.to_string(), s.page_loads))
        })
        .collect();
    upsert_parts(
        &mut tx,
        "INSERT INTO visitor_sources (store, day, visitor, source, page_loads) \
         SELECT * FROM UNNEST($1::text[], $2::date[], $3::text[], $4::text[], $5::int8[]) \
         ON CONFLICT (store, day, visitor, source) DO UPDATE SET \
         page_loads = visitor_sources.page_loads + excluded.page_loads",
        &sources,
    )
    .await?;
    tx.commit().await.map_err(failed)
}

/// Keeps each expiring day's counts by kind in `day_kinds`, then deletes
/// visitor rows older than the retention (and hourly rows, if they expire).
pub(crate) async fn enforce_retention(
    pool: &PgPool,
    store: &StoreName,
    retention: Retention,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let cutoff = now.date_naive() - chrono::Days::new(u64::from(retention.visitor_days));
    let mut tx = pool.begin().await.map_err(failed)?;
    sqlx::query(
        "INSERT INTO day_kinds (store, day, people, scanners, own_reads) \
         SELECT store, day, \
                SUM(CASE WHEN requests > bots + self_reads THEN 1 ELSE 0 END), \
                SUM(CASE WHEN requests <= bots + self_reads AND bots > 0 THEN 1 ELSE 0 END), \
                SUM(CASE WHEN requests <= bots + self_reads AND bots = 0 THEN 1 ELSE 0 END) \
         FROM visitor_days WHERE store = $1 AND day < $2 GROUP BY store, day \
         ON CONFLICT (store, day) DO UPDATE SET \
           people = day_kinds.people + excluded.people, \
           scanners = day_kinds.scanners + excluded.scanners, \
           own_reads = day_kinds.own_reads + excluded.own_reads",
    )
    .bind(store.as_str())
    .bind(cutoff)
    .execute(&mut *tx)
    .await
    .map_err(failed)?;
    for table in ["visitor_paths", "visitor_sources", "visitor_days"] {
        sqlx::query(&format!(
            "DELETE FROM {table} WHERE store = $1 AND day < $2"
        ))
        .bind(store.as_str())
        .bind(cutoff)
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    }
    if let Some(days) = retention.hour_days {
        let cutoff = now - chrono::Duration::days(i64::from(days));
        // The day totals follow the hourly rows: gone before the cutoff's
        // day, summed again for that day (part of it went).
        for sql in [
            "DELETE FROM hours WHERE store = $1 AND hour < $2",
            "DELETE FROM day_totals WHERE store = $1 AND day <= ($2 AT TIME ZONE 'UTC')::date",
            "INSERT INTO day_totals (store, day, requests) \
             SELECT store, (hour AT TIME ZONE 'UTC')::date, SUM(requests) FROM hours \
             WHERE store = $1 AND (hour AT TIME ZONE 'UTC')::date = ($2 AT TIME ZONE 'UTC')::date \
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

/// Upserts a visitor-day's paths or sources, given as (row, name, count),
/// with `sql` taking the columns as five arrays.
async fn upsert_parts(
    tx: &mut sqlx::PgConnection,
    sql: &str,
    parts: &[(&VisitorDay, String, u64)],
) -> Result<(), StoreError> {
    if parts.is_empty() {
        return Ok(());
    }
    sqlx::query(sql)
        .bind(
            parts
                .iter()
                .map(|(r, _, _)| r.store.to_string())
                .collect::<Vec<_>>(),
        )
        .bind(parts.iter().map(|(r, _, _)| r.day).collect::<Vec<_>>())
        .bind(
            parts
                .iter()
                .map(|(r, _, _)| r.visitor.to_string())
                .collect::<Vec<_>>(),
        )
        .bind(
            parts
                .iter()
                .map(|(_, name, _)| name.clone())
                .collect::<Vec<_>>(),
        )
        .bind(parts.iter().map(|(_, _, n)| int(*n)).collect::<Vec<_>>())
        .execute(tx)
        .await
        .map_err(failed)?;
    Ok(())
}
