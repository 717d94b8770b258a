//! When a digest is due and which days it covers. A digest is sent at the
//! operator's hour, in their time zone: every day, or on one day of the
//! week. It covers whocomes' own days (UTC) before the day it is sent on
//! (in that zone): the day before for a daily one, the seven days before
//! for a weekly one. The latest period due is sent once (a server that was
//! stopped at the hour sends it when it starts), and the record says
//! which period was sent last.

use chrono::{DateTime, Datelike as _, Days, NaiveDate, TimeZone as _, Utc, Weekday};
use chrono_tz::Tz;

/// How often a digest is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Every {
    /// Each day, covering the day before.
    Day,
    /// On this day of the week, covering the seven days before.
    Week(Weekday),
}

impl Every {
    /// The days a digest covers.
    pub fn days(self) -> u16 {
        match self {
            Self::Day => 1,
            Self::Week(_) => 7,
        }
    }

    /// Its name in the record and in the subject: `daily`, `weekly`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Day => "daily",
            Self::Week(_) => "weekly",
        }
    }
}

/// The days one digest covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// The first day (UTC days, as the tab counts them).
    pub first: NaiveDate,
    /// The last day, included.
    pub last: NaiveDate,
    /// When it became due.
    pub due: DateTime<Utc>,
}

/// The latest period due at `now` for a digest sent `every` at `hour`
/// o'clock in `zone`.
pub fn latest(every: Every, hour: u8, zone: Tz, now: DateTime<Utc>) -> Period {
    let local = now.with_timezone(&zone);
    let mut day = local.date_naive();
    loop {
        let wanted_day = match every {
            Every::Day => true,
            Every::Week(weekday) => day.weekday() == weekday,
        };
        // An hour a clock change skips is taken at its end; one it
        // repeats, at its first time.
        let moment = zone
            .with_ymd_and_hms(day.year(), day.month(), day.day(), u32::from(hour), 0, 0)
            .earliest()
            .or_else(|| {
                zone.with_ymd_and_hms(
                    day.year(),
                    day.month(),
                    day.day(),
                    u32::from(hour) + 1,
                    0,
                    0,
                )
                .earliest()
            })
            .map(|moment| moment.with_timezone(&Utc));
        if let Some(moment) = moment.filter(|moment| wanted_day && *moment <= now) {
            let last = day - Days::new(1);
            let first = last - Days::new(u64::from(every.days()) - 1);
            return Period {
                first,
                last,
                due: moment,
            };
        }
        day = day - Days::new(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default()
    }

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap_or_default()
    }

    #[test]
    fn a_daily_digest_covers_the_day_before_from_its_hour_on() {
        let paris: Tz = "Europe/Paris".parse().unwrap_or(Tz::UTC);
        // 07:59 in Paris (06:59 UTC): yesterday's is still the latest.
        let before = latest(Every::Day, 8, paris, at("2026-12-07T06:59:00Z"));
        assert_eq!(
            (before.first, before.last),
            (date("2026-12-05"), date("2026-12-05"))
        );
        let after = latest(Every::Day, 8, paris, at("2026-12-07T07:00:00Z"));
        assert_eq!(
            (after.first, after.last),
            (date("2026-12-06"), date("2026-12-06"))
        );
        assert_eq!(after.due, at("2026-12-07T07:00:00Z"));
    }

    #[test]
    fn a_weekly_digest_covers_the_seven_days_before_its_day() {
        // 2026-12-07 is a Monday.
        let monday = latest(
            Every::Week(Weekday::Mon),
            9,
            Tz::UTC,
            at("2026-12-09T12:00:00Z"),
        );
        assert_eq!(
            (monday.first, monday.last),
            (date("2026-11-30"), date("2026-12-06"))
        );
        assert_eq!(monday.due, at("2026-12-07T09:00:00Z"));
        // Before Monday's hour, the Monday before.
        let early = latest(
            Every::Week(Weekday::Mon),
            9,
            Tz::UTC,
            at("2026-12-07T08:00:00Z"),
        );
        assert_eq!(
            (early.first, early.last),
            (date("2026-11-23"), date("2026-11-29"))
        );
    }

    #[test]
    fn an_hour_a_clock_change_skips_is_taken_at_its_end() {
        let paris: Tz = "Europe/Paris".parse().unwrap_or(Tz::UTC);
        // 2026-03-29: 02:00 does not happen in Paris (it is 03:00).
        let sunday = latest(Every::Day, 2, paris, at("2026-03-29T02:30:00Z"));
        assert_eq!(sunday.due, at("2026-03-29T01:00:00Z"));
        assert_eq!(sunday.last, date("2026-03-28"));
    }
}
