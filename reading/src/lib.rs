//! whocomes' read side: several stores read as one. [`Reading`] holds the
//! stores and the funnel; it sums a range of days ([`RangeFigures`]) from
//! day summaries kept between reads ([`cache`]: in memory, and saved in the
//! first store so that a restart need not sum every day again — the one
//! write the read side makes, through `ActivityStore::keep_cached`), answers
//! filters from the kept days' visitor-days held in memory ([`index`]), lists the newest
//! visitor-days, and writes the exports ([`export`]). The Admin tab's server
//! functions, `whocomes export` and the download links all read through it.
//!
//! ```no_run
//! # use activity as whocomes_activity; // the workspace's name for it
//! # async fn read(store: std::sync::Arc<dyn whocomes_activity::store::ActivityStore>) {
//! use whocomes_reading::Reading;
//!
//! let signup: whocomes_activity::funnel::FunnelStep = "signup=/signup".parse().expect("a step");
//! let reading = Reading::new(vec![store], vec![signup]);
//! let today = chrono::Utc::now().date_naive();
//! let week = reading.range(7, today).await;
//! println!("{} people visitor-days this week", week.sums.kinds.people);
//! # }
//! ```
#![forbid(unsafe_code)]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

pub mod cache;
pub mod deadline;
pub mod export;
pub mod index;
mod lock;
mod marks;
mod merge;
pub mod query;
mod range;

use std::io::Write;
use std::sync::Arc;

use activity::report::FunnelStep;
use activity::rows::VisitorDay;
use activity::store::ActivityStore;
use chrono::NaiveDate;

pub use export::{ExportError, ExportFormat, Rows};
pub use marks::{Marks, Stale};
pub use merge::Unreadable;
pub use range::{RangeFigures, StoreFigures, TOP_PATHS, first_day};

use cache::SummaryCache;

/// Several stores read as one, with the funnel their ranges count.
#[derive(Clone)]
pub struct Reading {
    stores: Vec<Arc<dyn ActivityStore>>,
    steps: Vec<FunnelStep>,
    cache: Arc<SummaryCache>,
    filtered: Arc<cache::filtered::FilteredCache>,
    index: Arc<index::VisitorIndex>,
    last_known: Arc<marks::LastKnown>,
}

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stores: Vec<&str> = self.stores.iter().map(|s| s.name().as_str()).collect();
        f.debug_struct("Reading")
            .field("stores", &stores)
            .field("steps", &self.steps.len())
            .finish_non_exhaustive()
    }
}

impl Reading {
    /// Reads `stores` (the one written to first, then any others), counting
    /// the funnel of `steps`.
    pub fn new(stores: Vec<Arc<dyn ActivityStore>>, steps: Vec<FunnelStep>) -> Self {
        Self {
            stores,
            steps,
            cache: Arc::default(),
            filtered: Arc::default(),
            index: Arc::default(),
            last_known: Arc::default(),
        }
    }

    /// The stores, in order.
    pub fn stores(&self) -> &[Arc<dyn ActivityStore>] {
        &self.stores
    }

    /// The funnel's steps.
    pub fn steps(&self) -> &[FunnelStep] {
        &self.steps
    }

    /// The day summaries kept between reads.
    fn cache(&self) -> &Arc<SummaryCache> {
        &self.cache
    }

    /// The day summaries kept under filters.
    fn filtered_cache(&self) -> &Arc<cache::filtered::FilteredCache> {
        &self.filtered
    }

    /// The visitor-days held in memory for filtered reads.
    pub fn index(&self) -> &Arc<index::VisitorIndex> {
        &self.index
    }

    /// What each store said when it was last read.
    fn last_known(&self) -> &marks::LastKnown {
        &self.last_known
    }

