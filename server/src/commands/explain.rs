//! `whocomes explain`: one JSON request per input line in, one JSON decision
//! per line out, through exactly the rules `serve` applies. The tool an
//! operator uses to ask "why was this counted as a bot?".
//!
//! Input line: `{"at": RFC 3339, "peer": "ip[:port]", "method": "GET",
//! "target": "/path?query", "headers": {"user-agent": "…", …}}` (`at`
//! defaults to now, `method` to GET; a header may be a string or a list of
//! strings; `protocol` is the request line's, e.g. `"HTTP/1.0"`; `status`
//! the answer's, when known: a `*.php` request answered 404 is a probe,
//! answered 200 a reader's; without it, not a probe; `scheme` the one the
//! client used, `https` when known). Output
//! line: `{"line", "counted", "as", "reason", "kind", "page_load", "hit",
//! "evidence", "evidence_note"}`, and `contradiction` when the request's
//! headers contradict its agent (`kind` and `hit` are null when not
//! counted), or `{"line", "error"}` for a line that cannot be read — which
//! never echoes the line's content, and never stops the run. Lines are
//! read in order, as the writer would see them, so a form posted within
//! two seconds of its page, or a rate no reader keeps, shows as it would.
//!
//! `--format combined` (or `common`) reads access-log lines instead, as
//! `whocomes import` reads them (the status decides whether `*.php` is a
//! probe); a file's line then says which visitor-day it marks (`marks`).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use activity::address::parse_address;
use activity::bot_class::{BotClass, BotClasses};
use activity::evidence::Evidence;
use activity::logline::{self, LogFormat};
use activity::rows::Seen;
use activity::verdict::DayCounts;
use activity::verdict::watch::Watch;
use activity::{Counted, Counter, Hit, Kind, RequestView};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One request, as `explain` reads it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    at: Option<DateTime<Utc>>,
    peer: String,
    #[serde(default = "get")]
    method: String,
    target: String,
    /// The request line's protocol (`HTTP/1.1`, `HTTP/1.0`).
    protocol: Option<String>,
    /// The answer's status, when known (`*.php` and `/wp-login.php` are
    /// probes only when the site answered 4xx).
    status: Option<u16>,
    /// The scheme the client used (`https`), when known: browsers send
    /// client hints and fetch metadata to HTTPS and loopback only.
    scheme: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, HeaderValue>,
}

fn get() -> String {
    "GET".to_owned()
}

/// A header given once (a string) or several times (a list).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum HeaderValue {
    One(String),
    Many(Vec<String>),
}

/// One decision, as `explain` writes it.
#[derive(Debug, Serialize)]
struct Explained<'a> {
    line: usize,
    counted: bool,
    #[serde(rename = "as")]
    counted_as: Option<&'static str>,
    reason: String,
    kind: Option<Kind>,
    page_load: bool,
    hit: Option<serde_json::Value>,
    /// A bot's class, and what decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    bot_class: Option<BotClass>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bot_class_why: Option<String>,
    /// What this request showed of a browser or of an impostor.
    evidence: Vec<&'static str>,
    /// What that does to its visitor-day.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence_note: Option<&'static str>,
    /// How the request contradicts its agent, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    contradiction: Option<String>,
    /// The visitor-day (its token) a file of the page marks, when a key was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    marks: Option<String>,
    /// Why the hit's `visitor` is null, when no key was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    visitor_note: Option<&'a str>,
}

/// Why `explain` shows no visitor tokens: no key was given, and a token
/// from a key nobody holds would match nothing.
pub const NO_KEY: &str = "no token: no key was given (--key or --key-file: the seed the site's day keys were made from, or its static key); a token from any other key would match nothing";

/// A line that could not be read.
#[derive(Debug, Serialize)]
struct Malformed {
    line: usize,
    error: String,
}

/// What a run of `explain` saw.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Requests explained.
    pub explained: usize,
    /// Lines that could not be read (each got an error line).
    pub malformed: usize,
}

