//! Writing: a batch as upserts in one transaction, every row a statement's
//! bound parameters ([`chunks`](crate::chunks)); and retention.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{Retention, StoreError};
use activity::visitor_numbers::VisitorNumbers;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::SqlitePool;

use crate::chunks::{Bound, Chunked};
use crate::failed;
use crate::read::{self, get};
use crate::rule;
use activity::kind_sql;

/// SQLite integers are signed; counts never come near the limit.
pub(crate) fn int(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// Writes a batch in one transaction: the hourly rows and their days'
/// totals, the visitor-days with their paths and sources, then the files'
/// marks (after the visitor rows, so that a mark finds a row of this batch
/// too) and the bots' days.
pub(crate) async fn record(pool: &SqlitePool, batch: &Batch) -> Result<(), StoreError> {
    // What the batch adds to each day's totals: its requests, and its marks.
    let mut requests: BTreeMap<(&str, NaiveDate), u64> = BTreeMap::new();
    for row in &batch.hours {
        *requests
            .entry((row.store.as_str(), row.hour.date_naive()))
            .or_default() += row.requests;
    }
    let mut marks: BTreeMap<(&str, NaiveDate), u64> = BTreeMap::new();
    for mark in &batch.marks {
        *marks.entry((mark.store.as_str(), mark.day)).or_default() += 1;
    }
    let requests: Vec<_> = requests.into_iter().collect();
    let marks_per_day: Vec<_> = marks.into_iter().collect();
    let mut tx = pool.begin().await.map_err(failed)?;
    HOURS
        .run(&mut tx, &batch.hours, |q, row| {
            q.bind(row.store.as_str())
                .bind(row.hour.timestamp())
                .bind(row.path.as_str())
                .bind(int(row.requests))
                .bind(int(row.bots))
                .bind(int(row.self_reads))
        })
        .await?;
    DAY_TOTALS.run(&mut tx, &requests, day_count).await?;
    // The numbers new visitor-days get, in order; a row already kept keeps
    // its own (the transaction holds the write lock, so none is taken twice).
    let first: i64 = sqlx::query_scalar("SELECT coalesce(max(id), 0) + 1 FROM visitor_days")
        .fetch_one(&mut *tx)
        .await
        .map_err(failed)?;
    let numbered: Vec<_> = batch.visitors.iter().zip(first..).collect();
    let kept = VISITORS
        .fetch(&mut tx, &numbered, |q, (row, id)| {
            q.bind(row.store.as_str())
                .bind(row.day.to_string())
                .bind(row.visitor.as_str())
                .bind(row.network.as_str())
                .bind(row.first_seen.timestamp_millis())
                .bind(row.last_seen.timestamp_millis())
                .bind(int(row.requests))
                .bind(int(row.bots))
                .bind(int(row.self_reads))
                .bind(i64::from(row.evidence.0))
                .bind(i64::from(row.bot_classes.0))
                .bind(*id)
        })
        .await?;
    let ids = kept
        .iter()
        .map(|row| {
            let day: &str = get(row, "day")?;
            Ok((read::day(day)?, get(row, "visitor")?, get(row, "id")?))
        })
        .collect::<Result<Vec<_>, StoreError>>()
        .map(VisitorNumbers::new)?;
    let parts = ids.parts(&batch.visitors)?;
    PATHS
        .run(&mut tx, &parts.paths, |q, (id, path, requests)| {
            q.bind(*id).bind(*path).bind(int(*requests))
        })
        .await?;
    SOURCES
        .run(&mut tx, &parts.sources, |q, (id, source, page_loads)| {
            q.bind(*id).bind(source.as_str()).bind(int(*page_loads))
        })
        .await?;
    MARK_FILES
        .run(&mut tx, &batch.marks, |q, mark| {
            q.bind(mark.store.as_str())
                .bind(mark.day.to_string())
                .bind(mark.visitor.as_str())
        })
        .await?;
    COUNT_MARKS.run(&mut tx, &marks_per_day, day_count).await?;
    BOT_DAYS
        .run(&mut tx, &batch.bot_days, |q, row| {
            q.bind(row.store.as_str())
                .bind(row.day.to_string())
                .bind(row.class.as_str())
                .bind(int(row.requests))
        })
        .await?;
    tx.commit().await.map_err(failed)
}

/// Binds a day's count: its store, the day, the count.
fn day_count<'q, 'a: 'q>(
    query: Bound<'q>,
    ((store, day), count): &'q ((&'a str, NaiveDate), u64),
) -> Bound<'q> {
    query.bind(*store).bind(day.to_string()).bind(int(*count))
}

