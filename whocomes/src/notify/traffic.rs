//! The traffic rules: whether an hour's people are a spike, a drop to
//! nothing, or usual. People are counted by the hour they arrived in (a
//! visitor-day's first page load, the stats API's `time:hour`), and an
//! hour is compared with the same hour of the day on the days before it
//! that had any people at all (a site that was down for a day does not
//! lower its own usual level).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Timelike as _, Utc};

/// When an hour's people are worth telling the owner about. The defaults
/// are in docs/OPERATIONS.md ("Alerts").
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficThresholds {
    /// A spike: people in the hour at least this many times its usual
    /// level (default 3).
    pub spike_factor: f64,
    /// ...and at least this many people in the hour (default 20), so a
    /// site of five readers is not paged when a sixth comes.
    pub spike_floor: u64,
    /// A drop: no people in an hour whose usual level is at least this
    /// (default 3 people).
    pub drop_usual: f64,
    /// How many days before the hour its usual level is read from
    /// (default 28: four weeks).
    pub history_days: u32,
    /// The fewest of those days with people for the rules to judge at all
    /// (default 7): a new site has no usual level.
    pub least_days: u32,
}

impl Default for TrafficThresholds {
    fn default() -> Self {
        Self {
            spike_factor: 3.0,
            spike_floor: 20,
            drop_usual: 3.0,
            history_days: 28,
            least_days: 7,
        }
    }
}

/// What an hour's people were, against its usual level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HourLevel {
    /// Too little history to judge.
    Unknown,
    /// Within what is usual.
    Usual {
        /// The hour's people.
        people: u64,
        /// The same hour's mean on the days before.
        usual: f64,
    },
    /// Far above the usual level.
    Spike {
        /// The hour's people.
        people: u64,
        /// The same hour's mean on the days before.
        usual: f64,
    },
    /// No people where there should have been some.
    Drop {
        /// The same hour's mean on the days before.
        usual: f64,
    },
}

/// People by the hour they arrived in: each hour's start (UTC) and its
/// people; an hour left out had none.
pub type Hours = BTreeMap<DateTime<Utc>, u64>;

impl TrafficThresholds {
    /// How the hour starting `hour` compares with the same hour of the
    /// `history_days` days before it.
    pub fn level(&self, hours: &Hours, hour: DateTime<Utc>) -> HourLevel {
        let hour = hour
            .with_minute(0)
            .and_then(|h| h.with_second(0))
            .and_then(|h| h.with_nanosecond(0))
            .unwrap_or(hour);
        let mut samples = Vec::new();
        for back in 1..=i64::from(self.history_days) {
            let same = hour - Duration::days(back);
            let day_start = same - Duration::hours(i64::from(same.hour()));
            let day_end = day_start + Duration::days(1);
            let day_had_people = hours.range(day_start..day_end).any(|(_, &n)| n > 0);
            if day_had_people {
                samples.push(hours.get(&same).copied().unwrap_or(0));
            }
        }
        if samples.len() < self.least_days as usize {
            return HourLevel::Unknown;
        }
        let usual = samples.iter().sum::<u64>() as f64 / samples.len() as f64;
        let people = hours.get(&hour).copied().unwrap_or(0);
        if people >= self.spike_floor && people as f64 >= self.spike_factor * usual {
            HourLevel::Spike { people, usual }
        } else if people == 0 && usual >= self.drop_usual {
            HourLevel::Drop { usual }
        } else {
            HourLevel::Usual { people, usual }
        }
    }
}
