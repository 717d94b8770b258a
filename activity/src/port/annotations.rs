//! Dated notes on the chart (a release, a post, a campaign): what the
//! owner wrote, kept as one note in the site's store (`annotations`,
//! through `ActivityStore::keep_cached`) so the tab, the stats API, the
//! digest, the exports and `whocomes annotate` read and write the same
//! list. A note is one line of at most [`TEXT_CHARS`] characters; a store
//! keeps at most [`MOST`]. Two writers at the same instant (the tab and the
//! command line) can lose one of the two additions: notes are added by
//! hand, one at a time.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::port::store::{ActivityStore, StoreError};

/// The note's name in the store.
pub const NOTE: &str = "annotations";
/// The longest text, in characters.
pub const TEXT_CHARS: usize = 200;
/// The most notes a store keeps.
pub const MOST: usize = 1_000;

/// One dated note.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    /// Its number in the store (what removing it names).
    pub id: u64,
    /// The day it marks (a UTC day, as the chart's).
    pub day: NaiveDate,
    /// What it says.
    pub text: String,
    /// When it was written.
    pub added: DateTime<Utc>,
}

/// Why a note was not added or removed.
#[derive(Debug, thiserror::Error)]
pub enum AnnotationError {
    /// The text is empty, too long, or more than one line.
    #[error("a note is one line of 1 to {TEXT_CHARS} characters")]
    Text,
    /// The day is outside the years a chart can show.
    #[error("a note's day is between 2000-01-01 and 2099-12-31")]
    Day,
    /// The store keeps as many as it may.
    #[error("the store keeps at most {MOST} notes: remove one first")]
    Full,
    /// No note has that number.
    #[error("there is no note {0}")]
    Unknown(u64),
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Default, Serialize, Deserialize)]
struct Kept {
    next: u64,
    notes: Vec<Annotation>,
}

/// The text as kept: trimmed; `Err` if it is not one line of 1 to
/// [`TEXT_CHARS`] characters.
pub fn checked_text(text: &str) -> Result<String, AnnotationError> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 || chars > TEXT_CHARS || text.chars().any(char::is_control) {
        return Err(AnnotationError::Text);
    }
    Ok(text.to_owned())
}

fn checked_day(day: NaiveDate) -> Result<NaiveDate, AnnotationError> {
    let first = NaiveDate::from_ymd_opt(2000, 1, 1);
    let last = NaiveDate::from_ymd_opt(2099, 12, 31);
    match (first, last) {
        (Some(first), Some(last)) if (first..=last).contains(&day) => Ok(day),
        _ => Err(AnnotationError::Day),
    }
}

async fn kept(store: &dyn ActivityStore) -> Result<Kept, StoreError> {
    Ok(match store.cached(NOTE).await? {
        // A note that does not parse (hand-edited) reads as none; the next
        // addition starts a new list.
        Some(body) => serde_json::from_str(&body).unwrap_or_else(|error| {
            tracing::warn!("the chart's notes could not be read ({error}); none shown");
            Kept::default()
        }),
        None => Kept::default(),
    })
}

async fn keep(store: &dyn ActivityStore, kept: &Kept) -> Result<(), StoreError> {
    let body =
        serde_json::to_string(kept).map_err(|error| StoreError::Failed(error.to_string()))?;
    store.keep_cached(NOTE, &body).await
}

/// The notes of the days from `first` to `last`, by day, then as added.
pub async fn between(
    store: &dyn ActivityStore,
    first: NaiveDate,
    last: NaiveDate,
) -> Result<Vec<Annotation>, StoreError> {
    let mut notes: Vec<Annotation> = kept(store)
        .await?
        .notes
        .into_iter()
        .filter(|note| (first..=last).contains(&note.day))
        .collect();
    notes.sort_by(|a, b| a.day.cmp(&b.day).then(a.id.cmp(&b.id)));
    Ok(notes)
}

