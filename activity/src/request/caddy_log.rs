//! One line of Caddy's JSON access log (`log` in a site block), taken
//! apart into the same [`LogRequest`] a combined line makes:
//! `{"ts": 1733400000.1, "request": {"client_ip", "remote_ip", "proto",
//! "method", "uri", "headers": {"User-Agent": ["…"], …}, "tls": {…}},
//! "status": 200, …}`. Caddy logs every request header, so the entry
//! carries a browser's [`Signs`] (the scheme is HTTPS when the entry has
//! `tls`); `ts` is Caddy's default seconds since the epoch, or an RFC 3339
//! time (`time_format iso8601`). A line that does not fit says so in words
//! that never hold its bytes.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::request::log_request::{LineError, LogRequest, Signs};
use crate::visitor::address::parse_address;

/// An entry, as far as it is read.
#[derive(Deserialize)]
struct Entry {
    ts: Option<Time>,
    request: Option<Request>,
    status: Option<u16>,
}

/// Caddy's time: seconds since the epoch, or RFC 3339 text.
#[derive(Deserialize)]
#[serde(untagged)]
enum Time {
    Seconds(f64),
    Text(String),
}

#[derive(Deserialize)]
struct Request {
    client_ip: Option<String>,
    remote_ip: Option<String>,
    proto: Option<String>,
    method: Option<String>,
    uri: Option<String>,
    #[serde(default)]
    headers: HashMap<String, Vec<String>>,
    tls: Option<serde::de::IgnoredAny>,
}

/// Reads one Caddy JSON entry.
pub fn parse(line: &[u8]) -> Result<LogRequest<'static>, LineError> {
    let entry: Entry = serde_json::from_slice(line).map_err(|_| LineError::NotCaddy)?;
    let request = entry.request.ok_or(LineError::NotCaddy)?;
    let at = match entry.ts.ok_or(LineError::NotCaddy)? {
        Time::Seconds(seconds) => seconds_to_time(seconds),
        Time::Text(text) => DateTime::parse_from_rfc3339(&text)
            .ok()
            .map(|at| at.with_timezone(&Utc)),
    }
    .ok_or(LineError::BadTime)?;
    let status = entry
        .status
        .filter(|status| (100..=599).contains(status))
        .ok_or(LineError::BadStatus)?;
    let peer = request
        .client_ip
        .as_deref()
        .or(request.remote_ip.as_deref())
        .and_then(parse_address)
        .ok_or(LineError::NotAnAddress)?;
    let method = request.method.ok_or(LineError::NotHttp)?;
    let target = request.uri.ok_or(LineError::NotHttp)?;
    let is_token = !method.is_empty() && method.bytes().all(|b| b.is_ascii_uppercase());
    if !is_token || target.is_empty() || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(LineError::NotHttp);
    }
    let headers = request.headers;
    let header = |name: &str| -> Option<Cow<'static, str>> {
        headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .and_then(|(_, values)| values.first())
            .filter(|value| {
                !value.is_empty()
                    && value
                        .bytes()
                        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
            })
            .map(|value| Cow::Owned(value.clone()))
    };
    let signs = Signs {
        scheme: Cow::Borrowed(if request.tls.is_some() {
            "https"
        } else {
            "http"
        }),
        accept: header("accept"),
        sec_fetch_site: header("sec-fetch-site"),
        sec_fetch_mode: header("sec-fetch-mode"),
        sec_fetch_dest: header("sec-fetch-dest"),
        sec_ch_ua: header("sec-ch-ua"),
        sec_ch_ua_mobile: header("sec-ch-ua-mobile"),
        sec_ch_ua_platform: header("sec-ch-ua-platform"),
    };
    Ok(LogRequest {
        peer,
        at,
        method: Cow::Owned(method),
        target: Cow::Owned(target.into_bytes()),
        status,
        referer: header("referer"),
        user_agent: header("user-agent"),
        protocol: Cow::Owned(request.proto.unwrap_or_else(|| "HTTP/1.1".to_owned())),
        signs: Some(signs),
    })
}

/// Seconds since the epoch (with a fraction) as a time, if it is one.
fn seconds_to_time(seconds: f64) -> Option<DateTime<Utc>> {
    if !seconds.is_finite() || !(0.0..4.0e9).contains(&seconds) {
        return None;
    }
    let whole = seconds.trunc();
    let nanos = ((seconds - whole) * 1e9).round().clamp(0.0, 999_999_999.0);
    // Both are in range: checked above and clamped.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    DateTime::from_timestamp(whole as i64, nanos as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::logline::{LogFormat, parse as parse_line};

    const ENTRY: &str = r#"{"level":"info","ts":1733400000.25,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"10.0.0.2","remote_port":"51234","client_ip":"203.0.113.7","proto":"HTTP/2.0","method":"GET","host":"example.com","uri":"/about?ref=x","headers":{"User-Agent":["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"],"Accept":["text/html"],"Sec-Fetch-Dest":["document"],"Sec-Ch-Ua":["\"Chromium\";v=\"156\", \"Not:A-Brand\";v=\"8\""],"Cookie":["REDACTED"]},"tls":{"resumed":false,"version":772,"proto":"h2","server_name":"example.com"}},"bytes_read":0,"duration":0.001,"size":5120,"status":200}"#;

    #[test]
    fn an_entry_is_taken_apart_with_its_signs() {
        let request = parse_line(ENTRY.as_bytes(), LogFormat::Caddy).expect("an entry");
        assert_eq!(
            request.peer.to_string(),
            "203.0.113.7",
            "the client, not the proxy"
        );
        assert_eq!(request.at.timestamp(), 1_733_400_000);
        assert_eq!(request.status, 200);
        assert_eq!(*request.target, b"/about?ref=x"[..]);
        assert_eq!(request.protocol, "HTTP/2.0");
        let view = request.view();
        assert_eq!(view.scheme, Some("https"));
        assert_eq!(view.sec_fetch_dest, Some("document"));
        assert_eq!(
            view.sec_ch_ua,
            Some("\"Chromium\";v=\"156\", \"Not:A-Brand\";v=\"8\"")
        );
        assert_eq!(view.sec_fetch_site, None);
    }

    #[test]
    fn what_is_not_an_entry_says_so_without_its_bytes() {
        for (line, error) in [
            ("not json secret", LineError::NotCaddy),
            (r#"{"ts":1,"status":200}"#, LineError::NotCaddy),
            (
                r#"{"ts":"yesterday","status":200,"request":{"client_ip":"203.0.113.7","method":"GET","uri":"/"}}"#,
                LineError::BadTime,
            ),
            (
                r#"{"ts":1,"status":200,"request":{"client_ip":"example.com","method":"GET","uri":"/"}}"#,
                LineError::NotAnAddress,
            ),
            (
                r#"{"ts":1,"status":200,"request":{"client_ip":"203.0.113.7","method":"get it","uri":"/"}}"#,
                LineError::NotHttp,
            ),
        ] {
            assert_eq!(parse(line.as_bytes()).err(), Some(error), "{line}");
            assert!(!error.to_string().contains("secret"));
        }
        assert_eq!(LogFormat::detect(b"  {\"ts\":1}"), LogFormat::Caddy);
        assert_eq!(LogFormat::detect(b"203.0.113.7 - -"), LogFormat::Combined);
    }
}
