//! Which days the tab shows: the last 7, 30, 90 or 365 days, or any
//! from–to of up to [`MAX_DAYS`] days. The same words in a page's query
//! (`?range=90`, `?from=2026-11-01&to=2026-11-15`), in an export's, and in
//! the server functions' arguments.

use chrono::{Datelike, Days, NaiveDate};
use serde::{Deserialize, Serialize};

/// The ranges the tab offers, in days; 30 is the default.
pub const RANGES: [u16; 4] = [7, 30, 90, 365];
/// The range the tab opens with.
pub const DEFAULT_RANGE: u16 = 30;

/// The range a caller asked for, or the default when it is not one of [`RANGES`].
pub fn range_or_default(days: u16) -> u16 {
    if RANGES.contains(&days) {
        days
    } else {
        DEFAULT_RANGE
    }
}

/// The longest from–to, in days: a year, leap or not.
pub const MAX_DAYS: u16 = 366;

/// The days of a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Span {
    /// The last this many days (one of [`RANGES`]), ending today (UTC).
    Last(u16),
    /// From one day to another, both included.
    Between {
        /// The first day.
        from: NaiveDate,
        /// The last day.
        to: NaiveDate,
    },
}

impl Default for Span {
    fn default() -> Self {
        Self::Last(DEFAULT_RANGE)
    }
}

/// A span that cannot be shown, in words for the page. None of them repeats
/// what was asked (a query is never written back anywhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpanError {
    /// `range` is not one of [`RANGES`].
    #[error("The range is 7, 30, 90 or 365 days, or from one date to another.")]
    NotARange,
    /// `from` or `to` is not a date.
    #[error("“{0}” is a date written like 2026-11-01.")]
    NotADate(&'static str),
    /// One of `from` and `to` without the other.
    #[error("A range from one date to another needs both dates.")]
    HalfOpen,
    /// `from` is after `to`.
    #[error("The range starts after it ends.")]
    Backwards,
    /// Longer than [`MAX_DAYS`].
    #[error("A range is at most 366 days.")]
    TooLong,
    /// Ends after today (UTC).
    #[error("The range ends after today (UTC).")]
    Future,
}

impl Span {
    /// From `from` to `to`, both included, when that is a span.
    pub fn between(from: NaiveDate, to: NaiveDate) -> Result<Self, SpanError> {
        if from > to {
            return Err(SpanError::Backwards);
        }
        if (to - from).num_days() >= i64::from(MAX_DAYS) {
            return Err(SpanError::TooLong);
        }
        Ok(Self::Between { from, to })
    }

