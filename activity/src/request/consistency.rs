//! An agent its own request contradicts (SPEC §3): a browser sends more
//! than its name, and what it sends must agree with the name.
//!
//! - A Chromium's client hints (`Sec-CH-UA`, `-Mobile`, `-Platform`) name
//!   the same version, phone and platform as its agent, and no headless
//!   brand; a plain Chromium from version 90 (Chrome's and Edge's first
//!   with the hints on by default; Opera on Android sends none) sends them.
//! - A plain browser recent enough to send fetch metadata (`Sec-Fetch-Site`,
//!   `-Mode`, `-Dest`: Chromium 76, Firefox 90, Safari 16.4) sends it, on a
//!   page load and on a file.
//! - A page load the browser marks as a document asks for HTML.
//!
//! Browsers send the hints and the metadata to a trustworthy origin only
//! (HTTPS, or loopback): on a plain-HTTP origin, or where the origin is not
//! known, nothing is inferred from a header's absence. An agent whose
//! version cannot be read, or that names a product beyond its browser's
//! (an app's WebView, Electron, an in-app browser), is never held to
//! sending a header (`request::agent`). Firefox and Safari send no client
//! hints and are never held to them.
//!
//! `Sec-Fetch-User` is never asked for: Safari does not send it.
//!
//! The whole decision is here: whether the origin is trustworthy (the
//! operator's public origin, a trusted proxy's word, a log line's scheme,
//! a browser on this machine), the reading of an agent and its hints (kept
//! per agent by [`Consistency`], which the rules hold), and what a page
//! load ([`Consistency::of_page`]) and a file ([`Consistency::of_file`])
//! must show.

use std::net::IpAddr;
use std::sync::Arc;

use crate::request::agent::{Claim, Family, Platform, claim, version_of};
use crate::request::known_agents::KnownAgents;
use crate::request::view::RequestView;
use crate::visitor::address::TrustedProxies;

/// The first Chromium that sends client hints by default.
pub const HINTS_SINCE: u32 = 90;
/// The first Chromium that sends fetch metadata.
pub const CHROMIUM_FETCH_METADATA_SINCE: u32 = 76;
/// The first Firefox that sends fetch metadata.
pub const FIREFOX_FETCH_METADATA_SINCE: u32 = 90;
/// The first Safari that sends fetch metadata (16.4).
pub const SAFARI_FETCH_METADATA_SINCE: (u32, u32) = (16, 4);

/// How a request contradicts the agent it claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Contradiction {
    /// `Sec-CH-UA` names no brand of the agent's major version.
    HintedVersion,
    /// `Sec-CH-UA` names a headless Chromium under a browser's agent.
    HeadlessBrand,
    /// `Sec-CH-UA-Mobile` says phone where the agent does not, or not
    /// where it does.
    HintedMobile,
    /// `Sec-CH-UA-Platform` names another platform than the agent.
    HintedPlatform,
    /// A Chromium recent enough to send client hints sent none.
    NoClientHints,
    /// A browser recent enough to send fetch metadata sent none.
    NoFetchMetadata,
    /// A document load that does not ask for HTML.
    NotHtml,
}

impl std::fmt::Display for Contradiction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::HintedVersion => "its client hints name another version than its agent",
            Self::HeadlessBrand => "its client hints name a headless Chromium",
            Self::HintedMobile => "its client hints disagree with its agent on being a phone",
            Self::HintedPlatform => "its client hints name another platform than its agent",
            Self::NoClientHints => {
                "a Chromium recent enough to send client hints sent none to a trustworthy origin"
            }
            Self::NoFetchMetadata => {
                "a browser recent enough to send fetch metadata sent none to a trustworthy origin"
            }
            Self::NotHtml => "a document load that does not ask for HTML",
        })
    }
}

/// What a request's agent claims and whether its client hints agree with
/// it: the part of the rule that depends only on the agent and the hints,
/// which real traffic repeats (kept per agent and hints by the rules; see
/// [`Consistency::reading`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// What the agent claims, if it names a browser whose version reads.
    pub claim: Option<Claim>,
    /// How its client hints disagree with it, if they do.
    pub hints: Option<Contradiction>,
}

impl Reading {
    /// Reads a request's agent and hints.
    pub fn of(request: &RequestView<'_>) -> Self {
        let claim = request.user_agent.map(str::trim).and_then(claim);
        let hints = claim
            .filter(|claim| claim.family == Family::Chromium && !claim.webview)
            .and_then(|claim| hints_disagree(request, &claim));
        Self { claim, hints }
    }
}