/// Explains every line of `input` onto `output`. Blank lines are skipped;
/// a malformed line gets an error line and the run goes on. Only writing
/// the output can fail.
pub fn explain(
    input: impl BufRead,
    mut output: impl Write,
    (counter, format): (&Counter, InputFormat),
    now: DateTime<Utc>,
    no_token: Option<&str>,
) -> std::io::Result<Summary> {
    let mut summary = Summary::default();
    // The classes the counter's rules already hold.
    let classes = counter.rules().bot_classes();
    let mut watch = Watch::default();
    for (index, line) in input.split(b'\n').enumerate() {
        let number = index + 1;
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let context = Context {
            counter,
            classes,
            watch: &mut watch,
            now,
            no_token,
        };
        let read = match format {
            InputFormat::Json => explain_json(&line, number, context),
            InputFormat::Log(format) => logline::parse(&line, format)
                .map_err(|error| error.to_string())
                .and_then(|request| {
                    context.decide(number, &request.view(), request.peer, request.at)
                }),
        };
        let written = match read {
            Ok(json) => {
                summary.explained += 1;
                json
            }
            Err(error) => {
                summary.malformed += 1;
                serde_json::to_string(&Malformed {
                    line: number,
                    error,
                })?
            }
        };
        writeln!(output, "{written}")?;
    }
    output.flush()?;
    Ok(summary)
}

/// What `explain` reads: JSON requests, or access-log lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// One JSON request a line (the module's docs).
    Json,
    /// Access-log lines, read as `whocomes import` reads them.
    Log(LogFormat),
}

impl std::str::FromStr for InputFormat {
    type Err = String;

    /// `json`, `combined` (with the `whocomes` format's signs when a line
    /// carries them), `common` or `caddy`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "json" => Ok(Self::Json),
            "combined" => Ok(Self::Log(LogFormat::Combined)),
            "common" => Ok(Self::Log(LogFormat::Common)),
            "caddy" => Ok(Self::Log(LogFormat::Caddy)),
            _ => Err(format!(
                "'{text}' is not an input format: use json, combined, common or caddy"
            )),
        }
    }
}

/// What explaining one line needs besides the line.
struct Context<'a> {
    counter: &'a Counter,
    classes: &'a BotClasses,
    watch: &'a mut Watch,
    now: DateTime<Utc>,
    no_token: Option<&'a str>,
}

fn explain_json(line: &[u8], number: usize, context: Context<'_>) -> Result<String, String> {
    let input: Input = serde_json::from_slice(line).map_err(|error| describe(&error))?;
    let peer = parse_address(&input.peer)
        .ok_or_else(|| "\"peer\" is not an address (ip or ip:port)".to_owned())?;
    let headers = lowercase_names(input.headers);
    let one = |name: &str| {
        headers
            .get(name)
            .and_then(|values| values.first())
            .map(String::as_str)
    };
    let all = |name: &str| {
        headers
            .get(name)
            .map(|values| values.iter().map(String::as_str).collect())
            .unwrap_or_default()
    };
    let request = RequestView {
        method: &input.method,
        target: input.target.as_bytes(),
        user_agent: one("user-agent"),
        referer: one("referer"),
        accept: one("accept"),
        sec_fetch_dest: one("sec-fetch-dest"),
        sec_fetch_mode: one("sec-fetch-mode"),
        status: input.status,
        host: one("host"),
        x_forwarded_for: all("x-forwarded-for"),
        forwarded: all("forwarded"),
        protocol: input.protocol.as_deref(),
        sec_purpose: one("sec-purpose").or_else(|| one("purpose")),
        sec_fetch_site: one("sec-fetch-site"),
        sec_ch_ua: one("sec-ch-ua"),
        sec_ch_ua_mobile: one("sec-ch-ua-mobile"),
        sec_ch_ua_platform: one("sec-ch-ua-platform"),
        x_forwarded_proto: one("x-forwarded-proto"),
        scheme: input.scheme.as_deref(),
    };
    let at = input.at.unwrap_or(context.now);
    context.decide(number, &request, peer, at)
}

