//! Day summaries summed by SQLite: visitor-days by kind, people's sources
//! (one row per day and set of sources), funnel steps (one row per day and
//! set of steps, as bits), every path's requests; and requests per day from
//! `day_totals`. Only a few hundred rows per day leave the engine.

use activity::StoreName;
use activity::report::{BotCount, FunnelStep, KindCounts, PathTotal};
use activity::store::StoreError;
use activity::summary::{DaySummary, DaySums, step_bits};
use chrono::NaiveDate;
use sqlx::SqlitePool;

use crate::failed;
use crate::read::{class, count, day, get, invalid};
use crate::rule;
use activity::kind_sql;

/// Requests (or, with `column` "marks", marks) per day from `since` on, oldest first.
pub(crate) async fn day_requests(
    pool: &SqlitePool,
    store: &StoreName,
    since: NaiveDate,
    column: DayColumn,
) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
    let sql = match column {
        DayColumn::Requests => {
            "SELECT day, requests AS n FROM day_totals WHERE store = ?1 AND day >= ?2 ORDER BY day"
        }
        DayColumn::Marks => {
            "SELECT day, marks AS n FROM day_totals WHERE store = ?1 AND day >= ?2 AND marks > 0 ORDER BY day"
        }
    };
    let rows = sqlx::query(sql)
        .bind(store.as_str())
        .bind(since.to_string())
        .fetch_all(pool)
        .await
        .map_err(failed)?;
    rows.iter()
        .map(|row| Ok((day(&get::<String>(row, "day")?)?, count(get(row, "n")?))))
        .collect()
}

/// Which figure of `day_totals` to read.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DayColumn {
    /// All requests.
    Requests,
    /// Marks of a browser's evidence.
    Marks,
}

fn kinds() -> String {
    format!(
        "SELECT day, \
           SUM(CASE WHEN {people} THEN 1 ELSE 0 END) AS people, \
           SUM(CASE WHEN {bots} THEN 1 ELSE 0 END) AS bots, \
           SUM(CASE WHEN {self_reads} THEN 1 ELSE 0 END) AS self_reads \
         FROM visitor_days WHERE store = ?1 AND day BETWEEN ?2 AND ?3 GROUP BY day \
         UNION ALL \
         SELECT day, people, bots, self_reads FROM day_kinds \
         WHERE store = ?1 AND day BETWEEN ?2 AND ?3",
        people = kind_sql::people(""),
        bots = kind_sql::bots(""),
        self_reads = kind_sql::self_reads("")
    )
}

