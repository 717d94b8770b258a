//! One container, as the store uses it: point reads, queries within one
//! partition, transactional batches and deletes, each bounded in time and
//! metered — operations, failures, time, and the request units the
//! service charged (`x-ms-request-charge`, summed). Errors become the
//! port's: throttling is `Busy` with the service's wait, an account that
//! does not answer or refuses the key is `Unavailable`; no message holds
//! the account, the key or a document.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use activity::rows::Cost;
use activity::store::{CostMeter, StoreError};
use azure_data_cosmos::models::ResponseHeaders;
use azure_data_cosmos::options::{BatchReplaceOptions, Precondition};
use azure_data_cosmos::{ContainerClient, CosmosError, FeedScope, Query, TransactionalBatch};
use futures::TryStreamExt;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::docs::Doc;

/// The most operations in one transactional batch (the service's limit).
pub const BATCH_OPERATIONS: usize = 100;

/// How long one request may take before the store gives up on it.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// A container and what using it has cost.
pub struct Container {
    client: ContainerClient,
    meter: CostMeter,
    /// Request units charged so far.
    charged: Mutex<f64>,
    /// Batches whose reply is to be lost after they applied (tests only).
    #[cfg(feature = "emulator")]
    pub(crate) lose_replies: std::sync::atomic::AtomicUsize,
}

/// How a write ended, as far as the store can tell.
#[derive(Debug)]
pub enum Outcome {
    /// Applied.
    Applied,
    /// Refused by the service: nothing of it was applied.
    Refused(Refusal),
}

/// Why the service refused a write (nothing of it applied).
#[derive(Debug)]
pub enum Refusal {
    /// Another writer changed or created a document first: read and try again.
    Changed,
    /// Throttled, or another error: the store's error.
    Error(StoreError),
}

/// A failed request and whether it may have been applied (its reply lost).
#[derive(Debug)]
pub struct Failure {
    /// The port's error.
    pub error: StoreError,
    /// Whether the service may have applied it.
    pub maybe_applied: bool,
}

impl From<Failure> for StoreError {
    fn from(failure: Failure) -> Self {
        failure.error
    }
}

impl Container {
    /// The store's container.
    pub fn new(client: ContainerClient) -> Self {
        Self {
            client,
            meter: CostMeter::default(),
            charged: Mutex::new(0.0),
            #[cfg(feature = "emulator")]
            lose_replies: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// What using it has cost so far, request units included.
    pub fn cost(&self) -> Cost {
        let mut cost = self.meter.snapshot();
        let charged = *self
            .charged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Whole units: the card shows a count.
        cost.units = Some((charged.round() as u64, "request units".to_owned()));
        cost
    }

    fn charge(&self, units: Option<f64>) {
        if let Some(units) = units.filter(|units| units.is_finite() && *units > 0.0) {
            *self
                .charged
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) += units;
        }
    }

    /// Adds what an answer says it cost.
    fn charge_of(&self, headers: &ResponseHeaders) {
        self.charge(headers.request_charge().map(|charge| charge.value()));
    }

    /// Runs one request within [`REQUEST_TIMEOUT`], metered.
    async fn timed<T, F>(&self, request: F) -> Result<T, Failure>
    where
        F: IntoFuture<Output = Result<T, CosmosError>>,
    {
        let started = Instant::now();
        let result = match tokio::time::timeout(REQUEST_TIMEOUT, request).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => {
                self.charge(error.response().and_then(|response| {
                    response
                        .headers()
                        .request_charge
                        .map(|charge| charge.value())
                }));
                Err(failure(&error))
            }
            Err(_) => Err(Failure {
                error: StoreError::Unavailable(format!(
                    "Cosmos DB did not answer within {} s",
                    REQUEST_TIMEOUT.as_secs()
                )),
                maybe_applied: true,
            }),
        };
        // A document that is not there is an answer, not a failure.
        let counted: Result<(), ()> = match &result {
            Err(failure) if failure.error != StoreError::Failed(NOT_FOUND.to_owned()) => Err(()),
            _ => Ok(()),
        };
        self.meter.record(started, &counted);
        result
    }

