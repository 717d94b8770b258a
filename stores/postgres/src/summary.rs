//! Day summaries summed by PostgreSQL: visitor-days by kind, people's
//! sources (one row per day and set of sources), funnel steps (one row per
//! day and set of steps, as bits), every path's requests; and requests per
//! day from `day_totals`. Only a few hundred rows per day leave the server.

use activity::StoreName;
use activity::bot_class::BotClass;
use activity::kind_sql;
use activity::report::{BotCount, FunnelStep, KindCounts, PathTotal};
use activity::store::StoreError;
use activity::summary::{DaySummary, DaySums, midnight, step_bits};
use chrono::{Days, NaiveDate};
use sqlx::PgPool;
use sqlx::postgres::PgRow;

use crate::failed;
use crate::read::{count, get, invalid};
use crate::write::class_bits;

/// Which figure of `day_totals` to read.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DayColumn {
    /// All requests.
    Requests,
    /// Marks of a browser's evidence.
    Marks,
}

/// Requests (or marks) per day from `since` on, oldest first.
pub(crate) async fn day_requests(
    pool: &PgPool,
    store: &StoreName,
    since: NaiveDate,
    column: DayColumn,
) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
    let sql = match column {
        DayColumn::Requests => {
            "SELECT day, requests AS n FROM day_totals WHERE store = $1 AND day >= $2 ORDER BY day"
        }
        DayColumn::Marks => {
            "SELECT day, marks AS n FROM day_totals WHERE store = $1 AND day >= $2 AND marks > 0 ORDER BY day"
        }
    };
    let rows = sqlx::query(sql)
        .bind(store.as_str())
        .bind(since)
        .fetch_all(pool)
        .await
        .map_err(failed)?;
    rows.iter()
        .map(|row| Ok((get(row, "day")?, count(get(row, "n")?))))
        .collect()
}

fn kinds() -> String {
    format!(
        "SELECT day, \
           SUM(CASE WHEN {people} THEN 1 ELSE 0 END)::int8 AS people, \
           SUM(CASE WHEN {bots} THEN 1 ELSE 0 END)::int8 AS bots, \
           SUM(CASE WHEN {self_reads} THEN 1 ELSE 0 END)::int8 AS self_reads \
         FROM visitor_days WHERE store = $1 AND day BETWEEN $2 AND $3 GROUP BY day \
         UNION ALL \
         SELECT day, people, bots, self_reads FROM day_kinds \
         WHERE store = $1 AND day BETWEEN $2 AND $3",
        people = kind_sql::people(""),
        bots = kind_sql::bots(""),
        self_reads = kind_sql::self_reads("")
    )
}