/// The consistency rule as a counter applies it: the public origin's
/// scheme, and the readings of the agents already seen (a bounded set,
/// keyed by a hash of the agent and its hints: no text is kept; shared by
/// clones).
#[derive(Clone, Debug)]
pub struct Consistency {
    /// Whether the operator's public origin is HTTPS (`None`: not given).
    secure_origin: Option<bool>,
    readings: Arc<KnownAgents<Reading>>,
}

impl Consistency {
    /// The rule for a site whose public origin is `public_origin`
    /// (`https://example.com`); an origin that is not
    /// `http(s)://host[:port]` is refused, in words that say why.
    pub fn new(public_origin: Option<&str>) -> Result<Self, String> {
        Ok(Self {
            secure_origin: public_origin.map(secure_origin).transpose()?,
            readings: Arc::new(KnownAgents::new()),
        })
    }

    /// What a request's agent claims and whether its client hints agree,
    /// read once per agent and hints and kept.
    pub fn reading(&self, request: &RequestView<'_>) -> Reading {
        self.readings.get_or_parts(
            &[
                request.user_agent,
                request.sec_ch_ua,
                request.sec_ch_ua_mobile,
                request.sec_ch_ua_platform,
            ],
            || Reading::of(request),
        )
    }

    /// Whether the browser talked to a trustworthy origin (HTTPS, or
    /// loopback), where browsers send client hints and fetch metadata: the
    /// operator's [public origin](crate::RulesConfig::public_origin) if
    /// given; else a trusted proxy's `X-Forwarded-Proto` or `Forwarded:
    /// proto=`; else the scheme a log line holds; else a browser on this
    /// machine that talked to a loopback host directly (no proxy's
    /// forwarding header). Anything else is not known to be, and nothing
    /// is inferred from a header's absence.
    pub fn trustworthy(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
        proxies: &TrustedProxies,
    ) -> bool {
        if let Some(secure) = self.secure_origin {
            return secure;
        }
        if peer.is_some_and(|peer| proxies.trusts(peer)) {
            let proto = request
                .x_forwarded_proto
                .and_then(|value| value.split(',').next())
                .or_else(|| {
                    request
                        .forwarded
                        .iter()
                        .find_map(|value| forwarded_proto(value))
                });
            if let Some(proto) = proto {
                return proto.trim().eq_ignore_ascii_case("https");
            }
        }
        if let Some(scheme) = request.scheme {
            return scheme.trim().eq_ignore_ascii_case("https");
        }
        let direct = request.x_forwarded_for.is_empty() && request.forwarded.is_empty();
        direct
            && peer.is_some_and(|peer| crate::visitor::address::canonical(peer).is_loopback())
            && request.host.is_some_and(is_loopback_host)
    }

    /// How a counted, person-looking request contradicts its agent, if it
    /// does (`page_load`: it is a page load).
    pub fn of_page(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
        proxies: &TrustedProxies,
        page_load: bool,
    ) -> Option<Contradiction> {
        contradiction_with(
            self.reading(request),
            request,
            self.trustworthy(request, peer, proxies),
            page_load,
        )
    }

    /// How a request for one of the page's files contradicts its agent,
    /// if it does: only the fetch metadata is asked of a file (the page
    /// load carries the rest). The header test comes first: a browser's
    /// file passes it without its agent being read.
    pub fn of_file(
        &self,
        request: &RequestView<'_>,
        peer: Option<IpAddr>,
        proxies: &TrustedProxies,
    ) -> Option<Contradiction> {
        let contradicts = !has_fetch_metadata(request)
            && self.trustworthy(request, peer, proxies)
            && self
                .reading(request)
                .claim
                .is_some_and(|claim| sends_fetch_metadata(&claim));
        contradicts.then_some(Contradiction::NoFetchMetadata)
    }
}

/// How a counted request contradicts its agent, if it does. `trustworthy`:
/// the browser talked to an HTTPS or loopback origin (see
/// [`Counter`](crate::Counter)); `page_load`: the request is a page load.
pub fn contradiction(
    request: &RequestView<'_>,
    trustworthy: bool,
    page_load: bool,
) -> Option<Contradiction> {
    contradiction_with(Reading::of(request), request, trustworthy, page_load)
}