    /// Reads a query's `range`, or its `from` and `to` (which win); `None`
    /// for a parameter that is absent or empty. Neither: the default.
    pub fn read(
        range: Option<&str>,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<Self, SpanError> {
        let date = |text: &str, name| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| SpanError::NotADate(name))
        };
        match (given(from), given(to)) {
            (Some(from), Some(to)) => Self::between(date(from, "From")?, date(to, "To")?),
            (Some(_), None) | (None, Some(_)) => Err(SpanError::HalfOpen),
            (None, None) => match given(range) {
                None => Ok(Self::default()),
                Some(days) => days
                    .parse()
                    .ok()
                    .filter(|days| RANGES.contains(days))
                    .map(Self::Last)
                    .ok_or(SpanError::NotARange),
            },
        }
    }

    /// Its query parameters; none for the default.
    pub fn query(self) -> Vec<(&'static str, String)> {
        match self {
            Self::Last(days) if days == DEFAULT_RANGE => Vec::new(),
            Self::Last(days) => vec![("range", days.to_string())],
            Self::Between { from, to } => vec![("from", from.to_string()), ("to", to.to_string())],
        }
    }

    /// Its query for an export download, in the tab's own words:
    /// `range=30`, or `from=…&to=…`.
    pub fn export_query(self) -> String {
        match self {
            Self::Last(days) => format!("range={days}"),
            Self::Between { from, to } => format!("from={from}&to={to}"),
        }
    }

    /// Reads an export's query (see [`export_query`](Self::export_query)),
    /// checked on the server's day; `days` is read where `range` is missing
    /// (the exports' older spelling, kept for old links); none of them:
    /// the default.
    pub fn read_export(query: &str, today: NaiveDate) -> Result<Self, SpanError> {
        let value = |name: &str| {
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
        };
        let range = value("range").or_else(|| value("days"));
        let span = Self::read(range, value("from"), value("to"))?;
        match span {
            Self::Between { to, .. } if to > today => Err(SpanError::Future),
            span => Ok(span),
        }
    }

    /// How many days it holds.
    pub fn days(self) -> u16 {
        match self {
            Self::Last(days) => days,
            Self::Between { from, to } => {
                u16::try_from((to - from).num_days() + 1).unwrap_or(MAX_DAYS)
            }
        }
    }

    /// Its last day, today being `today`.
    pub fn last(self, today: NaiveDate) -> NaiveDate {
        match self {
            Self::Last(_) => today,
            Self::Between { to, .. } => to,
        }
    }

    /// Its first day, today being `today`.
    pub fn first(self, today: NaiveDate) -> NaiveDate {
        self.last(today) - Days::new(u64::from(self.days().max(1)) - 1)
    }

    /// The server functions' arguments: how many days, and the last one
    /// (`None`: today).
    pub fn call(self) -> (u16, Option<NaiveDate>) {
        match self {
            Self::Last(days) => (days, None),
            Self::Between { to, .. } => (self.days(), Some(to)),
        }
    }

    /// The span of a server function's arguments (see [`call`](Self::call)),
    /// checked on the server's day. Without a last day, `days` that is not
    /// one of [`RANGES`] reads as the default, as it always has.
    pub fn from_call(
        days: u16,
        last: Option<NaiveDate>,
        today: NaiveDate,
    ) -> Result<Self, SpanError> {
        let Some(to) = last else {
            return Ok(Self::Last(range_or_default(days)));
        };
        if to > today {
            return Err(SpanError::Future);
        }
        if days == 0 || days > MAX_DAYS {
            return Err(SpanError::TooLong);
        }
        Self::between(to - Days::new(u64::from(days) - 1), to)
    }

    /// When, to finish "No people counted …": "in the last 30 days",
    /// "from Nov 1 to Nov 15, 2026", "on Nov 3, 2026".
    pub fn during(self) -> String {
        match self {
            Self::Last(_) => format!("in {}", self.words()),
            Self::Between { from, to } if from == to => format!("on {}", self.words()),
            Self::Between { .. } => format!("from {}", self.words()),
        }
    }

    /// What it is, to finish "Visitors over …": "the last 30 days",
    /// "Nov 1 to Nov 15, 2026", "Dec 20, 2025 to Jan 4, 2026", "Nov 3, 2026".
    pub fn words(self) -> String {
        match self {
            Self::Last(days) => format!("the last {days} days"),
            Self::Between { from, to } if from == to => to.format("%b %-d, %Y").to_string(),
            Self::Between { from, to } if from.year() == to.year() => {
                format!("{} to {}", from.format("%b %-d"), to.format("%b %-d, %Y"))
            }
            Self::Between { from, to } => {
                format!(
                    "{} to {}",
                    from.format("%b %-d, %Y"),
                    to.format("%b %-d, %Y")
                )
            }
        }
    }
}

