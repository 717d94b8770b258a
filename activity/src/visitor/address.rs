//! Addresses: reading one from text, finding the client's behind trusted
//! proxies, and cutting it to the network a hit may keep.
//!
//! An address feeds a count, never a permission: nothing here decides access.

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use crate::visitor::short_text::ShortText;

/// Reads an address written as text, dropping a port if there is one:
/// `203.0.113.7`, `203.0.113.7:443`, `2001:db8::1`, `[2001:db8::1]` and
/// `[2001:db8::1]:443`. Surrounding spaces are ignored; anything else is `None`.
///
/// A bare IPv6 address is read whole first, so `2001:db8::1` never loses its
/// last group to a "port".
pub fn parse_address(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(socket) = text.parse::<SocketAddr>() {
        return Some(socket.ip());
    }
    let bracketed = text.strip_prefix('[')?.strip_suffix(']')?;
    bracketed.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
}

/// An IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) as the IPv4 address it
/// carries; any other address unchanged.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// The network a hit keeps instead of the address: `203.0.113.x` for IPv4,
/// the first three groups and `x` for IPv6 (`2001:db8:85a3:x`), and `x` when
/// the address could not be read. Never more than that.
/// Kept inline (at most 16 characters): made on every counted request.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Network(ShortText<16>);

impl Network {
    /// The network of an address (`None`: unreadable, written `x`).
    pub fn of(ip: Option<IpAddr>) -> Self {
        let mut text = ShortText::new();
        // At most `255.255.255.x` or `ffff:ffff:ffff:x`: it always fits.
        let _ = match ip.map(canonical) {
            Some(IpAddr::V4(v4)) => {
                write_dotted(&mut text, &v4.octets()[..3]).and_then(|()| text.write_str(".x"))
            }
            Some(IpAddr::V6(v6)) => {
                let [a, b, c, ..] = v6.segments();
                write!(text, "{a:x}:{b:x}:{c:x}:x")
            }
            None => text.write_str("x"),
        };
        Self(text)
    }

    /// Reads a network back from where it was kept: `x`, three decimal
    /// octets and `x`, or three hex groups and `x`. Anything longer is refused.
    pub fn parse(text: &str) -> Option<Self> {
        if text == "x" {
            return ShortText::from_text(text).map(Self);
        }
        let (parts, separator) = if let Some(head) = text.strip_suffix(".x") {
            (head, '.')
        } else {
            (text.strip_suffix(":x")?, ':')
        };
        let groups: Vec<&str> = parts.split(separator).collect();
        let valid = groups.len() == 3
            && groups.iter().all(|group| match separator {
                '.' => group.parse::<u8>().is_ok(),
                _ => u16::from_str_radix(group, 16).is_ok() && *group == group.to_ascii_lowercase(),
            });
        valid
            .then(|| ShortText::from_text(text).map(Self))
            .flatten()
    }

    /// The network as written in a row.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// Writes `octets` in dotted decimal (`203.0.113`), as `{a}.{b}.{c}`
/// would, without the formatter: it is done twice on every counted request.
pub(crate) fn write_dotted(out: &mut impl std::fmt::Write, octets: &[u8]) -> std::fmt::Result {
    let digit = |n: u8| char::from(b'0' + n);
    for (at, octet) in octets.iter().enumerate() {
        if at > 0 {
            out.write_char('.')?;
        }
        let (hundreds, tens, ones) = (octet / 100, octet / 10 % 10, octet % 10);
        if hundreds > 0 {
            out.write_char(digit(hundreds))?;
        }
        if hundreds > 0 || tens > 0 {
            out.write_char(digit(tens))?;
        }
        out.write_char(digit(ones))?;
    }
    Ok(())
}

impl std::fmt::Display for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Network {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Network {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&text).ok_or_else(|| {
            serde::de::Error::custom("a network is `x`, or an address's first three parts and `x`")
        })
    }
}

/// Which header the trusted proxies write the client's address into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2` (the usual one).
    #[default]
    XForwardedFor,
    /// RFC 7239 `Forwarded: for=client;proto=https, for=proxy1`.
    Forwarded,
}

impl std::str::FromStr for ForwardedHeader {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(Self::XForwardedFor),
            "forwarded" => Ok(Self::Forwarded),
            _ => Err("expected x-forwarded-for or forwarded".to_owned()),
        }
    }
}

