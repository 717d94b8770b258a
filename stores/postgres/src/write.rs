//! Writing: a batch as multi-row upserts in one transaction, and retention.

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{Retention, StoreError};
use chrono::{DateTime, Utc};
use sqlx::{PgPool, Postgres, QueryBuilder};

use crate::failed;

/// Rows per statement: well under PostgreSQL's limit of 65,535 bound values.
const CHUNK: usize = 400;

/// PostgreSQL BIGINTs are signed; counts never come near the limit.
pub(crate) fn int(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

pub(crate) async fn record(pool: &PgPool, batch: &Batch) -> Result<(), StoreError> {
    let mut tx = pool.begin().await.map_err(failed)?;
    for rows in batch.hours.chunks(CHUNK) {
        let mut query = QueryBuilder::<Postgres>::new(
            "INSERT INTO hours (store, hour, path, requests, bots, self_reads) ",
        );
        query.push_values(rows, |mut values, row| {
            values
                .push_bind(row.store.as_str())
                .push_bind(row.hour)
                .push_bind(row.path.as_str())
                .push_bind(int(row.requests))
                .push_bind(int(row.bots))
                .push_bind(int(row.self_reads));
        });
        query.push(
            " ON CONFLICT (store, hour, path) DO UPDATE SET \
             requests = hours.requests + excluded.requests, \
             bots = hours.bots + excluded.bots, \
             self_reads = hours.self_reads + excluded.self_reads",
        );
        query.build().execute(&mut *tx).await.map_err(failed)?;
    }
    for rows in batch.visitors.chunks(CHUNK) {
        let mut query = QueryBuilder::<Postgres>::new(
            "INSERT INTO visitor_days (store, day, visitor, network, first_seen, last_seen, requests, bots, self_reads) ",
        );
        query.push_values(rows, |mut values, row| {
            values
                .push_bind(row.store.as_str())
                .push_bind(row.day)
                .push_bind(row.visitor.as_str())
                .push_bind(row.network.as_str())
                .push_bind(row.first_seen)
                .push_bind(row.last_seen)
                .push_bind(int(row.requests))
                .push_bind(int(row.bots))
                .push_bind(int(row.self_reads));
        });
        query.push(
            " ON CONFLICT (store, day, visitor) DO UPDATE SET \
             network = CASE WHEN excluded.last_seen >= visitor_days.last_seen \
                            THEN excluded.network ELSE visitor_days.network END, \
             first_seen = LEAST(visitor_days.first_seen, excluded.first_seen), \
             last_seen = GREATEST(visitor_days.last_seen, excluded.last_seen), \
             requests = visitor_days.requests + excluded.requests, \
             bots = visitor_days.bots + excluded.bots, \
             self_reads = visitor_days.self_reads + excluded.self_reads",
        );
        query.build().execute(&mut *tx).await.map_err(failed)?;
    }
    let paths: Vec<_> = batch
        .visitors
        .iter()
        .flat_map(|row| row.top_paths.iter().map(move |path| (row, path)))
        .collect();
    for rows in paths.chunks(CHUNK) {
        let mut query = QueryBuilder::<Postgres>::new(
            "INSERT INTO visitor_paths (store, day, visitor, path, requests) ",
        );
        query.push_values(rows, |mut values, (row, path)| {
            values
                .push_bind(row.store.as_str())
                .push_bind(row.day)
                .push_bind(row.visitor.as_str())
                .push_bind(path.path.as_str())
                .push_bind(int(path.requests));
        });
        query.push(" ON CONFLICT (store, day, visitor, path) DO UPDATE SET requests = visitor_paths.requests + excluded.requests");
        query.build().execute(&mut *tx).await.map_err(failed)?;
    }
    let sources: Vec<_> = batch
        .visitors
        .iter()
        .flat_map(|row| row.sources.iter().map(move |source| (row, source)))
        .collect();
    for rows in sources.chunks(CHUNK) {
        let mut query = QueryBuilder::<Postgres>::new(
            "INSERT INTO visitor_sources (store, day, visitor, source, page_loads) ",
        );
        query.push_values(rows, |mut values, (row, source)| {
            values
                .push_bind(row.store.as_str())
                .push_bind(row.day)
                .push_bind(row.visitor.as_str())
                .push_bind(source.source.to_string())
                .push_bind(int(source.page_loads));
        });
        query.push(
            " ON CONFLICT (store, day, visitor, source) DO UPDATE SET page_loads = visitor_sources.page_loads + excluded.page_loads",
        );
        query.build().execute(&mut *tx).await.map_err(failed)?;
    }
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
        sqlx::query("DELETE FROM hours WHERE store = $1 AND hour < $2")
            .bind(store.as_str())
            .bind(cutoff)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
    }
    tx.commit().await.map_err(failed)
}
