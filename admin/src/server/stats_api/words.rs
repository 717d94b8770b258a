//! Plausible's words for whocomes' things, both ways: its property names
//! for filter dimensions, its source names for source groups (`Direct /
//! None` is typed and unknown), its periods for ranges of days. What the
//! API says differently from the tab is decided here only (and listed in
//! docs/STATS-API.md).

use activity::filter::{Dimension, Op};
use chrono::{Datelike as _, Days, Months, NaiveDate};

/// A bad request, as Plausible words it: the field and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest(pub String);

impl BadRequest {
    pub(super) fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }
}

/// The filter dimension of a Plausible property.
pub fn dimension_of(property: &str) -> Result<Dimension, BadRequest> {
    Ok(match property {
        "event:page" => Dimension::Page,
        "visit:entry_page" => Dimension::EntryPage,
        "visit:exit_page" => Dimension::ExitPage,
        "visit:source" | "visit:referrer" => Dimension::Source,
        "visit:utm_source" => Dimension::UtmSource,
        "visit:utm_medium" => Dimension::UtmMedium,
        "visit:utm_campaign" => Dimension::UtmCampaign,
        "event:goal" => Dimension::Goal,
        "visit:country" => Dimension::Country,
        "visit:kind" => Dimension::Kind,
        other => {
            let shown: String = other.chars().take(40).collect();
            return Err(BadRequest::new(format!(
                "Invalid property '{shown}'. whocomes answers event:page, visit:entry_page, \
                 visit:exit_page, visit:source, visit:referrer, visit:utm_source, \
                 visit:utm_medium, visit:utm_campaign, event:goal, visit:country and visit:kind"
            )));
        }
    })
}

/// The key a v1 breakdown's rows name a property's value by (`page`).
pub fn result_key(property: &str) -> &str {
    property.split_once(':').map_or(property, |(_, name)| name)
}

/// Plausible's names for the source groups, with the filter's word of each.
const SOURCES: [(&str, &str); 5] = [
    ("Direct / None", "typed"),
    ("LinkedIn", "linkedin"),
    ("GitHub", "github"),
    ("Search engines", "search"),
    ("Other sites", "other-site"),
];

/// A Plausible value of `dimension` as the filter takes it: a source's
/// name to its group's word (a name with a dot is a referrer's host, any
/// other a link's tag), a country's code in capitals.
pub fn to_filter(dimension: Dimension, value: &str) -> String {
    match dimension {
        Dimension::Source => SOURCES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(value))
            .map(|(_, word)| (*word).to_owned())
            .unwrap_or_else(|| {
                if value.contains('.') {
                    value.to_ascii_lowercase()
                } else {
                    format!("tag:{value}")
                }
            }),
        Dimension::Country => value.to_ascii_uppercase(),
        _ => value.to_owned(),
    }
}

/// A filter value of `dimension` in Plausible's words.
pub fn from_filter(dimension: Dimension, value: &str) -> String {
    match dimension {
        Dimension::Source => SOURCES
            .iter()
            .find(|(_, word)| *word == value)
            .map(|(name, _)| (*name).to_owned())
            .unwrap_or_else(|| value.strip_prefix("tag:").unwrap_or(value).to_owned()),
        _ => value.to_owned(),
    }
}

/// A v2 filter operator.
pub fn op_of(word: &str) -> Option<Op> {
    Some(match word {
        "is" => Op::Is,
        "is_not" => Op::IsNot,
        "contains" => Op::Contains,
        "contains_not" => Op::ContainsNot,
        _ => return None,
    })
}

/// The most days one query may span (two years: bounded work for a key).
pub const MAX_DAYS: u64 = 731;

