//! Day summaries summed by the engine: visitor-days by kind, people's
//! sources (one row per day and set of sources), funnel steps (one row per
//! day and set of steps, as bits), people's visits (entry and exit pages:
//! one row per day and page), goals (one row per day and goal), every
//! path's requests, bots by class;
//! and requests or marks per day from `day_totals`. Only a few hundred rows
//! per day leave the engine.

use activity::StoreName;
use activity::campaign::Campaign;
use activity::country::Country;
use activity::filter::Filter;
use activity::funnel::{GOAL_STEP, step_goal};
use activity::goal::Goal;
use activity::kind_sql;
use activity::report::{BotCount, FunnelStep, KindCounts, PathTotal};
use activity::store::StoreError;
use activity::summary::{DaySummary, DaySums, GoalTotal, midnight, step_bits};
use chrono::{Days, NaiveDate};
use sqlx::Pool;

use crate::count;
use crate::engine::{Engine, Query, Row};
use crate::error::{failed, invalid};
use crate::filter::FilterSql;
use crate::read::{class, class_bits, store_since};

/// Which figure of `day_totals` to read.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DayColumn {
    /// All requests.
    Requests,
    /// Marks of a browser's evidence (days without one left out).
    Marks,
}

/// Requests (or marks) per day from `since` on, oldest first.
pub(crate) async fn day_counts<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: NaiveDate,
    column: DayColumn,
) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
    let sql = match column {
        DayColumn::Requests => {
            "SELECT day, requests AS n FROM day_totals WHERE store = $1 AND day >= $2 ORDER BY day"
        }
        DayColumn::Marks => {
            "SELECT day, marks AS n FROM day_totals \
             WHERE store = $1 AND day >= $2 AND marks > 0 ORDER BY day"
        }
    };
    store_since::<E>(pool, sql, store, since)
        .await?
        .iter()
        .map(|row| Ok((E::day(row, "day")?, count(E::int(row, "n")?))))
        .collect()
}

/// Binds the store and the first and last day as `$1`, `$2` and `$3`.
fn days<'q, E: Engine>(
    sql: &'q str,
    store: &'q StoreName,
    first: NaiveDate,
    last: NaiveDate,
) -> Query<'q, E> {
    let query = E::bind_text(sqlx::query(sql), store.as_str());
    E::bind_day(E::bind_day(query, first), last)
}

/// What every read of a summary binds first: the store and the two days
/// (`$1` to `$3`), then the filter's values.
struct Scope<'a> {
    store: &'a StoreName,
    first: NaiveDate,
    last: NaiveDate,
    filter: &'a FilterSql,
}

impl Scope<'_> {
    /// `sql` with the store, the days and the filter's values bound.
    fn query<'q, E: Engine>(&'q self, sql: &'q str) -> Query<'q, E> {
        self.filter
            .bind::<E>(days::<E>(sql, self.store, self.first, self.last))
    }
}

async fn between<E: Engine>(
    pool: &Pool<E::Db>,
    query: Query<'_, E>,
) -> Result<Vec<Row<E>>, StoreError> {
    E::fetch_all(pool, query).await.map_err(failed)
}

/// Visitor-days by kind per day; unfiltered, with the kept kinds of the
/// days whose rows expired.
fn kinds(filter: &FilterSql) -> String {
    let live = format!(
        "SELECT day, \
           CAST(SUM(CASE WHEN {people} THEN 1 ELSE 0 END) AS BIGINT) AS people, \
           CAST(SUM(CASE WHEN {bots} THEN 1 ELSE 0 END) AS BIGINT) AS bots, \
           CAST(SUM(CASE WHEN {self_reads} THEN 1 ELSE 0 END) AS BIGINT) AS self_reads \
         FROM visitor_days v WHERE v.store = $1 AND v.day BETWEEN $2 AND $3{filter} GROUP BY day",
        people = kind_sql::people("v."),
        bots = kind_sql::bots("v."),
        self_reads = kind_sql::self_reads("v."),
        filter = filter.sql
    );
    if filter.sql.is_empty() {
        format!(
            "{live} UNION ALL \
             SELECT day, people, bots, self_reads FROM day_kinds \
             WHERE store = $1 AND day BETWEEN $2 AND $3"
        )
    } else {
        live
    }
}

