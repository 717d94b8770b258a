//! Whether a store answers, known rather than found out on every read. A
//! read that fails as an unreachable or busy store's does wakes a check:
//! one small read ([`PROBE`]) with a deadline, and if that fails too, the
//! store's own words for why (`cannot reach PostgreSQL at db:5432/site: …
//! Connection refused`). From then on the store is down: every read fails
//! at once with those words, the tab answers from what it read last, and
//! the check runs again every [`RECHECK`] until the store answers. While
//! it is up and nothing reads it, its availability is looked at every
//! [`LOOK_EVERY`], so an outage is known before the next reader comes. The
//! log says when it went down and when it came back, in the same words
//! the Stores card shows. Writes are never held back: the writer keeps
//! what it could not write and tries again on its own schedule.
//!
//! A read that has not answered within [`SLOW`] does not wait for its
//! pool to give up (a PostgreSQL pool tries a refused connection again for
//! seconds): it asks the store at once whether it can keep activity
//! ([`Due::Quick`]). A store that says it cannot within [`QUICK`] (it could
//! not even be connected to), and whose small read has not answered
//! [`CONFIRM`] later, is down, and the reads waiting on it end at once
//! with its words. A store that is only busy answers the question slowly
//! or yes, and its reads go on waiting.

use std::sync::Mutex;
use std::time::Duration;

use activity::rows::Availability;
use activity::store::{ActivityStore, StoreError};
use chrono::{DateTime, Utc};

/// How long a check waits for the store's answer (the probe, then its words).
pub const PROBE: Duration = Duration::from_secs(3);

/// How often a store that is down is checked again.
pub const RECHECK: Duration = Duration::from_secs(2);

/// How often a store that is up is looked at while nothing reads it.
pub const LOOK_EVERY: Duration = Duration::from_secs(5);

/// How long a read waits before it asks whether the store can be reached
/// (it goes on waiting).
pub const SLOW: Duration = Duration::from_millis(250);

/// How soon a store that cannot be reached says so: a slower "cannot" may
/// be a busy store's, and is left to the full check. (A SQL store that
/// cannot be reached says so in about a quarter of a second, one that is
/// busy after two: `stores/sql/src/store.rs`.)
pub const QUICK: Duration = Duration::from_millis(1_500);

/// How long a store that said it cannot be reached has for its small read
/// to prove otherwise.
pub const CONFIRM: Duration = Duration::from_millis(500);

/// The least time between two questions asked by slow reads (a busy
/// store's reads are all slow: one question a second says enough).
const QUICK_EVERY: Duration = Duration::from_secs(1);

/// What is due: a check, or only a look at a store that is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// A read failed, or the store is down: check it.
    Check,
    /// The store is up and nothing asked: look whether it still keeps
    /// activity, and check it only if not.
    Look,
    /// A read is slow: ask whether the store can be reached at all
    /// ([`Health::quick_check`]).
    Quick,
}

/// A store's health, shared by the store and its check.
#[derive(Debug)]
pub struct Health {
    /// The store's name, for the log.
    name: String,
    state: Mutex<State>,
    wake: tokio::sync::Notify,
    /// Woken by a slow read.
    quick: tokio::sync::Notify,
    /// Whether the store is down, for the reads waiting on it.
    down: tokio::sync::watch::Sender<bool>,
    /// When a slow read last asked.
    asked: Mutex<Option<std::time::Instant>>,
}

#[derive(Debug, Default)]
struct State {
    down: Option<Down>,
    /// When a read last succeeded.
    answered: Option<DateTime<Utc>>,
    /// The retention sentence of the last availability read.
    retention: String,
}

#[derive(Clone, Debug)]
struct Down {
    reason: String,
    since: DateTime<Utc>,
}

impl Health {
    /// The health of the store named `name`, not known to be down.
    pub fn new(name: &activity::StoreName) -> Self {
        Self {
            name: name.to_string(),
            state: Mutex::default(),
            wake: tokio::sync::Notify::new(),
            quick: tokio::sync::Notify::new(),
            down: tokio::sync::watch::Sender::new(false),
            asked: Mutex::default(),
        }
    }

    /// Runs `read`, noting how it went ([`noted`](Self::noted)). Past
    /// [`SLOW`] without an answer it asks for a quick check and goes on
    /// waiting, unless a check finds the store down: then it ends at once
    /// with the store's words (the read is dropped).
    pub async fn within<T>(
        &self,
        read: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let mut down = self.down.subscribe();
        let mut read = std::pin::pin!(read);
        let mut slow = std::pin::pin!(tokio::time::sleep(SLOW));
        let mut asked = false;
        loop {
            tokio::select! {
                result = &mut read => return self.noted(result),
                () = &mut slow, if !asked => {
                    asked = true;
                    self.slow_read();
                }
                changed = down.changed() => {
                    if changed.is_err() {
                        return self.noted(read.await);
                    }
                    self.gate()?;
                }
            }
        }
    }

