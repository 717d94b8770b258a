//! Reading rows back into `activity`'s records, checking each value as it
//! comes: a row the records cannot hold is an error naming the column,
//! never a guess and never a panic.

use activity::StoreName;
use activity::VisitorToken;
use activity::address::Network;
use activity::bot_class::{BotClass, ClassSet};
use activity::campaign::Campaign;
use activity::country::Country;
use activity::evidence::Evidence;
use activity::goal::Goal;
use activity::page_loads::{CampaignAt, PageAt, PageLoads};
use activity::report::{BotCount, KindCounts};
use activity::rows::{
    GoalCount, GoalHour, HourRow, Parts, PathCount, SourceCount, VisitorDay, attach_parts,
};
use activity::source::Source;
use activity::store::StoreError;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::Pool;

use crate::count;
use crate::engine::{Engine, Query, Row};
use crate::error::{failed, invalid};

/// Runs `sql` with the store and a day bound as `$1` and `$2`.
pub(crate) async fn store_since<E: Engine>(
    pool: &Pool<E::Db>,
    sql: &str,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<Row<E>>, StoreError> {
    let query = E::bind_day(E::bind_text(sqlx::query(sql), store.as_str()), since);
    E::fetch_all(pool, query).await.map_err(failed)
}

/// A visitor token column.
fn token<E: Engine>(row: &Row<E>) -> Result<VisitorToken, StoreError> {
    VisitorToken::parse(&E::text(row, "visitor")?).ok_or_else(|| invalid("visitor token"))
}

/// A bot class column.
pub(crate) fn class<E: Engine>(row: &Row<E>) -> Result<BotClass, StoreError> {
    BotClass::parse(&E::text(row, "class")?).ok_or_else(|| invalid("bot class"))
}

pub(crate) async fn hours_since<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: DateTime<Utc>,
) -> Result<Vec<HourRow>, StoreError> {
    let query = sqlx::query(
        "SELECT hour, path, requests, bots, self_reads FROM hours \
         WHERE store = $1 AND hour >= $2 ORDER BY hour, path",
    );
    let query = E::bind_hour(E::bind_text(query, store.as_str()), since);
    let rows = E::fetch_all(pool, query).await.map_err(failed)?;
    rows.iter().map(|row| hour_row::<E>(row, store)).collect()
}

/// Goals' hourly rows from `since` on, by hour and goal.
pub(crate) async fn goal_hours_since<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: DateTime<Utc>,
) -> Result<Vec<GoalHour>, StoreError> {
    let query = sqlx::query(
        "SELECT hour, goal, requests, bots, self_reads FROM hour_goals \
         WHERE store = $1 AND hour >= $2 ORDER BY hour, goal",
    );
    let query = E::bind_hour(E::bind_text(query, store.as_str()), since);
    let rows = E::fetch_all(pool, query).await.map_err(failed)?;
    rows.iter()
        .map(|row| {
            Ok(GoalHour {
                store: store.clone(),
                hour: E::hour(row, "hour")?,
                goal: Goal::try_from(E::text(row, "goal")?).map_err(|_| invalid("goal"))?,
                requests: count(E::int(row, "requests")?),
                bots: count(E::int(row, "bots")?),
                self_reads: count(E::int(row, "self_reads")?),
            })
        })
        .collect()
}

/// The paths kept for one store and hour.
pub(crate) async fn paths_in_hour<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    hour: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    let query = sqlx::query("SELECT path FROM hours WHERE store = $1 AND hour = $2");
    let query = E::bind_hour(E::bind_text(query, store.as_str()), hour);
    let rows = E::fetch_all(pool, query).await.map_err(failed)?;
    rows.iter().map(|row| E::text(row, "path")).collect()
}