/// The summaries of the days from `first` to `last` that have rows, of the
/// visitor-days `filter` lets through (with a condition, only days with
/// visitor rows, their paths from the visitor-days: see
/// `summary::summarize_filtered`, the rule this twins).
pub(crate) async fn day_summaries<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    (first, last): (NaiveDate, NaiveDate),
    steps: &[FunnelStep],
    filter: &Filter,
) -> Result<Vec<DaySummary>, StoreError> {
    let mut sums = DaySums::new(steps.len());
    // The filter's values are bound after the store and the two days.
    let filter = FilterSql::of::<E>(filter, 4);
    let scope = Scope {
        store,
        first,
        last,
        filter: &filter,
    };
    let f = &filter.sql;

    let sql = kinds(&filter);
    for row in between::<E>(pool, scope.query::<E>(&sql)).await? {
        sums.day(E::day(&row, "day")?).kinds += KindCounts {
            people: count(E::int(&row, "people")?),
            bots: count(E::int(&row, "bots")?),
            self_reads: count(E::int(&row, "self_reads")?),
        };
    }

    let people = kind_sql::people("v.");
    let sources = format!(
        "SELECT day, sources, COUNT(*) AS visitors FROM ( \
           SELECT v.day, string_agg(s.source, ' ') AS sources \
           FROM visitor_days v LEFT JOIN visitor_sources s ON s.visitor_day = v.id \
           WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {people}{f} \
           GROUP BY v.day, v.visitor) AS sets \
         GROUP BY day, sources"
    );
    for row in between::<E>(pool, scope.query::<E>(&sources)).await? {
        let set = E::optional_text(&row, "sources")?;
        let visitors = count(E::int(&row, "visitors")?);
        sums.add_source_set(E::day(&row, "day")?, set.as_deref(), visitors)
            .map_err(|_| invalid("source"))?;
    }

    let pairs = E::pairs(filter.next(4), "f");
    // A step may name a goal (`goal:signup`): its visitor-days' goals are
    // then read as paths of that form, only for a funnel that has one.
    let taken = if steps
        .iter()
        .any(|step| step.paths.iter().any(|path| step_goal(path).is_some()))
    {
        format!(
            "(SELECT visitor_day, path FROM visitor_paths UNION ALL \
              SELECT visitor_day, '{GOAL_STEP}' || goal FROM visitor_goals)"
        )
    } else {
        "visitor_paths".to_owned()
    };
    let funnel = format!(
        "SELECT day, mask, COUNT(*) AS visitors FROM ( \
           SELECT v.day, CAST(SUM(DISTINCT {bit}) AS BIGINT) AS mask \
           FROM visitor_days v \
           JOIN {taken} p ON p.visitor_day = v.id \
           JOIN {steps} ON {name} = p.path \
           WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {people}{f} \
           GROUP BY v.day, v.visitor) AS sets \
         GROUP BY day, mask",
        steps = pairs.table,
        name = pairs.name,
        bit = pairs.bit
    );
    // A site without a funnel has no steps to count (and an empty table of
    // pairs is not SQL).
    if !steps.is_empty() {
        let query = E::bind_pairs(scope.query::<E>(&funnel), step_bits(steps));
        for row in between::<E>(pool, query).await? {
            let mask = count(E::int(&row, "mask")?);
            let visitors = count(E::int(&row, "visitors")?);
            sums.day(E::day(&row, "day")?).add_steps(mask, visitors);
        }
    }

    let goals = format!(
        "SELECT v.day, g.goal, \
           CAST(SUM(CASE WHEN {people} THEN 1 ELSE 0 END) AS BIGINT) AS people, \
           CAST(SUM(CASE WHEN {bots} THEN 1 ELSE 0 END) AS BIGINT) AS bots, \
           CAST(SUM(CASE WHEN {self_reads} THEN 1 ELSE 0 END) AS BIGINT) AS self_reads, \
           CAST(SUM(g.requests) AS BIGINT) AS requests \
         FROM visitor_days v JOIN visitor_goals g ON g.visitor_day = v.id \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3{f} \
         GROUP BY v.day, g.goal",
        bots = kind_sql::bots("v."),
        self_reads = kind_sql::self_reads("v."),
    );
    for row in between::<E>(pool, scope.query::<E>(&goals)).await? {
        let goal = Goal::try_from(E::text(&row, "goal")?).map_err(|_| invalid("goal"))?;
        let total = GoalTotal {
            visitor_days: KindCounts {
                people: count(E::int(&row, "people")?),
                bots: count(E::int(&row, "bots")?),
                self_reads: count(E::int(&row, "self_reads")?),
            },
            requests: count(E::int(&row, "requests")?),
        };
        *sums
            .day(E::day(&row, "day")?)
            .goals
            .entry(goal)
            .or_default() += total;
    }

    let countries = format!(
        "SELECT day, country, COUNT(*) AS visitors FROM visitor_days v \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {people}{f} \
         GROUP BY day, country"
    );
    for row in between::<E>(pool, scope.query::<E>(&countries)).await? {
        let country = E::optional_text(&row, "country")?
            .map(|code| Country::parse(&code).ok_or_else(|| invalid("country")))
            .transpose()?;
        let visitors = count(E::int(&row, "visitors")?);
        sums.day(E::day(&row, "day")?)
            .add_country(country, visitors);
    }

    visits::<E>(pool, &scope, &mut sums).await?;
    if f.is_empty() {
        hour_paths::<E>(pool, store, (first, last), &mut sums).await?;
    } else {
        visitor_paths::<E>(pool, &scope, &mut sums).await?;
    }
    bot_classes::<E>(pool, &scope, &mut sums).await?;
    Ok(sums.finish())
}