/// The summaries of the days from `first` to `last` that have rows.
pub(crate) async fn day_summaries(
    pool: &SqlitePool,
    store: &StoreName,
    first: NaiveDate,
    last: NaiveDate,
    steps: &[FunnelStep],
) -> Result<Vec<DaySummary>, StoreError> {
    let (from, to) = (first.to_string(), last.to_string());
    let mut days = DaySums::new(steps.len());
    let day_of = |row: &sqlx::sqlite::SqliteRow| day(&get::<String>(row, "day")?);

    for row in query(pool, &kinds(), store, &from, &to).await? {
        days.day(day_of(&row)?).kinds += KindCounts {
            people: count(get(&row, "people")?),
            bots: count(get(&row, "bots")?),
            self_reads: count(get(&row, "self_reads")?),
        };
    }

    let people = kind_sql::people("v.");
    let sources = format!(
        "SELECT day, sources, COUNT(*) AS visitors FROM ( \
           SELECT v.day, group_concat(s.source, ' ') AS sources \
           FROM visitor_days v LEFT JOIN visitor_sources s \
             ON s.visitor_day = v.id \
           WHERE v.store = ?1 AND v.day BETWEEN ?2 AND ?3 AND {people} \
           GROUP BY v.day, v.visitor) \
         GROUP BY day, sources"
    );
    for row in query(pool, &sources, store, &from, &to).await? {
        let set: Option<String> = get(&row, "sources")?;
        let visitors = count(get(&row, "visitors")?);
        days.add_source_set(day_of(&row)?, set.as_deref(), visitors)
            .map_err(|_| invalid("source"))?;
    }

    let bits = serde_json::to_string(&step_bits(steps)).map_err(|_| invalid("funnel step"))?;
    let funnel = format!(
        "SELECT day, mask, COUNT(*) AS visitors FROM ( \
           SELECT v.day, SUM(DISTINCT f.value->>1) AS mask \
           FROM visitor_days v \
           JOIN visitor_paths p ON p.visitor_day = v.id \
           JOIN json_each(?4) f ON f.value->>0 = p.path \
           WHERE v.store = ?1 AND v.day BETWEEN ?2 AND ?3 AND {people} \
           GROUP BY v.day, v.visitor) \
         GROUP BY day, mask"
    );
    let rows = sqlx::query(&funnel)
        .bind(store.as_str())
        .bind(&from)
        .bind(&to)
        .bind(bits)
        .fetch_all(pool)
        .await
        .map_err(failed)?;
    for row in rows {
        let mask = count(get(&row, "mask")?);
        let visitors = count(get(&row, "visitors")?);
        days.day(day_of(&row)?).add_steps(mask, visitors);
    }

    let paths = sqlx::query(
        "SELECT date(hour, 'unixepoch') AS day, path, SUM(requests) AS requests, \
                SUM(max(requests - bots - self_reads, 0)) AS people, \
                SUM(bots) AS bots, SUM(self_reads) AS self_reads \
         FROM hours WHERE store = ?1 AND hour >= unixepoch(?2) AND hour < unixepoch(?3, '+1 day') \
         GROUP BY 1, path",
    )
    .bind(store.as_str())
    .bind(&from)
    .bind(&to)
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    for row in paths {
        days.day(day_of(&row)?).paths.push(PathTotal {
            path: get(&row, "path")?,
            requests: count(get(&row, "requests")?),
            people: count(get(&row, "people")?),
            bots: count(get(&row, "bots")?),
            self_reads: count(get(&row, "self_reads")?),
        });
    }

    bot_classes(pool, store, (&from, &to), &mut days).await?;
    Ok(days.finish())
}

/// Scanners and crawlers by class: the kept requests (and expired days'
/// visitor-days), live visitor-days per class, and disguised visitor-days'
/// person-looking requests as a scanner's.
async fn bot_classes(
    pool: &SqlitePool,
    store: &StoreName,
    (from, to): (&str, &str),
    days: &mut DaySums,
) -> Result<(), StoreError> {
    let kept = "SELECT day, class, requests, visitor_days FROM day_bots \
                WHERE store = ?1 AND day BETWEEN ?2 AND ?3";
    let live = format!(
        "SELECT day, c.value->>0 AS class, 0 AS requests, COUNT(*) AS visitor_days \
         FROM visitor_days JOIN json_each(?4) c ON ({classes} & (c.value->>1)) != 0 \
         WHERE store = ?1 AND day BETWEEN ?2 AND ?3 AND {bots} GROUP BY day, c.value->>0 \
         UNION ALL \
         SELECT day, 'scanner' AS class, SUM(requests - bots - self_reads) AS requests, 0 AS visitor_days \
         FROM visitor_days WHERE store = ?1 AND day BETWEEN ?2 AND ?3 AND {disguised} GROUP BY day",
        classes = kind_sql::classes(""),
        bots = kind_sql::bots(""),
        disguised = kind_sql::disguised("")
    );
    let mut rows = query(pool, kept, store, from, to).await?;
    rows.extend(
        sqlx::query(&live)
            .bind(store.as_str())
            .bind(from)
            .bind(to)
            .bind(rule::class_bits())
            .fetch_all(pool)
            .await
            .map_err(failed)?,
    );
    for row in rows {
        let count = BotCount {
            requests: count(get(&row, "requests")?),
            visitor_days: count(get(&row, "visitor_days")?),
        };
        let summary = days.day(day(&get::<String>(&row, "day")?)?);
        *summary
            .bots
            .entry(class(&get::<String>(&row, "class")?)?)
            .or_default() += count;
    }
    Ok(())
}

async fn query(
    pool: &SqlitePool,
    sql: &str,
    store: &StoreName,
    from: &str,
    to: &str,
) -> Result<Vec<sqlx::sqlite::SqliteRow>, StoreError> {
    sqlx::query(sql)
        .bind(store.as_str())
        .bind(from)
        .bind(to)
        .fetch_all(pool)
        .await
        .map_err(failed)
}