/// The newest visitor-days from `since` on (newest day first, then by
/// token, both descending: the primary key read backwards, no sort), at
/// most `limit`, and how many there are in all.
pub(crate) async fn latest_visitors<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: NaiveDate,
    limit: usize,
) -> Result<(Vec<VisitorDay>, u64), StoreError> {
    let total = store_since::<E>(
        pool,
        "SELECT count(*) AS n FROM visitor_days WHERE store = $1 AND day >= $2",
        store,
        since,
    )
    .await?;
    let total = match total.first() {
        Some(row) => count(E::int(row, "n")?),
        None => 0,
    };
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = visitors::<E>(pool, store, since, Which::Newest(limit)).await?;
    Ok((rows, total))
}

/// An hourly row read back.
fn hour_row<E: Engine>(row: &Row<E>, store: &StoreName) -> Result<HourRow, StoreError> {
    Ok(HourRow {
        store: store.clone(),
        hour: E::hour(row, "hour")?,
        path: E::text(row, "path")?,
        requests: count(E::int(row, "requests")?),
        bots: count(E::int(row, "bots")?),
        self_reads: count(E::int(row, "self_reads")?),
    })
}

/// At most `limit` hourly rows from `since` on, by hour and path, after
/// `after`'s row (a path is never empty, so `(since, "")` is before the first).
pub(crate) async fn hours_page<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: DateTime<Utc>,
    after: Option<(DateTime<Utc>, String)>,
    limit: usize,
) -> Result<Vec<HourRow>, StoreError> {
    let (hour, path) = after.unwrap_or((since, String::new()));
    let query = sqlx::query(
        "SELECT hour, path, requests, bots, self_reads FROM hours \
         WHERE store = $1 AND hour >= $2 AND (hour > $3 OR (hour = $3 AND path > $4)) \
         ORDER BY hour, path LIMIT $5",
    );
    let query = E::bind_hour(E::bind_text(query, store.as_str()), since);
    let query = E::bind_text(E::bind_hour(query, hour), &path);
    let query = E::bind_int(query, i64::try_from(limit).unwrap_or(i64::MAX));
    let rows = E::fetch_all(pool, query).await.map_err(failed)?;
    rows.iter().map(|row| hour_row::<E>(row, store)).collect()
}

/// Which visitor-days [`visitors`] reads from a day on.
#[derive(Clone, Copy)]
pub(crate) enum Which<'a> {
    /// All of them.
    All,
    /// The newest few.
    Newest(i64),
    /// A page of them, by day and token, after a day and token.
    After(NaiveDate, &'a str, i64),
}

/// How [`visitors`] and [`parts`] choose their rows: after `WHERE store =
/// $1 AND day >= $2`, the visitor-days' `AND …`/`ORDER BY …`, and the
/// parts' `AND …` (their visitor-days, `v`).
fn chosen(which: Which<'_>) -> (&'static str, &'static str) {
    match which {
        Which::All => ("ORDER BY day, visitor", ""),
        Which::Newest(_) => (
            "ORDER BY day DESC, visitor DESC LIMIT $3",
            " AND (v.day, v.visitor) IN (SELECT day, visitor FROM visitor_days \
             WHERE store = $1 AND day >= $2 ORDER BY day DESC, visitor DESC LIMIT $3)",
        ),
        Which::After(..) => (
            "AND (day > $3 OR (day = $3 AND visitor > $4)) ORDER BY day, visitor LIMIT $5",
            " AND (v.day, v.visitor) IN (SELECT day, visitor FROM visitor_days \
             WHERE store = $1 AND day >= $2 AND (day > $3 OR (day = $3 AND visitor > $4)) \
             ORDER BY day, visitor LIMIT $5)",
        ),
    }
}

/// Binds the store, the first day and what `which` needs.
fn bound<'q, E: Engine>(
    sql: &'q str,
    store: &'q StoreName,
    since: NaiveDate,
    which: Which<'q>,
) -> Query<'q, E> {
    let query = E::bind_day(E::bind_text(sqlx::query(sql), store.as_str()), since);
    match which {
        Which::All => query,
        Which::Newest(limit) => E::bind_int(query, limit),
        Which::After(day, visitor, limit) => {
            E::bind_int(E::bind_text(E::bind_day(query, day), visitor), limit)
        }
    }
}