/// Every path's requests per day, from the hourly rows.
async fn hour_paths<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    (first, last): (NaiveDate, NaiveDate),
    sums: &mut DaySums,
) -> Result<(), StoreError> {
    let paths = format!(
        "SELECT {day} AS day, path, CAST(SUM(requests) AS BIGINT) AS requests, \
                CAST(SUM(CASE WHEN requests - bots - self_reads > 0 \
                              THEN requests - bots - self_reads ELSE 0 END) AS BIGINT) AS people, \
                CAST(SUM(bots) AS BIGINT) AS bots, CAST(SUM(self_reads) AS BIGINT) AS self_reads \
         FROM hours WHERE store = $1 AND hour >= $2 AND hour < $3 \
         GROUP BY 1, path",
        day = E::day_of_hour("hour")
    );
    let query = E::bind_text(sqlx::query(&paths), store.as_str());
    let query = E::bind_hour(
        E::bind_hour(query, midnight(first)),
        midnight(last + Days::new(1)),
    );
    for row in between::<E>(pool, query).await? {
        sums.day(E::day(&row, "day")?)
            .paths
            .push(path_total::<E>(&row)?);
    }
    Ok(())
}

/// A row of a day's path and its requests by kind.
fn path_total<E: Engine>(row: &Row<E>) -> Result<PathTotal, StoreError> {
    Ok(PathTotal {
        path: E::text(row, "path")?,
        requests: count(E::int(row, "requests")?),
        people: count(E::int(row, "people")?),
        bots: count(E::int(row, "bots")?),
        self_reads: count(E::int(row, "self_reads")?),
    })
}

/// Under a filter: the paths of the visitor-days it lets through, each
/// request under its visitor-day's kind.
async fn visitor_paths<E: Engine>(
    pool: &Pool<E::Db>,
    scope: &Scope<'_>,
    sums: &mut DaySums,
) -> Result<(), StoreError> {
    let f = &scope.filter.sql;
    let of_kind =
        |kind: String| format!("CAST(SUM(CASE WHEN {kind} THEN p.requests ELSE 0 END) AS BIGINT)");
    let sql = format!(
        "SELECT v.day AS day, p.path AS path, CAST(SUM(p.requests) AS BIGINT) AS requests, \
                {} AS people, {} AS bots, {} AS self_reads \
         FROM visitor_days v JOIN visitor_paths p ON p.visitor_day = v.id \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3{f} \
         GROUP BY v.day, p.path",
        of_kind(kind_sql::people("v.")),
        of_kind(kind_sql::bots("v.")),
        of_kind(kind_sql::self_reads("v."))
    );
    for row in between::<E>(pool, scope.query::<E>(&sql)).await? {
        sums.day(E::day(&row, "day")?)
            .paths
            .push(path_total::<E>(&row)?);
    }
    Ok(())
}

