//! Retention, as the port's rule says: a day's visitor-days past the
//! retention are counted by kind and bot class into the day's own document
//! first (which then says the day is expiring, so readers leave its
//! visitor documents out), deleted, and the day's flag cleared; hourly
//! documents past theirs are deleted, and the day's requests summed again
//! from what is left (none: the day's total goes, as the hourly rows did).
//! Each step can be cut short and run again: nothing counts twice.

use std::collections::BTreeSet;
use std::sync::Mutex;

use activity::StoreName;
use activity::report::expiring_totals;
use activity::store::{Retention, StoreError};
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;

use crate::container::Container;
use crate::docs::{DAY_ID, DayBody, Doc, HourBody, VisitorBody, day_partition, hour_text};
use crate::read;
use crate::write::parse;

/// The days retention has finished with, so a run reads only new ones.
#[derive(Debug, Default)]
pub struct Done {
    visitors: Mutex<BTreeSet<NaiveDate>>,
    hours: Mutex<BTreeSet<NaiveDate>>,
}

fn done(set: &Mutex<BTreeSet<NaiveDate>>) -> std::sync::MutexGuard<'_, BTreeSet<NaiveDate>> {
    set.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Deletes what has expired as of `now`.
pub async fn enforce(
    container: &Container,
    store: &StoreName,
    retention: Retention,
    now: DateTime<Utc>,
    finished: &Done,
) -> Result<(), StoreError> {
    let days = read::days(container, store).await?;
    let visitor_cutoff = retention.first_visitor_day(now);
    for day in days.iter().copied().filter(|day| *day < visitor_cutoff) {
        if done(&finished.visitors).contains(&day) {
            continue;
        }
        expire_visitors(container, store, day).await?;
        done(&finished.visitors).insert(day);
    }
    if let Some(first_hour) = retention.first_hour(now) {
        let cutoff_day = first_hour.date_naive();
        for day in days.iter().copied().filter(|day| *day <= cutoff_day) {
            if done(&finished.hours).contains(&day) {
                continue;
            }
            expire_hours(container, store, day, first_hour).await?;
            if day < cutoff_day {
                done(&finished.hours).insert(day);
            }
        }
    }
    Ok(())
}

async fn expire_visitors(
    container: &Container,
    store: &StoreName,
    day: NaiveDate,
) -> Result<(), StoreError> {
    let pk = day_partition(store, day);
    for _ in 0..8 {
        let docs: Vec<Value> = container
            .query(&pk, "SELECT * FROM c WHERE c.t = 'v' OR c.id = 'day'", &[])
            .await?;
        let mut day_doc: Option<Doc<DayBody>> = None;
        let mut visitors = Vec::new();
        for doc in docs {
            if doc.get("id").and_then(Value::as_str) == Some(DAY_ID) {
                day_doc = Some(parse(doc, "a day")?);
            } else {
                let doc: Doc<VisitorBody> = parse(doc, "a visitor-day")?;
                visitors.push((doc.id, doc.body.row));
            }
        }
        if visitors.is_empty() && !day_doc.as_ref().is_some_and(|doc| doc.body.expiring) {
            return Ok(());
        }
        let mut day_doc = day_doc.unwrap_or_else(|| {
            Doc::new(
                DAY_ID.to_owned(),
                pk.clone(),
                crate::docs::kind::DAY,
                String::new(),
                DayBody {
                    day: Some(day),
                    ..DayBody::default()
                },
            )
        });
        if !day_doc.body.expiring {
            // Counted first, in the day's own document, which then hides them.
            let (kinds, classes) = expiring_totals(visitors.iter().map(|(_, row)| row));
            let mut expired = day_doc.body.expired.unwrap_or_default();
            expired += kinds;
            day_doc.body.expired = Some(expired);
            for (class, count) in classes {
                *day_doc.body.expired_classes.entry(class).or_default() += count;
            }
            day_doc.body.expiring = true;
            if !container.put_if_unchanged(&pk, DAY_ID, &day_doc).await? {
                continue;
            }
        }
        let ids: Vec<String> = visitors.into_iter().map(|(id, _)| id).collect();
        container.delete_all(&pk, &ids).await?;
        // The flag cleared on the day's latest version.
        for _ in 0..8 {
            let Some(mut doc) = read::day_doc(container, store, day).await? else {
                return Ok(());
            };
            doc.body.expiring = false;
            if container.put_if_unchanged(&pk, DAY_ID, &doc).await? {
                return Ok(());
            }
        }
        return Err(StoreError::Busy { retry_after: None });
    }
    Err(StoreError::Busy { retry_after: None })
}

async fn expire_hours(
    container: &Container,
    store: &StoreName,
    day: NaiveDate,
    first_hour: DateTime<Utc>,
) -> Result<(), StoreError> {
    let pk = day_partition(store, day);
    let docs: Vec<Value> = container
        .query(
            &pk,
            "SELECT * FROM c WHERE c.t = 'h' AND c.hour < @first",
            &[("@first", Value::from(hour_text(first_hour)))],
        )
        .await?;
    let ids: Vec<String> = docs
        .iter()
        .filter_map(|doc| doc.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect();
    container.delete_all(&pk, &ids).await?;
    for _ in 0..8 {
        let Some(mut doc) = read::day_doc(container, store, day).await? else {
            return Ok(());
        };
        let left: Vec<Value> = container
            .query(&pk, "SELECT * FROM c WHERE c.t = 'h'", &[])
            .await?;
        let mut requests = 0;
        for row in left {
            requests += parse::<HourBody>(row, "an hour")?.body.row.requests;
        }
        let gone = day < first_hour.date_naive();
        let (want, want_gone) = if gone {
            (None, true)
        } else {
            (Some(requests), false)
        };
        let goals_before = doc.body.goal_hours.len();
        doc.body.goal_hours.retain(|row| row.hour >= first_hour);
        if doc.body.requests == want
            && doc.body.hours_gone == want_gone
            && doc.body.goal_hours.len() == goals_before
        {
            return Ok(());
        }
        doc.body.requests = want;
        doc.body.hours_gone = want_gone;
        if container.put_if_unchanged(&pk, DAY_ID, &doc).await? {
            return Ok(());
        }
    }
    Err(StoreError::Busy { retry_after: None })
}