    /// The document `id` of partition `pk`, if there is one.
    pub async fn read<T: DeserializeOwned>(
        &self,
        pk: &str,
        id: &str,
    ) -> Result<Option<T>, StoreError> {
        let response = match self
            .timed(self.client.read_item(pk.to_owned(), id, None))
            .await
        {
            Ok(response) => response,
            Err(Failure {
                error: StoreError::Failed(status),
                ..
            }) if status == NOT_FOUND => return Ok(None),
            Err(failure) => return Err(failure.error),
        };
        self.charge_of(response.headers());
        response
            .into_model()
            .map(Some)
            .map_err(|_| StoreError::Corrupt(format!("document {} cannot be read", kind_of(id))))
    }

    /// Every document `sql` selects in partition `pk` (`params` bound by name).
    pub async fn query<T: DeserializeOwned + Send + 'static>(
        &self,
        pk: &str,
        sql: &str,
        params: &[(&str, serde_json::Value)],
    ) -> Result<Vec<T>, StoreError> {
        let mut query = Query::from(sql.to_owned());
        for (name, value) in params {
            query = query
                .with_parameter(*name, value)
                .map_err(|_| StoreError::Failed("a query parameter cannot be sent".to_owned()))?;
        }
        let started = Instant::now();
        let result = self.query_pages(pk, query).await;
        self.meter.record(started, &result);
        result
    }

    async fn query_pages<T: DeserializeOwned + Send + 'static>(
        &self,
        pk: &str,
        query: Query,
    ) -> Result<Vec<T>, StoreError> {
        let mut pages = match tokio::time::timeout(
            REQUEST_TIMEOUT,
            self.client
                .query_items::<T>(query, FeedScope::partition(pk.to_owned()), None),
        )
        .await
        {
            Ok(Ok(items)) => items.into_pages(),
            Ok(Err(error)) => return Err(failure(&error).error),
            Err(_) => return Err(timed_out()),
        };
        let mut items = Vec::new();
        loop {
            match tokio::time::timeout(REQUEST_TIMEOUT, pages.try_next()).await {
                Ok(Ok(Some(page))) => {
                    self.charge_of(page.headers());
                    items.extend(page.into_items());
                }
                Ok(Ok(None)) => return Ok(items),
                Ok(Err(error)) => return Err(failure(&error).error),
                Err(_) => return Err(timed_out()),
            }
        }
    }

    /// Applies `batch` to its partition, all of it or nothing.
    pub async fn apply(&self, batch: TransactionalBatch) -> Result<Outcome, Failure> {
        let response = self
            .timed(
                self.client
                    .execute_transactional_batch(batch, Some(crate::connect::write_options())),
            )
            .await?;
        self.charge_of(response.headers());
        if response.status().is_success() && response.status().status_code() == 200 {
            #[cfg(feature = "emulator")]
            if self.lose_reply() {
                return Err(Failure {
                    error: StoreError::Unavailable(
                        "the reply was lost (a test's fault)".to_owned(),
                    ),
                    maybe_applied: true,
                });
            }
            return Ok(Outcome::Applied);
        }
        let results = response.into_model().map_err(|_| Failure {
            error: StoreError::Failed("Cosmos DB's answer to a batch cannot be read".to_owned()),
            maybe_applied: false,
        })?;
        // The operation that failed the batch; the others say 424.
        let failed = results
            .results()
            .iter()
            .find(|result| !result.is_success() && result.status_code() != 424);
        Ok(Outcome::Refused(match failed {
            Some(result) if matches!(result.status_code(), 409 | 412 | 404) => Refusal::Changed,
            Some(result) if result.status_code() == 429 => Refusal::Error(StoreError::Busy {
                retry_after: result.retry_after(),
            }),
            Some(result) => Refusal::Error(StoreError::Failed(format!(
                "Cosmos DB refused a write ({})",
                result.status_code()
            ))),
            None => Refusal::Error(StoreError::Failed(
                "Cosmos DB refused a batch without saying why".to_owned(),
            )),
        }))
    }

    /// Whether to lose this reply (tests only).
    #[cfg(feature = "emulator")]
    fn lose_reply(&self) -> bool {
        use std::sync::atomic::Ordering;
        self.lose_replies
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }

    /// Writes `doc` as `id`, replacing what is there.
    pub async fn upsert<T: Serialize>(
        &self,
        pk: &str,
        id: &str,
        doc: &T,
    ) -> Result<(), StoreError> {
        let response = self
            .timed(self.client.upsert_item(pk.to_owned(), id, doc, None))
            .await?;
        self.charge_of(response.headers());
        Ok(())
    }

    /// Puts `doc` back as `id` in partition `pk` only over the version it was
    /// read at (its `_etag`), or creates it when it was not read (no etag):
    /// the one step of every read-change-write loop. `Ok(true)`: applied;
    /// `Ok(false)`: another writer changed it first (read it again and retry).
    pub async fn put_if_unchanged<T: Serialize>(
        &self,
        pk: &str,
        id: &str,
        doc: &Doc<T>,
    ) -> Result<bool, StoreError> {
        let batch = put(
            TransactionalBatch::new(pk.to_owned()),
            id,
            doc,
            doc.etag.as_deref(),
        )?;
        match self.apply(batch).await? {
            Outcome::Applied => Ok(true),
            Outcome::Refused(Refusal::Changed) => Ok(false),
            Outcome::Refused(Refusal::Error(error)) => Err(error),
        }
    }

    /// Deletes the documents `ids` of partition `pk` (those already gone are fine).
    pub async fn delete_all(&self, pk: &str, ids: &[String]) -> Result<(), StoreError> {
        for chunk in ids.chunks(BATCH_OPERATIONS) {
            let batch = chunk
                .iter()
                .fold(TransactionalBatch::new(pk.to_owned()), |batch, id| {
                    batch.delete_item(id.clone(), None)
                });
            match self.apply(batch).await? {
                Outcome::Applied | Outcome::Refused(Refusal::Changed) => {}
                Outcome::Refused(Refusal::Error(error)) => return Err(error),
            }
        }
        Ok(())
    }
}

