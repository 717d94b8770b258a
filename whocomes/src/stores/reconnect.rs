//! A store as a serving site keeps it, whatever the store does. One that
//! could not be reached at start keeps nothing and says why, while a
//! background task keeps trying to open the real one, and takes its place
//! once it answers. The site serves throughout; the writer holds and
//! retries what it could not write. One that goes down while the site runs
//! is known to be down after one failed check ([`Health`]): reads fail at
//! once with the store's own words until it answers again.
//!
//! The same stand-in watches a SQLite store's file ([`FileWatch`]): if the
//! file is removed or replaced under the running server, the store says it
//! is not keeping and why, is opened again on the path at the next write
//! (a new file, or the one put there), and a write that may have gone to
//! the old file fails, so the writer writes it again to the new one:
//! nothing counted after the change is lost. What the old file held is not
//! in the new one, and the tab says so.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use activity::StoreName;
use activity::bot_class::BotClass;
use activity::filter::Filter;
use activity::report::{BotCount, FunnelStep, KindCounts};
use activity::rows::{Availability, Batch, Cost, GoalHour, HourRow, VisitorDay};
use activity::store::{ActivityStore, Imported, NullStore, StoreError};
use activity::summary::DaySummary;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use super::health::{Due, Health, PROBE};
use super::watched_file::FileWatch;

/// How long [`availability`](ActivityStore::availability) waits for a
/// store not known to be down before it says so and wakes the check.
const ANSWER_WAIT: Duration = Duration::from_secs(3);

/// Opens the real store, or says why it cannot.
pub type Opener = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<Arc<dyn ActivityStore>, String>> + Send>>
        + Send
        + Sync,
>;

/// Stands in for a store until it can be opened (and, for a file, opens
/// it again when its file is replaced).
pub struct ReconnectingStore {
    name: StoreName,
    current: RwLock<Arc<dyn ActivityStore>>,
    file: Option<Watched>,
    /// Whether the store answers (see [`health`](super::health)).
    health: Arc<Health>,
}

/// A store's file, watched, with what opens it again.
struct Watched {
    watch: FileWatch,
    open: Opener,
    /// When the file was last found replaced, said on the tab.
    replaced_at: std::sync::Mutex<Option<DateTime<Utc>>>,
}