/// [`contradiction`] with the agent already read.
pub fn contradiction_with(
    reading: Reading,
    request: &RequestView<'_>,
    trustworthy: bool,
    page_load: bool,
) -> Option<Contradiction> {
    let claim = reading.claim?;
    if reading.hints.is_some() {
        return reading.hints;
    }
    if trustworthy {
        if claim.family == Family::Chromium
            && claim.plain
            && !claim.opera_android
            && claim.major >= HINTS_SINCE
            && request.sec_ch_ua.is_none()
        {
            return Some(Contradiction::NoClientHints);
        }
        if !has_fetch_metadata(request) && sends_fetch_metadata(&claim) {
            return Some(Contradiction::NoFetchMetadata);
        }
    }
    let document = request
        .sec_fetch_dest
        .is_some_and(|dest| dest.trim().eq_ignore_ascii_case("document"));
    if page_load && document && !asks_for_html(request.accept) {
        return Some(Contradiction::NotHtml);
    }
    None
}

/// Whether a browser of this claim sends fetch metadata to a trustworthy
/// origin.
fn sends_fetch_metadata(claim: &Claim) -> bool {
    claim.plain
        && match claim.family {
            Family::Chromium => claim.major >= CHROMIUM_FETCH_METADATA_SINCE,
            Family::Firefox => claim.major >= FIREFOX_FETCH_METADATA_SINCE,
            Family::Safari => (claim.major, claim.minor) >= SAFARI_FETCH_METADATA_SINCE,
        }
}

/// Whether a request carries any fetch metadata (`Sec-Fetch-Site`, `-Mode`
/// or `-Dest`).
pub fn has_fetch_metadata(request: &RequestView<'_>) -> bool {
    request.sec_fetch_site.is_some()
        || request.sec_fetch_mode.is_some()
        || request.sec_fetch_dest.is_some()
}

/// Whether an `Accept` asks for HTML (a browser's document load always does).
fn asks_for_html(accept: Option<&str>) -> bool {
    accept.is_some_and(|accept| {
        accept.contains("text/html") || accept.contains("application/xhtml+xml")
    })
}

/// How a Chromium's client hints disagree with its agent, if they do.
/// Hints that cannot be read say nothing.
fn hints_disagree(request: &RequestView<'_>, claim: &Claim) -> Option<Contradiction> {
    if let Some(brands) = request.sec_ch_ua {
        let mut readable = false;
        let mut same_version = false;
        for (brand, version) in brand_list(brands) {
            if brand == "HeadlessChrome" {
                return Some(Contradiction::HeadlessBrand);
            }
            // GREASE brands ("Not A(Brand") carry made-up versions.
            if brand.contains("Brand") {
                continue;
            }
            readable = true;
            same_version |= version_of(version).is_some_and(|(major, _)| major == claim.major);
        }
        if readable && !same_version {
            return Some(Contradiction::HintedVersion);
        }
    }
    let mobile = match request.sec_ch_ua_mobile.map(str::trim) {
        Some("?1") => Some(true),
        Some("?0") => Some(false),
        _ => None,
    };
    if mobile.is_some_and(|mobile| mobile != claim.mobile) {
        return Some(Contradiction::HintedMobile);
    }
    let hinted = request.sec_ch_ua_platform.and_then(Platform::of_hint);
    if let (Some(agent), Some(hint)) = (claim.platform, hinted)
        && !agent.agrees_with(hint)
    {
        return Some(Contradiction::HintedPlatform);
    }
    None
}

/// The brands of a `Sec-CH-UA` list (`"Chromium";v="131", "Not_A Brand";v="24"`),
/// as (brand, version) pairs; an item that is not `"brand";v="version"`
/// ends the list.
fn brand_list(list: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = list;
    std::iter::from_fn(move || {
        let item = rest.trim_start().strip_prefix('"')?;
        let (brand, after) = item.split_once('"')?;
        let after = after.trim_start().strip_prefix(';')?.trim_start();
        let value = after.strip_prefix("v=\"")?;
        let (version, after) = value.split_once('"')?;
        rest = after.trim_start().strip_prefix(',').unwrap_or_default();
        Some((brand, version))
    })
}

/// Whether a public origin (`https://example.com`) is HTTPS; an origin
/// that is not `http(s)://host[:port]` is an error that says so.
fn secure_origin(origin: &str) -> Result<bool, String> {
    let text = origin.trim();
    let lower = text.to_ascii_lowercase();
    let (secure, rest) = match (
        lower.strip_prefix("https://"),
        lower.strip_prefix("http://"),
    ) {
        (Some(rest), _) => (true, rest),
        (None, Some(rest)) => (false, rest),
        (None, None) => {
            return Err(format!("'{text}' does not start with https:// or http://"));
        }
    };
    let host = rest.strip_suffix('/').unwrap_or(rest);
    let bare = !host.is_empty()
        && !host.starts_with(':')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
    if !bare {
        return Err(format!(
            "'{text}' is not an origin: a scheme, a host and at most a port (https://example.com)"
        ));
    }
    Ok(secure)
}