/// People's visits: the day's sums over the visitor-days that loaded a
/// page, then their entry and exit pages (one row per day and page) and
/// their campaigns (one row per day and campaign).
async fn visits<E: Engine>(
    pool: &Pool<E::Db>,
    scope: &Scope<'_>,
    sums: &mut DaySums,
) -> Result<(), StoreError> {
    let people = kind_sql::people("v.");
    let f = &scope.filter.sql;
    let totals = format!(
        "SELECT day, CAST(COUNT(*) AS BIGINT) AS visitor_days, \
                CAST(SUM(page_loads) AS BIGINT) AS page_loads, \
                CAST(SUM(CASE WHEN page_loads = 1 THEN 1 ELSE 0 END) AS BIGINT) AS one_page, \
                CAST(SUM(visits) AS BIGINT) AS visits, CAST(SUM(stay_ms) AS BIGINT) AS stay_ms \
         FROM visitor_days v \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND v.page_loads > 0 AND {people}{f} \
         GROUP BY day"
    );
    for row in between::<E>(pool, scope.query::<E>(&totals)).await? {
        let visits = &mut sums.day(E::day(&row, "day")?).visits;
        visits.visitor_days += count(E::int(&row, "visitor_days")?);
        visits.page_loads += count(E::int(&row, "page_loads")?);
        visits.one_page += count(E::int(&row, "one_page")?);
        visits.visits += count(E::int(&row, "visits")?);
        visits.stay_ms += count(E::int(&row, "stay_ms")?);
    }
    for (column, exits) in [("entry_page", false), ("exit_page", true)] {
        let pages = format!(
            "SELECT day, {column} AS path, CAST(COUNT(*) AS BIGINT) AS visitor_days \
             FROM visitor_days v \
             WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND v.page_loads > 0 \
               AND {column} IS NOT NULL AND {people}{f} \
             GROUP BY day, {column}"
        );
        for row in between::<E>(pool, scope.query::<E>(&pages)).await? {
            let visits = &mut sums.day(E::day(&row, "day")?).visits;
            let pages = if exits {
                &mut visits.exits
            } else {
                &mut visits.entries
            };
            *pages.entry(E::text(&row, "path")?).or_default() +=
                count(E::int(&row, "visitor_days")?);
        }
    }
    // When they arrived: the UTC hour of the entry's Unix milliseconds.
    let arrivals = format!(
        "SELECT day, (entry_at / 3600000) % 24 AS arrival_hour, \
                CAST(COUNT(*) AS BIGINT) AS visitor_days \
         FROM visitor_days v \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND v.page_loads > 0 \
           AND entry_page IS NOT NULL AND entry_at IS NOT NULL AND {people}{f} \
         GROUP BY day, (entry_at / 3600000) % 24"
    );
    for row in between::<E>(pool, scope.query::<E>(&arrivals)).await? {
        let hour = usize::try_from(E::int(&row, "arrival_hour")?)
            .ok()
            .filter(|hour| *hour < 24)
            .ok_or_else(|| invalid("arrival_hour"))?;
        sums.day(E::day(&row, "day")?).visits.arrivals[hour] +=
            count(E::int(&row, "visitor_days")?);
    }
    // A page's visitors: people visitor-days by each path they requested.
    let readers = format!(
        "SELECT v.day AS day, p.path AS path, CAST(COUNT(*) AS BIGINT) AS visitor_days \
         FROM visitor_days v JOIN visitor_paths p ON p.visitor_day = v.id \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {people}{f} \
         GROUP BY v.day, p.path"
    );
    for row in between::<E>(pool, scope.query::<E>(&readers)).await? {
        *sums
            .day(E::day(&row, "day")?)
            .visits
            .readers
            .entry(E::text(&row, "path")?)
            .or_default() += count(E::int(&row, "visitor_days")?);
    }
    let campaigns = format!(
        "SELECT day, utm_source, utm_medium, utm_campaign, CAST(COUNT(*) AS BIGINT) AS visitor_days \
         FROM visitor_days v \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND v.page_loads > 0 \
           AND campaign_at IS NOT NULL AND {people}{f} \
         GROUP BY day, utm_source, utm_medium, utm_campaign"
    );
    for row in between::<E>(pool, scope.query::<E>(&campaigns)).await? {
        let campaign = Campaign {
            source: E::optional_text(&row, "utm_source")?,
            medium: E::optional_text(&row, "utm_medium")?,
            name: E::optional_text(&row, "utm_campaign")?,
        };
        *sums
            .day(E::day(&row, "day")?)
            .visits
            .campaigns
            .entry(campaign)
            .or_default() += count(E::int(&row, "visitor_days")?);
    }
    Ok(())
}

