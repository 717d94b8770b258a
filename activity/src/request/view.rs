//! [`RequestView`]: the facts of one request that the rules read, borrowed
//! from wherever the request lives. Every reader of a request (the layer,
//! a log line, `explain`'s JSON) makes one; every rule takes one.

/// The facts of one request the rules look at, borrowed from wherever the
/// request lives (an axum request, a log line, a JSON line).
#[derive(Clone, Debug, Default)]
pub struct RequestView<'a> {
    /// The method (`GET`, `POST`, …).
    pub method: &'a str,
    /// The request target as received: path and query (possibly absolute-form).
    pub target: &'a [u8],
    /// `User-Agent`, read for the bot decision and then forgotten.
    pub user_agent: Option<&'a str>,
    /// `Referer`, for the source of a page load.
    pub referer: Option<&'a str>,
    /// `Accept`, for telling a page load from other requests.
    pub accept: Option<&'a str>,
    /// `Sec-Fetch-Dest`, the browser's own word on what the request is for.
    pub sec_fetch_dest: Option<&'a str>,
    /// `Sec-Fetch-Mode`: `navigate` for a document (a link, a form),
    /// `cors`, `same-origin` or `no-cors` for a page's script.
    pub sec_fetch_mode: Option<&'a str>,
    /// The answer's status, when it is already known (a log line); the
    /// live layer reads it from the response (see [`KindReason::Software`](crate::KindReason::Software)).
    pub status: Option<u16>,
    /// `Host`, to tell internal navigation from a referring site.
    pub host: Option<&'a str>,
    /// `X-Forwarded-For` values, in the order received.
    pub x_forwarded_for: Vec<&'a str>,
    /// `Forwarded` values, in the order received.
    pub forwarded: Vec<&'a str>,
    /// The request line's protocol (`HTTP/1.1`), as the peer sent it.
    pub protocol: Option<&'a str>,
    /// `Sec-Purpose` (or the older `Purpose`): `prefetch` and `prerender`
    /// are a browser fetching ahead, not a visit.
    pub sec_purpose: Option<&'a str>,
    /// `Sec-Fetch-Site`: with `Sec-Fetch-Mode` and `-Dest`, whether the
    /// browser sent fetch metadata at all (`request::consistency`).
    pub sec_fetch_site: Option<&'a str>,
    /// `Sec-CH-UA`: a Chromium's brands and major versions.
    pub sec_ch_ua: Option<&'a str>,
    /// `Sec-CH-UA-Mobile`: `?1` from a phone, `?0` otherwise.
    pub sec_ch_ua_mobile: Option<&'a str>,
    /// `Sec-CH-UA-Platform`: `"Windows"`, `"Android"`, …
    pub sec_ch_ua_platform: Option<&'a str>,
    /// `X-Forwarded-Proto`: the scheme the client used, as a proxy says
    /// (believed only from a trusted proxy).
    pub x_forwarded_proto: Option<&'a str>,
    /// The scheme the client used, as the server that saw it knows it (a
    /// log line's `$scheme`): `https` makes the origin trustworthy.
    pub scheme: Option<&'a str>,
}
