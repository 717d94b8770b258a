//! One access-log line in Apache/nginx *combined* or *common* format, taken
//! apart: `host ident user [time] "request" status bytes` and, in combined,
//! `"referer" "user-agent"`. Quoted fields are unescaped (`\"`, `\\`,
//! `\xHH`). A line that does not fit says why in words that never hold any
//! of its bytes. What is read borrows from the line; only a field with an
//! escape in it is copied.
//!
//! A combined line followed by exactly the eight fields of the `whocomes`
//! log format (docs/DEPLOY.md: `"$scheme" "$http_accept"
//! "$http_sec_fetch_site" "$http_sec_fetch_mode" "$http_sec_fetch_dest"
//! "$http_sec_ch_ua" "$http_sec_ch_ua_mobile" "$http_sec_ch_ua_platform"`,
//! the first one `http` or `https`) carries a browser's [`Signs`], read
//! without being asked for: the consistency rule then holds its agent as
//! the live layer does. Without them nothing is inferred. Caddy's JSON
//! access log is `request::caddy_log`'s.

use std::borrow::Cow;
use std::sync::LazyLock;

use crate::visitor::address::parse_address;
use chrono::format::{Item, Parsed, StrftimeItems};
use chrono::{DateTime, FixedOffset, NaiveDate, Utc};

pub use crate::request::log_request::{LineError, LogFormat, LogRequest, MAX_LINE_BYTES, Signs};

/// Reads one line (without its line ending).
pub fn parse(line: &[u8], format: LogFormat) -> Result<LogRequest<'_>, LineError> {
    if line.len() > MAX_LINE_BYTES {
        return Err(LineError::TooLong);
    }
    if format == LogFormat::Caddy {
        return crate::request::caddy_log::parse(line);
    }
    let mut rest = Fields(line);
    let host = rest.word().ok_or(LineError::Truncated)?;
    let peer = std::str::from_utf8(host)
        .ok()
        .and_then(parse_address)
        .ok_or(LineError::NotAnAddress)?;
    rest.word().ok_or(LineError::Truncated)?; // ident
    rest.word().ok_or(LineError::Truncated)?; // user
    let at = rest.bracketed().ok_or(LineError::Truncated)?;
    let at = parse_time(at)?;
    let request = rest.quoted()?.ok_or(LineError::Truncated)?;
    let (method, target, protocol) = request_line(request)?;
    let status = rest.word().ok_or(LineError::Truncated)?;
    let status = std::str::from_utf8(status)
        .ok()
        .filter(|s| s.len() == 3)
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|s| (100..=599).contains(s))
        .ok_or(LineError::BadStatus)?;
    rest.word().ok_or(LineError::Truncated)?; // bytes
    let (referer, user_agent, signs) = match format {
        LogFormat::Common | LogFormat::Caddy => (None, None, None),
        LogFormat::Combined => {
            let referer = rest.quoted()?.ok_or(LineError::Truncated)?;
            let agent = rest.quoted()?.ok_or(LineError::Truncated)?;
            (header(referer), header(agent), signs(&mut rest))
        }
    };
    // nginx may log more fields after these; anything unquoted that is
    // not a field is a sign of a broken line.
    if !rest.only_fields_left() {
        return Err(LineError::BadQuoting);
    }
    Ok(LogRequest {
        peer,
        at,
        method,
        target,
        status,
        referer,
        user_agent,
        protocol,
        signs,
    })
}

/// The `whocomes` format's eight fields, if exactly they end the line (the
/// first `http` or `https`); otherwise nothing is read and `rest` is as it was.
fn signs<'a>(rest: &mut Fields<'a>) -> Option<Signs<'a>> {
    let mut ahead = Fields(rest.0);
    let mut fields: [Option<Cow<'a, [u8]>>; 8] = Default::default();
    for field in &mut fields {
        *field = Some(ahead.quoted().ok()??);
    }
    ahead.skip_spaces();
    if !ahead.0.is_empty() {
        return None;
    }
    let [scheme, accept, site, mode, dest, brands, mobile, platform] =
        fields.map(|f| f.and_then(header));
    let scheme = scheme.filter(|s| *s == "http" || *s == "https")?;
    rest.0 = ahead.0;
    Some(Signs {
        scheme,
        accept,
        sec_fetch_site: site,
        sec_fetch_mode: mode,
        sec_fetch_dest: dest,
        sec_ch_ua: brands,
        sec_ch_ua_mobile: mobile,
        sec_ch_ua_platform: platform,
    })
}

/// The log's time format (`10/Oct/2000:13:55:36 -0700`), read once rather
/// than for every line.
static TIME_FORMAT: LazyLock<Vec<Item<'static>>> = LazyLock::new(|| {
    StrftimeItems::new("%d/%b/%Y:%H:%M:%S %z")
        .parse()
        .unwrap_or_default()
});