/// Visitor-days from `since` on (all, the newest few, or a page), each
/// with its paths, sources and goals.
pub(crate) async fn visitors<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: NaiveDate,
    which: Which<'_>,
) -> Result<Vec<VisitorDay>, StoreError> {
    let (order, _) = chosen(which);
    let sql = format!(
        "SELECT day, visitor, network, first_seen, last_seen, requests, bots, self_reads, \
                evidence, bot_classes, country, {PAGE_LOADS_COLUMNS} \
         FROM visitor_days WHERE store = $1 AND day >= $2 {order}"
    );
    let rows = E::fetch_all(pool, bound::<E>(&sql, store, since, which))
        .await
        .map_err(failed)?;
    let mut visitors = Vec::with_capacity(rows.len());
    for row in &rows {
        let network = E::text(row, "network")?;
        visitors.push(VisitorDay {
            store: store.clone(),
            day: E::day(row, "day")?,
            visitor: token::<E>(row)?,
            network: Network::parse(&network).ok_or_else(|| invalid("network"))?,
            country: E::optional_text(row, "country")?
                .map(|code| Country::parse(&code).ok_or_else(|| invalid("country")))
                .transpose()?,
            first_seen: E::moment(row, "first_seen")?,
            last_seen: E::moment(row, "last_seen")?,
            requests: count(E::int(row, "requests")?),
            bots: count(E::int(row, "bots")?),
            self_reads: count(E::int(row, "self_reads")?),
            evidence: Evidence(
                u16::try_from(E::int(row, "evidence")?).map_err(|_| invalid("evidence"))?,
            ),
            bot_classes: ClassSet(
                u16::try_from(E::int(row, "bot_classes")?).map_err(|_| invalid("bot classes"))?,
            ),
            top_paths: Vec::new(),
            sources: Vec::new(),
            pages: page_loads::<E>(row)?,
            goals: Vec::new(),
        });
    }

    let paths = parts::<E>(pool, store, since, Part::PATHS, which)
        .await?
        .into_iter()
        .map(|(day, visitor, path, requests)| (day, visitor, PathCount { path, requests }))
        .collect();
    let sources = parts::<E>(pool, store, since, Part::SOURCES, which)
        .await?
        .into_iter()
        .map(|(day, visitor, source, page_loads)| {
            let source = Source::try_from(source).map_err(|_| invalid("source"))?;
            Ok((day, visitor, SourceCount { source, page_loads }))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let goals = parts::<E>(pool, store, since, Part::GOALS, which)
        .await?
        .into_iter()
        .map(|(day, visitor, goal, requests)| {
            let goal = Goal::try_from(goal).map_err(|_| invalid("goal"))?;
            Ok((day, visitor, GoalCount { goal, requests }))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    attach_parts(
        &mut visitors,
        Parts {
            paths,
            sources,
            goals,
        },
    );
    Ok(visitors)
}

/// A table of a visitor-day's parts (paths, sources or goals) and its columns:
/// this crate's own names, never input.
struct Part {
    table: &'static str,
    name: &'static str,
    counted: &'static str,
}

impl Part {
    const PATHS: Self = Self {
        table: "visitor_paths",
        name: "path",
        counted: "requests",
    };
    const SOURCES: Self = Self {
        table: "visitor_sources",
        name: "source",
        counted: "page_loads",
    };
    const GOALS: Self = Self {
        table: "visitor_goals",
        name: "goal",
        counted: "requests",
    };
}

/// A visitor-day's paths or sources, kept apart from its row: each as
/// (day, token, name, count).
async fn parts<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: NaiveDate,
    part: Part,
    which: Which<'_>,
) -> Result<Vec<(NaiveDate, VisitorToken, String, u64)>, StoreError> {
    let (_, only) = chosen(which);
    let Part {
        table,
        name,
        counted,
    } = part;
    let sql = format!(
        "SELECT v.day, v.visitor, p.{name}, p.{counted} \
         FROM visitor_days v JOIN {table} p ON p.visitor_day = v.id \
         WHERE v.store = $1 AND v.day >= $2{only}"
    );
    let rows = E::fetch_all(pool, bound::<E>(&sql, store, since, which))
        .await
        .map_err(failed)?;
    rows.iter()
        .map(|row| {
            Ok((
                E::day(row, "day")?,
                token::<E>(row)?,
                E::text(row, name)?,
                count(E::int(row, counted)?),
            ))
        })
        .collect()
}

pub(crate) async fn expired_kinds_since<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
    let rows = store_since::<E>(
        pool,
        "SELECT day, people, bots, self_reads FROM day_kinds \
         WHERE store = $1 AND day >= $2 ORDER BY day",
        store,
        since,
    )
    .await?;
    rows.iter()
        .map(|row| {
            let kinds = KindCounts {
                people: count(E::int(row, "people")?),
                bots: count(E::int(row, "bots")?),
                self_reads: count(E::int(row, "self_reads")?),
            };
            Ok((E::day(row, "day")?, kinds))
        })
        .collect()
}

/// Bot requests per day and class, with expired days' visitor-days.
pub(crate) async fn bot_days_since<E: Engine>(
    pool: &Pool<E::Db>,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
    let rows = store_since::<E>(
        pool,
        "SELECT day, class, requests, visitor_days FROM day_bots \
         WHERE store = $1 AND day >= $2 ORDER BY day, class",
        store,
        since,
    )
    .await?;
    rows.iter()
        .map(|row| {
            Ok((
                E::day(row, "day")?,
                class::<E>(row)?,
                BotCount {
                    requests: count(E::int(row, "requests")?),
                    visitor_days: count(E::int(row, "visitor_days")?),
                    verified: 0,
                },
            ))
        })
        .collect()
}

/// Each bot class's name and bit, for [`Engine::bind_pairs`].
pub(crate) fn class_bits() -> Vec<(String, i64)> {
    BotClass::ALL
        .iter()
        .map(|class| (class.as_str().to_owned(), i64::from(class.bit())))
        .collect()
}

/// The columns [`page_loads`] reads.
const PAGE_LOADS_COLUMNS: &str = "page_loads, entry_at, entry_page, exit_at, exit_page, stay_ms, \
     visits, campaign_at, utm_source, utm_medium, utm_campaign";

/// A visitor-day's page loads, from its columns.
fn page_loads<E: Engine>(row: &Row<E>) -> Result<PageLoads, StoreError> {
    let page = |at: &str, path: &str| -> Result<Option<PageAt>, StoreError> {
        match (E::optional_int(row, at)?, E::optional_text(row, path)?) {
            (Some(millis), Some(path)) => Ok(Some(PageAt {
                at: DateTime::from_timestamp_millis(millis).ok_or_else(|| invalid(at))?,
                path,
            })),
            (None, None) => Ok(None),
            _ => Err(invalid(path)),
        }
    };
    Ok(PageLoads {
        count: count(E::int(row, "page_loads")?),
        entry: page("entry_at", "entry_page")?,
        exit: page("exit_at", "exit_page")?,
        stay_ms: count(E::int(row, "stay_ms")?),
        visits: count(E::int(row, "visits")?),
        campaign: campaign::<E>(row)?,
    })
}

/// A visitor-day's campaign, from its columns: labels as written (a value
/// that is not one is a damaged row).
fn campaign<E: Engine>(row: &Row<E>) -> Result<Option<CampaignAt>, StoreError> {
    let Some(millis) = E::optional_int(row, "campaign_at")? else {
        return Ok(None);
    };
    let campaign = Campaign {
        source: E::optional_text(row, "utm_source")?,
        medium: E::optional_text(row, "utm_medium")?,
        name: E::optional_text(row, "utm_campaign")?,
    };
    if !campaign.is_clean() {
        return Err(invalid("utm labels"));
    }
    Ok(Some(CampaignAt {
        at: DateTime::from_timestamp_millis(millis).ok_or_else(|| invalid("campaign_at"))?,
        campaign,
    }))
}