/// Adds a note on `day` saying `text`; the note as kept.
pub async fn add(
    store: &dyn ActivityStore,
    day: NaiveDate,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Annotation, AnnotationError> {
    let text = checked_text(text)?;
    let day = checked_day(day)?;
    let mut kept = kept(store).await?;
    if kept.notes.len() >= MOST {
        return Err(AnnotationError::Full);
    }
    let note = Annotation {
        id: kept.next,
        day,
        text,
        added: now,
    };
    kept.next += 1;
    kept.notes.push(note.clone());
    keep(store, &kept).await?;
    Ok(note)
}

/// Removes the note numbered `id`.
pub async fn remove(store: &dyn ActivityStore, id: u64) -> Result<Annotation, AnnotationError> {
    let mut kept = kept(store).await?;
    let Some(at) = kept.notes.iter().position(|note| note.id == id) else {
        return Err(AnnotationError::Unknown(id));
    };
    let note = kept.notes.remove(at);
    keep(store, &kept).await?;
    Ok(note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::memory::MemoryStore;
    use crate::port::store::Retention;
    use crate::request::hit::StoreName;

    fn store() -> MemoryStore {
        MemoryStore::new(
            StoreName::parse("site").unwrap_or_else(|_| unreachable!("a name")),
            Retention::default(),
        )
    }

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap_or_default()
    }

    #[tokio::test]
    async fn notes_are_read_by_day_and_removed_by_number() {
        let store = store();
        let now = DateTime::<Utc>::from_timestamp(1_796_000_000, 0).unwrap_or_default();
        let release = add(&store, day("2026-12-03"), "  release 0.3  ", now).await;
        let post = add(&store, day("2026-12-01"), "a post on the blog", now).await;
        let (release, post) = (release.expect("added"), post.expect("added"));
        assert_eq!(release.text, "release 0.3");
        assert_ne!(release.id, post.id);
        let week = between(&store, day("2026-11-30"), day("2026-12-06")).await;
        let week: Vec<_> = week.expect("read").into_iter().map(|n| n.text).collect();
        assert_eq!(week, ["a post on the blog", "release 0.3"]);
        let only = between(&store, day("2026-12-02"), day("2026-12-06")).await;
        assert_eq!(only.expect("read").len(), 1);
        assert_eq!(remove(&store, post.id).await.expect("removed").id, post.id);
        assert!(matches!(
            remove(&store, post.id).await,
            Err(AnnotationError::Unknown(_))
        ));
        let left = between(&store, day("2026-11-30"), day("2026-12-06")).await;
        assert_eq!(left.expect("read"), vec![release]);
    }

    #[tokio::test]
    async fn a_note_is_one_short_line_on_a_chart_day_and_a_store_keeps_a_thousand() {
        let store = store();
        let now = DateTime::<Utc>::from_timestamp(1_796_000_000, 0).unwrap_or_default();
        for text in ["", "   ", "two\nlines", &"x".repeat(TEXT_CHARS + 1)] {
            assert!(matches!(
                add(&store, day("2026-12-01"), text, now).await,
                Err(AnnotationError::Text)
            ));
        }
        assert!(
            add(&store, day("2026-12-01"), &"é".repeat(TEXT_CHARS), now)
                .await
                .is_ok()
        );
        assert!(matches!(
            add(&store, day("1999-12-31"), "too early", now).await,
            Err(AnnotationError::Day)
        ));
        for n in 1..MOST {
            add(&store, day("2026-12-01"), &format!("note {n}"), now)
                .await
                .expect("added");
        }
        assert!(matches!(
            add(&store, day("2026-12-01"), "one more", now).await,
            Err(AnnotationError::Full)
        ));
        // A hand-edited note that is not a list reads as none.
        store.keep_cached(NOTE, "{not json").await.expect("kept");
        let none = between(&store, day("2026-11-01"), day("2026-12-31")).await;
        assert_eq!(none.expect("read"), Vec::new());
    }
}