/// A parameter's value, unless it is absent or blank.
fn given(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("a date")
    }

    #[test]
    fn a_query_reads_as_the_span_it_was_written_from() {
        for span in [
            Span::Last(7),
            Span::Last(30),
            Span::Last(365),
            Span::between(day("2026-11-01"), day("2026-11-15")).expect("a span"),
            Span::between(day("2026-02-03"), day("2026-02-03")).expect("a span"),
        ] {
            let query = span.query();
            let get = |name: &str| {
                query
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| value.as_str())
            };
            assert_eq!(Span::read(get("range"), get("from"), get("to")), Ok(span));
        }
        assert!(
            Span::Last(30).query().is_empty(),
            "the default writes nothing"
        );
    }

    #[test]
    fn a_bad_query_gets_a_reason() {
        let read = |range, from, to| Span::read(range, from, to);
        assert_eq!(read(Some("45"), None, None), Err(SpanError::NotARange));
        assert_eq!(read(Some("-7"), None, None), Err(SpanError::NotARange));
        assert_eq!(read(Some("7days"), None, None), Err(SpanError::NotARange));
        assert_eq!(
            read(None, Some("2026-11-01"), None),
            Err(SpanError::HalfOpen)
        );
        assert_eq!(
            read(None, Some("2026-13-01"), Some("2026-11-02")),
            Err(SpanError::NotADate("From"))
        );
        assert_eq!(
            read(None, Some("2026-11-01"), Some("yesterday")),
            Err(SpanError::NotADate("To"))
        );
        assert_eq!(
            read(None, Some("2026-11-02"), Some("2026-11-01")),
            Err(SpanError::Backwards)
        );
        assert_eq!(
            read(None, Some("2025-01-01"), Some("2026-01-02")),
            Err(SpanError::TooLong)
        );
        // A leap year whole is a span; empty fields are absent.
        assert_eq!(
            read(None, Some("2024-01-01"), Some("2024-12-31")).map(Span::days),
            Ok(366)
        );
        assert_eq!(read(Some(""), Some(""), Some(" ")), Ok(Span::default()));
        for error in [
            SpanError::NotARange,
            SpanError::NotADate("From"),
            SpanError::Future,
        ] {
            assert!(error.to_string().ends_with('.'), "{error}");
        }
    }

    #[test]
    fn an_export_reads_the_query_the_tab_writes() {
        let today = day("2026-11-20");
        for span in [
            Span::Last(7),
            Span::Last(30),
            Span::between(day("2026-11-01"), day("2026-11-15")).expect("a span"),
        ] {
            assert_eq!(Span::read_export(&span.export_query(), today), Ok(span));
        }
        assert_eq!(Span::read_export("", today), Ok(Span::default()));
        assert_eq!(Span::read_export("days=90", today), Ok(Span::Last(90)));
        assert_eq!(
            Span::read_export("days=7&range=90", today),
            Ok(Span::Last(90)),
            "the tab's word wins"
        );
        assert_eq!(
            Span::read_export("range=12", today),
            Err(SpanError::NotARange)
        );
        assert_eq!(
            Span::read_export("days=12", today),
            Err(SpanError::NotARange)
        );
        assert_eq!(
            Span::read_export("from=2026-11-19&to=2026-11-21", today),
            Err(SpanError::Future)
        );
        assert_eq!(
            Span::read_export("xdays=7&from=2026-11-01", today),
            Err(SpanError::HalfOpen)
        );
    }

    #[test]
    fn the_server_checks_the_call_on_its_own_day() {
        let today = day("2026-11-20");
        let span = Span::between(day("2026-11-01"), day("2026-11-15")).expect("a span");
        let (days, last) = span.call();
        assert_eq!(Span::from_call(days, last, today), Ok(span));
        assert_eq!(span.first(today), day("2026-11-01"));
        assert_eq!(span.last(today), day("2026-11-15"));
        assert_eq!(Span::Last(7).first(today), day("2026-11-14"));
        assert_eq!(Span::from_call(12, None, today), Ok(Span::Last(30)));
        assert_eq!(
            Span::from_call(3, Some(day("2026-11-21")), today),
            Err(SpanError::Future)
        );
        assert_eq!(
            Span::from_call(0, Some(today), today),
            Err(SpanError::TooLong)
        );
        assert_eq!(
            Span::from_call(367, Some(today), today),
            Err(SpanError::TooLong)
        );
    }

    #[test]
    fn a_span_in_words() {
        let between = |from, to| Span::between(day(from), day(to)).expect("a span").words();
        assert_eq!(Span::Last(90).words(), "the last 90 days");
        assert_eq!(between("2026-11-01", "2026-11-15"), "Nov 1 to Nov 15, 2026");
        assert_eq!(
            between("2025-12-20", "2026-01-04"),
            "Dec 20, 2025 to Jan 4, 2026"
        );
        assert_eq!(between("2026-11-03", "2026-11-03"), "Nov 3, 2026");
        let during = |from, to| Span::between(day(from), day(to)).expect("a span").during();
        assert_eq!(Span::Last(7).during(), "in the last 7 days");
        assert_eq!(
            during("2026-11-01", "2026-11-15"),
            "from Nov 1 to Nov 15, 2026"
        );
        assert_eq!(during("2026-11-03", "2026-11-03"), "on Nov 3, 2026");
    }
}
