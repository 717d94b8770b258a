//! [`CosmosStore`]: the port on an Azure Cosmos DB container. Each method
//! passes to `write`, `read` or `retention`; notes and imported logs are
//! documents of the store's own partition. A failed write is remembered
//! until one succeeds, so the Stores card says when activity is not kept.

use std::sync::atomic::{AtomicBool, Ordering};

use activity::StoreName;
use activity::VisitorToken;
use activity::bot_class::BotClass;
use activity::filter::Filter;
use activity::report::{BotCount, FunnelStep, KindCounts};
use activity::rows::{Availability, Batch, Cost, GoalHour, HourRow, VisitorDay};
use activity::store::{
    ActivityStore, Imported, LastWrite, Retention, StoreError, availability_of, read_and_summarize,
};
use activity::summary::DaySummary;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use crate::container::Container;
use crate::docs::{Doc, ImportBody, NoteBody, import_id, kind, meta_partition, note_id};
use crate::location::Location;
use crate::read;
use crate::retention::{self, Done};
use crate::write::Writer;

/// Activity kept in an Azure Cosmos DB container.
pub struct CosmosStore {
    name: StoreName,
    location: Location,
    retention: Retention,
    container: Container,
    writer: Writer,
    expired: Done,
    /// Why the last write failed, until a write succeeds again.
    last_write: LastWrite,
    /// Set by `close`: nothing more is written.
    closed: AtomicBool,
}

impl std::fmt::Debug for CosmosStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CosmosStore")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl CosmosStore {
    /// Opens the store `url` names (`cosmos+https://ACCOUNT.documents.azure.com/?database=…&container=…`),
    /// making its database and container when missing. The key comes from
    /// `WHOCOMES_COSMOS_KEY` or a key file, never from the URL.
    pub async fn open(
        url: &str,
        name: StoreName,
        retention: Retention,
    ) -> Result<Self, StoreError> {
        let location = Location::parse(url)?;
        let client = crate::connect::container(&location).await?;
        Ok(Self {
            name,
            location,
            retention,
            container: Container::new(client),
            writer: Writer::default(),
            expired: Done::default(),
            last_write: LastWrite::default(),
            closed: AtomicBool::new(false),
        })
    }

    /// Makes the next `batches` transactional batches apply and then fail
    /// as if their reply were lost (tests of a retried write, on the emulator).
    #[cfg(feature = "emulator")]
    #[cfg_attr(docsrs, doc(cfg(feature = "emulator")))]
    pub fn lose_replies_after_applying(&self, batches: usize) {
        self.container
            .lose_replies
            .store(batches, Ordering::Relaxed);
    }
}

