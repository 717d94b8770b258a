//! Writing a batch: each day's partition is read (the documents the batch
//! changes), the batch's deltas added, and the documents written back in
//! transactional batches, each replacing only the version it read. A
//! document another writer changed meanwhile makes that partition read
//! and add again.
//!
//! Counted once, whatever fails: a transactional batch is atomic, but a
//! write spans several (100 operations each, one or more days). Every
//! document written names the write that changed it (a random name per
//! try, or the batch's own name when it has one, kept in the document's
//! last 16), and a failed try is remembered
//! with what it meant to add to each document. The writer retries with
//! the failed batch merged with what came since; before adding, each
//! document read says which earlier tries reached it, and what those
//! added is taken off. So a try whose reply was lost, or that reached
//! some partitions and not others, is never added twice.

use std::collections::BTreeSet;
use std::sync::Mutex;

use activity::StoreName;
use activity::rows::{Batch, HourRow, VisitorDay};
use activity::store::StoreError;
use azure_data_cosmos::TransactionalBatch;
use chrono::NaiveDate;
use serde::Serialize;
use serde_json::Value;

use crate::container::{BATCH_OPERATIONS, Container, Failure, Outcome, Refusal, put};
use crate::docs::{
    DAY_ID, DAYS_ID, DayBody, DaysBody, Doc, HourBody, VisitorBody, day_partition, hour_text, kind,
    meta_partition,
};
use crate::parts::{self, Part, Parts};

/// How many times a partition is read and written again when other
/// writers keep changing its documents.
const TRIES: usize = 8;
/// How many failed tries are remembered (a longer outage forgets the
/// oldest: a try that reached a document that long ago may count twice).
const ATTEMPTS_KEPT: usize = 32;

/// A failed try: its name and what it meant to add.
#[derive(Clone, Debug)]
struct Attempt {
    name: String,
    parts: Parts,
}

/// What the store's writer remembers between writes.
#[derive(Debug, Default)]
pub struct Writer {
    attempts: Mutex<Vec<Attempt>>,
    known_days: Mutex<BTreeSet<(StoreName, NaiveDate)>>,
}

/// A random name for one try.
fn try_name() -> String {
    let mut bytes = [0u8; 8];
    // Without random bytes, the time: names only need to differ between tries.
    if getrandom::fill(&mut bytes).is_err() {
        bytes = chrono::Utc::now()
            .timestamp_nanos_opt()
            .unwrap_or_default()
            .to_le_bytes();
    }
    hex::encode(bytes)
}

impl Writer {
    /// Adds `batch` to what `container` keeps.
    pub async fn record(&self, container: &Container, batch: &Batch) -> Result<(), StoreError> {
        // A batch with a name is sent again unchanged under it: a document
        // that names it has it already.
        let name = batch
            .id
            .as_ref()
            .map_or_else(try_name, |id| id.as_str().to_owned());
        let parts = parts::split(batch);
        let earlier = self
            .attempts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut attempted = Parts::new();
        let mut result = self.note_days(container, &parts).await;
        if result.is_ok() {
            for ((store, day), part) in &parts {
                let pk = day_partition(store, *day);
                let earlier: Vec<(&str, &Part)> = earlier
                    .iter()
                    .filter_map(|attempt| {
                        attempt
                            .parts
                            .get(&(store.clone(), *day))
                            .map(|part| (attempt.name.as_str(), part))
                    })
                    .collect();
                match write_partition(container, &pk, *day, part, &earlier, &name).await {
                    Ok(todo) => {
                        attempted.insert((store.clone(), *day), todo);
                    }
                    Err((todo, failure)) => {
                        attempted.insert((store.clone(), *day), todo);
                        result = Err(failure.error);
                        break;
                    }
                }
            }
        }
        let mut attempts = self
            .attempts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match result {
            Ok(()) => {
                attempts.clear();
                Ok(())
            }
            Err(error) => {
                if !attempted.is_empty() {
                    attempts.push(Attempt {
                        name,
                        parts: attempted,
                    });
                    let extra = attempts.len().saturating_sub(ATTEMPTS_KEPT);
                    if extra > 0 {
                        tracing::warn!(
                            "Cosmos DB has failed {ATTEMPTS_KEPT} writes in a row: the oldest is forgotten"
                        );
                    }
                    attempts.drain(..extra);
                }
                Err(error)
            }
        }
    }