/// The most hops read from a forwarding header before giving up: a longer
/// chain is someone stuffing the header, and its client is unreadable.
pub const MAX_HOPS: usize = 32;

/// The proxies the site runs behind, and the header they set.
///
/// With none configured, no header is believed: the client is the peer.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies {
    networks: Vec<IpNet>,
    header: ForwardedHeader,
}

impl TrustedProxies {
    /// Trust these networks (single addresses are /32 or /128) to report the
    /// client's address in `header`.
    pub fn new(networks: Vec<IpNet>, header: ForwardedHeader) -> Self {
        Self { networks, header }
    }

    /// The header whose values [`client_address`](Self::client_address) reads.
    pub fn header(&self) -> ForwardedHeader {
        self.header
    }

    /// Whether any proxy is trusted (if not, forwarding headers are ignored).
    pub fn is_empty(&self) -> bool {
        self.networks.is_empty()
    }

    /// Whether `ip` is one of the trusted proxies.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.networks.iter().any(|net| net.contains(&ip))
    }

    /// The client's address: the peer, unless the peer is a trusted proxy;
    /// then the forwarding header's entries are read from the right, trusted
    /// proxies are skipped, and the first untrusted entry is the client.
    ///
    /// `values` are the configured header's values in the order received (a
    /// request may carry the header several times). `None` means the client
    /// is unreadable: an entry that is not an address (`unknown`, an
    /// obfuscated name, garbage), or more than [`MAX_HOPS`] entries. When
    /// every entry is a trusted proxy, the leftmost of them is the client.
    pub fn client_address(&self, peer: IpAddr, values: &[&str]) -> Option<IpAddr> {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return Some(peer);
        }
        let mut client = peer;
        let entries = values.iter().rev().flat_map(|value| value.rsplit(','));
        for (hop, entry) in entries.enumerate() {
            if hop >= MAX_HOPS {
                return None;
            }
            if entry.trim().is_empty() {
                continue;
            }
            let ip = match self.header {
                ForwardedHeader::XForwardedFor => parse_address(entry),
                ForwardedHeader::Forwarded => forwarded_for(entry),
            };
            let ip = canonical(ip?);
            if !self.trusts(ip) {
                return Some(ip);
            }
            client = ip;
        }
        Some(client)
    }
}