    /// A read has waited [`SLOW`]: a quick check, unless a slow read asked
    /// for one less than [`QUICK_EVERY`] ago.
    fn slow_read(&self) {
        let mut asked = self
            .asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if asked.is_none_or(|at| at.elapsed() >= QUICK_EVERY) {
            *asked = Some(std::time::Instant::now());
            self.quick.notify_one();
        }
    }

    /// `Err` with why, at once, while the store is down.
    pub fn gate(&self) -> Result<(), StoreError> {
        match &self.lock().down {
            Some(down) => Err(StoreError::Unavailable(down.reason.clone())),
            None => Ok(()),
        }
    }

    /// Notes how a read went: a success is the time the store last
    /// answered; an unreachable or busy store's failure wakes the check.
    pub fn noted<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        match &result {
            Ok(_) => self.answered(),
            Err(StoreError::Unavailable(_) | StoreError::Busy { .. }) => self.suspect(),
            Err(_) => {}
        }
        result
    }

    /// The store answered: it is up (if it was down, the log says it is back).
    fn answered(&self) {
        let was = {
            let mut state = self.lock();
            state.answered = Some(Utc::now());
            state.down.take()
        };
        if was.is_some() {
            self.down.send_replace(false);
        }
        if let Some(was) = was {
            tracing::info!(
                store = self.name,
                "the store answers again (it was down since {}: {}); reading and writing",
                time(was.since),
                was.reason
            );
        }
    }

    /// Asks for a check now (a read failed or did not answer in time).
    pub fn suspect(&self) {
        self.wake.notify_one();
    }

    /// Whether the store is known to be down.
    pub fn is_down(&self) -> bool {
        self.lock().down.is_some()
    }

    /// Keeps the retention sentence of an availability the store gave.
    pub fn seen(&self, availability: &Availability) {
        self.lock().retention.clone_from(&availability.retention);
    }

    /// The store's availability while it is down: why, since when, and
    /// when it last answered. `None` while it is not known to be down.
    pub fn down_availability(&self) -> Option<Availability> {
        let state = self.lock();
        let down = state.down.as_ref()?;
        let answered = state.answered.map_or_else(
            || "it has not answered since this server started".to_owned(),
            |at| format!("it last answered at {}", time(at)),
        );
        Some(Availability {
            available: false,
            reason: format!(
                "{}; down since {}, {answered}; checked again every {} s",
                down.reason,
                time(down.since),
                RECHECK.as_secs()
            ),
            retention: state.retention.clone(),
        })
    }

    /// Checks `store`: a small read within [`PROBE`], and beside it the
    /// store's own words on whether it can keep activity. If the store
    /// says it cannot within [`QUICK`] (it could not even be connected
    /// to) and the small read has not answered [`CONFIRM`] later, or if
    /// the small read fails, the store is down, in the store's words when
    /// it gave them. Says in the log when the store goes down or comes
    /// back.
    /// A read or write that succeeds while the check waits (the store came
    /// back) outranks the check's failure, which began before it: the
    /// store is then up, not marked down until the next recheck.
    pub async fn check(&self, store: &dyn ActivityStore) {
        self.look_and_probe(store, true).await;
    }

    /// A slow read's check: down only if the store says quickly that it
    /// cannot be reached (as [`check`](Self::check) finds it); anything
    /// else leaves it as it was, so a busy store's reads go on waiting.
    pub async fn quick_check(&self, store: &dyn ActivityStore) {
        self.look_and_probe(store, false).await;
    }

    /// [`check`](Self::check) (`patient`: a small read that does not
    /// answer within [`PROBE`] is a store down) or
    /// [`quick_check`](Self::quick_check).
    async fn look_and_probe(&self, store: &dyn ActivityStore, patient: bool) {
        let began = Utc::now();
        let started = std::time::Instant::now();
        let probe = tokio::time::timeout(PROBE, store.day_requests(began.date_naive()));
        let look = tokio::time::timeout(PROBE, store.availability());
        let (mut probe, mut look) = (std::pin::pin!(probe), std::pin::pin!(look));
        // What the store said, once it has (inside, `None`: not in time).
        let mut said: Option<Option<Availability>> = None;
        let failure = tokio::select! {
            probed = &mut probe => failed(probed),
            looked = &mut look => {
                let looked = looked.ok();
                let cannot = started.elapsed() <= QUICK
                    && looked.as_ref().is_some_and(|said| !said.available);
                said = Some(looked);
                if cannot {
                    match tokio::time::timeout(CONFIRM, &mut probe).await {
                        Ok(probed) => failed(probed),
                        Err(_) => Some(format!(
                            "it did not answer within {} ms",
                            CONFIRM.as_millis()
                        )),
                    }
                } else if patient {
                    failed(probe.await)
                } else {
                    return;
                }
            },
        };
        let Some(failure) = failure else {
            self.answered();
            return;
        };
        let said = match said {
            Some(said) => said,
            None => look.await.ok(),
        };
        let reason = match said {
            Some(availability) if !availability.available => {
                self.seen(&availability);
                availability.reason
            }
            _ => failure,
        };
        self.mark_down(reason, began);
    }

    /// The store is down for `reason`, unless a read or write succeeded
    /// since `began` (the check that found it began before the store came
    /// back). Reads waiting on it end; the log says so once per outage.
    fn mark_down(&self, reason: String, began: DateTime<Utc>) {
        let newly = {
            let mut state = self.lock();
            if state.answered.is_some_and(|at| at >= began) {
                return;
            }
            let newly = state.down.is_none();
            let since = state.down.as_ref().map_or_else(Utc::now, |d| d.since);
            state.down = Some(Down {
                reason: reason.clone(),
                since,
            });
            newly
        };
        self.down.send_replace(true);
        if newly {
            tracing::error!(
                store = self.name,
                "{reason}; the tab shows what it read last, and the store is checked again every {} s",
                RECHECK.as_secs()
            );
        }
    }

    /// Waits until a check is due: at once when woken, every [`RECHECK`]
    /// while down; while up, after [`LOOK_EVERY`] a look is due instead
    /// ([`Due::Look`]: the store's availability, which costs it no
    /// metered operation), so that a store that goes down while nobody
    /// reads the tab is known to be down before the next reader comes.
    pub async fn due(&self) -> Due {
        let every = if self.is_down() { RECHECK } else { LOOK_EVERY };
        tokio::select! {
            () = self.wake.notified() => Due::Check,
            () = self.quick.notified() => {
                if self.is_down() { Due::Check } else { Due::Quick }
            }
            () = tokio::time::sleep(every) => {
                if self.is_down() { Due::Check } else { Due::Look }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What a small read's outcome says went wrong (`None`: it answered).
fn failed<T>(probed: Result<Result<T, StoreError>, tokio::time::error::Elapsed>) -> Option<String> {
    match probed {
        Ok(Ok(_)) => None,
        Ok(Err(error)) => Some(error.to_string()),
        Err(_) => Some(format!("it did not answer within {} s", PROBE.as_secs())),
    }
}

/// A time as the card shows it: `17:42:10 UTC`.
fn time(at: DateTime<Utc>) -> String {
    at.format("%H:%M:%S UTC").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use activity::StoreName;
    use activity::store::{MemoryStore, Retention};

    /// A closed SQLite store fails every read, as one that is gone does.
    #[tokio::test]
    async fn a_failed_check_makes_reads_fail_at_once_until_one_succeeds() {
        let name = StoreName::parse("site").expect("a name");
        let health = Health::new(&name);
        assert!(health.gate().is_ok());
        let folder = tempfile::tempdir().expect("a folder");
        let file = folder.path().join("activity.db");
        let down = activity_sqlite::SqliteStore::open(
            file.to_str().expect("UTF-8"),
            name.clone(),
            Retention::default(),
        )
        .await
        .expect("opens");
        down.close().await;
        health.check(&down).await;
        let error = health.gate().expect_err("down").to_string();
        assert!(error.contains("SQLite at"), "{error}");
        let said = health.down_availability().expect("down");
        assert!(!said.available);
        assert!(said.reason.contains("down since"), "{}", said.reason);
        let up = MemoryStore::new(name, Retention::default());
        health.check(&up).await;
        assert!(health.gate().is_ok());
        assert!(health.down_availability().is_none());
    }

    /// A check that began while the store was silent, and ends after a
    /// write went through (the store came back meanwhile), leaves the
    /// store up: its late failure does not mark it down again.
    #[tokio::test(start_paused = true)]
    async fn a_store_that_answers_during_a_failing_check_stays_up() {
        let name = StoreName::parse("site").expect("a name");
        let health = std::sync::Arc::new(Health::new(&name));
        let store = std::sync::Arc::new(MemoryStore::new(name, Retention::default()));
        store.set_gone(Some(activity::store::Gone::Silent));
        let checking = tokio::spawn({
            let (health, store) = (health.clone(), store.clone());
            async move { health.check(store.as_ref()).await }
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        // Back: a write goes through while the check still waits.
        tokio::time::sleep(Duration::from_millis(10)).await;
        health.noted(Ok::<(), StoreError>(())).expect("answered");
        checking.await.expect("the check ends");
        assert!(!health.is_down(), "{:?}", health.down_availability());
        // A check that begins after the last answer still finds it down.
        health.check(store.as_ref()).await;
        assert!(health.is_down());
    }
}
