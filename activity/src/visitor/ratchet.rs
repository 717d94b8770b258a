//! Day keys that forget (forward secrecy for tokens). Each UTC day has its
//! own key, and the next day's key is made from it one way:
//! `K(d+1) = HMAC-SHA256(K(d), "whocomes next day")`. What is kept is
//! today's key and yesterday's (for hits that arrive around midnight);
//! older keys are gone, and nothing kept can make them again — so a stolen
//! key cannot recompute the tokens of the days before yesterday, although
//! the stored /24 leaves only 256 candidates per token.
//!
//! Sites that share a seed agree on every day's key: `K(EPOCH)` is made
//! from the seed, and each site ratchets from there to its own today.

use chrono::{Days, NaiveDate};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::visitor::token::{KeyError, VisitorKey};

/// The day the ratchet starts from for every seed.
pub const EPOCH: NaiveDate = match NaiveDate::from_ymd_opt(2000, 1, 1) {
    Some(day) => day,
    None => panic!("a valid epoch"),
};

/// One day's key material.
type Material = [u8; 32];

fn hmac(key: &[u8], message: &[u8]) -> Material {
    let mut mac = match <Hmac<Sha256> as Mac>::new_from_slice(key) {
        Ok(mac) => mac,
        // HMAC takes keys of any length.
        Err(_) => unreachable!("HMAC accepts any key length"),
    };
    mac.update(message);
    mac.finalize().into_bytes().into()
}

fn next(material: &Material) -> Material {
    hmac(material, b"whocomes next day")
}

/// Today's and yesterday's keys, and nothing older (with their HMAC states
/// made once, so a hit costs no key set-up).
#[derive(Clone)]
pub struct DayKeys {
    day: NaiveDate,
    today: Material,
    yesterday: Option<Material>,
    today_key: VisitorKey,
    yesterday_key: Option<VisitorKey>,
}

impl PartialEq for DayKeys {
    fn eq(&self, other: &Self) -> bool {
        (self.day, self.today, self.yesterday) == (other.day, other.today, other.yesterday)
    }
}

impl Eq for DayKeys {}

fn key_of(material: &Material) -> VisitorKey {
    match VisitorKey::from_bytes(material.to_vec()) {
        Ok(key) => key,
        Err(_) => unreachable!("32 bytes are a key"),
    }
}

impl std::fmt::Debug for DayKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DayKeys")
            .field("day", &self.day)
            .finish_non_exhaustive()
    }
}

/// Why a kept state cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StateError {
    /// Not `DAY TODAY-HEX [YESTERDAY-HEX]`.
    #[error("the day-key state is not `YYYY-MM-DD <64 hex> [<64 hex>]`")]
    Malformed,
}

impl DayKeys {
    /// The keys of `day` made from `seed` (ratcheted from [`EPOCH`]; a day
    /// before it starts its own chain from the seed).
    pub fn seed(seed: &[u8], day: NaiveDate) -> Result<Self, KeyError> {
        if seed.is_empty() {
            return Err(KeyError::Empty);
        }
        let mut keys = Self::new(day.min(EPOCH), hmac(seed, b"whocomes day key"), None);
        keys.advance_to(day);
        Ok(keys)
    }

    fn new(day: NaiveDate, today: Material, yesterday: Option<Material>) -> Self {
        Self {
            day,
            today_key: key_of(&today),
            yesterday_key: yesterday.as_ref().map(key_of),
            today,
            yesterday,
        }
    }

    /// The day whose key is today's.
    pub fn day(&self) -> NaiveDate {
        self.day
    }

    /// Ratchets forward to `day` (never back), dropping every key older
    /// than the day before it.
    pub fn advance_to(&mut self, day: NaiveDate) {
        if self.day >= day {
            return;
        }
        while self.day < day {
            let next = next(&self.today);
            self.yesterday = Some(std::mem::replace(&mut self.today, next));
            self.day = self.day + Days::new(1);
        }
        *self = Self::new(self.day, self.today, self.yesterday);
    }

    /// The key of `day`, if the kept material makes it: today's, yesterday's,
    /// or tomorrow's (made on the fly when midnight has passed before the
    /// ratchet turned). `None` for any older day.
    pub fn key_for(&self, day: NaiveDate) -> Option<VisitorKey> {
        self.token_for(day, |key| key.clone())
    }