/// Adds a create (no version read) or a replace of the version read to `batch`.
pub fn put<T: Serialize>(
    batch: TransactionalBatch,
    id: &str,
    doc: &T,
    etag: Option<&str>,
) -> Result<TransactionalBatch, StoreError> {
    let result = match etag {
        Some(etag) => batch.replace_item(id.to_owned(), doc, Some(if_unchanged(etag))),
        None => batch.create_item(doc),
    };
    result.map_err(|_| StoreError::Failed("a document cannot be written".to_owned()))
}

/// A replace that only applies over the version read.
pub fn if_unchanged(etag: &str) -> BatchReplaceOptions {
    BatchReplaceOptions::default().with_precondition(Precondition::IfMatch(etag.to_owned().into()))
}

const NOT_FOUND: &str = "Cosmos DB has no such document (404)";

fn timed_out() -> StoreError {
    StoreError::Unavailable(format!(
        "Cosmos DB did not answer within {} s",
        REQUEST_TIMEOUT.as_secs()
    ))
}

/// What a document id says of its kind, for an error (never the id itself).
fn kind_of(id: &str) -> &'static str {
    match id.chars().next() {
        Some('h') => "of an hour",
        Some('v') => "of a visitor-day",
        Some('d') => "of a day",
        Some('n') => "of a note",
        Some('i') => "of an import",
        _ => "",
    }
}

/// The port's error for a failed request, and whether it may have applied.
fn failure(error: &CosmosError) -> Failure {
    let status = error.status();
    let code = u16::from(status.status_code());
    let answered = error.is_from_wire();
    let error = if status.is_throttled() {
        StoreError::Busy {
            retry_after: error
                .response()
                .and_then(|response| response.headers().retry_after_ms)
                .map(Duration::from_millis),
        }
    } else if status.is_not_found() && answered {
        StoreError::Failed(NOT_FOUND.to_owned())
    } else if status.is_unauthorized() || status.is_forbidden() {
        StoreError::Unavailable(format!(
            "the Cosmos DB account refused the key or the request ({code})"
        ))
    } else if !answered {
        StoreError::Unavailable("the Cosmos DB account does not answer".to_owned())
    } else if status.is_service_unavailable() || status.is_timeout() {
        StoreError::Unavailable(format!("Cosmos DB cannot serve now ({code})"))
    } else {
        StoreError::Failed(format!("Cosmos DB answered {code}"))
    };
    Failure {
        maybe_applied: !answered,
        error,
    }
}