fn parse_time(text: &[u8]) -> Result<DateTime<Utc>, LineError> {
    usual_time(text).map_or_else(|| any_time(text), Ok)
}

/// The time in any form chrono reads for the log's format.
fn any_time(text: &[u8]) -> Result<DateTime<Utc>, LineError> {
    let text = std::str::from_utf8(text).map_err(|_| LineError::BadTime)?;
    let mut parsed = Parsed::new();
    chrono::format::parse(&mut parsed, text, TIME_FORMAT.iter())
        .and_then(|()| parsed.to_datetime())
        .map(|at| at.with_timezone(&Utc))
        .map_err(|_| LineError::BadTime)
}

/// The time as nearly every server writes it (`10/Oct/2000:13:55:36 -0700`:
/// two-digit day, English month, four-digit year, two-digit fields, an
/// offset under a day), read without chrono's general parser; anything else
/// (`None`) is left to that parser, so both read a time alike.
fn usual_time(text: &[u8]) -> Option<DateTime<Utc>> {
    const MONTHS: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let text: &[u8; 26] = text.try_into().ok()?;
    let number = |from: usize, digits: usize| {
        text[from..from + digits].iter().try_fold(0u32, |sum, b| {
            b.is_ascii_digit().then(|| sum * 10 + u32::from(b - b'0'))
        })
    };
    let punctuation = [
        (2, b'/'),
        (6, b'/'),
        (11, b':'),
        (14, b':'),
        (17, b':'),
        (20, b' '),
    ];
    if !punctuation.iter().all(|(at, b)| text[*at] == *b) {
        return None;
    }
    let month = MONTHS.iter().position(|name| text[3..6] == name[..])?;
    let date = NaiveDate::from_ymd_opt(
        i32::try_from(number(7, 4)?).ok()?,
        u32::try_from(month).ok()? + 1,
        number(0, 2)?,
    )?;
    let local = date.and_hms_opt(number(12, 2)?, number(15, 2)?, number(18, 2)?)?;
    let (hours, minutes) = (number(22, 2)?, number(24, 2)?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    let seconds = i32::try_from(hours * 3600 + minutes * 60).ok()?;
    let offset = match text[21] {
        b'+' => FixedOffset::east_opt(seconds)?,
        b'-' => FixedOffset::west_opt(seconds)?,
        _ => return None,
    };
    Some(
        local
            .and_local_timezone(offset)
            .single()?
            .with_timezone(&Utc),
    )
}

/// A method, target and protocol, borrowed from the request field or owned
/// with it (when the field had escapes).
type RequestLine<'a> = (Cow<'a, str>, Cow<'a, [u8]>, Cow<'a, str>);

/// `METHOD TARGET PROTOCOL` (HTTP/0.9's `METHOD TARGET` too, whose protocol is `HTTP/0.9`).
fn request_line(request: Cow<'_, [u8]>) -> Result<RequestLine<'_>, LineError> {
    match request {
        Cow::Borrowed(request) => request_parts(request),
        Cow::Owned(request) => {
            let (method, target, protocol) = request_parts(&request)?;
            Ok((
                Cow::Owned(method.into_owned()),
                Cow::Owned(target.into_owned()),
                Cow::Owned(protocol.into_owned()),
            ))
        }
    }
}

fn request_parts(request: &[u8]) -> Result<RequestLine<'_>, LineError> {
    let mut parts = request.split(|b| *b == b' ').filter(|p| !p.is_empty());
    let method = parts.next().ok_or(LineError::NotHttp)?;
    let target = parts.next().ok_or(LineError::NotHttp)?;
    let protocol = parts.next();
    let is_token = |part: &[u8]| !part.is_empty() && part.iter().all(u8::is_ascii_uppercase);
    let http = protocol.is_none_or(|p| p.starts_with(b"HTTP/"));
    if !is_token(method)
        || !http
        || parts.next().is_some()
        || !target.iter().all(u8::is_ascii_graphic)
    {
        return Err(LineError::NotHttp);
    }
    let method = std::str::from_utf8(method).map_err(|_| LineError::NotHttp)?;
    let protocol = match protocol {
        Some(protocol) => std::str::from_utf8(protocol).map_err(|_| LineError::NotHttp)?,
        None => "HTTP/0.9",
    };
    Ok((
        Cow::Borrowed(method),
        Cow::Borrowed(target),
        Cow::Borrowed(protocol),
    ))
}

