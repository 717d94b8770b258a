//! Digests by e-mail: at the operator's hour, in their time zone, daily or
//! weekly, the period's people and their change from the period before,
//! the chart (the tab's own, drawn to a PNG carried inline), top pages,
//! sources, campaigns, countries, the funnel, what scanners and crawlers
//! did, the stores' state and the period's dated notes. Read through the
//! tab's read side, so each number is the tab's for those days; sent once
//! per period (the record keeps the last period sent).
//!
//! - `schedule` — when one is due and which days it covers;
//! - `compose` — its words, as text and HTML;
//! - `image` — the chart as a PNG.

pub mod compose;
pub mod image;
pub mod schedule;

use std::sync::Arc;

use activity::store::ActivityStore;
use chrono::{NaiveDate, Weekday};
use chrono_tz::Tz;
use reading::Reading;

pub use schedule::{Every, Period};

use super::notice::{Draft, State};

/// When digests are sent and what they cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigestSettings {
    /// Daily, or weekly on a day (default: weekly, on Monday).
    pub every: Every,
    /// The hour it is sent at, 0 to 23 (default 8).
    pub hour: u8,
    /// The time zone of that hour (default UTC).
    pub zone: Tz,
    /// One store's digest, by name; `None`: every store's (the default).
    pub store: Option<String>,
}

impl Default for DigestSettings {
    fn default() -> Self {
        Self {
            every: Every::Week(Weekday::Mon),
            hour: 8,
            zone: Tz::UTC,
            store: None,
        }
    }
}

impl DigestSettings {
    /// Whether it is wrong as written.
    pub fn check(&self) -> Result<(), String> {
        if self.hour > 23 {
            return Err(format!("a digest's hour is 0 to 23, not {}", self.hour));
        }
        Ok(())
    }

    /// The stores it reads: `store`'s alone, or all of `stores`; `Err`
    /// names a store that is not there.
    pub fn stores(
        &self,
        stores: &[Arc<dyn ActivityStore>],
    ) -> Result<Vec<Arc<dyn ActivityStore>>, String> {
        match &self.store {
            None => Ok(stores.to_vec()),
            Some(name) => stores
                .iter()
                .find(|store| store.name().as_str() == name)
                .map(|store| vec![store.clone()])
                .ok_or_else(|| format!("the digest's store {name:?} is not one this server reads")),
        }
    }
}

/// The digest of `period` read through `reading`, for `site`, with the
/// owner's notes from the first store `reading` reads. `Err`: the stores
/// could not be read (tried again at the next look).
pub async fn make(
    reading: &Reading,
    every: Every,
    site: &str,
    period: &Period,
) -> Result<Draft, String> {
    let figures = reading.range(every.days(), period.last).await;
    if let Some(error) = &figures.summary_error {
        return Err(format!("the digest could not be read: {error}"));
    }
    let stores: Vec<(String, bool, String)> = figures
        .stores
        .iter()
        .map(|store| {
            (
                store.name.as_str().to_owned(),
                store.availability.available,
                store.availability.reason.clone(),
            )
        })
        .collect();
    // The chart shows the period beside the one before (a week at least).
    let chart_days = (every.days() * 2).max(7);
    let chart = reading.range(chart_days, period.last).await;
    let chart_notes: Vec<admin::model::NoteRow> = match reading.stores().first() {
        Some(store) => activity::annotations::between(store.as_ref(), chart.first, chart.last)
            .await
            .map_err(|error| format!("the notes could not be read: {error}"))?
            .into_iter()
            .map(|note| admin::model::NoteRow {
                id: note.id,
                day: note.day,
                text: note.text,
            })
            .collect(),
        None => Vec::new(),
    };
    let notes: Vec<(NaiveDate, String)> = chart_notes
        .iter()
        .filter(|note| (period.first..=period.last).contains(&note.day))
        .map(|note| (note.day, note.text.clone()))
        .collect();
    let days: Vec<admin::model::DayKinds> = chart
        .days
        .iter()
        .map(|(day, kinds)| admin::model::DayKinds {
            day: *day,
            kinds: *kinds,
        })
        .collect();
    let svg = admin::chart::stacked_kinds(&days, &chart_notes, image::WIDTH)?;
    let png = image::png(&svg)?;
    let composed = compose::compose(every.word(), site, period, &figures, &stores, &notes);
    Ok(Draft {
        topic: "digest".to_owned(),
        state: State::Report,
        subject: composed.subject,
        text: composed.text,
        html: Some(composed.html),
        chart: Some(image::to_text(&png)),
    })
}

/// A digest as one HTML file a browser opens (`whocomes digest
/// --preview`): the chart carried in the page itself.
pub fn preview_html(draft: &Draft) -> String {
    let html = draft.html.clone().unwrap_or_default();
    match &draft.chart {
        Some(chart) => html.replace("cid:chart", &format!("data:image/png;base64,{chart}")),
        None => html,
    }
}
