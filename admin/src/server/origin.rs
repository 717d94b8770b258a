//! Refusing cross-site requests to the tab's server functions. A browser
//! says where a request comes from (`Sec-Fetch-Site`, and `Origin` on a
//! POST); a form or script on another site that posts to the tab — to sign
//! a visitor's browser in with the attacker's password, or to sign the
//! admin out — is refused before it reaches the function. A request without
//! either header is not from a browser page, so not a cross-site forgery.

use http::HeaderMap;
use http::header::{HOST, ORIGIN};

/// Whether a browser says this request comes from another site.
pub fn cross_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        // `same-origin`, or `none` (typed, bookmarked): the tab's own.
        return !matches!(site.as_bytes(), b"same-origin" | b"none");
    }
    let Some(origin) = headers.get(ORIGIN) else {
        return false;
    };
    // `Origin: scheme://host[:port]` must name the host the request was
    // sent to (a TLS proxy in front changes the scheme, never the host).
    let authority = origin
        .to_str()
        .ok()
        .and_then(|origin| origin.split_once("://"))
        .map(|(_, authority)| authority);
    let host = headers.get(HOST).and_then(|host| host.to_str().ok());
    match (authority, host) {
        (Some(authority), Some(host)) => !authority.eq_ignore_ascii_case(host),
        // `Origin: null` (a sandboxed frame, a file), or no Host to compare.
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    http::HeaderName::from_static(name),
                    http::HeaderValue::from_static(value),
                )
            })
            .collect()
    }

    #[test]
    fn requests_from_other_sites_are_told_apart() {
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[], false),
            (&[("sec-fetch-site", "same-origin")], false),
            (&[("sec-fetch-site", "none")], false),
            (&[("sec-fetch-site", "cross-site")], true),
            (&[("sec-fetch-site", "same-site")], true),
            (
                &[("origin", "http://site.example"), ("host", "site.example")],
                false,
            ),
            (
                &[
                    ("origin", "https://SITE.example:8443"),
                    ("host", "site.example:8443"),
                ],
                false,
            ),
            (
                &[("origin", "https://evil.example"), ("host", "site.example")],
                true,
            ),
            (&[("origin", "null"), ("host", "site.example")], true),
            (&[("origin", "https://site.example")], true),
            // The browser's own word wins over a forged-looking Origin.
            (
                &[
                    ("sec-fetch-site", "same-origin"),
                    ("origin", "https://evil.example"),
                    ("host", "site.example"),
                ],
                false,
            ),
        ];
        for (pairs, expected) in cases {
            assert_eq!(cross_site(&headers(pairs)), *expected, "{pairs:?}");
        }
    }
}
