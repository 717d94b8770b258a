//! Reading a Cosmos DB store: each read asks the days' partitions it needs
//! (the store's list of days says which exist), a few at a time, with
//! point reads and queries that stay within one partition.

use std::collections::BTreeMap;

use activity::StoreName;
use activity::VisitorToken;
use activity::rows::{GoalHour, HourRow, VisitorDay};
use activity::store::StoreError;
use chrono::{DateTime, NaiveDate, Utc};
use futures::{StreamExt, TryStreamExt};
use serde_json::Value;

use crate::container::Container;
use crate::docs::{
    DAY_ID, DAYS_ID, DayBody, DaysBody, Doc, HourBody, VisitorBody, day_partition, hour_text,
    meta_partition,
};
use crate::write::parse;

/// How many partitions one read asks at once.
const AT_ONCE: usize = 8;

/// A store's days with documents, oldest first.
pub async fn days(container: &Container, store: &StoreName) -> Result<Vec<NaiveDate>, StoreError> {
    let doc: Option<Doc<DaysBody>> = container.read(&meta_partition(store), DAYS_ID).await?;
    Ok(doc.map(|doc| doc.body.days).unwrap_or_default())
}

/// The days from `since` on.
pub async fn days_since(
    container: &Container,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<NaiveDate>, StoreError> {
    let mut days = days(container, store).await?;
    days.retain(|day| *day >= since);
    Ok(days)
}

/// A day's own document, if it has one.
pub async fn day_doc(
    container: &Container,
    store: &StoreName,
    day: NaiveDate,
) -> Result<Option<Doc<DayBody>>, StoreError> {
    container.read(&day_partition(store, day), DAY_ID).await
}

/// Each day's own document from `since` on (days without one left out).
pub async fn day_docs(
    container: &Container,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<(NaiveDate, DayBody)>, StoreError> {
    let days = days_since(container, store, since).await?;
    let docs: Vec<Option<Doc<DayBody>>> = futures::stream::iter(days.iter().copied())
        .map(|day| day_doc(container, store, day))
        .buffered(AT_ONCE)
        .try_collect()
        .await?;
    Ok(days
        .into_iter()
        .zip(docs)
        .filter_map(|(day, doc)| doc.map(|doc| (day, doc.body)))
        .collect())
}

/// The hourly rows of `day` from `since` on.
async fn hours_of(
    container: &Container,
    store: &StoreName,
    day: NaiveDate,
    since: DateTime<Utc>,
) -> Result<Vec<HourRow>, StoreError> {
    let docs: Vec<Value> = container
        .query(
            &day_partition(store, day),
            "SELECT * FROM c WHERE c.t = 'h' AND c.hour >= @since",
            &[("@since", Value::from(hour_text(since)))],
        )
        .await?;
    docs.into_iter()
        .map(|doc| parse::<HourBody>(doc, "an hour").map(|doc| doc.body.row))
        .collect()
}

/// Hourly rows from `since` on.
pub async fn hours_since(
    container: &Container,
    store: &StoreName,
    since: DateTime<Utc>,
) -> Result<Vec<HourRow>, StoreError> {
    let days = days_since(container, store, since.date_naive()).await?;
    let rows: Vec<Vec<HourRow>> = futures::stream::iter(days)
        .map(|day| hours_of(container, store, day, since))
        .buffered(AT_ONCE)
        .try_collect()
        .await?;
    Ok(rows.into_iter().flatten().collect())
}

/// Goals' hourly rows from `since` on, from the days' own documents.
pub async fn goal_hours_since(
    container: &Container,
    store: &StoreName,
    since: DateTime<Utc>,
) -> Result<Vec<GoalHour>, StoreError> {
    let mut rows: Vec<GoalHour> = day_docs(container, store, since.date_naive())
        .await?
        .into_iter()
        .flat_map(|(_, day)| day.goal_hours)
        .filter(|row| row.hour >= since)
        .map(|row| GoalHour {
            store: store.clone(),
            hour: row.hour,
            goal: row.goal,
            requests: row.requests,
            bots: row.bots,
            self_reads: row.self_reads,
        })
        .collect();
    rows.sort_by(|a, b| (a.hour, &a.goal).cmp(&(b.hour, &b.goal)));
    Ok(rows)
}

/// The paths kept for the hour starting `hour`.
pub async fn paths_in_hour(
    container: &Container,
    store: &StoreName,
    hour: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    let docs: Vec<Value> = container
        .query(
            &day_partition(store, hour.date_naive()),
            "SELECT * FROM c WHERE c.t = 'h' AND c.hour = @hour",
            &[("@hour", Value::from(hour_text(hour)))],
        )
        .await?;
    docs.into_iter()
        .map(|doc| parse::<HourBody>(doc, "an hour").map(|doc| doc.body.row.path))
        .collect()
}

/// At most `limit` hourly rows from `since` on, after `after`, in the
/// order of hour and path.
pub async fn hours_page(
    container: &Container,
    store: &StoreName,
    since: DateTime<Utc>,
    after: Option<(DateTime<Utc>, String)>,
    limit: usize,
) -> Result<Vec<HourRow>, StoreError> {
    let start = after.as_ref().map_or(since.date_naive(), |(hour, _)| {
        hour.date_naive().max(since.date_naive())
    });
    let after_key = after
        .as_ref()
        .map(|(hour, path)| format!("{}|{path}", hour_text(*hour)))
        .unwrap_or_default();
    let mut rows = Vec::new();
    for day in days_since(container, store, start).await? {
        if rows.len() >= limit {
            break;
        }
        let docs: Vec<Value> = container
            .query(
                &day_partition(store, day),
                &format!(
                    "SELECT TOP {} * FROM c WHERE c.t = 'h' AND c.hour >= @since AND c.k > @after ORDER BY c.k",
                    limit - rows.len()
                ),
                &[
                    ("@since", Value::from(hour_text(since))),
                    ("@after", Value::from(after_key.clone())),
                ],
            )
            .await?;
        for doc in docs {
            rows.push(parse::<HourBody>(doc, "an hour")?.body.row);
        }
    }
    rows.sort_by(|a, b| (a.hour, &a.path).cmp(&(b.hour, &b.path)));
    rows.truncate(limit);
    Ok(rows)
}

/// Whether a day's visitor documents are being deleted (their counts
/// already kept by retention): readers leave them out.
async fn expiring(
    container: &Container,
    store: &StoreName,
    day: NaiveDate,
) -> Result<bool, StoreError> {
    Ok(day_doc(container, store, day)
        .await?
        .is_some_and(|doc| doc.body.expiring))
}

/// A day's visitor-days (none while they expire).
async fn visitors_of(
    container: &Container,
    store: &StoreName,
    day: NaiveDate,
) -> Result<Vec<VisitorDay>, StoreError> {
    let docs: Vec<Value> = container
        .query(
            &day_partition(store, day),
            "SELECT * FROM c WHERE c.t = 'v' OR c.id = 'day'",
            &[],
        )
        .await?;
    let mut rows = Vec::new();
    for doc in docs {
        if doc.get("id").and_then(Value::as_str) == Some(DAY_ID) {
            if parse::<DayBody>(doc, "a day")?.body.expiring {
                return Ok(Vec::new());
            }
        } else {
            rows.push(parse::<VisitorBody>(doc, "a visitor-day")?.body.row);
        }
    }
    Ok(rows)
}

/// Visitor-days from `since` on.
pub async fn visitors_since(
    container: &Container,
    store: &StoreName,
    since: NaiveDate,
) -> Result<Vec<VisitorDay>, StoreError> {
    let days = days_since(container, store, since).await?;
    let rows: Vec<Vec<VisitorDay>> = futures::stream::iter(days)
        .map(|day| visitors_of(container, store, day))
        .buffered(AT_ONCE)
        .try_collect()
        .await?;
    Ok(rows.into_iter().flatten().collect())
}

/// At most `limit` visitor-days from `since` on, after `after`, in the
/// order of day and token.
pub async fn visitors_page(
    container: &Container,
    store: &StoreName,
    since: NaiveDate,
    after: Option<(NaiveDate, VisitorToken)>,
    limit: usize,
) -> Result<Vec<VisitorDay>, StoreError> {
    let start = after.as_ref().map_or(since, |(day, _)| (*day).max(since));
    let mut rows = Vec::new();
    for day in days_since(container, store, start).await? {
        if rows.len() >= limit {
            break;
        }
        if expiring(container, store, day).await? {
            continue;
        }
        let after_key = match &after {
            Some((after_day, token)) if *after_day == day => token.to_string(),
            _ => String::new(),
        };
        let docs: Vec<Value> = container
            .query(
                &day_partition(store, day),
                &format!(
                    "SELECT TOP {} * FROM c WHERE c.t = 'v' AND c.k > @after ORDER BY c.k",
                    limit - rows.len()
                ),
                &[("@after", Value::from(after_key))],
            )
            .await?;
        for doc in docs {
            rows.push(parse::<VisitorBody>(doc, "a visitor-day")?.body.row);
        }
    }
    Ok(rows)
}

/// The newest visitor-days from `since` on (newest day first, then by
/// token, both descending), at most `limit`, and how many there are.
pub async fn latest_visitors(
    container: &Container,
    store: &StoreName,
    since: NaiveDate,
    limit: usize,
) -> Result<(Vec<VisitorDay>, u64), StoreError> {
    let mut days = days_since(container, store, since).await?;
    days.reverse();
    let mut total = 0;
    let mut rows = Vec::new();
    for day in days {
        if expiring(container, store, day).await? {
            continue;
        }
        let pk = day_partition(store, day);
        let counts: Vec<u64> = container
            .query(&pk, "SELECT VALUE COUNT(1) FROM c WHERE c.t = 'v'", &[])
            .await?;
        total += counts.iter().sum::<u64>();
        if rows.len() < limit {
            let docs: Vec<Value> = container
                .query(
                    &pk,
                    &format!(
                        "SELECT TOP {} * FROM c WHERE c.t = 'v' ORDER BY c.k DESC",
                        limit - rows.len()
                    ),
                    &[],
                )
                .await?;
            for doc in docs {
                rows.push(parse::<VisitorBody>(doc, "a visitor-day")?.body.row);
            }
        }
    }
    Ok((rows, total))
}

/// Sums per day of what the day documents hold, oldest first.
pub fn per_day<T>(
    docs: &[(NaiveDate, DayBody)],
    pick: impl Fn(&DayBody) -> Option<T>,
) -> Vec<(NaiveDate, T)> {
    docs.iter()
        .filter_map(|(day, body)| pick(body).map(|value| (*day, value)))
        .collect::<BTreeMap<_, _>>()
        .into_iter()
        .collect()
}