/// The `proto` of a `Forwarded` value's first element, if it names one.
fn forwarded_proto(value: &str) -> Option<&str> {
    let first = value.split(',').next()?;
    first.split(';').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("proto")
            .then(|| value.trim().trim_matches('"'))
    })
}

/// Whether a `Host` names this machine: `localhost` (or a name under it),
/// `127.x.x.x` or `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let host = host.trim();
    let name = if let Some(bracketed) = host.strip_prefix('[') {
        bracketed.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHROME_131: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

    fn view<'a>(agent: &'a str, headers: &[(&str, &'a str)]) -> RequestView<'a> {
        let mut view = RequestView {
            method: "GET",
            target: b"/",
            user_agent: Some(agent),
            ..RequestView::default()
        };
        for (name, value) in headers {
            let value = Some(*value);
            match *name {
                "accept" => view.accept = value,
                "sec-fetch-site" => view.sec_fetch_site = value,
                "sec-fetch-mode" => view.sec_fetch_mode = value,
                "sec-fetch-dest" => view.sec_fetch_dest = value,
                "sec-ch-ua" => view.sec_ch_ua = value,
                "sec-ch-ua-mobile" => view.sec_ch_ua_mobile = value,
                "sec-ch-ua-platform" => view.sec_ch_ua_platform = value,
                other => panic!("no such header in the view: {other}"),
            }
        }
        view
    }

    #[test]
    fn brand_lists_read_and_stop_at_what_is_not_one() {
        let brands: Vec<_> =
            brand_list(r#""Chromium";v="156", "Not-A.Brand";v="24", "Google Chrome";v="156""#)
                .collect();
        assert_eq!(
            brands,
            [
                ("Chromium", "156"),
                ("Not-A.Brand", "24"),
                ("Google Chrome", "156")
            ]
        );
        assert_eq!(brand_list("garbage").count(), 0);
        assert_eq!(brand_list(r#""Chromium";v="1", junk"#).count(), 1);
    }

    #[test]
    fn a_headless_chromium_wearing_another_version_is_caught() {
        let request = view(
            CHROME_131,
            &[
                ("sec-ch-ua", r#""Chromium";v="156", "Not-A.Brand";v="24""#),
                ("sec-ch-ua-mobile", "?0"),
                ("sec-ch-ua-platform", "\"Linux\""),
                ("sec-fetch-dest", "document"),
                ("accept", "text/html"),
            ],
        );
        assert_eq!(
            contradiction(&request, false, true),
            Some(Contradiction::HintedVersion)
        );
    }

    #[test]
    fn a_tool_sending_no_metadata_is_caught_only_on_a_trustworthy_origin() {
        let wget = view(CHROME_131, &[("accept", "*/*")]);
        assert_eq!(
            contradiction(&wget, true, true),
            Some(Contradiction::NoClientHints)
        );
        assert_eq!(contradiction(&wget, false, true), None);
        let proxies = TrustedProxies::default();
        let https = Consistency::new(Some("https://example.com")).expect("an origin");
        let http = Consistency::new(Some("http://example.com")).expect("an origin");
        assert_eq!(
            https.of_file(&wget, None, &proxies),
            Some(Contradiction::NoFetchMetadata)
        );
        assert_eq!(http.of_file(&wget, None, &proxies), None);
        let firefox = view(
            "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
            &[],
        );
        assert_eq!(
            contradiction(&firefox, true, true),
            Some(Contradiction::NoFetchMetadata)
        );
        let old_firefox = view(
            "Mozilla/5.0 (X11; Linux x86_64; rv:89.0) Gecko/20100101 Firefox/89.0",
            &[],
        );
        assert_eq!(contradiction(&old_firefox, true, true), None);
    }

    #[test]
    fn a_document_load_asks_for_html() {
        let curl = view(
            CHROME_131,
            &[
                (
                    "sec-ch-ua",
                    r#""Chromium";v="131", "Google Chrome";v="131""#,
                ),
                ("sec-fetch-dest", "document"),
                ("sec-fetch-mode", "navigate"),
                ("accept", "*/*"),
            ],
        );
        assert_eq!(
            contradiction(&curl, true, true),
            Some(Contradiction::NotHtml)
        );
        assert_eq!(contradiction(&curl, true, false), None);
    }
}
