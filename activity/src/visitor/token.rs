//! The visitor token: who came, within one day, without saying who.
//!
//! `HMAC-SHA256(key, "YYYY-MM-DD|ADDRESS")`, first 16 bytes, 32 lowercase hex
//! characters. The same address on the same UTC day with the same key gives
//! the same token (on every site that shares the key); the next day gives a
//! different one, so nothing joins one day to the next. The key is what stops
//! anybody from hashing every IPv4 address to reverse a token.

use std::fmt::Write as _;
use std::net::IpAddr;

use chrono::{Datelike as _, NaiveDate};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::visitor::address::{canonical, write_dotted};
use crate::visitor::short_text::ShortText;

/// The site's secret key. Its `Debug` output never shows the bytes.
///
/// Kept as the HMAC state after the key has been absorbed, so making a token
/// does not hash the key again for every request.
#[derive(Clone)]
pub struct VisitorKey(Hmac<Sha256>);

/// Why a key was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeyError {
    /// An empty key would make every token guessable.
    #[error("the key is empty")]
    Empty,
}

impl VisitorKey {
    /// A key given as text (`--key`, `WHOCOMES_KEY`): its UTF-8 bytes, as given.
    pub fn from_text(text: &str) -> Result<Self, KeyError> {
        Self::from_bytes(text.as_bytes().to_vec())
    }

    /// A key given as bytes (a key file, or 32 random bytes made on first run).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, KeyError> {
        if bytes.is_empty() {
            return Err(KeyError::Empty);
        }
        // HMAC accepts a key of any length: this cannot fail.
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(&bytes).map_err(|_| KeyError::Empty)?;
        Ok(Self(mac))
    }
}

impl std::fmt::Debug for VisitorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VisitorKey(redacted)")
    }
}

/// A visitor's token for one day: 32 lowercase hex characters (kept
/// inline: made on every counted request).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VisitorToken(ShortText<32>);

impl VisitorToken {
    /// Reads a token back from where it was kept: 32 lowercase hex characters.
    pub fn parse(text: &str) -> Option<Self> {
        let valid = text.len() == 32
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        valid
            .then(|| ShortText::from_text(text).map(Self))
            .flatten()
    }

    /// The token's text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl std::fmt::Display for VisitorToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for VisitorToken {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for VisitorToken {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&text).ok_or_else(|| {
            serde::de::Error::custom("a visitor token is 32 lowercase hex characters")
        })
    }
}

/// The address text that goes into the token: an IPv4-mapped IPv6 address
/// as its IPv4 address (dotted decimal); an IPv6 address cut to its /64 (last
/// 64 bits zeroed, privacy addresses rotate inside one) in RFC 5952 form; an
/// unreadable address as `x`.
pub fn token_address(ip: Option<IpAddr>) -> String {
    let mut text = String::with_capacity(39);
    let _ = write_token_address(&mut text, ip);
    text
}

/// Writes [`token_address`] into `out` without making a string first.
fn write_token_address(out: &mut impl std::fmt::Write, ip: Option<IpAddr>) -> std::fmt::Result {
    match ip.map(canonical) {
        Some(IpAddr::V4(v4)) => write_dotted(out, &v4.octets()),
        Some(IpAddr::V6(v6)) => {
            let prefix = u128::from(v6) & (u128::MAX << 64);
            // std writes IPv6 in RFC 5952 form: lowercase, longest zero run as `::`.
            write!(out, "{}", std::net::Ipv6Addr::from(prefix))
        }
        None => out.write_str("x"),
    }
}

/// The visitor token of `ip` on `day` under `key`.
pub fn visitor_token(key: &VisitorKey, day: NaiveDate, ip: Option<IpAddr>) -> VisitorToken {
    // `YYYY-MM-DD|address`, made on the stack and fed to the HMAC at once:
    // one update costs less than one per formatted piece.
    let mut message = ShortText::<64>::new();
    let _ = write_day(&mut message, day);
    let _ = message.write_str("|");
    let _ = write_token_address(&mut message, ip);
    let mut mac = key.0.clone();
    mac.update(message.as_str().as_bytes());
    let digest = mac.finalize().into_bytes();
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = [0u8; 32];
    for (pair, byte) in hex.chunks_exact_mut(2).zip(&digest[..16]) {
        pair[0] = HEX[usize::from(byte >> 4)];
        pair[1] = HEX[usize::from(byte & 0x0f)];
    }
    // 32 hex digits: ASCII, and they fill the token exactly.
    let text = std::str::from_utf8(&hex).unwrap_or_default();
    VisitorToken(ShortText::from_text(text).unwrap_or_else(ShortText::new))
}

