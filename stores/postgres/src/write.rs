//! Writing a batch: one statement per table whatever the batch's size, in
//! the shared tables' words ([`activity_sql::upsert`]). Each column travels
//! as one array and `UNNEST` turns the arrays back into rows, so the
//! statement text never changes and is prepared once per connection.

use std::sync::LazyLock;

use activity::campaign::Campaign;
use activity::page_loads::PageLoads;
use activity::rows::{Batch, VisitorDay};
use activity::store::StoreError;
use activity::visitor_numbers::VisitorNumbers;
use activity_sql::upsert::{self, Upsert};
use activity_sql::{failed, int, invalid};
use chrono::NaiveDate;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::{PgConnection, PgPool, Postgres, Row as _};

/// A browser's evidence on visitor-days already kept, in the bits' own
/// words ([`activity::kind_sql::with_files`]).
static MARK_FILES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "UPDATE visitor_days v SET evidence = {} \
         FROM UNNEST($1::text[], $2::date[], $3::text[]) AS m(store, day, visitor) \
         WHERE v.store = m.store AND v.day = m.day AND v.visitor = m.visitor",
        activity::kind_sql::with_files("v.")
    )
});

/// A statement whose rows come from arrays, ready for its arrays.
type Arrays<'q> = Query<'q, Postgres, PgArguments>;

/// `upsert` with its rows from `UNNEST` of arrays of `types`, picked by
/// `select` (`*`: all, in order) from `batch(column1, …)`.
fn unnest(upsert: Upsert, types: &[&str], select: &str) -> String {
    let arrays: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(at, kind)| format!("${}::{kind}[]", at + 1))
        .collect();
    let names: Vec<String> = (1..=types.len()).map(|n| format!("column{n}")).collect();
    upsert.sql(&format!(
        "SELECT {select} FROM UNNEST({}) AS batch({})",
        arrays.join(", "),
        names.join(", ")
    ))
}

/// Runs `query` unless it has no rows.
async fn run(tx: &mut PgConnection, rows: usize, query: Arrays<'_>) -> Result<(), StoreError> {
    if rows > 0 {
        query.execute(tx).await.map_err(failed)?;
    }
    Ok(())
}