impl Context<'_> {
    /// Decides one request, in line order, and writes the decision as JSON.
    fn decide(
        self,
        number: usize,
        request: &RequestView<'_>,
        peer: std::net::IpAddr,
        at: DateTime<Utc>,
    ) -> Result<String, String> {
        let Self {
            counter,
            classes,
            watch,
            no_token,
            ..
        } = self;
        let mut decision = counter.count(request, Some(peer), at);
        let mark = decision
            .shows_files
            .then(|| counter.files_mark(request, Some(peer), at));
        if let Some(mark) = &mark {
            watch.see(&mut Seen::mark(mark.clone(), decision.shows_scripts));
        }
        if let Some(hit) = decision.hit.as_mut() {
            watch.see_hit(hit);
        }
        let (evidence, evidence_note) = evidence_of(&decision);
        let counted_as = match decision.counted {
            Counted::Not(_) => None,
            Counted::Page => Some("page"),
            Counted::Api => Some("api"),
        };
        let class = decision
            .reason
            .as_ref()
            .and_then(|reason| classes.class_of(reason, request.user_agent));
        let (bot_class, bot_class_why) =
            class.map_or((None, None), |(class, why)| (Some(class), Some(why)));
        let explained = Explained {
            line: number,
            counted: counted_as.is_some(),
            counted_as,
            reason: decision.why(),
            kind: decision.kind(),
            page_load: decision.page_load,
            hit: decision.hit.as_ref().map(|hit| shown(hit, no_token)),
            visitor_note: decision.hit.as_ref().and(no_token),
            bot_class,
            bot_class_why,
            evidence,
            evidence_note,
            contradiction: decision.contradiction.map(|found| found.to_string()),
            marks: mark
                .filter(|_| no_token.is_none())
                .map(|mark| mark.visitor.to_string()),
        };
        serde_json::to_string(&explained)
            .map_err(|error| format!("cannot write the decision: {error}"))
    }
}

/// What a request showed, and what it does to its visitor-day (SPEC §3).
fn evidence_of(decision: &activity::Decision) -> (Vec<&'static str>, Option<&'static str>) {
    if decision.shows_scripts {
        return (
            (Evidence::FILES | Evidence::SCRIPTS).words(),
            Some(
                "a script of the page: marks its visitor-day with a browser's evidence, and a quick POST after it is the page's script",
            ),
        );
    }
    if decision.shows_files {
        return (
            Evidence::FILES.words(),
            Some("a file of the page: marks its visitor-day with a browser's evidence"),
        );
    }
    let Some(hit) = &decision.hit else {
        return (Vec::new(), None);
    };
    let note = (hit.kind == Kind::Person).then(|| {
        DayCounts::one_person_request(hit.evidence)
            .verdict()
            .request_note()
    });
    (hit.evidence.words(), note)
}

/// The hit as printed: without its token when there is no key to make it.
fn shown(hit: &Hit, no_token: Option<&str>) -> serde_json::Value {
    let mut value = serde_json::to_value(hit).unwrap_or(serde_json::Value::Null);
    if no_token.is_some()
        && let Some(visitor) = value.get_mut("visitor")
    {
        *visitor = serde_json::Value::Null;
    }
    value
}

/// Header names are case-insensitive: merge them lowercased.
fn lowercase_names(headers: BTreeMap<String, HeaderValue>) -> BTreeMap<String, Vec<String>> {
    let mut merged: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in headers {
        let values = merged.entry(name.to_ascii_lowercase()).or_default();
        match value {
            HeaderValue::One(one) => values.push(one),
            HeaderValue::Many(many) => values.extend(many),
        }
    }
    merged
}

