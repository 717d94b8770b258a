//! What one access-log line says about a request, whatever the log's
//! format: [`LogRequest`] (with the browser's [`Signs`] when the log keeps
//! them), the formats read ([`LogFormat`]) and why a line is not a request
//! ([`LineError`]). `request::logline` reads combined and common lines,
//! `request::caddy_log` Caddy's JSON.

use std::borrow::Cow;
use std::net::IpAddr;

use chrono::{DateTime, Utc};

/// The longest line read; longer ones are malformed (and never buffered whole).
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// Which fields a line has (`combined`, `common` or `caddy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// `host ident user [time] "request" status bytes "referer" "user-agent"`,
    /// and the `whocomes` format's [`Signs`] when they follow.
    Combined,
    /// The same without referer and user agent.
    Common,
    /// Caddy's JSON access log, one entry a line (`request::caddy_log`).
    Caddy,
}

impl std::str::FromStr for LogFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "combined" | "whocomes" => Ok(Self::Combined),
            "common" => Ok(Self::Common),
            "caddy" => Ok(Self::Caddy),
            _ => Err(
                "the log format is `combined` (nginx's `whocomes` format too), `common` or `caddy`"
                    .to_owned(),
            ),
        }
    }
}

impl LogFormat {
    /// The format a log's first line is in: Caddy's JSON (`{`), else
    /// combined (which reads the `whocomes` format's signs too).
    pub fn detect(first_line: &[u8]) -> Self {
        if first_line.trim_ascii_start().starts_with(b"{") {
            Self::Caddy
        } else {
            Self::Combined
        }
    }
}

/// What a browser sends beyond its name, as a log in the `whocomes` format
/// (or Caddy's) keeps it: the scheme the client used and the headers the
/// consistency rule reads (`request::consistency`). Each is `None` when
/// the request had no such header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signs<'a> {
    /// `http` or `https`.
    pub scheme: Cow<'a, str>,
    /// `Accept`.
    pub accept: Option<Cow<'a, str>>,
    /// `Sec-Fetch-Site`.
    pub sec_fetch_site: Option<Cow<'a, str>>,
    /// `Sec-Fetch-Mode`.
    pub sec_fetch_mode: Option<Cow<'a, str>>,
    /// `Sec-Fetch-Dest`.
    pub sec_fetch_dest: Option<Cow<'a, str>>,
    /// `Sec-CH-UA`.
    pub sec_ch_ua: Option<Cow<'a, str>>,
    /// `Sec-CH-UA-Mobile`.
    pub sec_ch_ua_mobile: Option<Cow<'a, str>>,
    /// `Sec-CH-UA-Platform`.
    pub sec_ch_ua_platform: Option<Cow<'a, str>>,
}

/// What a log line says about one request, borrowed from the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRequest<'a> {
    /// The client's address.
    pub peer: IpAddr,
    /// When it was received, in UTC.
    pub at: DateTime<Utc>,
    /// The method.
    pub method: Cow<'a, str>,
    /// The request target, as logged (path and query).
    pub target: Cow<'a, [u8]>,
    /// The answer's status code.
    pub status: u16,
    /// The `Referer` header, if logged and not `-`.
    pub referer: Option<Cow<'a, str>>,
    /// The `User-Agent` header, if logged and not `-`.
    pub user_agent: Option<Cow<'a, str>>,
    /// The request line's protocol (`HTTP/1.1`; `HTTP/0.9` when none).
    pub protocol: Cow<'a, str>,
    /// The browser's signs, when the log keeps them.
    pub signs: Option<Signs<'a>>,
}

impl LogRequest<'_> {
    /// The request as the rules see it: what a log holds (no forwarding
    /// headers: the logged address is the client's; `Accept`, fetch
    /// metadata, client hints and the scheme only when the log keeps the
    /// [`Signs`]), and the answer's status.
    pub fn view(&self) -> crate::RequestView<'_> {
        let view = crate::RequestView {
            method: &self.method,
            target: &self.target,
            user_agent: self.user_agent.as_deref(),
            referer: self.referer.as_deref(),
            protocol: Some(&self.protocol),
            status: Some(self.status),
            ..crate::RequestView::default()
        };
        match &self.signs {
            None => view,
            Some(signs) => crate::RequestView {
                scheme: Some(&signs.scheme),
                accept: signs.accept.as_deref(),
                sec_fetch_site: signs.sec_fetch_site.as_deref(),
                sec_fetch_mode: signs.sec_fetch_mode.as_deref(),
                sec_fetch_dest: signs.sec_fetch_dest.as_deref(),
                sec_ch_ua: signs.sec_ch_ua.as_deref(),
                sec_ch_ua_mobile: signs.sec_ch_ua_mobile.as_deref(),
                sec_ch_ua_platform: signs.sec_ch_ua_platform.as_deref(),
                ..view
            },
        }
    }
}

/// Why a line is not a request. The words never hold the line's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, thiserror::Error)]
pub enum LineError {
    /// Longer than [`MAX_LINE_BYTES`].
    #[error("longer than {MAX_LINE_BYTES} bytes")]
    TooLong,
    /// A field is missing: the line ends early.
    #[error("truncated: a field is missing")]
    Truncated,
    /// The first field is not an IP address (a host name, or garbage).
    #[error("the client is not an IP address")]
    NotAnAddress,
    /// The `[time]` field cannot be read.
    #[error("the time is not [dd/Mon/yyyy:hh:mm:ss +zzzz]")]
    BadTime,
    /// The request field is not `METHOD TARGET PROTOCOL` (a TLS handshake
    /// on the HTTP port, a bare `-`, binary bytes).
    #[error("not an HTTP request line")]
    NotHttp,
    /// The status is not three digits.
    #[error("the status is not a 3-digit code")]
    BadStatus,
    /// A quoted field is not closed, or bytes follow the last field.
    #[error("a quoted field is not closed, or the line has extra fields")]
    BadQuoting,
    /// Not a Caddy JSON access-log entry (not JSON, or without a request,
    /// a time or a status).
    #[error("not a Caddy JSON access-log entry with a request, a time and a status")]
    NotCaddy,
}
