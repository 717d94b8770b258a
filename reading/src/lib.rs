//! whocomes' read side: several stores read as one. [`Reading`] holds the
//! stores and the funnel; it sums a range of days ([`RangeFigures`]) from
//! day summaries kept between reads ([`cache`]), lists the newest
//! visitor-days, and writes the exports ([`export`]). The Admin tab's server
//! functions, `whocomes export` and the download links all read through it.
//!
//! ```no_run
//! # use activity as whocomes_activity; // the workspace's name for it
//! # async fn read(store: std::sync::Arc<dyn whocomes_activity::store::ActivityStore>) {
//! use whocomes_reading::Reading;
//!
//! let reading = Reading::new(vec![store], whocomes_activity::report::default_funnel());
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
mod marks;
mod merge;
mod note;
mod range;

use std::io::Write;
use std::sync::Arc;

use activity::report::FunnelStep;
use activity::rows::VisitorDay;
use activity::store::ActivityStore;
use chrono::NaiveDate;

pub use export::{ExportError, ExportFormat, Rows};
pub use marks::Marks;
pub use merge::Unreadable;
pub use range::{RangeFigures, StoreFigures, TOP_PATHS, first_day};

use cache::SummaryCache;

/// Several stores read as one, with the funnel their ranges count.
#[derive(Clone)]
pub struct Reading {
    stores: Vec<Arc<dyn ActivityStore>>,
    steps: Vec<FunnelStep>,
    cache: Arc<SummaryCache>,
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
    /// Nothing is written if a store cannot be read.
    pub async fn export(
        &self,
        rows: Rows,
        format: ExportFormat,
        since: NaiveDate,
        until: Option<NaiveDate>,
        out: impl Write,
    ) -> Result<usize, ExportError> {
        let kept = |day: NaiveDate| until.is_none_or(|until| day <= until);
        match rows {
            Rows::Hours => {
                let mut rows = merge::hours_since(&self.stores, since).await?;
                rows.retain(|row| kept(row.hour.date_naive()));
                export::write_hours(&rows, format, out)?;
                Ok(rows.len())
            }
            Rows::Visitors => {
                let mut rows = merge::visitors_since(&self.stores, since).await?;
                rows.retain(|row| kept(row.day));
                export::write_visitors(&rows, format, out)?;
                Ok(rows.len())
            }
        }
    }
}
