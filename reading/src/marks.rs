//! What every store says about each day, read in one round of small
//! queries: requests per day, marks of a browser's evidence per day, and
//! the days whose visitor rows have expired. A kept day summary is current
//! while every store says the same of its day as when it was made; the
//! requests per day are also the range's request figures and store lines.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use activity::report::KindCounts;
use activity::store::{ActivityStore, StoreError};
use chrono::{DateTime, NaiveDate, Utc};

/// What one store says about one day.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Mark {
    /// Its requests.
    requests: u64,
    /// Its marks of a browser's evidence (a file fetched after the page).
    files: u64,
    /// Whether its visitor rows have expired.
    expired: bool,
}

impl Mark {
    /// Whether the store may hold visitor rows of the day: it had
    /// something on it, and its rows have not expired.
    pub(crate) fn may_have_rows(&self) -> bool {
        !self.expired && (self.requests > 0 || self.files > 0)
    }
}

/// One store's answer.
#[derive(Clone, Debug)]
struct Said {
    requests: BTreeMap<NaiveDate, u64>,
    files: BTreeMap<NaiveDate, u64>,
    expired: BTreeMap<NaiveDate, KindCounts>,
}

/// What every store says about each day from some day on, in the stores'
/// order; a store that could not be read has its error instead, or what
/// it said when it was last read, marked [`Stale`].
#[derive(Debug, Default)]
pub struct Marks(Vec<Result<Said, StoreError>>, Vec<Option<Stale>>);

/// A store's marks shown as it was last read: why it could not be read
/// now, and when it was read.
#[derive(Clone, Debug)]
pub struct Stale {
    /// Why it could not be read now.
    pub error: StoreError,
    /// When what is shown was read.
    pub read_at: DateTime<Utc>,
}

/// Each store's marks as last read, to show while it cannot be read.
#[derive(Debug, Default)]
pub(crate) struct LastKnown(Mutex<Vec<Option<Read>>>);

/// What a store said, and when.
type Read = (Said, DateTime<Utc>);

impl LastKnown {
    /// Keeps what each store said in `marks` (read at `now`); for a store
    /// that could not be read, puts what it said last in its place, as
    /// [`Stale`]. A range then shows the store as it was, not as nothing.
    pub(crate) fn fill(&self, marks: &mut Marks, now: DateTime<Utc>) {
        let mut known = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        known.resize(marks.0.len(), None);
        marks.1 = vec![None; marks.0.len()];
        for ((said, stale), known) in marks.0.iter_mut().zip(&mut marks.1).zip(known.iter_mut()) {
            match (&*said, &*known) {
                (Ok(fresh), _) => *known = Some((fresh.clone(), now)),
                (Err(error), Some((last, read_at))) => {
                    *stale = Some(Stale {
                        error: error.clone(),
                        read_at: *read_at,
                    });
                    *said = Ok(last.clone());
                }
                (Err(_), None) => {}
            }
        }
    }
}

impl Marks {
    /// No store's marks: each says `error`.
    pub fn unread(stores: usize, error: StoreError) -> Self {
        Self(
            (0..stores).map(|_| Err(error.clone())).collect(),
            vec![None; stores],
        )
    }

    /// Per store: whether its marks are as it was last read, and why.
    pub fn stale(&self) -> impl Iterator<Item = Option<&Stale>> {
        (0..self.0.len()).map(|i| self.1.get(i).and_then(Option::as_ref))
    }

    /// Whether any store's marks are as it was last read: its days cannot
    /// be summed again now.
    pub(crate) fn any_stale(&self) -> bool {
        self.1.iter().any(Option::is_some)
    }

    /// Reads the marks of every store from `since` on, all at once.
    pub async fn read(stores: &[Arc<dyn ActivityStore>], since: NaiveDate) -> Self {
        let reads = futures::future::join_all(stores.iter().map(|store| async move {
            let (requests, files, expired) = futures::join!(
                store.day_requests(since),
                store.day_marks(since),
                store.expired_kinds_since(since)
            );
            Ok(Said {
                requests: requests?.into_iter().collect(),
                files: files?.into_iter().collect(),
                expired: expired?.into_iter().collect(),
            })
        }))
        .await;
        let stores = reads.len();
        Self(reads, vec![None; stores])
    }

    /// Per store: its requests per day, or why it could not be read.
    pub fn requests(&self) -> impl Iterator<Item = Result<&BTreeMap<NaiveDate, u64>, &StoreError>> {
        self.0
            .iter()
            .map(|said| said.as_ref().map(|said| &said.requests))
    }

    /// Per store: why it could not be read, if it could not.
    pub fn errors(&self) -> impl Iterator<Item = Option<&StoreError>> {
        self.0.iter().map(|said| said.as_ref().err())
    }

    /// All requests from `first` to `last`, over every store that could be read.
    pub fn requests_between(&self, first: NaiveDate, last: NaiveDate) -> u64 {
        self.requests()
            .flatten()
            .flat_map(|days| days.range(first..=last).map(|(_, requests)| requests))
            .sum()
    }

    /// Every store's mark for `day` (`None` for one that could not be
    /// read); `None` when no readable store has anything on it.
    pub(crate) fn of(&self, day: NaiveDate) -> Option<Vec<Option<Mark>>> {
        let marks: Vec<Option<Mark>> = self
            .0
            .iter()
            .map(|said| {
                let said = said.as_ref().ok()?;
                Some(Mark {
                    requests: said.requests.get(&day).copied().unwrap_or(0),
                    files: said.files.get(&day).copied().unwrap_or(0),
                    expired: said.expired.contains_key(&day),
                })
            })
            .collect();
        marks
            .iter()
            .any(|mark| matches!(mark, Some(mark) if *mark != Mark::default()))
            .then_some(marks)
    }

    /// The days from `first` to `last` that any readable store has
    /// something on, each with every store's mark ([`of`](Self::of)).
    pub(crate) fn days_between(
        &self,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Vec<(NaiveDate, Vec<Option<Mark>>)> {
        first
            .iter_days()
            .take_while(|day| *day <= last)
            .filter_map(|day| Some((day, self.of(day)?)))
            .collect()
    }

    /// The stores that could be read.
    pub(crate) fn readable(
        &self,
        stores: &[Arc<dyn ActivityStore>],
    ) -> Vec<Arc<dyn ActivityStore>> {
        stores
            .iter()
            .zip(&self.0)
            .filter(|(_, said)| said.is_ok())
            .map(|(store, _)| Arc::clone(store))
            .collect()
    }
}