    /// Applies `make` to the key of `day`, if the kept material makes it
    /// (as [`key_for`](Self::key_for)), without copying a kept key.
    pub fn token_for<T>(&self, day: NaiveDate, make: impl FnOnce(&VisitorKey) -> T) -> Option<T> {
        if day == self.day {
            Some(make(&self.today_key))
        } else if Some(day) == self.day.pred_opt() {
            self.yesterday_key.as_ref().map(make)
        } else if Some(day) == self.day.succ_opt() {
            Some(make(&key_of(&next(&self.today))))
        } else {
            None
        }
    }

    /// The state to keep on disk: `DAY TODAY-HEX [YESTERDAY-HEX]`.
    pub fn to_state(&self) -> String {
        let mut state = format!("{} {}", self.day, hex(&self.today));
        if let Some(yesterday) = &self.yesterday {
            state.push(' ');
            state.push_str(&hex(yesterday));
        }
        state.push('\n');
        state
    }

    /// Reads what [`to_state`](Self::to_state) wrote.
    pub fn from_state(text: &str) -> Result<Self, StateError> {
        let mut parts = text.split_whitespace();
        let day = parts
            .next()
            .and_then(|day| day.parse().ok())
            .ok_or(StateError::Malformed)?;
        let today = parts.next().and_then(unhex).ok_or(StateError::Malformed)?;
        let yesterday = match parts.next() {
            Some(text) => Some(unhex(text).ok_or(StateError::Malformed)?),
            None => None,
        };
        if parts.next().is_some() {
            return Err(StateError::Malformed);
        }
        Ok(Self::new(day, today, yesterday))
    }
}

fn hex(bytes: &Material) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Material> {
    if text.len() != 64 {
        return None;
    }
    let mut material = [0; 32];
    for (at, byte) in material.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * at..2 * at + 2)?, 16).ok()?;
    }
    Some(material)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::visitor::token::visitor_token;

    fn day(n: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, n).expect("a day")
    }

    #[test]
    fn sites_sharing_a_seed_agree_whenever_they_started() {
        let early = DayKeys::seed(b"shared seed", day(1)).expect("a seed");
        let mut ratcheted = early.clone();
        ratcheted.advance_to(day(20));
        let late = DayKeys::seed(b"shared seed", day(20)).expect("a seed");
        assert_eq!(ratcheted, late);
        let ip = Some("203.0.113.7".parse().expect("an address"));
        let token = |keys: &DayKeys| {
            visitor_token(&keys.key_for(day(20)).expect("today's key"), day(20), ip)
        };
        assert_eq!(token(&ratcheted), token(&late));
        let other = DayKeys::seed(b"another seed", day(20)).expect("a seed");
        assert_ne!(token(&other), token(&late));
    }

    #[test]
    fn the_kept_material_cannot_make_a_token_from_three_days_ago() {
        let ip = Some("203.0.113.7".parse().expect("an address"));
        let mut keys = DayKeys::seed(b"a seed", day(10)).expect("a seed");
        let then = visitor_token(&keys.key_for(day(10)).expect("the key"), day(10), ip);
        let then_material = keys.today;
        keys.advance_to(day(13));

        assert!(keys.key_for(day(10)).is_none(), "no key for three days ago");
        assert!(keys.key_for(day(11)).is_none(), "nor for two");
        // Nothing kept, nor anything the kept keys make going forward,
        // gives that day's token back.
        let state = keys.to_state();
        assert!(
            !state.contains(&hex(&then_material)),
            "the old key is not kept"
        );
        for candidate in [day(12), day(13), day(14)] {
            let key = keys.key_for(candidate).expect("a kept or next key");
            for token_day in [day(10), candidate] {
                assert_ne!(visitor_token(&key, token_day, ip), then);
            }
        }
        // Kept and read back, the state is the same keys.
        assert_eq!(DayKeys::from_state(&state).expect("reads"), keys);
    }

    #[test]
    fn yesterday_and_tomorrow_are_at_hand_for_midnight() {
        let keys = DayKeys::seed(b"a seed", day(10)).expect("a seed");
        let mut next_day = keys.clone();
        next_day.advance_to(day(11));
        let ip = Some("198.51.100.1".parse().expect("an address"));
        let made = |keys: &DayKeys, d| visitor_token(&keys.key_for(d).expect("a key"), d, ip);
        assert_eq!(
            made(&keys, day(11)),
            made(&next_day, day(11)),
            "tomorrow on the fly"
        );
        assert_eq!(
            made(&keys, day(10)),
            made(&next_day, day(10)),
            "yesterday kept"
        );
        assert!(DayKeys::from_state("2026-11-10 00").is_err());
        assert!(DayKeys::from_state("").is_err());
    }
}
