//! The day-summary cache saved in a store between runs, so that the first
//! read after a restart does not sum every day again: one entry (see
//! `ActivityStore::keep_cached`) in the first store, made of each day's
//! summary and the marks it was made under. A saved day is used only while
//! every store still says the same of it, exactly as in memory; a cache
//! saved for other stores or a funnel that counts other paths (a renamed
//! step counts alike), or in another format, is not used.

use std::sync::Arc;
use std::time::Duration;

use activity::funnel::{FunnelStep, count_alike};
use activity::store::ActivityStore;
use activity::summary::DaySummary;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::marks::Mark;

/// The saved cache's name in the store.
pub(crate) const NAME: &str = "day-summaries";

/// Bumped when the saved cache's shape changes: an older one is then not used.
/// (2: each day's people by country; 3: people's visits; 4: a page's
/// readers; 5: the hours people arrived in.)
const FORMAT: u32 = 5;

/// One kept day.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SavedDay {
    pub(crate) day: NaiveDate,
    pub(crate) marks: Vec<Option<Mark>>,
    pub(crate) summary: Arc<DaySummary>,
}

/// The saved cache as written.
#[derive(Debug, Serialize, Deserialize)]
struct Saved {
    format: u32,
    /// The stores' names, in the order the marks are in.
    stores: Vec<String>,
    /// The funnel the summaries' steps count.
    steps: Vec<FunnelStep>,
    days: Vec<SavedDay>,
    /// How long the last summing of changed days took, in milliseconds (a
    /// a saved cache without it: not known).
    #[serde(default)]
    resum_ms: Option<u64>,
}

fn names(stores: &[Arc<dyn ActivityStore>]) -> Vec<String> {
    stores
        .iter()
        .map(|store| store.name().as_str().to_owned())
        .collect()
}

/// The days kept in the first store's saved cache, if it has one made for these
/// stores and this funnel, and how long changed days last took to sum. A
/// saved cache that cannot be read is as none (the days are summed again); why is
/// logged, without its text.
pub(crate) async fn load(
    stores: &[Arc<dyn ActivityStore>],
    steps: &[FunnelStep],
) -> (Vec<SavedDay>, Option<Duration>) {
    let Some(first) = stores.first() else {
        return (Vec::new(), None);
    };
    let body = match first.cached(NAME).await {
        Ok(Some(body)) => body,
        Ok(None) => return (Vec::new(), None),
        Err(error) => {
            tracing::debug!(store = %first.name(), %error, "no kept day summaries");
            return (Vec::new(), None);
        }
    };
    match serde_json::from_str::<Saved>(&body) {
        Ok(note)
            if note.format == FORMAT
                && note.stores == names(stores)
                && count_alike(&note.steps, steps) =>
        {
            (note.days, note.resum_ms.map(Duration::from_millis))
        }
        Ok(_) => (Vec::new(), None),
        Err(error) => {
            tracing::warn!(store = %first.name(), line = error.line(), column = error.column(), "the kept day summaries cannot be read; summing the days again");
            (Vec::new(), None)
        }
    }
}

/// Keeps `days` as the first store's saved cache. A store that cannot keep it is
/// logged; the summaries stay in memory either way.
pub(crate) async fn save(
    stores: &[Arc<dyn ActivityStore>],
    steps: &[FunnelStep],
    days: Vec<SavedDay>,
    resum: Option<Duration>,
) {
    let Some(first) = stores.first() else {
        return;
    };
    let note = Saved {
        format: FORMAT,
        stores: names(stores),
        steps: steps.to_vec(),
        days,
        resum_ms: resum.map(|took| u64::try_from(took.as_millis()).unwrap_or(u64::MAX)),
    };
    let body = match serde_json::to_string(&note) {
        Ok(body) => body,
        Err(error) => {
            tracing::warn!(%error, "cannot write the day summaries as the saved cache");
            return;
        }
    };
    if let Err(error) = first.keep_cached(NAME, &body).await {
        tracing::warn!(store = %first.name(), %error, "cannot keep the day summaries in the store");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use activity::StoreName;
    use activity::sample::funnel as default_funnel;
    use activity::store::{ActivityStore, MemoryStore, Retention};

    use activity::summary::DaySummary;

    use super::{NAME, SavedDay, load, save};

    fn memory() -> Vec<Arc<dyn ActivityStore>> {
        let name = StoreName::parse("memory").expect("a name");
        vec![Arc::new(MemoryStore::new(name, Retention::default()))]
    }

    #[tokio::test]
    async fn how_long_a_changed_day_took_to_sum_is_kept() {
        let stores = memory();
        let steps = default_funnel();
        save(
            &stores,
            &steps,
            Vec::new(),
            Some(Duration::from_millis(321)),
        )
        .await;
        let (days, resum) = load(&stores, &steps).await;
        assert!(days.is_empty());
        assert_eq!(resum, Some(Duration::from_millis(321)));
    }

    #[tokio::test]
    async fn a_note_written_before_the_time_was_kept_is_still_used() {
        let stores = memory();
        let steps = default_funnel();
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 30).expect("a day");
        let kept = SavedDay {
            day,
            marks: Vec::new(),
            summary: Arc::new(DaySummary::empty(day, steps.len())),
        };
        save(&stores, &steps, vec![kept], None).await;
        let body = stores[0]
            .cached(NAME)
            .await
            .expect("reads")
            .expect("a note");
        let older = body.replace(r#","resum_ms":null"#, "");
        assert_ne!(older, body, "the field is gone");
        stores[0].keep_cached(NAME, &older).await.expect("kept");
        let (days, resum) = load(&stores, &steps).await;
        assert_eq!(days.len(), 1, "the kept day is used");
        assert_eq!(resum, None, "not known");
    }
}
