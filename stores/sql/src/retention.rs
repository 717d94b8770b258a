//! Retention: each expiring day's visitor-days by kind and by bot class are
//! kept (`day_kinds`, `day_bots`), then its visitor rows deleted, with the
//! names of the batches added before that day; hourly rows (and the day
//! totals that follow them) go too if they expire. One
//! transaction: a reader sees the day before or after, never half of it.

use activity::StoreName;
use activity::kind_sql;
use activity::store::{Retention, StoreError};
use activity::summary::midnight;
use chrono::{DateTime, Days, NaiveDate, Utc};
use sqlx::Pool;

use crate::engine::{Engine, Query};
use crate::error::failed;
use crate::read::class_bits;

/// The store and the first day kept, bound as `$1` and `$2`.
fn before<'q, E: Engine>(sql: &'q str, store: &'q StoreName, cutoff: NaiveDate) -> Query<'q, E> {
    E::bind_day(E::bind_text(sqlx::query(sql), store.as_str()), cutoff)
}

/// Keeps each expiring day's counts by kind and class, then deletes visitor
/// rows older than the retention (and hourly rows, if they expire).
pub(crate) async fn enforce<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    retention: Retention,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let cutoff = retention.first_visitor_day(now);
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
    let c = E::pairs(3, "c");
    let keep_classes = format!(
        "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
         SELECT v.store, v.day, {name}, 0, COUNT(*) \
         FROM visitor_days v JOIN {pairs} ON ({classes} & {bit}) <> 0 \
         WHERE v.store = $1 AND v.day < $2 AND {bots} GROUP BY v.store, v.day, {name} \
         ON CONFLICT (store, day, class) DO UPDATE SET \
           visitor_days = day_bots.visitor_days + excluded.visitor_days",
        pairs = c.table,
        name = c.name,
        bit = c.bit,
        classes = kind_sql::classes("v."),
        bots = kind_sql::bots("v.")
    );
    // A disguised visitor-day's person-looking requests are a scanner's.
    let keep_disguised = format!(
        "INSERT INTO day_bots (store, day, class, requests, visitor_days) \
         SELECT store, day, 'scanner', SUM(requests - bots - self_reads), 0 \
         FROM visitor_days WHERE store = $1 AND day < $2 AND {disguised} \
         GROUP BY store, day \
         ON CONFLICT (store, day, class) DO UPDATE SET \
           requests = day_bots.requests + excluded.requests",
        disguised = kind_sql::disguised("")
    );
    let mut tx = pool.begin().await.map_err(failed)?;
    E::execute(&mut tx, before::<E>(&keep_kinds, store, cutoff))
        .await
        .map_err(failed)?;
    E::execute(
        &mut tx,
        E::bind_pairs(before::<E>(&keep_classes, store, cutoff), class_bits()),
    )
    .await
    .map_err(failed)?;
    for sql in [
        keep_disguised.as_str(),
        "DELETE FROM visitor_paths WHERE visitor_day IN \
         (SELECT id FROM visitor_days WHERE store = $1 AND day < $2)",
        "DELETE FROM visitor_sources WHERE visitor_day IN \
         (SELECT id FROM visitor_days WHERE store = $1 AND day < $2)",
        "DELETE FROM visitor_goals WHERE visitor_day IN \
         (SELECT id FROM visitor_days WHERE store = $1 AND day < $2)",
        "DELETE FROM visitor_days WHERE store = $1 AND day < $2",
    ] {
        E::execute(&mut tx, before::<E>(sql, store, cutoff))
            .await
            .map_err(failed)?;
    }
    // The names of batches added go with the visitor-days (a batch sent
    // again after that long would find its visitor-days gone anyway).
    let query = sqlx::query("DELETE FROM applied_batches WHERE at < $1");
    E::execute(&mut tx, E::bind_hour(query, midnight(cutoff)))
        .await
        .map_err(failed)?;
    if let Some(first_hour) = retention.first_hour(now) {
        // The day totals follow the hourly rows: gone up to the cutoff's
        // day, summed again for that day (part of it went).
        let day = first_hour.date_naive();
        let query = E::bind_text(
            sqlx::query("DELETE FROM hours WHERE store = $1 AND hour < $2"),
            store.as_str(),
        );
        E::execute(&mut tx, E::bind_hour(query, first_hour))
            .await
            .map_err(failed)?;
        let query = E::bind_text(
            sqlx::query("DELETE FROM hour_goals WHERE store = $1 AND hour < $2"),
            store.as_str(),
        );
        E::execute(&mut tx, E::bind_hour(query, first_hour))
            .await
            .map_err(failed)?;
        let query = E::bind_text(
            sqlx::query("DELETE FROM day_totals WHERE store = $1 AND day <= $2"),
            store.as_str(),
        );
        E::execute(&mut tx, E::bind_day(query, day))
            .await
            .map_err(failed)?;
        let resum = format!(
            "INSERT INTO day_totals (store, day, requests) \
             SELECT store, {day_of}, SUM(requests) FROM hours \
             WHERE store = $1 AND hour >= $2 AND hour < $3 GROUP BY 1, 2",
            day_of = E::day_of_hour("hour")
        );
        let query = E::bind_text(sqlx::query(&resum), store.as_str());
        let query = E::bind_hour(
            E::bind_hour(query, midnight(day)),
            midnight(day + Days::new(1)),
        );
        E::execute(&mut tx, query).await.map_err(failed)?;
    }
    tx.commit().await.map_err(failed)
}