    /// Adds the batch's days to each store's list of days (read first: a
    /// reader looks there for the partitions to read).
    async fn note_days(&self, container: &Container, parts: &Parts) -> Result<(), StoreError> {
        let new: BTreeSet<(StoreName, NaiveDate)> = {
            let known = self
                .known_days
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            parts
                .keys()
                .filter(|key| !known.contains(key))
                .cloned()
                .collect()
        };
        let stores: BTreeSet<&StoreName> = new.iter().map(|(store, _)| store).collect();
        for store in stores {
            let days: Vec<NaiveDate> = new
                .iter()
                .filter(|(s, _)| s == store)
                .map(|(_, day)| *day)
                .collect();
            let all = add_days(container, store, &days).await?;
            let mut known = self
                .known_days
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            known.extend(all.into_iter().map(|day| (store.clone(), day)));
        }
        Ok(())
    }
}

/// Adds `days` to the store's list of days; returns the whole list.
async fn add_days(
    container: &Container,
    store: &StoreName,
    days: &[NaiveDate],
) -> Result<Vec<NaiveDate>, StoreError> {
    let pk = meta_partition(store);
    for _ in 0..TRIES {
        let kept: Option<Doc<DaysBody>> = container.read(&pk, DAYS_ID).await?;
        let mut doc = kept.unwrap_or_else(|| {
            Doc::new(
                DAYS_ID.to_owned(),
                pk.clone(),
                kind::DAYS,
                String::new(),
                DaysBody::default(),
            )
        });
        let mut all: BTreeSet<NaiveDate> = doc.body.days.iter().copied().collect();
        if days.iter().all(|day| all.contains(day)) {
            return Ok(all.into_iter().collect());
        }
        all.extend(days.iter().copied());
        doc.body.days = all.iter().copied().collect();
        if container.put_if_unchanged(&pk, DAYS_ID, &doc).await? {
            return Ok(doc.body.days);
        }
    }
    Err(too_contended())
}

fn too_contended() -> StoreError {
    StoreError::Busy { retry_after: None }
}

/// The documents of partition `pk` among `ids`, by id, as JSON.
pub async fn read_docs(
    container: &Container,
    pk: &str,
    ids: &[String],
) -> Result<std::collections::BTreeMap<String, Value>, StoreError> {
    let mut found = std::collections::BTreeMap::new();
    // A query's parameters stay small: a few hundred ids at a time.
    for chunk in ids.chunks(500) {
        let docs: Vec<Value> = container
            .query(
                pk,
                "SELECT * FROM c WHERE ARRAY_CONTAINS(@ids, c.id)",
                &[("@ids", Value::from(chunk.to_vec()))],
            )
            .await?;
        for doc in docs {
            if let Some(id) = doc.get("id").and_then(Value::as_str) {
                found.insert(id.to_owned(), doc);
            }
        }
    }
    Ok(found)
}

/// A document read as JSON, as the type its id says.
pub fn parse<T: serde::de::DeserializeOwned>(doc: Value, what: &str) -> Result<Doc<T>, StoreError> {
    serde_json::from_value(doc)
        .map_err(|_| StoreError::Corrupt(format!("a document of {what} cannot be read")))
}

/// Writes one day's part; returns what it meant to add (the part less what
/// earlier tries already added), with the failure if it failed.
async fn write_partition(
    container: &Container,
    pk: &str,
    day: NaiveDate,
    part: &Part,
    earlier: &[(&str, &Part)],
    name: &str,
) -> Result<Part, (Part, Failure)> {
    let mut first_todo: Option<Part> = None;
    for _ in 0..TRIES {
        let docs = match read_docs(container, pk, &part.ids()).await {
            Ok(docs) => docs,
            Err(error) => {
                let todo = first_todo.unwrap_or_else(|| part.clone());
                return Err((
                    todo,
                    Failure {
                        error,
                        maybe_applied: false,
                    },
                ));
            }
        };
        let mut todo = part.clone();
        for (earlier_name, earlier_part) in earlier {
            for (id, doc) in &docs {
                if applied(doc, earlier_name) {
                    todo.take_off(id, earlier_part);
                }
            }
        }
        let todo = first_todo.get_or_insert(todo).clone();
        let operations = match operations(pk, day, &todo, &docs, name) {
            Ok(operations) => operations,
            Err(error) => {
                return Err((
                    todo,
                    Failure {
                        error,
                        maybe_applied: false,
                    },
                ));
            }
        };
        let mut changed = false;
        for chunk in operations.chunks(BATCH_OPERATIONS) {
            let mut batch = TransactionalBatch::new(pk.to_owned());
            for op in chunk {
                batch = match put(batch, &op.id, &op.doc, op.etag.as_deref()) {
                    Ok(batch) => batch,
                    Err(error) => {
                        return Err((
                            todo,
                            Failure {
                                error,
                                maybe_applied: false,
                            },
                        ));
                    }
                };
            }
            match container.apply(batch).await {
                Ok(Outcome::Applied) => {}
                Ok(Outcome::Refused(Refusal::Changed)) => {
                    changed = true;
                    break;
                }
                Ok(Outcome::Refused(Refusal::Error(error))) => {
                    return Err((
                        todo,
                        Failure {
                            error,
                            maybe_applied: false,
                        },
                    ));
                }
                Err(failure) => return Err((todo, failure)),
            }
        }
        if !changed {
            return Ok(todo);
        }
    }
    let todo = first_todo.unwrap_or_else(|| part.clone());
    Err((
        todo,
        Failure {
            error: too_contended(),
            maybe_applied: false,
        },
    ))
}

