//! The mark a request for one of the page's own files leaves on its
//! visitor-day (SPEC §3): not a hit (files are not counted), a fact for
//! the visitor-day's evidence.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::request::store_name::StoreName;
use crate::visitor::token::VisitorToken;

/// A visitor-day fetched one of the page's own files: a mark on its row,
/// not a hit (files are not counted). At most one per visitor-day reaches
/// the writer from a live site (see
/// [`FilesSeen`](crate::request::evidence::FilesSeen)).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FilesMark {
    /// The store that served the file.
    pub store: StoreName,
    /// The UTC day.
    pub day: NaiveDate,
    /// The day's token.
    pub visitor: VisitorToken,
}