/// The summaries of the days from `first` to `last` that have rows.
pub(crate) async fn day_summaries(
    pool: &PgPool,
    store: &StoreName,
    first: NaiveDate,
    last: NaiveDate,
    steps: &[FunnelStep],
) -> Result<Vec<DaySummary>, StoreError> {
    let mut days = DaySums::new(steps.len());
    let day_of = |row: &PgRow| get::<NaiveDate>(row, "day");

    for row in query(pool, &kinds(), store, first, last).await? {
        days.day(day_of(&row)?).kinds += KindCounts {
            people: count(get(&row, "people")?),
            bots: count(get(&row, "bots")?),
            self_reads: count(get(&row, "self_reads")?),
        };
    }

    let people = kind_sql::people("v.");
    let sources = format!(
        "SELECT day, sources, COUNT(*) AS visitors FROM ( \
           SELECT v.day, string_agg(s.source, ' ') AS sources \
           FROM visitor_days v LEFT JOIN visitor_sources s \
             ON s.visitor_day = v.id \
           WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {people} \
           GROUP BY v.day, v.visitor) AS sets \
         GROUP BY day, sources"
    );
    for row in query(pool, &sources, store, first, last).await? {
        let set: Option<String> = get(&row, "sources")?;
        let visitors = count(get(&row, "visitors")?);
        days.add_source_set(day_of(&row)?, set.as_deref(), visitors)
            .map_err(|_| invalid("source"))?;
    }

    let (paths, bits): (Vec<String>, Vec<i64>) = step_bits(steps).into_iter().unzip();
    let funnel = format!(
        "SELECT day, mask, COUNT(*) AS visitors FROM ( \
           SELECT v.day, SUM(DISTINCT f.bit)::int8 AS mask \
           FROM visitor_days v \
           JOIN visitor_paths p ON p.visitor_day = v.id \
           JOIN UNNEST($4::text[], $5::int8[]) AS f(path, bit) ON f.path = p.path \
           WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {people} \
           GROUP BY v.day, v.visitor) AS sets \
         GROUP BY day, mask"
    );
    let rows = sqlx::query(&funnel)
        .bind(store.as_str())
        .bind(first)
        .bind(last)
        .bind(paths)
        .bind(bits)
        .fetch_all(pool)
        .await
        .map_err(failed)?;
    for row in rows {
        let mask = count(get(&row, "mask")?);
        let visitors = count(get(&row, "visitors")?);
        days.day(day_of(&row)?).add_steps(mask, visitors);
    }

    let rows = sqlx::query(
        "SELECT (hour AT TIME ZONE 'UTC')::date AS day, path, SUM(requests)::int8 AS requests, \
                SUM(GREATEST(requests - bots - self_reads, 0))::int8 AS people, \
                SUM(bots)::int8 AS bots, SUM(self_reads)::int8 AS self_reads \
         FROM hours WHERE store = $1 AND hour >= $2 AND hour < $3 \
         GROUP BY 1, path",
    )
    .bind(store.as_str())
    .bind(midnight(first))
    .bind(midnight(last + Days::new(1)))
    .fetch_all(pool)
    .await
    .map_err(failed)?;
    for row in rows {
        days.day(day_of(&row)?).paths.push(PathTotal {
            path: get(&row, "path")?,
            requests: count(get(&row, "requests")?),
            people: count(get(&row, "people")?),
            bots: count(get(&row, "bots")?),
            self_reads: count(get(&row, "self_reads")?),
        });
    }
    bot_classes(pool, store, (first, last), &mut days).await?;
    Ok(days.finish())
}

/// Scanners and crawlers by class: the kept requests (and expired days'
/// visitor-days), live visitor-days per class, and disguised visitor-days'
/// person-looking requests as a scanner's.
async fn bot_classes(
    pool: &PgPool,
    store: &StoreName,
    (first, last): (NaiveDate, NaiveDate),
    days: &mut DaySums,
) -> Result<(), StoreError> {
    let kept = "SELECT day, class, requests, visitor_days FROM day_bots \
                WHERE store = $1 AND day BETWEEN $2 AND $3";
    let live = format!(
        "SELECT day, c.class, 0::int8 AS requests, COUNT(*)::int8 AS visitor_days \
         FROM visitor_days JOIN UNNEST($4::text[], $5::int4[]) AS c(class, bit) \
           ON ({classes} & c.bit) <> 0 \
         WHERE store = $1 AND day BETWEEN $2 AND $3 AND {bots} GROUP BY day, c.class \
         UNION ALL \
         SELECT day, 'scanner' AS class, SUM(requests - bots - self_reads)::int8 AS requests, \
                0::int8 AS visitor_days \
         FROM visitor_days WHERE store = $1 AND day BETWEEN $2 AND $3 AND {disguised} GROUP BY day",
        classes = kind_sql::classes(""),
        bots = kind_sql::bots(""),
        disguised = kind_sql::disguised("")
    );
    let (names, bits) = class_bits();
    let mut rows = query(pool, kept, store, first, last).await?;
    rows.extend(
        sqlx::query(&live)
            .bind(store.as_str())
            .bind(first)
            .bind(last)
            .bind(names)
            .bind(bits)
            .fetch_all(pool)
            .await
            .map_err(failed)?,
    );
    for row in rows {
        let count = BotCount {
            requests: count(get(&row, "requests")?),
            visitor_days: count(get(&row, "visitor_days")?),
        };
        let class: String = get(&row, "class")?;
        let class = BotClass::parse(&class).ok_or_else(|| invalid("bot class"))?;
        *days
            .day(get::<NaiveDate>(&row, "day")?)
            .bots
            .entry(class)
            .or_default() += count;
    }
    Ok(())
}

async fn query(
    pool: &PgPool,
    sql: &str,
    store: &StoreName,
    first: NaiveDate,
    last: NaiveDate,
) -> Result<Vec<PgRow>, StoreError> {
    sqlx::query(sql)
        .bind(store.as_str())
        .bind(first)
        .bind(last)
        .fetch_all(pool)
        .await
        .map_err(failed)
}
