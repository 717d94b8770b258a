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

use crate::address::canonical;
use crate::short_text::ShortText;

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
        Some(IpAddr::V4(v4)) => write!(out, "{v4}"),
        Some(IpAddr::V6(v6)) => {
            let prefix = u128::from(v6) & (u128::MAX << 64);
            // std writes IPv6 in RFC 5952 form: lowercase, longest zero run as `::`.
            write!(out, "{}", std::net::Ipv6Addr::from(prefix))
        }
        None => out.write_str("x"),
    }
}

/// Feeds formatted text straight into the HMAC.
struct MacWriter<'a>(&'a mut Hmac<Sha256>);

impl std::fmt::Write for MacWriter<'_> {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.update(text.as_bytes());
        Ok(())
    }
}

/// The visitor token of `ip` on `day` under `key`.
pub fn visitor_token(key: &VisitorKey, day: NaiveDate, ip: Option<IpAddr>) -> VisitorToken {
    let mut mac = key.0.clone();
    // `YYYY-MM-DD|`, written by hand: chrono's formatter costs more than the hash.
    let mut feed = MacWriter(&mut mac);
    let _ = write!(
        feed,
        "{:04}-{:02}-{:02}|",
        day.year(),
        day.month(),
        day.day()
    );
    let _ = write_token_address(&mut feed, ip);
    let digest = mac.finalize().into_bytes();
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = ShortText::new();
    for byte in &digest[..16] {
        let pair = [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0x0f)]];
        // Two hex digits: ASCII, and 16 pairs fill the 32 bytes exactly.
        let _ = hex.write_str(std::str::from_utf8(&pair).unwrap_or_default());
    }
    VisitorToken(hex)
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
}