impl ReconnectingStore {
    /// Starts as a null store with `reason`, and tries `open` again every
    /// `every` (doubling up to a minute) until it succeeds.
    pub fn start(name: StoreName, reason: String, open: Opener, every: Duration) -> Arc<Self> {
        let placeholder: Arc<dyn ActivityStore> = Arc::new(NullStore::new(
            name.clone(),
            format!("keeping nothing: {reason}; trying again"),
        ));
        let store = Self::checked(Self {
            health: Arc::new(Health::new(&name)),
            name,
            current: RwLock::new(placeholder),
            file: None,
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

    /// `opened`, whose file at `path` is watched: replaced, it is opened
    /// again with `open`.
    pub fn watching(opened: Arc<dyn ActivityStore>, path: PathBuf, open: Opener) -> Arc<Self> {
        Self::checked(Self {
            name: opened.name().clone(),
            health: Arc::new(Health::new(opened.name())),
            current: RwLock::new(opened),
            file: Some(Watched {
                watch: FileWatch::new(path),
                open,
                replaced_at: std::sync::Mutex::default(),
            }),
        })
    }

    /// `opened`, whose health is watched: once a read finds it down,
    /// reads fail at once until a check finds it answering again.
    pub fn answering(opened: Arc<dyn ActivityStore>) -> Arc<Self> {
        Self::checked(Self {
            name: opened.name().clone(),
            health: Arc::new(Health::new(opened.name())),
            current: RwLock::new(opened),
            file: None,
        })
    }

    /// `store`, with the task that checks its health when a read wakes it
    /// (and again and again while it is down); the task ends with the store.
    fn checked(store: Self) -> Arc<Self> {
        let store = Arc::new(store);
        let (weak, health) = (Arc::downgrade(&store), Arc::clone(&store.health));
        tokio::spawn(async move {
            loop {
                let due = health.due().await;
                let Some(store) = weak.upgrade() else { return };
                let current = store.current();
                if due == Due::Quick {
                    health.quick_check(current.as_ref()).await;
                    continue;
                }
                if due == Due::Look {
                    let looked = tokio::time::timeout(PROBE, current.availability()).await;
                    if looked.is_ok_and(|availability| availability.available) {
                        continue;
                    }
                }
                health.check(current.as_ref()).await;
            }
        });
        store
    }

    /// The store to read, or at once why it cannot be read while it is
    /// known to be down.
    fn live(&self) -> Result<Arc<dyn ActivityStore>, StoreError> {
        self.health.gate()?;
        Ok(self.current())
    }

    /// If the store's file was removed or replaced, opens the store again
    /// on its path (once the new store answers, it takes the old one's place).
    async fn reopen_if_replaced(&self) -> Result<(), StoreError> {
        let Some(file) = self.file.as_ref().filter(|file| file.watch.replaced()) else {
            return Ok(());
        };
        tracing::error!(store = %self.name, "the store's file was removed or replaced while in use; opening the store again on its path (what the old file held is not in the new one)");
        // Closed first: its last connection folds the journal (`-wal`) into
        // the old file and removes it, so the new file never reads the old one's.
        self.current().close().await;
        let opened = (file.open)().await.map_err(|reason| {
            StoreError::Unavailable(format!(
                "its file was removed or replaced while in use, and it cannot be opened again: {reason}"
            ))
        })?;
        file.watch.reopened();
        *file
            .replaced_at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Utc::now());
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = opened;
        Ok(())
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
        if let Some(down) = self.health.down_availability() {
            return down;
        }
        let asked = tokio::time::timeout(ANSWER_WAIT, self.current().availability()).await;
        let Ok(mut availability) = asked else {
            self.health.suspect();
            return Availability {
                available: false,
                reason: format!(
                    "the store did not say within {} s whether it keeps activity; checking whether it can be reached",
                    ANSWER_WAIT.as_secs()
                ),
                retention: String::new(),
            };
        };
        self.health.seen(&availability);
        if !availability.available {
            self.health.suspect();
        }
        let Some(file) = &self.file else {
            return availability;
        };
        if file.watch.replaced() {
            availability.available = false;
            availability.reason = "not keeping: its file was removed or replaced while in use; \
                                   it is opened again at the next write"
                .to_owned();
        } else if let Some(at) = *file
            .replaced_at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            availability.reason = format!(
                "{}; its file was removed or replaced at {} UTC and a new one was opened: \
                 what the old file held is not in it",
                availability.reason,
                at.format("%Y-%m-%d %H:%M")
            );
        }
        availability
    }

    async fn record(&self, batch: &Batch) -> Result<(), StoreError> {
        self.reopen_if_replaced().await?;
        // Never held back while the store is down: the writer keeps what
        // it could not write, and a write that fails wakes the check. An
        // empty batch touches no store, so it says nothing of its health.
        let written = self.current().record(batch).await;
        if batch.is_empty() {
            written?;
        } else {
            self.health.noted(written)?;
        }
        if self.file.as_ref().is_some_and(|file| file.watch.replaced()) {
            // The batch may have gone to the old file: written again to the new one.
            return Err(StoreError::Unavailable(
                "its file was removed or replaced during a write".to_owned(),
            ));
        }
        Ok(())
    }

    async fn hours_since(&self, since: DateTime<Utc>) -> Result<Vec<HourRow>, StoreError> {
        let store = self.live()?;
        self.health.within(store.hours_since(since)).await
    }

    async fn goal_hours_since(&self, since: DateTime<Utc>) -> Result<Vec<GoalHour>, StoreError> {
        let store = self.live()?;
        self.health.within(store.goal_hours_since(since)).await
    }

    async fn paths_in_hour(&self, hour: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        let store = self.live()?;
        self.health.within(store.paths_in_hour(hour)).await
    }

    async fn hours_page(
        &self,
        since: DateTime<Utc>,
        after: Option<(DateTime<Utc>, String)>,
        limit: usize,
    ) -> Result<Vec<HourRow>, StoreError> {
        let store = self.live()?;
        self.health
            .within(store.hours_page(since, after, limit))
            .await
    }

    async fn visitors_page(
        &self,
        since: NaiveDate,
        after: Option<(NaiveDate, activity::VisitorToken)>,
        limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        let store = self.live()?;
        self.health
            .within(store.visitors_page(since, after, limit))
            .await
    }

    async fn visitors_since(&self, since: NaiveDate) -> Result<Vec<VisitorDay>, StoreError> {
        let store = self.live()?;
        self.health.within(store.visitors_since(since)).await
    }

    async fn latest_visitors(
        &self,
        since: NaiveDate,
        limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        let store = self.live()?;
        self.health
            .within(store.latest_visitors(since, limit))
            .await
    }

    async fn enforce_retention(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.current().enforce_retention(now).await
    }

    async fn expired_kinds_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, KindCounts)>, StoreError> {
        let store = self.live()?;
        self.health.within(store.expired_kinds_since(since)).await
    }

    async fn day_marks(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let store = self.live()?;
        self.health.within(store.day_marks(since)).await
    }

    async fn bot_days_since(
        &self,
        since: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BotClass, BotCount)>, StoreError> {
        let store = self.live()?;
        self.health.within(store.bot_days_since(since)).await
    }

    async fn day_summaries(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &[FunnelStep],
        filter: &Filter,
    ) -> Result<Vec<DaySummary>, StoreError> {
        let store = self.live()?;
        self.health
            .within(store.day_summaries(first, last, steps, filter))
            .await
    }