/// The days of a Plausible period ending or at `date` (default `today`):
/// `day`, `7d`, `30d`, `month`, `6mo`, `12mo`, and `custom` with
/// `date=YYYY-MM-DD,YYYY-MM-DD`.
pub fn period(
    period: Option<&str>,
    date: Option<&str>,
    today: NaiveDate,
) -> Result<(NaiveDate, NaiveDate), BadRequest> {
    let period = period.unwrap_or("30d");
    let day = |text: &str| {
        NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").map_err(|_| {
            BadRequest::new(format!(
                "Failed to parse 'date' argument. Only ISO 8601 dates are allowed, e.g. `2019-09-07`, got '{}'",
                text.chars().take(24).collect::<String>()
            ))
        })
    };
    if period == "custom" {
        let (from, to) = date.and_then(|d| d.split_once(',')).ok_or_else(|| {
            BadRequest::new(
                "The `date` parameter is required with period=custom: `date=2024-01-01,2024-01-31`",
            )
        })?;
        return checked(day(from)?, day(to)?);
    }
    let at = date.map(day).transpose()?.unwrap_or(today);
    let month_start = at.with_day(1).unwrap_or(at);
    let month_end = |start: NaiveDate| {
        start
            .checked_add_months(Months::new(1))
            .and_then(|next| next.pred_opt())
            .unwrap_or(start)
    };
    let back = |days: u64| at.checked_sub_days(Days::new(days - 1)).unwrap_or(at);
    let (first, last) = match period {
        "day" => (at, at),
        "7d" => (back(7), at),
        "30d" => (back(30), at),
        "month" => (month_start, month_end(month_start)),
        "6mo" | "12mo" => {
            let months = if period == "6mo" { 5 } else { 11 };
            let first = month_start
                .checked_sub_months(Months::new(months))
                .unwrap_or(month_start);
            (first, month_end(month_start))
        }
        other => {
            return Err(BadRequest::new(format!(
                "Invalid period '{}'. Allowed: day, 7d, 30d, month, 6mo, 12mo, custom",
                other.chars().take(24).collect::<String>()
            )));
        }
    };
    checked(first, last)
}

fn checked(first: NaiveDate, last: NaiveDate) -> Result<(NaiveDate, NaiveDate), BadRequest> {
    if first > last {
        return Err(BadRequest::new("The date range ends before it starts"));
    }
    if (last - first).num_days() as u64 >= MAX_DAYS {
        return Err(BadRequest::new(format!(
            "The date range spans more than {MAX_DAYS} days; ask for less at a time"
        )));
    }
    Ok((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_read_both_ways() {
        for (name, word) in SOURCES {
            assert_eq!(to_filter(Dimension::Source, name), word);
            assert_eq!(from_filter(Dimension::Source, word), name);
        }
        assert_eq!(to_filter(Dimension::Source, "newsletter"), "tag:newsletter");
        assert_eq!(
            from_filter(Dimension::Source, "tag:newsletter"),
            "newsletter"
        );
        assert_eq!(to_filter(Dimension::Source, "News.Example"), "news.example");
    }

    #[test]
    fn periods_are_plausibles() {
        let today = NaiveDate::from_ymd_opt(2026, 12, 6).expect("a day");
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a day");
        assert_eq!(period(Some("day"), None, today), Ok((today, today)));
        assert_eq!(
            period(Some("7d"), None, today),
            Ok((d("2026-11-30"), today))
        );
        assert_eq!(period(None, None, today), Ok((d("2026-11-07"), today)));
        assert_eq!(
            period(Some("month"), Some("2026-02-10"), today),
            Ok((d("2026-02-01"), d("2026-02-28")))
        );
        assert_eq!(
            period(Some("6mo"), None, today),
            Ok((d("2026-07-01"), d("2026-12-31")))
        );
        assert_eq!(
            period(Some("custom"), Some("2026-01-01,2026-01-31"), today),
            Ok((d("2026-01-01"), d("2026-01-31")))
        );
        for (p, date) in [
            (Some("week"), None),
            (Some("custom"), None),
            (Some("custom"), Some("2026-02-01,2026-01-01")),
            (Some("custom"), Some("2020-01-01,2026-01-01")),
            (Some("day"), Some("yesterday")),
        ] {
            assert!(period(p, date, today).is_err(), "{p:?} {date:?}");
        }
    }
}