/// `YYYY-MM-DD`, as `{:04}-{:02}-{:02}` writes it; by hand for the years
/// every site lives in (chrono's and std's formatters cost more than the
/// hash), by the formatter for the rest.
fn write_day(out: &mut impl std::fmt::Write, day: NaiveDate) -> std::fmt::Result {
    let (year, month, date) = (day.year(), day.month(), day.day());
    if !(0..=9999).contains(&year) {
        return write!(out, "{year:04}-{month:02}-{date:02}");
    }
    let digit = |n: u32| char::from(b'0' + (n % 10) as u8);
    let year = year.unsigned_abs();
    let text = [
        digit(year / 1000),
        digit(year / 100),
        digit(year / 10),
        digit(year),
        '-',
        digit(month / 10),
        digit(month),
        '-',
        digit(date / 10),
        digit(date),
    ];
    text.iter().try_for_each(|c| out.write_char(*c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().expect("test address"))
    }

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("test day")
    }

    #[test]
    fn the_address_text_is_canonical_and_cut_to_the_64() {
        assert_eq!(token_address(ip("203.0.113.7")), "203.0.113.7");
        assert_eq!(token_address(ip("::ffff:203.0.113.7")), "203.0.113.7");
        assert_eq!(
            token_address(ip("2001:db8:85a3::8a2e:370:7334")),
            "2001:db8:85a3::"
        );
        assert_eq!(token_address(ip("2001:DB8:85A3:0:1::1")), "2001:db8:85a3::");
        assert_eq!(token_address(ip("2001:db8:1:2:3:4:5:6")), "2001:db8:1:2::");
        assert_eq!(token_address(ip("::1")), "::");
        assert_eq!(token_address(None), "x");
    }

    #[test]
    fn the_key_is_never_shown() {
        let key = VisitorKey::from_text("hunter2-secret").expect("a key");
        assert!(!format!("{key:?}").contains("hunter2"));
        assert_eq!(VisitorKey::from_text("").err(), Some(KeyError::Empty));
    }

    #[test]
    fn tokens_are_32_lowercase_hex_and_change_with_the_day() {
        let key = VisitorKey::from_text("k").expect("a key");
        let a = visitor_token(&key, day("2026-11-29"), ip("203.0.113.7"));
        let b = visitor_token(&key, day("2026-11-30"), ip("203.0.113.7"));
        assert_eq!(a.as_str().len(), 32);
        assert!(
            a.as_str()
                .bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
        );
        assert_ne!(a, b);
    }

    /// Tokens are kept in the stores and shared by instances of one site:
    /// they must never change for the same key, day and address. Expected
    /// values: HMAC-SHA256 under 32 bytes of 7 of `YYYY-MM-DD|address`, first
    /// 16 bytes as hex (computed with Python's `hmac`).
    #[test]
    fn tokens_are_the_hmac_of_the_day_and_address_text() {
        let key = VisitorKey::from_bytes(vec![7; 32]).expect("a key");
        let token = |address: Option<IpAddr>| visitor_token(&key, day("2026-11-29"), address);
        assert_eq!(
            token(ip("203.0.113.7")).as_str(),
            "5fb72f36cfe119896e1af283a92c3bcf"
        );
        assert_eq!(
            token(ip("2001:db8:85a3::8a2e:370:7334")).as_str(),
            "69e749ce4cbd25f8796e1d4222f8d3dc",
            "cut to the /64"
        );
        assert_eq!(token(None).as_str(), "7d01832e7132a24c5acfb0eb224a4996");
    }

    #[test]
    fn the_day_is_written_as_the_formatter_writes_it() {
        for text in ["2026-11-29", "0001-01-01", "0000-03-01", "9999-12-31"] {
            let mut written = String::new();
            write_day(&mut written, day(text)).expect("written");
            assert_eq!(written, text);
        }
        for (year, month, date) in [(10_000, 1, 2), (-5, 6, 7), (262_000, 12, 31)] {
            let day = NaiveDate::from_ymd_opt(year, month, date).expect("a day");
            let mut written = String::new();
            write_day(&mut written, day).expect("written");
            assert_eq!(written, format!("{year:04}-{month:02}-{date:02}"));
        }
    }
}