    /// The newest visitor-days from `since` on (to `until`, both included,
    /// when given) over every store, at most `limit` (newest day first, then
    /// the latest seen), and how many there are in all. A store that cannot
    /// be read adds nothing.
    pub async fn latest_visitors(
        &self,
        since: NaiveDate,
        until: Option<NaiveDate>,
        limit: usize,
    ) -> (Vec<VisitorDay>, usize) {
        merge::latest_visitors(&self.stores, since, until, limit).await
    }

    /// Writes every store's `rows` from `since` on (to `until`, both
    /// included, when given) to `out` as `format`; returns how many rows.
    /// See [`export_pages`](Self::export_pages).
    pub async fn export(
        &self,
        rows: Rows,
        format: ExportFormat,
        since: NaiveDate,
        until: Option<NaiveDate>,
        mut out: impl Write,
    ) -> Result<usize, ExportError> {
        let (chunks, mut received) = tokio::sync::mpsc::channel::<Vec<u8>>(2);
        let writing = async move {
            while let Some(chunk) = received.recv().await {
                out.write_all(&chunk)?;
            }
            Ok::<_, std::io::Error>(())
        };
        let (written, wrote) = futures::join!(
            self.export_pages(rows, format, since, until, chunks),
            writing
        );
        wrote?;
        written
    }

    /// The chart's notes of `store` from `since` to `until`, as one page.
    async fn export_notes(
        &self,
        store: &Arc<dyn ActivityStore>,
        mut pages: export::Pages,
        since: NaiveDate,
        until: Option<NaiveDate>,
        chunks: tokio::sync::mpsc::Sender<Vec<u8>>,
    ) -> Result<usize, ExportError> {
        let last = until.unwrap_or(NaiveDate::MAX);
        let notes = activity::annotations::between(store.as_ref(), since, last)
            .await
            .map_err(|error| Unreadable {
                store: store.name().clone(),
                error,
            })?;
        let mut out = Vec::new();
        export::notes_page(&mut pages, &notes, &mut out)?;
        let written = pages.rows();
        pages.finish(export::NOTES_HEADER, &mut out)?;
        // A reader gone by now has had every row it asked for.
        let _ = chunks.send(out).await;
        Ok(written)
    }

    /// [`export`](Self::export) a page at a time: each store's rows are
    /// read [`EXPORT_PAGE`] at a time and sent to `chunks` as bytes (the
    /// first chunk once the first page is read; a closed receiver stops
    /// it), so what an export holds is a page or two, however big the
    /// store. A store that cannot be read ends it with the error.
    pub async fn export_pages(
        &self,
        rows: Rows,
        format: ExportFormat,
        since: NaiveDate,
        until: Option<NaiveDate>,
        chunks: tokio::sync::mpsc::Sender<Vec<u8>>,
    ) -> Result<usize, ExportError> {
        let mut pages = export::Pages::new(format);
        let header = match rows {
            Rows::Hours => export::HOURS_HEADER,
            Rows::Visitors => export::VISITORS_HEADER,
            Rows::Notes => export::NOTES_HEADER,
            Rows::Goals => export::GOALS_HEADER,
        };
        for store in &self.stores {
            let read = match rows {
                Rows::Hours => {
                    let since = activity::summary::midnight(since);
                    let read = |after| store.hours_page(since, after, EXPORT_PAGE);
                    let page = Paging {
                        key: |row: &activity::rows::HourRow| (row.hour, row.path.clone()),
                        day: |row: &activity::rows::HourRow| row.hour.date_naive(),
                        write: export::hours_page,
                    };
                    page.all(read, &mut pages, until, &chunks).await
                }
                Rows::Visitors => {
                    let read = |after| store.visitors_page(since, after, EXPORT_PAGE);
                    let page = Paging {
                        key: |row: &VisitorDay| (row.day, row.visitor.clone()),
                        day: |row: &VisitorDay| row.day,
                        write: export::visitors_page,
                    };
                    page.all(read, &mut pages, until, &chunks).await
                }
                // Kept in the first store, and few: one page, from it alone.
                Rows::Notes => return self.export_notes(store, pages, since, until, chunks).await,
                Rows::Goals => goal_pages(store.as_ref(), &mut pages, since, until, &chunks).await,
            };
            match read {
                Ok(true) => {}
                Ok(false) => return Ok(pages.rows()),
                Err(PageError::Store(error)) => {
                    return Err(Unreadable {
                        store: store.name().clone(),
                        error,
                    }
                    .into());
                }
                Err(PageError::Export(error)) => return Err(error),
            }
        }
        let mut end = Vec::new();
        let written = pages.rows();
        pages.finish(header, &mut end)?;
        // A reader gone by now has had every row.
        let _ = chunks.send(end).await;
        Ok(written)
    }
}

