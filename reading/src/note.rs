//! The day summaries kept in a store between runs, so that the first read
//! after a restart does not sum every day again: one note (see
//! `ActivityStore::keep_note`) in the first store, made of each day's
//! summary and the marks it was made under. A kept day is used only while
//! every store still says the same of it, exactly as in memory; a note made
//! for other stores or another funnel, or in another format, is not used.

use std::sync::Arc;

use activity::report::FunnelStep;
use activity::store::ActivityStore;
use activity::summary::DaySummary;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::marks::Mark;

/// The note's name in the store.
pub(crate) const NAME: &str = "day-summaries";

/// Bumped when the note's shape changes: an older note is then not used.
const FORMAT: u32 = 1;

/// One kept day.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct NoteDay {
    pub(crate) day: NaiveDate,
    pub(crate) marks: Vec<Option<Mark>>,
    pub(crate) summary: Arc<DaySummary>,
}

/// The note as written.
#[derive(Debug, Serialize, Deserialize)]
struct Note {
    format: u32,
    /// The stores' names, in the order the marks are in.
    stores: Vec<String>,
    /// The funnel the summaries' steps count.
    steps: Vec<FunnelStep>,
    days: Vec<NoteDay>,
}

fn names(stores: &[Arc<dyn ActivityStore>]) -> Vec<String> {
    stores
        .iter()
        .map(|store| store.name().as_str().to_owned())
        .collect()
}

/// The days kept in the first store's note, if it has one made for these
/// stores and this funnel. A note that cannot be read is as none (the days
/// are summed again); why is logged, without the note's text.
pub(crate) async fn load(stores: &[Arc<dyn ActivityStore>], steps: &[FunnelStep]) -> Vec<NoteDay> {
    let Some(first) = stores.first() else {
        return Vec::new();
    };
    let body = match first.note(NAME).await {
        Ok(Some(body)) => body,
        Ok(None) => return Vec::new(),
        Err(error) => {
            tracing::debug!(store = %first.name(), %error, "no kept day summaries");
            return Vec::new();
        }
    };
    match serde_json::from_str::<Note>(&body) {
        Ok(note)
            if note.format == FORMAT && note.stores == names(stores) && note.steps == steps =>
        {
            note.days
        }
        Ok(_) => Vec::new(),
        Err(error) => {
            tracing::warn!(store = %first.name(), line = error.line(), column = error.column(), "the kept day summaries cannot be read; summing the days again");
            Vec::new()
        }
    }
}

/// Keeps `days` as the first store's note. A store that cannot keep it is
/// logged; the summaries stay in memory either way.
pub(crate) async fn save(
    stores: &[Arc<dyn ActivityStore>],
    steps: &[FunnelStep],
    days: Vec<NoteDay>,
) {
    let Some(first) = stores.first() else {
        return;
    };
    let note = Note {
        format: FORMAT,
        stores: names(stores),
        steps: steps.to_vec(),
        days,
    };
    let body = match serde_json::to_string(&note) {
        Ok(body) => body,
        Err(error) => {
            tracing::warn!(%error, "cannot write the day summaries as a note");
            return;
        }
    };
    if let Err(error) = first.keep_note(NAME, &body).await {
        tracing::warn!(store = %first.name(), %error, "cannot keep the day summaries in the store");
    }
}