/// A logged header as the live layer would read it: `-` is none, and so is
/// a value with bytes an HTTP header value cannot be read as text with
/// (anything but visible ASCII, space and tab), as `http`'s `to_str` refuses it.
fn header(value: Cow<'_, [u8]>) -> Option<Cow<'_, str>> {
    let readable = |b: &u8| *b == b'\t' || (b' '..=b'~').contains(b);
    if value.is_empty() || *value == b"-"[..] || !value.iter().all(readable) {
        return None;
    }
    match value {
        Cow::Borrowed(value) => std::str::from_utf8(value).ok().map(Cow::Borrowed),
        Cow::Owned(value) => String::from_utf8(value).ok().map(Cow::Owned),
    }
}

/// The rest of a line, read field by field.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn skip_spaces(&mut self) {
        while let [b' ' | b'\t', rest @ ..] = self.0 {
            self.0 = rest;
        }
    }

    /// The next unquoted field.
    fn word(&mut self) -> Option<&'a [u8]> {
        self.skip_spaces();
        let end = self
            .0
            .iter()
            .position(|b| *b == b' ' || *b == b'\t')
            .unwrap_or(self.0.len());
        let (word, rest) = self.0.split_at(end);
        self.0 = rest;
        (!word.is_empty()).then_some(word)
    }

    /// The next `[…]` field, without its brackets.
    fn bracketed(&mut self) -> Option<&'a [u8]> {
        self.skip_spaces();
        let inner = self.0.strip_prefix(b"[")?;
        let end = inner.iter().position(|b| *b == b']')?;
        self.0 = &inner[end + 1..];
        Some(&inner[..end])
    }

    /// The next `"…"` field, unescaped (borrowed when it has no escape);
    /// `None` when the line has ended.
    fn quoted(&mut self) -> Result<Option<Cow<'a, [u8]>>, LineError> {
        self.skip_spaces();
        if self.0.is_empty() {
            return Ok(None);
        }
        let mut bytes = self.0.strip_prefix(b"\"").ok_or(LineError::BadQuoting)?;
        match memchr::memchr2(b'"', b'\\', bytes) {
            None => return Err(LineError::BadQuoting),
            Some(end) if bytes[end] == b'"' => {
                self.0 = &bytes[end + 1..];
                return Ok(Some(Cow::Borrowed(&bytes[..end])));
            }
            Some(_) => {}
        }
        let mut value = Vec::new();
        loop {
            match bytes {
                [] => return Err(LineError::BadQuoting),
                [b'"', rest @ ..] => {
                    self.0 = rest;
                    return Ok(Some(Cow::Owned(value)));
                }
                [b'\\', b'x', high, low, rest @ ..]
                    if high.is_ascii_hexdigit() && low.is_ascii_hexdigit() =>
                {
                    let hex = [*high, *low];
                    let text = std::str::from_utf8(&hex).map_err(|_| LineError::BadQuoting)?;
                    value.push(u8::from_str_radix(text, 16).map_err(|_| LineError::BadQuoting)?);
                    bytes = rest;
                }
                [b'\\', escaped, rest @ ..] => {
                    value.push(*escaped);
                    bytes = rest;
                }
                [byte, rest @ ..] => {
                    value.push(*byte);
                    bytes = rest;
                }
            }
        }
    }

    /// Whether what is left is nothing, or further quoted or plain fields
    /// (nginx's extra variables), each well formed.
    fn only_fields_left(&mut self) -> bool {
        loop {
            self.skip_spaces();
            match self.0.first() {
                None => return true,
                Some(b'"') => {
                    if self.quoted().is_err() {
                        return false;
                    }
                }
                Some(_) => {
                    self.word();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMBINED: &str = r#"203.0.113.9 - - [17/May/2015:10:05:03 +0200] "GET /about?x=1 HTTP/1.1" 404 203 "https://www.linkedin.com/feed/" "Mozilla/5.0 (X11; Linux) \"quoted\" \x41""#;

    #[test]
    fn a_combined_line_is_taken_apart() {
        let request = parse(COMBINED.as_bytes(), LogFormat::Combined).expect("a request");
        assert_eq!(request.peer.to_string(), "203.0.113.9");
        assert_eq!(request.at.to_rfc3339(), "2015-05-17T08:05:03+00:00", "UTC");
        assert_eq!(request.method, "GET");
        assert_eq!(*request.target, b"/about?x=1"[..]);
        assert_eq!(request.status, 404);
        assert_eq!(
            request.referer.as_deref(),
            Some("https://www.linkedin.com/feed/")
        );
        assert_eq!(
            request.user_agent.as_deref(),
            Some("Mozilla/5.0 (X11; Linux) \"quoted\" A")
        );
    }

    #[test]
    fn a_common_line_has_no_headers() {
        let line =
            r#"2001:db8::1 - frank [10/Oct/2000:13:55:36 -0700] "POST /api/x HTTP/1.0" 200 2326"#;
        let request = parse(line.as_bytes(), LogFormat::Common).expect("a request");
        assert_eq!(request.peer.to_string(), "2001:db8::1");
        assert_eq!(request.at.to_rfc3339(), "2000-10-10T20:55:36+00:00");
        assert_eq!((request.user_agent, request.referer), (None, None));
    }

    #[test]
    fn broken_lines_say_why_without_their_bytes() {
        let cases: &[(&str, LineError)] = &[
            ("", LineError::Truncated),
            ("203.0.113.9 - -", LineError::Truncated),
            (
                "host.example - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"",
                LineError::NotAnAddress,
            ),
            (
                "203.0.113.9 - - [17/Mai/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"",
                LineError::BadTime,
            ),
            (
                "203.0.113.9 - - [17/May/2015:10:05:03 +0000] \"\\x16\\x03\\x01\" 400 1 \"-\" \"-\"",
                LineError::NotHttp,
            ),
            (
                "203.0.113.9 - - [17/May/2015:10:05:03 +0000] \"-\" 408 0 \"-\" \"-\"",
                LineError::NotHttp,
            ),
            (
                "203.0.113.9 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 2000 1 \"-\" \"-\"",
                LineError::BadStatus,
            ),
            (
                "203.0.113.9 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"Mozilla/5.0 (Windows",
                LineError::BadQuoting,
            ),
            (
                "203.0.113.9 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\"",
                LineError::Truncated,
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(
                parse(line.as_bytes(), LogFormat::Combined),
                Err(*expected),
                "{line}"
            );
        }
        let long = format!(
            "203.0.113.9 - - [17/May/2015:10:05:03 +0000] \"GET /{} HTTP/1.1\" 200 1",
            "a".repeat(MAX_LINE_BYTES)
        );
        assert_eq!(
            parse(long.as_bytes(), LogFormat::Common),
            Err(LineError::TooLong)
        );
        // The messages never echo a line.
        for (line, error) in cases {
            assert!(line.is_empty() || !error.to_string().contains(&line[..5.min(line.len())]));
        }
    }

    #[test]
    fn a_header_the_layer_could_not_read_is_none() {
        let line = r#"203.0.113.9 - - [17/May/2015:10:05:03 +0000] "GET / HTTP/1.1" 200 1 "http://\xe4\xe5.example/" "Mozilla/5.0""#;
        let request = parse(line.as_bytes(), LogFormat::Combined).expect("a request");
        assert_eq!(request.referer, None);
        assert_eq!(request.user_agent.as_deref(), Some("Mozilla/5.0"));
    }

    #[test]
    fn the_usual_time_is_read_as_chrono_reads_it() {
        let usual = [
            "10/Oct/2000:13:55:36 -0700",
            "29/Feb/2024:00:00:00 +0000",
            "31/Dec/1999:23:59:59 +2359",
            "01/Jan/2026:00:00:01 -0000",
            "17/May/2015:10:05:03 +0530",
        ];
        let unusual = [
            "29/Feb/2023:00:00:00 +0000", // no such day
            "31/Dec/1999:23:59:60 +0000", // a leap second
            "00/Jan/2026:00:00:00 +0000",
            "10/oct/2000:13:55:36 -0700",
            "10/October/2000:13:55:36 -0700",
            "1/Oct/2000:13:55:36 -0700",
            "10/Oct/2000:24:00:00 +0000",
            "10/Oct/2000:13:55:36 +2400",
            "10/Oct/2000:13:55:36 +0060",
            "10/Oct/2000:13:55:36 0700",
            "10/Oct/2000 13:55:36 -0700",
            "10/Oct/2000:13:5x:36 -0700",
            "10/Oct/+200:13:55:36 -0700",
        ];
        for text in usual {
            let fast = usual_time(text.as_bytes());
            assert!(fast.is_some(), "{text} is read without chrono's parser");
            assert_eq!(
                fast.ok_or(LineError::BadTime),
                any_time(text.as_bytes()),
                "{text}"
            );
        }
        for text in unusual {
            assert_eq!(
                usual_time(text.as_bytes()),
                None,
                "{text} is left to chrono"
            );
        }
    }

    #[test]
    fn fields_without_escapes_are_borrowed() {
        let line = r#"203.0.113.9 - - [17/May/2015:10:05:03 +0200] "GET /a HTTP/1.1" 200 1 "-" "Mozilla/5.0 \"x\"""#;
        let request = parse(line.as_bytes(), LogFormat::Combined).expect("a request");
        assert!(matches!(request.target, Cow::Borrowed(b"/a")));
        assert!(matches!(request.method, Cow::Borrowed("GET")));
        assert_eq!(request.user_agent.as_deref(), Some("Mozilla/5.0 \"x\""));
        assert!(matches!(request.user_agent, Some(Cow::Owned(_))));
    }

    #[test]
    fn nginx_extra_fields_are_allowed() {
        let line = format!("{COMBINED} \"-\" rt=0.002");
        assert!(parse(line.as_bytes(), LogFormat::Combined).is_ok());
    }
}