/// How many rows an export reads from a store at a time.
pub const EXPORT_PAGE: usize = 1_000;

/// How an export pages through one kind of row: a row's key (what the
/// next page starts after), its day, and how a page is written.
struct Paging<R, K> {
    key: fn(&R) -> K,
    day: fn(&R) -> NaiveDate,
    write: WritePage<R>,
}

/// A page of rows of type `R`, or why it could not be read.
type ReadPage<R> = Result<Vec<R>, activity::store::StoreError>;

/// Writes a page of rows of type `R`.
type WritePage<R> = fn(&mut export::Pages, &[R], &mut Vec<u8>) -> Result<(), ExportError>;

/// Why paging stopped: a store's read or the writing.
/// Goals' hourly rows of one store from `since` to `until`, sent a page at
/// a time. Read at once: at most 100 goals a store-hour (the writer's
/// budget), so a year is a few thousand rows on a site with a few goals.
/// `false` when the reader has gone.
async fn goal_pages(
    store: &dyn ActivityStore,
    pages: &mut export::Pages,
    since: NaiveDate,
    until: Option<NaiveDate>,
    chunks: &tokio::sync::mpsc::Sender<Vec<u8>>,
) -> Result<bool, PageError> {
    let end = until.map(|day| activity::summary::midnight(day + chrono::Days::new(1)));
    let rows = store
        .goal_hours_since(activity::summary::midnight(since))
        .await
        .map_err(PageError::Store)?;
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|row| end.is_none_or(|end| row.hour < end))
        .collect();
    for page in rows.chunks(EXPORT_PAGE) {
        let mut out = Vec::new();
        export::goals_page(pages, page, &mut out).map_err(PageError::Export)?;
        if chunks.send(out).await.is_err() {
            return Ok(false);
        }
    }
    Ok(true)
}

enum PageError {
    Store(activity::store::StoreError),
    Export(ExportError),
}

impl<R, K> Paging<R, K> {
    /// Reads every page of one store (`read` of the last key, none first)
    /// up to `until`, writes each and sends it to `chunks`. `Ok(false)`:
    /// the receiver is gone.
    async fn all<'a>(
        &self,
        mut read: impl FnMut(Option<K>) -> futures::future::BoxFuture<'a, ReadPage<R>>,
        pages: &mut export::Pages,
        until: Option<NaiveDate>,
        chunks: &tokio::sync::mpsc::Sender<Vec<u8>>,
    ) -> Result<bool, PageError> {
        let mut after = None;
        loop {
            let mut page = read(after.take()).await.map_err(PageError::Store)?;
            let full = page.len() == EXPORT_PAGE;
            after = page.last().map(self.key);
            let before = page.len();
            page.retain(|row| until.is_none_or(|until| (self.day)(row) <= until));
            let mut chunk = Vec::new();
            (self.write)(pages, &page, &mut chunk).map_err(PageError::Export)?;
            if !chunk.is_empty() && chunks.send(chunk).await.is_err() {
                return Ok(false);
            }
            // Rows come by day: one past `until` ends the store's rows.
            if !full || page.len() < before {
                return Ok(true);
            }
        }
    }
}