/// Whether the document names the write `name` among those applied to it.
fn applied(doc: &Value, name: &str) -> bool {
    doc.get("applied")
        .and_then(Value::as_array)
        .is_some_and(|names| names.iter().any(|n| n.as_str() == Some(name)))
}

/// One document to write.
struct Operation {
    id: String,
    doc: Value,
    etag: Option<String>,
}

/// The documents `todo` changes, each as it will be written (skipping those
/// this write already reached in an earlier round).
fn operations(
    pk: &str,
    day: NaiveDate,
    todo: &Part,
    docs: &std::collections::BTreeMap<String, Value>,
    name: &str,
) -> Result<Vec<Operation>, StoreError> {
    let mut operations = Vec::new();
    // Each document replaces the version read (its etag), or is created.
    let mut push = |id: &str, mut doc: Doc<Value>| -> Result<(), StoreError> {
        doc.applied_by(name);
        let etag = doc.etag.clone();
        let doc = serde_json::to_value(&doc)
            .map_err(|_| StoreError::Failed("a document cannot be written".to_owned()))?;
        operations.push(Operation {
            id: id.to_owned(),
            doc,
            etag,
        });
        Ok(())
    };
    let reached = |id: &str| docs.get(id).is_some_and(|doc| applied(doc, name));

    // The day's own document.
    if !reached(DAY_ID) {
        let mut day_doc = match docs.get(DAY_ID) {
            Some(doc) => parse::<DayBody>(doc.clone(), "a day")?,
            None => Doc::new(
                DAY_ID.to_owned(),
                pk.to_owned(),
                kind::DAY,
                String::new(),
                DayBody::default(),
            ),
        };
        parts::add_day(&mut day_doc.body, &todo.day, day, !todo.hours.is_empty());
        push(DAY_ID, as_value(day_doc)?)?;
    }
    for (id, delta) in &todo.hours {
        if reached(id) {
            continue;
        }
        let doc = match docs.get(id) {
            Some(doc) => {
                let mut doc: Doc<HourBody> = parse(doc.clone(), "an hour")?;
                parts::add_hour(&mut doc.body.row, delta);
                doc
            }
            None => hour_doc(pk, id, delta),
        };
        push(id, as_value(doc)?)?;
    }
    for (id, delta) in &todo.visitors {
        if reached(id) {
            continue;
        }
        let doc = match docs.get(id) {
            Some(doc) => {
                let mut doc: Doc<VisitorBody> = parse(doc.clone(), "a visitor-day")?;
                parts::add_visitor(&mut doc.body.row, delta);
                doc
            }
            None => visitor_doc(pk, id, delta),
        };
        push(id, as_value(doc)?)?;
    }
    for id in &todo.marked {
        // A mark for a visitor-day this store has no document of marks nothing.
        let Some(doc) = docs.get(id) else { continue };
        if reached(id) {
            continue;
        }
        let mut doc: Doc<VisitorBody> = parse(doc.clone(), "a visitor-day")?;
        parts::mark(&mut doc.body.row);
        push(id, as_value(doc)?)?;
    }
    Ok(operations)
}

fn as_value<T: Serialize>(doc: Doc<T>) -> Result<Doc<Value>, StoreError> {
    let body = serde_json::to_value(&doc.body)
        .map_err(|_| StoreError::Failed("a document cannot be written".to_owned()))?;
    Ok(Doc {
        id: doc.id,
        pk: doc.pk,
        t: doc.t,
        k: doc.k,
        applied: doc.applied,
        etag: doc.etag,
        body,
    })
}

fn hour_doc(pk: &str, id: &str, row: &HourRow) -> Doc<HourBody> {
    let hour = hour_text(row.hour);
    Doc::new(
        id.to_owned(),
        pk.to_owned(),
        kind::HOUR,
        format!("{hour}|{}", row.path),
        HourBody {
            row: row.clone(),
            hour,
        },
    )
}

fn visitor_doc(pk: &str, id: &str, row: &VisitorDay) -> Doc<VisitorBody> {
    let mut row = row.clone();
    parts::bound(&mut row);
    Doc::new(
        id.to_owned(),
        pk.to_owned(),
        kind::VISITOR,
        row.visitor.to_string(),
        VisitorBody { row },
    )
}
