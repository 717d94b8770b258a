//! Known-answer tests for the visitor token and the network, with expected
//! values computed outside this code base.
//!
//! Every expected token was produced with Python's standard library:
//!
//! ```text
//! python3 -c 'import hmac,hashlib,sys; print(hmac.new(b"whocomes-test-key",
//!     sys.argv[1].encode(), hashlib.sha256).hexdigest()[:32])' '2026-11-29|203.0.113.7'
//! ```
//!
//! and the first was checked again with OpenSSL:
//! `printf '2026-11-29|203.0.113.7' | openssl dgst -sha256 -hmac whocomes-test-key`
//! (its first 32 hex characters).

use chrono::{DateTime, NaiveDate, Utc};
use whocomes_activity::address::{Network, parse_address};
use whocomes_activity::token::{VisitorKey, visitor_token};

const KEY: &str = "whocomes-test-key";

/// "YYYY-MM-DD|ADDRESS" → first 32 hex characters of HMAC-SHA256.
const VECTORS: &[(&str, &str, &str)] = &[
    (
        "2026-11-29",
        "203.0.113.7",
        "427b10c93306f017ebfd47ee393e3944",
    ),
    (
        "2026-11-30",
        "203.0.113.7",
        "d37db0b1c42f5bc508b9e0c5b6165a02",
    ),
    (
        "2026-11-29",
        "2001:db8:85a3::",
        "2eef013d5a8b38037db08ab632ea1a40",
    ),
    (
        "2026-11-29",
        "198.51.100.23",
        "7fddda651df300a746e86ea9fbf8ed22",
    ),
    ("2026-11-28", "x", "34bb2e103b9bd69c5b86b1e66b1c84fe"),
];

fn key() -> VisitorKey {
    VisitorKey::from_text(KEY).expect("a key")
}

fn day(text: &str) -> NaiveDate {
    text.parse().expect("a day")
}

fn expected(day_text: &str, hashed: &str) -> &'static str {
    VECTORS
        .iter()
        .find(|(d, a, _)| *d == day_text && *a == hashed)
        .map(|(_, _, token)| *token)
        .expect("a vector for this day and address")
}

/// Every textual form of one client gives the token computed for its
/// canonical text.
#[test]
fn every_form_of_an_address_gives_the_known_token() {
    let cases: &[(&str, &str)] = &[
        ("203.0.113.7", "203.0.113.7"),
        ("203.0.113.7:443", "203.0.113.7"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("[::ffff:203.0.113.7]:8080", "203.0.113.7"),
        ("198.51.100.23", "198.51.100.23"),
        ("2001:db8:85a3::8a2e:370:7334", "2001:db8:85a3::"),
        ("[2001:db8:85a3::8a2e:370:7334]:443", "2001:db8:85a3::"),
        // Same /64, another interface identifier: the same visitor.
        ("2001:db8:85a3:0:ffff:ffff:ffff:1", "2001:db8:85a3::"),
        ("2001:DB8:85A3:0000::1", "2001:db8:85a3::"),
    ];
    for &(written, hashed) in cases {
        let ip = parse_address(written);
        assert!(ip.is_some(), "{written} parses");
        let token = visitor_token(&key(), day("2026-11-29"), ip);
        assert_eq!(token.as_str(), expected("2026-11-29", hashed), "{written}");
    }
}

#[test]
fn unreadable_addresses_hash_as_x() {
    let token = visitor_token(&key(), day("2026-11-28"), parse_address("not-an-address"));
    assert_eq!(token.as_str(), expected("2026-11-28", "x"));
}

#[test]
fn the_token_rolls_over_at_midnight_utc() {
    let ip = parse_address("203.0.113.7");
    let before: DateTime<Utc> = "2026-11-29T23:59:59.999Z".parse().expect("a time");
    let after: DateTime<Utc> = "2026-11-30T00:00:00Z".parse().expect("a time");
    let late = visitor_token(&key(), before.date_naive(), ip);
    let early = visitor_token(&key(), after.date_naive(), ip);
    assert_eq!(late.as_str(), expected("2026-11-29", "203.0.113.7"));
    assert_eq!(early.as_str(), expected("2026-11-30", "203.0.113.7"));
    // A time written with an offset is still its UTC day.
    let offset: DateTime<Utc> = "2026-11-30T00:30:00+01:00".parse().expect("a time");
    assert_eq!(
        visitor_token(&key(), offset.date_naive(), ip).as_str(),
        expected("2026-11-29", "203.0.113.7")
    );
}

#[test]
fn another_key_gives_another_token() {
    let other = VisitorKey::from_text("another key").expect("a key");
    let token = visitor_token(&other, day("2026-11-29"), parse_address("203.0.113.7"));
    assert_ne!(token.as_str(), expected("2026-11-29", "203.0.113.7"));
}

#[test]
fn networks_of_every_form() {
    let cases = [
        ("203.0.113.7:443", "203.0.113.x"),
        ("[::ffff:203.0.113.7]:1", "203.0.113.x"),
        ("2001:db8:85a3::8a2e:370:7334", "2001:db8:85a3:x"),
        ("[2001:db8::1]:443", "2001:db8:0:x"),
        ("2001:0db8:0000:0042::1", "2001:db8:0:x"),
        ("garbage", "x"),
    ];
    for (written, network) in cases {
        assert_eq!(
            Network::of(parse_address(written)).as_str(),
            network,
            "{written}"
        );
    }
}

/// The day keys (`--token-keys day`): `K(2000-01-01) = HMAC(seed, "whocomes
/// day key")`, `K(d+1) = HMAC(K(d), "whocomes next day")`, then the token as
/// above with `K(d)`. Expected value from Python's standard library:
///
/// ```text
/// import hmac, hashlib, datetime
/// k = hmac.new(b"whocomes-test-key", b"whocomes day key", hashlib.sha256).digest()
/// d = datetime.date(2000, 1, 1)
/// while d < datetime.date(2026, 11, 29):
///     k = hmac.new(k, b"whocomes next day", hashlib.sha256).digest(); d += datetime.timedelta(days=1)
/// print(hmac.new(k, b"2026-11-29|203.0.113.7", hashlib.sha256).hexdigest()[:32])
/// ```
#[test]
fn day_keys_match_an_independent_ratchet() {
    let day = NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day");
    let keys = whocomes_activity::ratchet::DayKeys::seed(KEY.as_bytes(), day).expect("a seed");
    let key = keys.key_for(day).expect("today's key");
    let token = visitor_token(&key, day, parse_address("203.0.113.7"));
    assert_eq!(token.as_str(), "2f80b6aab2afdf74f85d64a301cca5a9");
}