// Each statement reads its rows from `VALUES` as `column1`, `column2`, …;
// `WHERE column1 IS NOT NULL` skips the padding (and keeps SQLite from
// reading ON CONFLICT as a join's ON).
static HOURS: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "INSERT INTO hours (store, hour, path, requests, bots, self_reads) \
         SELECT * FROM (VALUES {rows}) WHERE column1 IS NOT NULL \
         ON CONFLICT (store, hour, path) DO UPDATE SET \
         requests = requests + excluded.requests, \
         bots = bots + excluded.bots, \
         self_reads = self_reads + excluded.self_reads",
        6,
    )
});

/// The batch's requests per day (summed from its hourly rows).
static DAY_TOTALS: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "INSERT INTO day_totals (store, day, requests) \
         SELECT * FROM (VALUES {rows}) WHERE column1 IS NOT NULL \
         ON CONFLICT (store, day) DO UPDATE SET requests = requests + excluded.requests",
        3,
    )
});

static VISITORS: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "INSERT INTO visitor_days \
         (store, day, visitor, network, first_seen, last_seen, requests, bots, self_reads, evidence, bot_classes, id) \
         SELECT * FROM (VALUES {rows}) WHERE column1 IS NOT NULL \
         ON CONFLICT (store, day, visitor) DO UPDATE SET \
         network = CASE WHEN excluded.last_seen >= last_seen THEN excluded.network ELSE network END, \
         first_seen = MIN(first_seen, excluded.first_seen), \
         last_seen = MAX(last_seen, excluded.last_seen), \
         requests = requests + excluded.requests, \
         bots = bots + excluded.bots, \
         self_reads = self_reads + excluded.self_reads, \
         evidence = evidence | excluded.evidence, \
         bot_classes = bot_classes | excluded.bot_classes \
         RETURNING day, visitor, id",
        12,
    )
});

/// A browser's evidence on visitor-days already kept (a file fetched after
/// the page's hit was written); a mark without a row marks nothing, and
/// a padding row of NULLs matches none.
static MARK_FILES: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "UPDATE visitor_days SET evidence = evidence | 1 \
         WHERE (store, day, visitor) IN (VALUES {rows})",
        3,
    )
});

/// The batch's marks per day, so a kept day summary knows it changed.
static COUNT_MARKS: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "INSERT INTO day_totals (store, day, requests, marks) \
         SELECT column1, column2, 0, column3 FROM (VALUES {rows}) WHERE column1 IS NOT NULL \
         ON CONFLICT (store, day) DO UPDATE SET marks = marks + excluded.marks",
        3,
    )
});

static BOT_DAYS: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
         SELECT column1, column2, column3, column4, 0 FROM (VALUES {rows}) WHERE column1 IS NOT NULL \
         ON CONFLICT (store, day, class) DO UPDATE SET requests = requests + excluded.requests",
        4,
    )
});

// A visitor-day's paths and sources are kept under its number.
static PATHS: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "INSERT INTO visitor_paths (visitor_day, path, requests) \
         SELECT * FROM (VALUES {rows}) WHERE column1 IS NOT NULL \
         ON CONFLICT (visitor_day, path) DO UPDATE SET requests = requests + excluded.requests",
        3,
    )
});

static SOURCES: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        "INSERT INTO visitor_sources (visitor_day, source, page_loads) \
         SELECT * FROM (VALUES {rows}) WHERE column1 IS NOT NULL \
         ON CONFLICT (visitor_day, source) DO UPDATE SET page_loads = page_loads + excluded.page_loads",
        3,
    )
});

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
    for sql in [
        "DELETE FROM visitor_paths WHERE visitor_day IN \
         (SELECT id FROM visitor_days WHERE store = ?1 AND day < ?2)",
        "DELETE FROM visitor_sources WHERE visitor_day IN \
         (SELECT id FROM visitor_days WHERE store = ?1 AND day < ?2)",
        "DELETE FROM visitor_days WHERE store = ?1 AND day < ?2",
    ] {
        sqlx::query(sql)
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