#[async_trait]
impl ActivityStore for CosmosStore {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn availability(&self) -> Availability {
        if self.closed.load(Ordering::Relaxed) {
            return Availability {
                available: false,
                reason: "the Azure Cosmos DB store is closed".to_owned(),
                retention: self.retention.describe(),
            };
        }
        let reachable = read::days(&self.container, &self.name).await;
        availability_of(
            ("Azure Cosmos DB", &self.location.describe()),
            reachable,
            &self.last_write,
            &self.retention,
        )
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        if self.closed.load(Ordering::Relaxed) {
            return Err(StoreError::Unavailable("the store is closed".to_owned()));
        }
        if batch.is_empty() {
            return Ok(());
        }
        let result = self.writer.record(&self.container, batch).await;
        self.last_write.note(&result);
        result
    }

    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        read::hours_since(&self.container, &self.name, since).await
    }

    async fn goal_hours_since(&self, since: DateTime<Utc>) -> Result<Vec<GoalHour>, StoreError> {
        read::goal_hours_since(&self.container, &self.name, since).await
    }

    async fn hours_page(
        &self,
        since: DateTime<Utc>,
        after: Option<(DateTime<Utc>, String)>,
        limit: usize,
    ) -> Result<Vec<HourRow>, StoreError> {
        read::hours_page(&self.container, &self.name, since, after, limit).await
    }

    async fn visitors_page(
        &self,
        since: NaiveDate,
        after: Option<(NaiveDate, VisitorToken)>,
        limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        read::visitors_page(&self.container, &self.name, since, after, limit).await
    }

    async fn paths_in_hour(&self, hour: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        read::paths_in_hour(&self.container, &self.name, hour).await
    }

    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        read::visitors_since(&self.container, &self.name, since).await
    }

    async fn latest_visitors(
        &self,
        since: NaiveDate,
        limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        read::latest_visitors(&self.container, &self.name, since, limit).await
    }

    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
        filter: &Filter,
    ) -> Result<Vec<DaySummary>, StoreError> {
        // Summed here from the rows: the SDK sums no groups across documents.
        read_and_summarize(self, first, last, steps, filter).await
    }

    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let docs = read::day_docs(&self.container, &self.name, since).await?;
        Ok(read::per_day(&docs, |day| day.requests))
    }

    async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let docs = read::day_docs(&self.container, &self.name, since).await?;
        Ok(read::per_day(&docs, |day| {
            (day.marks > 0).then_some(day.marks)
        }))
    }

    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        retention::enforce(
            &self.container,
            &self.name,
            self.retention,
            now,
            &self.expired,
        )
        .await
    }

    async fn expired_kinds_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
        let docs = read::day_docs(&self.container, &self.name, since).await?;
        Ok(read::per_day(&docs, |day| day.expired))
    }

    async fn bot_days_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
        let docs = read::day_docs(&self.container, &self.name, since).await?;
        let mut rows = Vec::new();
        for (day, body) in docs {
            let mut classes: std::collections::BTreeMap<BotClass, BotCount> = body
                .bots
                .iter()
                .map(|(class, requests)| {
                    (
                        *class,
                        BotCount {
                            requests: *requests,
                            ..BotCount::default()
                        },
                    )
                })
                .collect();
            for (class, count) in body.expired_classes {
                *classes.entry(class).or_default() += count;
            }
            rows.extend(
                classes
                    .into_iter()
                    .map(|(class, count)| (day, class, count)),
            );
        }
        Ok(rows)
    }

    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError> {
        let doc: Option<Doc<ImportBody>> = self
            .container
            .read(&meta_partition(&self.name), &import_id(log))
            .await?;
        Ok(doc.filter(|doc| doc.body.log == log).map(|doc| Imported {
            log: doc.body.log,
            bytes: doc.body.bytes,
            digest: doc.body.digest,
        }))
    }

    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError> {
        let pk = meta_partition(&self.name);
        let id = import_id(&imported.log);
        let doc = Doc::new(
            id.clone(),
            pk.clone(),
            kind::IMPORT,
            String::new(),
            ImportBody {
                log: imported.log.clone(),
                bytes: imported.bytes,
                digest: imported.digest.clone(),
            },
        );
        self.container.upsert(&pk, &id, &doc).await
    }

    async fn cached(&self, name: &str) -> Result<Option<String>, StoreError> {
        let doc: Option<Doc<NoteBody>> = self
            .container
            .read(&meta_partition(&self.name), &note_id(name))
            .await?;
        Ok(doc
            .filter(|doc| doc.body.name == name)
            .map(|doc| doc.body.body))
    }

    async fn keep_cached(&self, name: &str, body: &str) -> Result<(), StoreError> {
        let pk = meta_partition(&self.name);
        let id = note_id(name);
        let doc = Doc::new(
            id.clone(),
            pk.clone(),
            kind::NOTE,
            String::new(),
            NoteBody {
                name: name.to_owned(),
                body: body.to_owned(),
            },
        );
        self.container.upsert(&pk, &id, &doc).await
    }

    fn cost(&self) -> Cost {
        self.container.cost()
    }

    async fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
    }
}
