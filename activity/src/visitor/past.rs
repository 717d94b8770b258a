//! The keys of days the kept day keys no longer make, for counting old
//! requests (an imported log, `whocomes explain` on last week's lines).
//!
//! Whatever makes them, one rule holds: the same day always gets the same
//! key, however a history is split across runs, so the same address on the
//! same day is one visitor-day. Two ways to get there:
//!
//! - [`FromSeed`]: with the seed the day keys were made from (`--key`),
//!   every day's key follows from it by the ratchet — the very key the live
//!   site used that day.
//! - A key per day kept beside the data while that day's visitor rows live
//!   (the server's `import-day-keys` file, behind the [`PastKeys`] trait:
//!   this crate does no I/O).

use std::collections::BTreeMap;
use std::sync::Mutex;

use chrono::NaiveDate;

use crate::visitor::ratchet::DayKeys;
use crate::visitor::token::{KeyError, VisitorKey};

/// Where the key of any day comes from.
pub trait PastKeys: Send + Sync + std::fmt::Debug {
    /// The key of `day`: the same every time it is asked for.
    fn key(&self, day: NaiveDate) -> VisitorKey;
}

/// Every day's key made from a seed by the ratchet ([`DayKeys::seed`]):
/// the keys a live site seeded with the same seed used.
pub struct FromSeed {
    seed: Vec<u8>,
    made: Mutex<Made>,
}

/// The keys made so far: the latest day's state, to ratchet forward from
/// instead of from the epoch again (a log is read oldest day first), and
/// the keys of the days already met (lines near midnight go back and forth).
#[derive(Default)]
struct Made {
    latest: Option<DayKeys>,
    keys: BTreeMap<NaiveDate, VisitorKey>,
}

/// How many days' keys [`FromSeed`] keeps at hand.
const DAYS_AT_HAND: usize = 400;

impl std::fmt::Debug for FromSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FromSeed(redacted)")
    }
}

impl FromSeed {
    /// Keys made from `seed` (not empty).
    pub fn new(seed: &[u8]) -> Result<Self, KeyError> {
        if seed.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Self {
            seed: seed.to_vec(),
            made: Mutex::new(Made::default()),
        })
    }
}

impl PastKeys for FromSeed {
    fn key(&self, day: NaiveDate) -> VisitorKey {
        let mut made = self
            .made
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(key) = made.keys.get(&day) {
            return key.clone();
        }
        let mut keys = match &made.latest {
            Some(keys) if keys.day() <= day => keys.clone(),
            _ => match DayKeys::seed(&self.seed, day) {
                Ok(keys) => keys,
                Err(_) => unreachable!("the seed was checked not to be empty"),
            },
        };
        keys.advance_to(day);
        let key = match keys.key_for(day) {
            Some(key) => key,
            None => unreachable!("day keys always make their own day's key"),
        };
        if made.keys.len() >= DAYS_AT_HAND {
            made.keys.clear();
        }
        made.keys.insert(day, key.clone());
        if made.latest.as_ref().is_none_or(|latest| latest.day() < day) {
            made.latest = Some(keys);
        }
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::visitor::token::visitor_token;

    fn day(n: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, n).expect("a day")
    }

    #[test]
    fn a_seed_makes_the_live_sites_key_of_any_day_in_any_order() {
        let past = FromSeed::new(b"shared seed").expect("a seed");
        let ip = Some("203.0.113.7".parse().expect("an address"));
        for n in [20, 3, 4, 28, 1] {
            let live = DayKeys::seed(b"shared seed", day(n)).expect("a seed");
            assert_eq!(
                visitor_token(&past.key(day(n)), day(n), ip),
                visitor_token(&live.key_for(day(n)).expect("a key"), day(n), ip),
                "day {n}"
            );
        }
        let other = FromSeed::new(b"another seed").expect("a seed");
        assert_ne!(
            visitor_token(&other.key(day(3)), day(3), ip),
            visitor_token(&past.key(day(3)), day(3), ip)
        );
        assert!(FromSeed::new(b"").is_err());
    }
}