/// A JSON error in words that never quote the line's content.
fn describe(error: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let column = error.column();
    match error.classify() {
        Category::Syntax => format!("not valid JSON (column {column})"),
        Category::Eof => "the JSON ends too early".to_owned(),
        Category::Io => "the line could not be read".to_owned(),
        Category::Data => {
            let message = error.to_string();
            // serde's "missing field `x`" and "unknown field `x`" name only our fields.
            if message.starts_with("missing field") {
                message
                    .split(" at line")
                    .next()
                    .unwrap_or("a field is missing")
                    .to_owned()
            } else if message.starts_with("unknown field") {
                let field = message.split('`').nth(1).unwrap_or("?");
                format!("unknown field `{field}` (expected at, peer, method, target, headers)")
            } else {
                format!(
                    "a field has the wrong type or value (column {column}); at is RFC 3339, headers are strings"
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use activity::address::TrustedProxies;
    use activity::{Rules, StoreName, VisitorKey};

    fn counter() -> Counter {
        Counter::new(
            Rules::default(),
            VisitorKey::from_text("explain-test").expect("a key"),
            TrustedProxies::default(),
            StoreName::parse("sqlite").expect("a name"),
        )
    }

    fn run(input: &str) -> (Vec<serde_json::Value>, Summary) {
        let mut out = Vec::new();
        let now = "2026-11-29T12:00:00Z".parse().expect("a time");
        let summary = explain(
            input.as_bytes(),
            &mut out,
            (&counter(), InputFormat::Json),
            now,
            None,
        )
        .expect("runs");
        let lines = String::from_utf8(out)
            .expect("UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("each output line is JSON"))
            .collect();
        (lines, summary)
    }

    #[test]
    fn decisions_and_errors_line_by_line() {
        let input = concat!(
            r#"{"at":"2026-11-29T10:00:00Z","peer":"203.0.113.7:5123","target":"/style.css"}"#,
            "\n",
            "\n",
            r#"{"peer":"203.0.113.7","target":"/","headers":{"User-Agent":"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}}"#,
            "\n",
            "{not json\n",
            r#"{"peer":"nobody","target":"/"}"#,
            "\n",
            r#"{"peer":"127.0.0.1","target":"/about?x=1","headers":{"user-agent":"Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"}}"#,
            "\n",
            r#"{"peer":"203.0.113.7","target":"/","secret":"zzLEAK"}"#,
            "\n",
            r#"{"peer":"203.0.113.7"}"#,
            "\n",
        );
        let (lines, summary) = run(input);
        assert_eq!(
            summary,
            Summary {
                explained: 3,
                malformed: 4
            }
        );
        assert_eq!(lines.len(), 7);

        assert_eq!(lines[0]["line"], 1);
        assert_eq!(lines[0]["counted"], false);
        assert_eq!(lines[0]["reason"], "not counted: asset (.css)");

        assert_eq!(lines[1]["line"], 3);
        assert_eq!(lines[1]["as"], "page");
        assert_eq!(lines[1]["kind"], "bot");
        // Googlebot's name from an address Google does not publish.
        assert_eq!(
            lines[1]["reason"],
            "bot: claims to be googlebot's crawler from outside googlebot's published ranges"
        );
        assert_eq!(lines[1]["bot_class"], "scanner");
        assert_eq!(lines[1]["hit"]["network"], "203.0.113.x");

        assert_eq!(lines[2]["line"], 4);
        assert!(
            lines[2]["error"]
                .as_str()
                .expect("an error")
                .contains("not valid JSON")
        );
        assert_eq!(
            lines[3]["error"],
            "\"peer\" is not an address (ip or ip:port)"
        );

        assert_eq!(lines[4]["kind"], "self-read");
        assert_eq!(lines[4]["reason"], "self-read: loopback");
        assert_eq!(lines[4]["hit"]["path"], "/about");

        let unknown = lines[5]["error"].as_str().expect("an error");
        assert!(unknown.contains("unknown field `secret`"), "{unknown}");
        assert!(!unknown.contains("zzLEAK"));
        assert_eq!(lines[6]["error"], "missing field `target`");
    }
}
