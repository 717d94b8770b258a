//! Writing: a batch as multi-row upserts in one transaction (one statement
//! per table, columns bound as arrays), and retention.

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{Retention, StoreError};
use activity::visitor_numbers::VisitorNumbers;
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::failed;
use crate::read::get;
use activity::bot_class::BotClass;
use activity::kind_sql;

/// Each bot class's name and bit, as two arrays for `UNNEST`.
pub(crate) fn class_bits() -> (Vec<&'static str>, Vec<i32>) {
    BotClass::ALL
        .iter()
        .map(|class| (class.as_str(), i32::from(class.bit())))
        .unzip()
}

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
    // Each visitor-day's number (new ones get theirs from the table's
    // sequence), for its paths and sources.
    let mut numbers = Vec::new();
    if !batch.visitors.is_empty() {
        let rows = &batch.visitors;
        numbers = sqlx::query(
            "INSERT INTO visitor_days \
             (store, day, visitor, network, first_seen, last_seen, requests, bots, self_reads, \
              evidence, bot_classes) \
             SELECT * FROM UNNEST($1::text[], $2::date[], $3::text[], $4::text[], \
                                  $5::timestamptz[], $6::timestamptz[], $7::int8[], $8::int8[], $9::int8[], \
                                  $10::int4[], $11::int4[]) \
             ON CONFLICT (store, day, visitor) DO UPDATE SET \
             network = CASE WHEN excluded.last_seen >= visitor_days.last_seen \
                            THEN excluded.network ELSE visitor_days.network END, \
             first_seen = LEAST(visitor_days.first_seen, excluded.first_seen), \
             last_seen = GREATEST(visitor_days.last_seen, excluded.last_seen), \
             requests = visitor_days.requests + excluded.requests, \
             bots = visitor_days.bots + excluded.bots, \
             self_reads = visitor_days.self_reads + excluded.self_reads, \
             evidence = visitor_days.evidence | excluded.evidence, \
             bot_classes = visitor_days.bot_classes | excluded.bot_classes \
             RETURNING day, visitor, id",
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
        .bind(rows.iter().map(|r| i32::from(r.evidence.0)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| i32::from(r.bot_classes.0)).collect::<Vec<_>>())
        .fetch_all(&mut *tx)
        .await
        .map_err(failed)?;
    }
    let ids = numbers
        .iter()
        .map(|row| Ok((get(row, "day")?, get(row, "visitor")?, get(row, "id")?)))
        .collect::<Result<Vec<_>, StoreError>>()
        .map(VisitorNumbers::new)?;
    let parts = ids.parts(&batch.visitors)?;
    if !batch.marks.is_empty() {
        // A browser's evidence on visitor-days already kept; a mark without
        // a row marks nothing. After the visitor rows, so a row of this batch is found.
        let marks = &batch.marks;
        sqlx::query(
            "UPDATE visitor_days v SET evidence = v.evidence | 1 \
             FROM UNNEST($1::text[], $2::date[], $3::text[]) AS m(store, day, visitor) \
             WHERE v.store = m.store AND v.day = m.day AND v.visitor = m.visitor",
        )
        .bind(
            marks
                .iter()
                .map(|m| m.store.to_string())
                .collect::<Vec<_>>(),
        )
        .bind(marks.iter().map(|m| m.day).collect::<Vec<_>>())
        .bind(
            marks
                .iter()
                .map(|m| m.visitor.to_string())
                .collect::<Vec<_>>(),
        )
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    }
    if !batch.bot_days.is_empty() {
        let rows = &batch.bot_days;
        sqlx::query(
            "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
             SELECT s, d, c, r, 0 FROM UNNEST($1::text[], $2::date[], $3::text[], $4::int8[]) AS b(s, d, c, r) \
             ON CONFLICT (store, day, class) DO UPDATE SET \
             requests = day_bots.requests + excluded.requests",
        )
        .bind(rows.iter().map(|r| r.store.to_string()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.day).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.class.as_str()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.requests)).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    }
    upsert_parts(
        &mut tx,
        "INSERT INTO visitor_paths (visitor_day, path, requests) \
         SELECT * FROM UNNEST($1::int8[], $2::text[], $3::int8[]) \
         ON CONFLICT (visitor_day, path) DO UPDATE SET \
         requests = visitor_paths.requests + excluded.requests",
        &parts.paths,
    )
    .await?;
    upsert_parts(
        &mut tx,
        "INSERT INTO visitor_sources (visitor_day, source, page_loads) \
         SELECT * FROM UNNEST($1::int8[], $2::text[], $3::int8[]) \
         ON CONFLICT (visitor_day, source) DO UPDATE SET \
         page_loads = visitor_sources.page_loads + excluded.page_loads",
        &parts.sources,
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
    let cutoff = retention.first_visitor_day(now);
    let mut tx = pool.begin().await.map_err(failed)?;
    let keep_kinds = format!(
        "INSERT INTO day_kinds (store, day, people, bots, self_reads) \
         SELECT store, day, \
                SUM(CASE WHEN {people} THEN 1 ELSE 0 END), \
                SUM(CASE WHEN {bots} THEN 1 ELSE 0 END), \
                SUM(CASE WHEN {self_reads} THEN 1 ELSE 0 END) \
         FROM visitor_days WHERE store = $1 AND day < $2 GROUP BY store, day \
         ON CONFLICT (store, day) DO UPDATE SET \
           people = day_kinds.people + excluded.people, \
           bots = day_kinds.bots + excluded.bots, \
           self_reads = day_kinds.self_reads + excluded.self_reads",
        people = kind_sql::people(""),
        bots = kind_sql::bots(""),
        self_reads = kind_sql::self_reads("")
    );
    let keep_classes = format!(
        "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
         SELECT v.store, v.day, c.class, 0, COUNT(*) \
         FROM visitor_days v JOIN UNNEST($3::text[], $4::int4[]) AS c(class, bit) \
           ON ({classes} & c.bit) <> 0 \
         WHERE v.store = $1 AND v.day < $2 AND {bots} GROUP BY v.store, v.day, c.class \
         ON CONFLICT (store, day, class) DO UPDATE SET \
           visitor_days = day_bots.visitor_days + excluded.visitor_days",
        classes = kind_sql::classes("v."),
        bots = kind_sql::bots("v.")
    );
    // A disguised visitor-day's person-looking requests are a scanner's.
    let keep_disguised = format!(
        "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
         SELECT store, day, 'scanner', SUM(requests - bots - self_reads), 0 \
         FROM visitor_days WHERE store = $1 AND day < $2 AND {disguised} GROUP BY store, day \
         ON CONFLICT (store, day, class) DO UPDATE SET \
           requests = day_bots.requests + excluded.requests",
        disguised = kind_sql::disguised("")
    );
    let (names, bits) = class_bits();
    for (sql, with_bits) in [
        (keep_kinds, false),
        (keep_classes, true),
        (keep_disguised, false),
    ] {
        let mut query = sqlx::query(&sql).bind(store.as_str()).bind(cutoff);
        if with_bits {
            query = query.bind(names.clone()).bind(bits.clone());
        }
        query.execute(&mut *tx).await.map_err(failed)?;
    }
    for sql in [
        "DELETE FROM visitor_paths WHERE visitor_day IN \
         (SELECT id FROM visitor_days WHERE store = $1 AND day < $2)",
        "DELETE FROM visitor_sources WHERE visitor_day IN \
         (SELECT id FROM visitor_days WHERE store = $1 AND day < $2)",
        "DELETE FROM visitor_days WHERE store = $1 AND day < $2",
    ] {
        sqlx::query(sql)
            .bind(store.as_str())
            .bind(cutoff)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
    }
    if let Some(cutoff) = retention.first_hour(now) {
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

/// Upserts visitor-days' paths or sources, given as (number, name, count),
/// with `sql` taking the columns as three arrays.
async fn upsert_parts<Name: AsRef<str>>(
    tx: &mut sqlx::PgConnection,
    sql: &str,
    parts: &[(i64, Name, u64)],
) -> Result<(), StoreError> {
    if parts.is_empty() {
        return Ok(());
    }
    sqlx::query(sql)
        .bind(parts.iter().map(|(id, _, _)| *id).collect::<Vec<_>>())
        .bind(
            parts
                .iter()
                .map(|(_, name, _)| name.as_ref())
                .collect::<Vec<_>>(),
        )
        .bind(parts.iter().map(|(_, _, n)| int(*n)).collect::<Vec<_>>())
        .execute(tx)
        .await
        .map_err(failed)?;
    Ok(())
}