    async fn day_requests(&self, since: NaiveDate) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let store = self.live()?;
        self.health.within(store.day_requests(since)).await
    }

    async fn imported(&self, log: &str) -> Result<Option<Imported>, StoreError> {
        let store = self.live()?;
        self.health.within(store.imported(log)).await
    }

    async fn mark_imported(&self, imported: &Imported) -> Result<(), StoreError> {
        self.current().mark_imported(imported).await
    }

    async fn cached(&self, name: &str) -> Result<Option<String>, StoreError> {
        let store = self.live()?;
        self.health.within(store.cached(name)).await
    }

    async fn keep_cached(&self, name: &str, body: &str) -> Result<(), StoreError> {
        self.current().keep_cached(name, body).await
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

    /// A store that stopped as a stopped PostgreSQL does (its pool waits,
    /// its own connection is refused at once): the first read to wait ends
    /// within about a second with the store's words, the next at once; a
    /// store that only answers slowly keeps its reads waiting.
    #[tokio::test(start_paused = true)]
    async fn a_stopped_store_ends_the_first_waiting_read_within_a_second() {
        let memory = Arc::new(MemoryStore::new(name(), Retention::default()));
        let store = ReconnectingStore::answering(memory.clone());
        let today = Utc::now().date_naive();
        store.day_requests(today).await.expect("up");
        memory.set_gone(Some(activity::store::Gone::Refused(
            "cannot reach PostgreSQL at db:5432/site: Connection refused".to_owned(),
        )));
        let began = tokio::time::Instant::now();
        let error = store.day_requests(today).await.expect_err("down");
        let took = began.elapsed();
        assert!(took <= Duration::from_millis(1_500), "{took:?}");
        assert!(error.to_string().contains("Connection refused"), "{error}");
        let began = tokio::time::Instant::now();
        store.visitors_since(today).await.expect_err("down");
        assert!(began.elapsed() < Duration::from_millis(10), "at once");

        // A silent store may only be busy: the quick question gets no
        // answer, and its read goes on waiting.
        let memory = Arc::new(MemoryStore::new(name(), Retention::default()));
        let store = ReconnectingStore::answering(memory.clone());
        memory.set_gone(Some(activity::store::Gone::Silent));
        let waited = tokio::time::timeout(Duration::from_secs(2), store.day_requests(today)).await;
        assert!(waited.is_err(), "still waiting: {waited:?}");
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
            store
                .cached("day-summaries")
                .await
                .expect("reads")
                .is_none(),
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

    /// A SQLite file removed under the store: said at once, opened again
    /// at the next write, which lands in the new file, and said after.
    #[tokio::test]
    async fn a_removed_file_is_said_and_made_again_at_the_next_write() {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("activity.db");
        let url = path.to_str().expect("UTF-8").to_owned();
        let open: Opener = Arc::new(move || {
            let url = url.clone();
            Box::pin(async move {
                activity_sqlite::SqliteStore::open(&url, name(), Retention::default())
                    .await
                    .map(|store| Arc::new(store) as Arc<dyn ActivityStore>)
                    .map_err(|error| error.to_string())
            })
        });
        let store = ReconnectingStore::watching(open().await.expect("opens"), path.clone(), open);
        let day = Utc::now().date_naive();
        let batch = activity::sample::day_rows(&name(), day, 5, 1);
        store.record(&batch).await.expect("written");
        std::fs::remove_file(&path).expect("removed");
        let said = store.availability().await;
        assert!(
            !said.available && said.reason.contains("removed or replaced"),
            "{said:?}"
        );
        store.record(&batch).await.expect("written to a new file");
        let said = store.availability().await;
        assert!(
            said.available && said.reason.contains("a new one was opened"),
            "{said:?}"
        );
        let visitors = store.visitors_since(day).await.expect("reads");
        assert_eq!(
            visitors.len(),
            5,
            "the new file holds the second write only"
        );
        store.close().await;
    }
    /// A store found down stays down through an empty write (which
    /// touches no store); a read fails at once with why.
    #[tokio::test]
    async fn an_empty_write_does_not_bring_a_down_store_back() {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("activity.db");
        let closed = activity_sqlite::SqliteStore::open(
            path.to_str().expect("UTF-8"),
            name(),
            Retention::default(),
        )
        .await
        .expect("opens");
        closed.close().await;
        let store = ReconnectingStore::answering(Arc::new(closed));
        let today = Utc::now().date_naive();
        assert!(
            store.day_requests(today).await.is_err(),
            "a closed pool fails"
        );
        // The failed read wakes the check; the store is down once the check
        // has found it so (its own availability says "not available" at
        // once, before the check is done: waiting on that raced the check,
        // and a read then got the pool's words instead of the store's).
        for _ in 0..1000 {
            if store.health.is_down() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(store.health.is_down(), "the check found it down");
        let said = store.availability().await;
        assert!(!said.available, "{said:?}");
        store
            .record(&Batch::default())
            .await
            .expect("nothing to write");
        let error = store.day_requests(today).await.expect_err("still down");
        assert!(error.to_string().contains("SQLite at"), "{error}");
        assert!(!store.availability().await.available);
    }
}
