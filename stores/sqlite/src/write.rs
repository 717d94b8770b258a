//! Writing a batch: upserts in one transaction, every row a statement's
//! bound parameters ([`chunks`](crate::chunks)), in the shared tables'
//! words ([`activity_sql::upsert`]).

use std::sync::LazyLock;

use activity::page_loads::CampaignAt;
use activity::rows::{Batch, VisitorDay};
use activity::store::StoreError;
use activity::visitor_numbers::VisitorNumbers;
use activity_sql::upsert::{self, Upsert};
use activity_sql::{failed, int, invalid};
use chrono::NaiveDate;
use sqlx::SqlitePool;

use crate::chunks::{Bound, Chunked};

/// Writes a batch in one transaction: its name, if it has one (a batch
/// added already adds nothing), the hourly rows and their days'
/// totals, the visitor-days with their paths, sources and goals, then the files'
/// marks (after the visitor rows, so that a mark finds a row of this batch
/// too) and their days' count, and the bots' days.
pub(crate) async fn record(pool: &SqlitePool, batch: &Batch) -> Result<(), StoreError> {
    let requests = activity_sql::day_requests(batch);
    let marks = activity_sql::day_marks(batch);
    let mut tx = pool.begin().await.map_err(failed)?;
    if let Some(id) = &batch.id {
        let claimed = sqlx::query(upsert::CLAIM_BATCH)
            .bind(id.as_str())
            .bind(chrono::Utc::now().timestamp())
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
        if claimed.rows_affected() == 0 {
            // Added already: sent again after a lost reply or a restart.
            return tx.rollback().await.map_err(failed);
        }
    }
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
    GOAL_HOURS
        .run(&mut tx, &batch.goal_hours, |q, row| {
            q.bind(row.store.as_str())
                .bind(row.hour.timestamp())
                .bind(row.goal.name())
                .bind(int(row.requests))
                .bind(int(row.bots))
                .bind(int(row.self_reads))
        })
        .await?;
    DAY_REQUESTS.run(&mut tx, &requests, day_count).await?;
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
                .bind(row.country.map(|country| country.to_string()))
                .bind(int(row.pages.count))
                .bind(
                    row.pages
                        .entry
                        .as_ref()
                        .map(|page| page.at.timestamp_millis()),
                )
                .bind(row.pages.entry.as_ref().map(|page| page.path.as_str()))
                .bind(
                    row.pages
                        .exit
                        .as_ref()
                        .map(|page| page.at.timestamp_millis()),
                )
                .bind(row.pages.exit.as_ref().map(|page| page.path.as_str()))
                .bind(int(row.pages.stay_ms))
                .bind(int(row.pages.visits))
                .bind(campaign(row).map(|c| c.at.timestamp_millis()))
                .bind(campaign(row).and_then(|c| c.campaign.source.as_deref()))
                .bind(campaign(row).and_then(|c| c.campaign.medium.as_deref()))
                .bind(campaign(row).and_then(|c| c.campaign.name.as_deref()))
                .bind(*id)
        })
        .await?;
    let ids = kept
        .iter()
        .map(|row| {
            use sqlx::Row as _;
            let day: &str = row.try_get("day").map_err(|_| invalid("day"))?;
            let day: NaiveDate = day.parse().map_err(|_| invalid("day"))?;
            let visitor = row.try_get("visitor").map_err(|_| invalid("visitor"))?;
            let id = row.try_get("id").map_err(|_| invalid("id"))?;
            Ok((day, visitor, id))
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
    GOALS
        .run(&mut tx, &parts.goals, |q, (id, goal, requests)| {
            q.bind(*id).bind(*goal).bind(int(*requests))
        })
        .await?;
    MARK_FILES
        .run(&mut tx, &batch.marks, |q, mark| {
            q.bind(mark.store.as_str())
                .bind(mark.day.to_string())
                .bind(mark.visitor.as_str())
        })
        .await?;
    DAY_MARKS.run(&mut tx, &marks, day_count).await?;
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

/// `upsert` with its rows from a chunk of `VALUES`, read as `column1`,
/// `column2`, … (`select` picks them; `*`: all, in order). `WHERE column1
/// IS NOT NULL` skips the padding, and keeps SQLite from reading ON
/// CONFLICT as a join's ON.
fn chunked(upsert: Upsert, select: &str, columns: usize) -> Chunked {
    Chunked::new(
        &upsert.sql(&format!(
            "SELECT {select} FROM (VALUES {{rows}}) WHERE column1 IS NOT NULL"
        )),
        columns,
    )
}

static HOURS: LazyLock<Chunked> = LazyLock::new(|| chunked(upsert::HOURS, "*", 6));

static GOAL_HOURS: LazyLock<Chunked> = LazyLock::new(|| chunked(upsert::GOAL_HOURS, "*", 6));

static DAY_REQUESTS: LazyLock<Chunked> = LazyLock::new(|| chunked(upsert::DAY_REQUESTS, "*", 3));

static DAY_MARKS: LazyLock<Chunked> =
    LazyLock::new(|| chunked(upsert::DAY_MARKS, "column1, column2, 0, column3", 3));

/// The visitor-days, each with the number it gets if it is new.
static VISITORS: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        &format!(
            "INSERT INTO visitor_days ({}, id) \
             SELECT * FROM (VALUES {{rows}}) WHERE column1 IS NOT NULL {}",
            upsert::VISITOR_DAYS_COLUMNS,
            &*upsert::VISITOR_DAYS_CONFLICT
        ),
        24,
    )
});

/// A browser's evidence on visitor-days already kept (a file fetched after
/// the page's hit was written); a mark without a row marks nothing, and
/// a padding row of NULLs matches none.
static MARK_FILES: LazyLock<Chunked> = LazyLock::new(|| {
    Chunked::new(
        &format!(
            "UPDATE visitor_days SET evidence = {} \
             WHERE (store, day, visitor) IN (VALUES {{rows}})",
            activity::kind_sql::with_files("")
        ),
        3,
    )
});

static BOT_DAYS: LazyLock<Chunked> =
    LazyLock::new(|| chunked(upsert::BOT_DAYS, "column1, column2, column3, column4, 0", 4));

static PATHS: LazyLock<Chunked> = LazyLock::new(|| chunked(upsert::PATHS, "*", 3));

static SOURCES: LazyLock<Chunked> = LazyLock::new(|| chunked(upsert::SOURCES, "*", 3));

static GOALS: LazyLock<Chunked> = LazyLock::new(|| chunked(upsert::GOALS, "*", 3));

/// A visitor-day's campaign, if a page load's link carried one.
fn campaign(row: &VisitorDay) -> Option<&CampaignAt> {
    row.pages.campaign.as_ref()
}