/// Writes a batch in one transaction: its name, if it has one (a batch
/// added already adds nothing), the hourly rows and their days'
/// totals, the visitor-days with their paths, sources and goals, then the files'
/// marks (after the visitor rows, so a mark finds a row of this batch too)
/// and their days' count, and the bots' days.
pub(crate) async fn record(pool: &PgPool, batch: &Batch) -> Result<(), StoreError> {
    let mut tx = pool.begin().await.map_err(failed)?;
    if let Some(id) = &batch.id {
        let claimed = sqlx::query(upsert::CLAIM_BATCH)
            .bind(id.as_str())
            .bind(chrono::Utc::now())
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
        if claimed.rows_affected() == 0 {
            // Added already: sent again after a lost reply or a restart.
            return tx.rollback().await.map_err(failed);
        }
    }
    let rows = &batch.hours;
    let hours = unnest(
        upsert::HOURS,
        &["text", "timestamptz", "text", "int8", "int8", "int8"],
        "*",
    );
    let query = sqlx::query(&hours)
        .bind(rows.iter().map(|r| r.store.as_str()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.hour).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.path.as_str()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.requests)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.bots)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.self_reads)).collect::<Vec<_>>());
    run(&mut tx, rows.len(), query).await?;
    let rows = &batch.goal_hours;
    let goal_hours = unnest(
        upsert::GOAL_HOURS,
        &["text", "timestamptz", "text", "int8", "int8", "int8"],
        "*",
    );
    let query = sqlx::query(&goal_hours)
        .bind(rows.iter().map(|r| r.store.as_str()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.hour).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.goal.name()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.requests)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.bots)).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.self_reads)).collect::<Vec<_>>());
    run(&mut tx, rows.len(), query).await?;

    let requests = activity_sql::day_requests(batch);
    let totals = unnest(upsert::DAY_REQUESTS, &["text", "date", "int8"], "*");
    run(&mut tx, requests.len(), day_counts(&totals, &requests)).await?;

    // Each visitor-day's number (new ones get theirs from the table's
    // sequence), for its paths, sources and goals.
    let rows = &batch.visitors;
    let visitors = format!(
        "INSERT INTO visitor_days ({}) SELECT * FROM UNNEST($1::text[], $2::date[], \
         $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::int8[], \
         $8::int8[], $9::int8[], $10::int4[], $11::int4[], $12::text[], $13::int8[], \
         $14::int8[], $15::text[], $16::int8[], $17::text[], $18::int8[], $19::int8[], \
         $20::int8[], $21::text[], $22::text[], $23::text[]) {}",
        upsert::VISITOR_DAYS_COLUMNS,
        &*upsert::VISITOR_DAYS_CONFLICT
    );
    let numbers = if rows.is_empty() {
        Vec::new()
    } else {
        sqlx::query(&visitors)
            .bind(rows.iter().map(|r| r.store.as_str()).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.day).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.visitor.as_str()).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.network.as_str()).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.first_seen).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.last_seen).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| int(r.requests)).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| int(r.bots)).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| int(r.self_reads)).collect::<Vec<_>>())
            .bind(
                rows.iter()
                    .map(|r| i32::from(r.evidence.0))
                    .collect::<Vec<_>>(),
            )
            .bind(
                rows.iter()
                    .map(|r| i32::from(r.bot_classes.0))
                    .collect::<Vec<_>>(),
            )
            .bind(
                rows.iter()
                    .map(|r| r.country.map(|country| country.to_string()))
                    .collect::<Vec<_>>(),
            )
            .bind(rows.iter().map(|r| int(r.pages.count)).collect::<Vec<_>>())
            .bind(pages(rows, |p| {
                p.entry.as_ref().map(|page| page.at.timestamp_millis())
            }))
            .bind(pages(rows, |p| {
                p.entry.as_ref().map(|page| page.path.clone())
            }))
            .bind(pages(rows, |p| {
                p.exit.as_ref().map(|page| page.at.timestamp_millis())
            }))
            .bind(pages(rows, |p| {
                p.exit.as_ref().map(|page| page.path.clone())
            }))
            .bind(
                rows.iter()
                    .map(|r| int(r.pages.stay_ms))
                    .collect::<Vec<_>>(),
            )
            .bind(rows.iter().map(|r| int(r.pages.visits)).collect::<Vec<_>>())
            .bind(pages(rows, |p| {
                p.campaign.as_ref().map(|c| c.at.timestamp_millis())
            }))
            .bind(pages(rows, |p| campaign(p, |c| &c.source)))
            .bind(pages(rows, |p| campaign(p, |c| &c.medium)))
            .bind(pages(rows, |p| campaign(p, |c| &c.name)))
            .fetch_all(&mut *tx)
            .await
            .map_err(failed)?
    };
    let ids = numbers
        .iter()
        .map(|row| {
            Ok((
                row.try_get("day").map_err(|_| invalid("day"))?,
                row.try_get("visitor").map_err(|_| invalid("visitor"))?,
                row.try_get("id").map_err(|_| invalid("id"))?,
            ))
        })
        .collect::<Result<Vec<_>, StoreError>>()
        .map(VisitorNumbers::new)?;
    let parts = ids.parts(&batch.visitors)?;
    let paths = unnest(upsert::PATHS, &["int8", "text", "int8"], "*");
    run(
        &mut tx,
        parts.paths.len(),
        visitor_parts(&paths, &parts.paths),
    )
    .await?;
    let sources = unnest(upsert::SOURCES, &["int8", "text", "int8"], "*");
    run(
        &mut tx,
        parts.sources.len(),
        visitor_parts(&sources, &parts.sources),
    )
    .await?;
    let goals = unnest(upsert::GOALS, &["int8", "text", "int8"], "*");
    run(
        &mut tx,
        parts.goals.len(),
        visitor_parts(&goals, &parts.goals),
    )
    .await?;

    // A browser's evidence on visitor-days already kept; a mark without a
    // row marks nothing.
    let marks = &batch.marks;
    let query = sqlx::query(&MARK_FILES)
        .bind(marks.iter().map(|m| m.store.as_str()).collect::<Vec<_>>())
        .bind(marks.iter().map(|m| m.day).collect::<Vec<_>>())
        .bind(marks.iter().map(|m| m.visitor.as_str()).collect::<Vec<_>>());
    run(&mut tx, marks.len(), query).await?;
    let per_day = activity_sql::day_marks(batch);
    let day_marks = unnest(
        upsert::DAY_MARKS,
        &["text", "date", "int8"],
        "column1, column2, 0, column3",
    );
    run(&mut tx, per_day.len(), day_counts(&day_marks, &per_day)).await?;

    let rows = &batch.bot_days;
    let bot_days = unnest(
        upsert::BOT_DAYS,
        &["text", "date", "text", "int8"],
        "column1, column2, column3, column4, 0",
    );
    let query = sqlx::query(&bot_days)
        .bind(rows.iter().map(|r| r.store.as_str()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.day).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.class.as_str()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| int(r.requests)).collect::<Vec<_>>());
    run(&mut tx, rows.len(), query).await?;
    tx.commit().await.map_err(failed)
}

/// `sql` with counts per store and day bound as three arrays.
fn day_counts<'q>(sql: &'q str, days: &[((&str, NaiveDate), u64)]) -> Arrays<'q> {
    sqlx::query(sql)
        .bind(
            days.iter()
                .map(|((store, _), _)| (*store).to_owned())
                .collect::<Vec<_>>(),
        )
        .bind(days.iter().map(|((_, day), _)| *day).collect::<Vec<_>>())
        .bind(days.iter().map(|(_, n)| int(*n)).collect::<Vec<_>>())
}

/// `sql` with visitor-days' paths or sources, as (number, name, count),
/// bound as three arrays.
fn visitor_parts<'q, Name: AsRef<str>>(sql: &'q str, parts: &[(i64, Name, u64)]) -> Arrays<'q> {
    sqlx::query(sql)
        .bind(parts.iter().map(|(id, _, _)| *id).collect::<Vec<_>>())
        .bind(
            parts
                .iter()
                .map(|(_, name, _)| name.as_ref().to_owned())
                .collect::<Vec<_>>(),
        )
        .bind(parts.iter().map(|(_, _, n)| int(*n)).collect::<Vec<_>>())
}

/// One column of the visitor-days' page loads, as an array to bind.
fn pages<T>(rows: &[VisitorDay], column: impl Fn(&PageLoads) -> T) -> Vec<T> {
    rows.iter().map(|row| column(&row.pages)).collect()
}

/// One label of a visitor-day's campaign, if it has one.
fn campaign(pages: &PageLoads, label: impl Fn(&Campaign) -> &Option<String>) -> Option<String> {
    pages
        .campaign
        .as_ref()
        .and_then(|at| label(&at.campaign).clone())
}