/// Scanners and crawlers by class: the kept requests (and expired days'
/// visitor-days), live visitor-days per class, and disguised visitor-days'
/// person-looking requests as a scanner's. Under a filter only the live
/// visitor-days count, and a class's requests are their bot requests.
async fn bot_classes<E: Engine>(
    pool: &Pool<E::Db>,
    scope: &Scope<'_>,
    sums: &mut DaySums,
) -> Result<(), StoreError> {
    let f = &scope.filter.sql;
    // Verified crawlers are counted while their visitor-day rows are kept.
    let kept = "SELECT day, class, requests, visitor_days, CAST(0 AS BIGINT) AS verified \
                FROM day_bots WHERE store = $1 AND day BETWEEN $2 AND $3";
    let c = E::pairs(scope.filter.next(4), "c");
    let requests = if f.is_empty() {
        "CAST(0 AS BIGINT)"
    } else {
        "CAST(SUM(v.bots) AS BIGINT)"
    };
    let live = format!(
        "SELECT v.day AS day, {name} AS class, {requests} AS requests, \
                CAST(COUNT(*) AS BIGINT) AS visitor_days, \
                CAST(SUM(CASE WHEN (v.evidence & {verified}) <> 0 THEN 1 ELSE 0 END) AS BIGINT) AS verified \
         FROM visitor_days v JOIN {pairs} ON ({classes} & {bit}) <> 0 \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {bots}{f} GROUP BY v.day, {name} \
         UNION ALL \
         SELECT v.day AS day, 'scanner' AS class, \
                CAST(SUM(v.requests - v.bots - v.self_reads) AS BIGINT) AS requests, \
                CAST(0 AS BIGINT) AS visitor_days, CAST(0 AS BIGINT) AS verified \
         FROM visitor_days v \
         WHERE v.store = $1 AND v.day BETWEEN $2 AND $3 AND {disguised}{f} GROUP BY v.day",
        pairs = c.table,
        name = c.name,
        bit = c.bit,
        classes = kind_sql::classes("v."),
        bots = kind_sql::bots("v."),
        disguised = kind_sql::disguised("v."),
        verified = activity::evidence::Evidence::VERIFIED.0,
    );
    let mut rows = Vec::new();
    if f.is_empty() {
        rows = between::<E>(pool, scope.query::<E>(kept)).await?;
    }
    let query = E::bind_pairs(scope.query::<E>(&live), class_bits());
    rows.extend(between::<E>(pool, query).await?);
    for row in rows {
        let count = BotCount {
            requests: count(E::int(&row, "requests")?),
            visitor_days: count(E::int(&row, "visitor_days")?),
            verified: count(E::int(&row, "verified")?),
        };
        *sums
            .day(E::day(&row, "day")?)
            .bots
            .entry(class::<E>(&row)?)
            .or_default() += count;
    }
    Ok(())
}
