//! A page load's campaign: the `utm_source`, `utm_medium` and
//! `utm_campaign` that newsletters and ad tools add to their links, kept
//! only when each reads as a label — never the rest of the query string.
//!
//! A label is at most [`MAX_LABEL_CHARS`] characters of letters, digits,
//! spaces and `-_.+`, with no run of [`MAX_DIGIT_RUN`] or more digits and
//! no four numbers joined by dots: an e-mail address (`@`), an IP address,
//! a phone or customer number, a token or anything longer is not one, and is kept as [`DROPPED`] so the campaign still
//! counts without it. The link's own tag (`ref`) passes the same test
//! (`source::tag_of`).

use serde::{Deserialize, Serialize};

use super::query::query_value;

/// The most characters a label keeps.
pub const MAX_LABEL_CHARS: usize = 64;

/// A run of this many digits or more is a number about somebody, not a label.
pub const MAX_DIGIT_RUN: usize = 6;

/// What a value that is not a label is kept as.
pub const DROPPED: &str = "(dropped)";

/// The campaign parameters a page load's link carried; at least one is set.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Campaign {
    /// `utm_source`: who sent the link (`newsletter`, `mastodon`).
    pub source: Option<String>,
    /// `utm_medium`: how (`email`, `social`, `cpc`).
    pub medium: Option<String>,
    /// `utm_campaign`: which campaign (`spring sale`).
    pub name: Option<String>,
}

impl Campaign {
    /// The campaign of a query string, if it names any of the three; a
    /// value that is not a label is [`DROPPED`], an empty one absent.
    pub fn of(query: &[u8]) -> Option<Self> {
        let value = |name: &str| query_value(query, name).map(|value| label(&value));
        let campaign = Self {
            source: value("utm_source").flatten(),
            medium: value("utm_medium").flatten(),
            name: value("utm_campaign").flatten(),
        };
        (campaign.source.is_some() || campaign.medium.is_some() || campaign.name.is_some())
            .then_some(campaign)
    }

    /// Whether each value it holds is a label or [`DROPPED`] (a row read
    /// back is checked so: nothing else is ever written).
    pub fn is_clean(&self) -> bool {
        [&self.source, &self.medium, &self.name]
            .into_iter()
            .flatten()
            .all(|value| value == DROPPED || is_label(value))
    }
}

/// A decoded query value as it is kept: itself, trimmed, when it is a
/// label; [`DROPPED`] when it is not; `None` when it is empty.
pub fn label(value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() {
        None
    } else if is_label(value) {
        Some(value.to_owned())
    } else {
        Some(DROPPED.to_owned())
    }
}

/// Whether `value` reads as a label (see the module's words).
pub fn is_label(value: &str) -> bool {
    let mut digits = 0;
    !value.is_empty()
        && value.chars().count() <= MAX_LABEL_CHARS
        && value.chars().all(|c| {
            digits = if c.is_ascii_digit() { digits + 1 } else { 0 };
            digits < MAX_DIGIT_RUN
                && (c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | '+'))
        })
        && !has_dotted_quad(value)
}

/// Whether four or more numbers stand joined by dots (`203.0.113.7`): an
/// IPv4 address, whole or in part of a longer run.
fn has_dotted_quad(value: &str) -> bool {
    value
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .any(|run| run.split('.').filter(|number| !number.is_empty()).count() >= 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(query: &str) -> Option<Campaign> {
        Campaign::of(query.as_bytes())
    }

    #[test]
    fn the_three_labels_are_kept_and_nothing_else() {
        let campaign =
            of("utm_source=news+letter&utm_medium=email&utm_campaign=Spring%20Sale&id=99&fbclid=x")
                .expect("a campaign");
        assert_eq!(campaign.source.as_deref(), Some("news letter"));
        assert_eq!(campaign.medium.as_deref(), Some("email"));
        assert_eq!(campaign.name.as_deref(), Some("Spring Sale"));
        assert_eq!(
            of("id=1&ref=resume"),
            None,
            "no campaign parameter, no campaign"
        );
        let medium_only = of("UTM_MEDIUM=social").expect("a campaign");
        assert_eq!(
            (medium_only.source, medium_only.medium.as_deref()),
            (None, Some("social"))
        );
        assert_eq!(
            of("utm_source=&utm_medium=%20"),
            None,
            "empty values are absent"
        );
    }

    #[test]
    fn what_could_name_somebody_is_dropped() {
        for value in [
            "jane%40example.org",
            "jane@example.org",
            "customer-1234567",
            "0612345678",
            "a/b",
            "x%3Cscript%3E",
            &"a".repeat(65),
            "ref%0Anew-line",
            "203.0.113.7",
            "from-198.51.100.23-x",
            "2001:db8::1",
        ] {
            let campaign = of(&format!("utm_campaign={value}")).expect("a campaign");
            assert_eq!(campaign.name.as_deref(), Some(DROPPED), "{value}");
            assert!(campaign.is_clean());
        }
        for value in [
            "black friday 2026",
            "q4+promo",
            "v1.2_beta-3",
            "Café",
            "12345x",
            "v1.2.3",
        ] {
            assert!(is_label(value), "{value} is a label");
        }
        assert!(!is_label("123456"), "six digits in a row");
        assert!(
            !Campaign {
                source: Some("a@b".into()),
                medium: None,
                name: None
            }
            .is_clean()
        );
    }
}