/// The address in one element of an RFC 7239 `Forwarded` header
/// (`for=192.0.2.60;proto=http`, `for="[2001:db8::17]:4711"`); `None` for
/// `unknown`, an obfuscated identifier, or no `for=`.
fn forwarded_for(element: &str) -> Option<IpAddr> {
    element.split(';').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("for") {
            return None;
        }
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        parse_address(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("test address")
    }

    #[test]
    fn ports_are_dropped_and_bare_v6_keeps_its_last_group() {
        let cases = [
            ("203.0.113.7", Some("203.0.113.7")),
            ("203.0.113.7:443", Some("203.0.113.7")),
            (" 203.0.113.7 ", Some("203.0.113.7")),
            ("2001:db8::1", Some("2001:db8::1")),
            ("[2001:db8::1]", Some("2001:db8::1")),
            ("[2001:db8::1]:443", Some("2001:db8::1")),
            ("::ffff:203.0.113.7", Some("::ffff:203.0.113.7")),
            ("2001:db8::1:443", Some("2001:db8::1:443")),
            ("203.0.113.7:", None),
            ("203.0.113", None),
            ("[2001:db8::1", None),
            ("unknown", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_address(text), want.map(ip), "{text:?}");
        }
    }

    #[test]
    fn octets_are_written_as_the_formatter_writes_them() {
        for octet in 0..=u8::MAX {
            let mut text = String::new();
            write_dotted(&mut text, &[octet, 7, octet]).expect("a string takes it");
            assert_eq!(text, format!("{octet}.7.{octet}"));
        }
    }

    #[test]
    fn networks_keep_three_octets_or_three_groups() {
        let cases = [
            ("203.0.113.7", "203.0.113.x"),
            ("::ffff:203.0.113.7", "203.0.113.x"),
            ("2001:db8:85a3::7334", "2001:db8:85a3:x"),
            ("2001:db8::1", "2001:db8:0:x"),
            ("2001:0DB8:00A3:0001::1", "2001:db8:a3:x"),
            ("::1", "0:0:0:x"),
        ];
        for (text, want) in cases {
            assert_eq!(Network::of(Some(ip(text))).as_str(), want, "{text}");
        }
        assert_eq!(Network::of(None).as_str(), "x");
        for kept in ["x", "203.0.113.x", "2001:db8:85a3:x", "0:0:0:x"] {
            assert_eq!(
                Network::parse(kept).map(|n| n.to_string()).as_deref(),
                Some(kept)
            );
        }
        for bad in [
            "203.0.113.7",
            "203.0.113.7.x",
            "2001:db8:85a3:1:x",
            "",
            "a.b.c.x",
        ] {
            assert_eq!(Network::parse(bad), None, "{bad}");
        }
    }

    fn proxies(nets: &[&str], header: ForwardedHeader) -> TrustedProxies {
        let nets = nets.iter().map(|n| n.parse().expect("test CIDR")).collect();
        TrustedProxies::new(nets, header)
    }

    #[test]
    fn no_header_is_believed_without_trusted_proxies() {
        let none = TrustedProxies::default();
        let got = none.client_address(ip("198.51.100.9"), &["203.0.113.7"]);
        assert_eq!(got, Some(ip("198.51.100.9")));
    }

    #[test]
    fn a_header_from_an_untrusted_peer_is_ignored() {
        let trusted = proxies(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
        let got = trusted.client_address(ip("198.51.100.9"), &["203.0.113.7"]);
        assert_eq!(got, Some(ip("198.51.100.9")));
    }

    #[test]
    fn x_forwarded_for_is_read_from_the_right_past_trusted_proxies() {
        let trusted = proxies(
            &["10.0.0.0/8", "127.0.0.1/32"],
            ForwardedHeader::XForwardedFor,
        );
        // The leftmost entry is whatever the client wrote: never believed.
        let got =
            trusted.client_address(ip("127.0.0.1"), &["6.6.6.6, 203.0.113.7:5123", "10.1.2.3"]);
        assert_eq!(got, Some(ip("203.0.113.7")));
        // All hops trusted: the leftmost proxy is the client.
        let got = trusted.client_address(ip("127.0.0.1"), &["10.9.9.9, 10.1.1.1"]);
        assert_eq!(got, Some(ip("10.9.9.9")));
        // No header at all from a trusted proxy: the proxy itself.
        assert_eq!(
            trusted.client_address(ip("10.0.0.5"), &[]),
            Some(ip("10.0.0.5"))
        );
        // Garbage where the client should be: unreadable, not the proxy.
        assert_eq!(trusted.client_address(ip("10.0.0.5"), &["bogus"]), None);
        // Too many hops: unreadable.
        let stuffed = vec!["10.0.0.1"; MAX_HOPS + 1].join(",");
        assert_eq!(trusted.client_address(ip("10.0.0.5"), &[&stuffed]), None);
    }

    #[test]
    fn forwarded_is_read_with_quotes_ports_and_brackets() {
        let trusted = proxies(&["10.0.0.0/8"], ForwardedHeader::Forwarded);
        let got = trusted.client_address(
            ip("10.0.0.1"),
            &["for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https;by=10.0.0.1"],
        );
        assert_eq!(got, Some(ip("2001:db8:cafe::17")));
        let got = trusted.client_address(ip("10.0.0.1"), &["For=203.0.113.43;proto=http"]);
        assert_eq!(got, Some(ip("203.0.113.43")));
        assert_eq!(
            trusted.client_address(ip("10.0.0.1"), &["for=unknown"]),
            None
        );
        assert_eq!(
            trusted.client_address(ip("10.0.0.1"), &["for=_hidden"]),
            None
        );
        assert_eq!(
            trusted.client_address(ip("10.0.0.1"), &["proto=http"]),
            None
        );
    }

    #[test]
    fn mapped_addresses_are_trusted_and_returned_as_ipv4() {
        let trusted = proxies(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
        let got = trusted.client_address(ip("::ffff:10.0.0.1"), &["::ffff:203.0.113.7"]);
        assert_eq!(got, Some(ip("203.0.113.7")));
    }
}
