//! A store that could not be reached at start: it keeps nothing and says
//! why, while a background task keeps trying to open the real one, and
//! takes its place once it answers. The site serves throughout; the writer
//! holds and retries what it could not write.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use activity::StoreName;
use activity::bot_class::BotClass;
use activity::report::{BotCount, FunnelStep, KindCounts};
use activity::rows::{Availability, Batch, Cost, HourRow, VisitorDay};
use activity::store::{ActivityStore, Imported, NullStore, StoreError};
use activity::summary::DaySummary;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

/// Opens the real store, or says why it cannot.
pub type Opener = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<Arc<dyn ActivityStore>, String>> + Send>>
        + Send
        + Sync,
>;

/// Stands in for a store until it can be opened.
pub struct ReconnectingStore {
    name: StoreName,
    current: RwLock<Arc<dyn ActivityStore>>,
}

impl ReconnectingStore {
    /// Starts as a null store with `reason`, and tries `open` again every
    /// `every` (doubling up to a minute) until it succeeds.
    pub fn start(name: StoreName, reason: String, open: Opener, every: Duration) -> Arc<Self> {
        let placeholder: Arc<dyn ActivityStore> = Arc::new(NullStore::new(
            name.clone(),
            format!("keeping nothing: {reason}; trying again"),
        ));
        let store = Arc::new(Self {
            name,
            current: RwLock::new(placeholder),
        });
        let weak = Arc::downgrade(&store);
        tokio::spawn(async move {
            let mut wait = every;
            loop {
                tokio::time::sleep(wait).await;
                let Some(store) = weak.upgrade() else { return };
                match open().await {
                    Ok(opened) => {
                        tracing::info!(store = %store.name, "the store answers again; keeping activity");
                        *store
                            .current
                            .write()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) = opened;
                        return;
                    }
                    Err(reason) => {
                        tracing::warn!(store = %store.name, %reason, "the store still cannot be opened");
                        wait = (wait * 2).min(Duration::from_secs(60));
                    }
                }
            }
        });
        store
    }

    fn current(&self) -> Arc<dyn ActivityStore> {
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl ActivityStore for ReconnectingStore {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn availability(&self) -> Availability {
        self.current().availability().await
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        self.current().record(batch).await
    }

    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        self.current().hours_since(since).await
    }

    async fn paths_in_hour(&self, hour: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        self.current().paths_in_hour(hour).await
    }

    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        self.current().visitors_since(since).await
    }

    async fn latest_visitors(
        &self,
        since: NaiveDate,
        limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        self.current().latest_visitors(since, limit).await
    }

    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.current().enforce_retention(now).await
    }

    async fn expired_kinds_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
        self.current().expired_kinds_since(since).await
    }

    async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        self.current().day_marks(since).await
    }

    async fn bot_days_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
        self.current().bot_days_since(since).await
    }

    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
    ) -> Result<Vec<DaySummary>, StoreError> {
        self.current().day_summaries(first, last, steps).await
    }

    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        self.current().day_requests(since).await
    }

    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError> {
        self.current().imported(log).await
    }

    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError> {
        self.current().mark_imported(imported).await
    }

    async fn note(&self, name: &str) -> Result<Option<String>, StoreError> {
        self.current().note(name).await
    }

    async fn keep_note(&self, name: &str, body: &str) -> Result<(), StoreError> {
        self.current().keep_note(name, body).await
    }

    fn cost(&self) -> Cost {
        self.current().cost()
    }

    async fn close(&self) {
        self.current().close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use activity::store::{MemoryStore, Retention};
    use chrono::TimeZone;

    fn name() -> StoreName {
        StoreName::parse("site").expect("a name")
    }

    /// A store that was down at start and came up: every method of the
    /// port reaches the real store (the day summaries' note among them).
    #[tokio::test]
    async fn a_store_that_came_up_late_meets_the_store_contract() {
        let tries = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counted = Arc::clone(&tries);
        let open: Opener = Arc::new(move || {
            let attempt = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::pin(async move {
                if attempt == 0 {
                    return Err("not yet".to_owned());
                }
                let store: Arc<dyn ActivityStore> =
                    Arc::new(MemoryStore::new(name(), Retention::default()));
                Ok(store)
            })
        });
        let store = ReconnectingStore::start(
            name(),
            "down at start".to_owned(),
            open,
            Duration::from_millis(5),
        );
        let placeholder = store.availability().await;
        assert!(!placeholder.available, "{}", placeholder.reason);
        assert!(
            store.note("day-summaries").await.expect("reads").is_none(),
            "the placeholder has no notes"
        );
        for _ in 0..1_000 {
            if store.availability().await.available {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(store.availability().await.available, "the store came up");
        assert_eq!(tries.load(std::sync::atomic::Ordering::SeqCst), 2);
        let now = Utc
            .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
            .single()
            .expect("a time");
        activity::contract::store_contract(store.as_ref(), now).await;
    }
}
