//! Where a page load came from: the link's tag, or the referrer's host; and
//! the groups the dashboard shows them in (SPEC §4).

use serde::{Deserialize, Serialize};

use crate::request::campaign::{DROPPED, label};
use crate::request::query::query_value;
use crate::request::rules::Rules;
use crate::visitor::address::{Network, parse_address};

/// The longest tag kept, in characters.
pub const MAX_TAG_CHARS: usize = 40;

/// Where a page load came from. Written in rows as the referrer's host
/// (`news.ycombinator.com`) or as `tag:VALUE`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Source {
    /// The referrer's host, lowercased, without scheme, port, path or query.
    Referrer(String),
    /// The link's own tag (`?ref=resume` → `resume`).
    Tag(String),
}

/// Sources sort by their text (`tag:resume` after `news.example`), the
/// order every store sorts them in.
impl Ord for Source {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text_bytes().cmp(other.text_bytes())
    }
}

impl Source {
    /// The bytes of its text, without making the text (sorting is on the
    /// writer's path).
    fn text_bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let (prefix, text) = match self {
            Self::Referrer(host) => ("", host),
            Self::Tag(tag) => ("tag:", tag),
        };
        prefix.bytes().chain(text.bytes())
    }
}

impl PartialOrd for Source {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl From<Source> for String {
    fn from(source: Source) -> Self {
        source.to_string()
    }
}

impl TryFrom<String> for Source {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        match text.strip_prefix("tag:") {
            Some(tag) if is_tag(tag) => Ok(Self::Tag(tag.to_owned())),
            Some(_) => Err("a tag is 1 to 40 characters of [a-z0-9._-]".to_owned()),
            None if is_host(&text) => Ok(Self::Referrer(text)),
            None => Err("a referrer is a lowercase host name".to_owned()),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Referrer(host) => f.write_str(host),
            Self::Tag(tag) => write!(f, "tag:{tag}"),
        }
    }
}

fn is_tag_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-')
}

fn is_tag(tag: &str) -> bool {
    tag == DROPPED
        || (!tag.is_empty() && tag.chars().count() <= MAX_TAG_CHARS && tag.chars().all(is_tag_char))
}

fn is_host(host: &str) -> bool {
    !host.is_empty()
        && host.bytes().all(|b| {
            b.is_ascii_lowercase()
                || b.is_ascii_digit()
                || matches!(b, b'.' | b'-' | b'_' | b':' | b'[' | b']')
        })
}

/// The source of a page load: the link's tag if it has one, else the
/// referrer's host unless it is the site's own (`host` is the request's
/// `Host` header; `rules` may name more of the site's hosts).
pub fn source_of(
    query: Option<&[u8]>,
    referer: Option<&str>,
    host: Option<&str>,
    rules: &Rules,
) -> Option<Source> {
    if let Some(tag) = query.and_then(|query| tag_of(query, &rules.config.tag_parameters)) {
        return Some(Source::Tag(tag));
    }
    // Compared before an address host is cut to its network.
    let referrer = host_of(referer?)?;
    let own_host = host.and_then(host_without_port);
    let is_own = own_host.as_deref() == Some(referrer.as_str())
        || rules
            .config
            .site_hosts
            .iter()
            .any(|site| site.eq_ignore_ascii_case(&referrer));
    (!is_own)
        .then(|| kept_form(referrer))
        .flatten()
        .map(Source::Referrer)
}

/// The tag a query carries in the first of `parameters` that has a value:
/// a label (`campaign::label`) lowercased, only `[a-z0-9._-]` kept, cut to
/// [`MAX_TAG_CHARS`]; a value that is not a label is [`DROPPED`].
pub fn tag_of(query: &[u8], parameters: &[String]) -> Option<String> {
    parameters.iter().find_map(|wanted| {
        let value = label(&query_value(query, wanted)?)?;
        if value == DROPPED {
            return Some(value);
        }
        let tag: String = value
            .to_lowercase()
            .chars()
            .filter(|&c| is_tag_char(c))
            .take(MAX_TAG_CHARS)
            .collect();
        (!tag.is_empty()).then_some(tag)
    })
}

/// The host of a `Referer` URL, lowercased, without a trailing dot; `None`
/// when the referrer is not an absolute URL with a host. A host that is an
/// IP address is cut to its network, like any address whocomes sees: it
/// may be somebody's own machine.
pub fn referrer_host(referer: &str) -> Option<String> {
    kept_form(host_of(referer)?)
}

/// The host of an absolute URL as written, lowercased, without a trailing dot.
fn host_of(url: &str) -> Option<String> {
    let uri: http::Uri = url.trim().parse().ok()?;
    uri.scheme()?;
    Some(uri.host()?.trim_end_matches('.').to_ascii_lowercase())
}

/// How a referrer's host is kept: an address cut to its network, a name
/// as it is (if it is a valid host name).
fn kept_form(host: String) -> Option<String> {
    if let Some(ip) = parse_address(&host) {
        return Some(Network::of(Some(ip)).to_string());
    }
    is_host(&host).then_some(host)
}

/// A `Host` header's host, lowercased, without port.
fn host_without_port(host: &str) -> Option<String> {
    let authority: http::uri::Authority = host.trim().parse().ok()?;
    Some(authority.host().trim_end_matches('.').to_ascii_lowercase())
}

/// The groups the dashboard shows sources in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceGroup {
    /// linkedin.com and its subdomains, and lnkd.in.
    LinkedIn,
    /// github.com and its subdomains.
    GitHub,
    /// The well-known search engines.
    Search,
    /// Any other referring site.
    OtherSite,
    /// A link with its own tag.
    Tagged,
    /// No referrer: typed, bookmarked, or a link from an app or a PDF.
    Typed,
}

impl SourceGroup {
    /// Every group, in the order the dashboard lists them.
    pub const ALL: [Self; 6] = [
        Self::LinkedIn,
        Self::GitHub,
        Self::Search,
        Self::OtherSite,
        Self::Tagged,
        Self::Typed,
    ];

    /// The group's name on the dashboard.
    pub fn label(self) -> &'static str {
        match self {
            Self::LinkedIn => "LinkedIn",
            Self::GitHub => "GitHub",
            Self::Search => "search",
            Self::OtherSite => "another site",
            Self::Tagged => "tagged",
            Self::Typed => "typed and unknown",
        }
    }

    /// The group of a visit's source (`None`: no referrer and no tag).
    pub fn of(source: Option<&Source>) -> Self {
        match source {
            None => Self::Typed,
            Some(Source::Tag(_)) => Self::Tagged,
            Some(Source::Referrer(host)) => group_of_host(host),
        }
    }
}

/// Search engines, by a label of their host (`www.google.co.uk` has `google`).
const SEARCH_ENGINES: &[&str] = &[
    "google",
    "bing",
    "duckduckgo",
    "yahoo",
    "yandex",
    "baidu",
    "ecosia",
    "qwant",
    "startpage",
    "kagi",
    "naver",
    "seznam",
    "sogou",
    "search",
];

fn is_domain_or_subdomain(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

fn group_of_host(host: &str) -> SourceGroup {
    if is_domain_or_subdomain(host, "linkedin.com") || host == "lnkd.in" {
        SourceGroup::LinkedIn
    } else if is_domain_or_subdomain(host, "github.com") {
        SourceGroup::GitHub
    } else if host.split('.').any(|label| SEARCH_ENGINES.contains(&label)) {
        SourceGroup::Search
    } else {
        SourceGroup::OtherSite
    }
}

/// The SQL twin of [`SourceGroup::of`] for a kept source's text in
/// `column` (lowercase, as kept): whether it is in `group`. `Typed` is no
/// source at all, so no text is in it. The store contract checks the twin
/// against the rule on sources of every group.
pub fn group_sql(group: SourceGroup, column: &str) -> String {
    let domain = |domain: &str| format!("({column} = '{domain}' OR {column} LIKE '%.{domain}')");
    let linkedin = format!("({} OR {column} = 'lnkd.in')", domain("linkedin.com"));
    let github = domain("github.com");
    let search = SEARCH_ENGINES
        .iter()
        .map(|name| format!("('.' || {column} || '.') LIKE '%.{name}.%'"))
        .collect::<Vec<_>>()
        .join(" OR ");
    let tagged = format!("{column} LIKE 'tag:%'");
    match group {
        SourceGroup::Tagged => tagged,
        SourceGroup::LinkedIn => format!("(NOT {tagged} AND {linkedin})"),
        SourceGroup::GitHub => format!("(NOT {tagged} AND NOT {linkedin} AND {github})"),
        SourceGroup::Search => {
            format!("(NOT {tagged} AND NOT {linkedin} AND NOT {github} AND ({search}))")
        }
        SourceGroup::OtherSite => {
            format!("(NOT {tagged} AND NOT {linkedin} AND NOT {github} AND NOT ({search}))")
        }
        SourceGroup::Typed => "(1 = 0)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_sort_as_their_text() {
        let mut sources: Vec<Source> = [
            "tag:b",
            "tag.example",
            "tag:a",
            "t.co",
            "tagz.example",
            "a.example",
        ]
        .into_iter()
        .map(|text| Source::try_from(text.to_owned()).expect("a source"))
        .collect();
        let mut texts: Vec<String> = sources.iter().map(ToString::to_string).collect();
        sources.sort();
        texts.sort();
        assert_eq!(
            sources.iter().map(ToString::to_string).collect::<Vec<_>>(),
            texts
        );
    }

    #[test]
    fn a_site_served_on_an_address_does_not_refer_to_itself() {
        let rules = Rules::default();
        let own = source_of(
            None,
            Some("http://127.0.0.1:3101/about"),
            Some("127.0.0.1:3101"),
            &rules,
        );
        assert_eq!(own, None);
        let other = source_of(
            None,
            Some("http://192.0.2.7/page"),
            Some("127.0.0.1:3101"),
            &rules,
        );
        assert_eq!(other, Some(Source::Referrer("192.0.2.x".to_owned())));
    }

    fn source(query: &str, referer: Option<&str>, host: Option<&str>) -> Option<String> {
        let query = (!query.is_empty()).then_some(query.as_bytes());
        source_of(query, referer, host, &Rules::default()).map(|s| s.to_string())
    }

    #[test]
    fn referrers_keep_only_the_lowercased_host() {
        let got = source(
            "",
            Some("https://User:pw@News.YCombinator.com:8443/item?id=1#x"),
            None,
        );
        assert_eq!(got.as_deref(), Some("news.ycombinator.com"));
        assert_eq!(source("", Some("not a url"), None), None);
        let got = source("", Some("http://203.0.113.7:8080/x"), None);
        assert_eq!(got.as_deref(), Some("203.0.113.x"));
        let got = source("", Some("http://[2001:db8:85a3::7334]/x"), None);
        assert_eq!(got.as_deref(), Some("2001:db8:85a3:x"));
        assert_eq!(source("", Some("/relative/path"), None), None);
        assert_eq!(source("", Some(""), None), None);
    }

    #[test]
    fn the_sites_own_host_is_internal_navigation() {
        let got = source(
            "",
            Some("https://example.com/about"),
            Some("Example.com:3000"),
        );
        assert_eq!(got, None);
        let got = source("", Some("https://other.org/"), Some("example.com"));
        assert_eq!(got.as_deref(), Some("other.org"));
    }

    #[test]
    fn tags_win_and_are_cleaned() {
        let got = source("ref=Resume&x=1", Some("https://www.linkedin.com/"), None);
        assert_eq!(got.as_deref(), Some("tag:resume"));
        assert_eq!(
            source("utm_source=News+Letter", None, None).as_deref(),
            Some("tag:newsletter")
        );
        // Not a label: what could name somebody is dropped, never cleaned
        // into something kept.
        for value in ["News+Letter%21", "jane%40example.org", "id-1234567"] {
            assert_eq!(
                source(&format!("ref={value}"), None, None).as_deref(),
                Some("tag:(dropped)"),
                "{value}"
            );
        }
        assert_eq!(
            source("utm_source=a&ref=b", None, None).as_deref(),
            Some("tag:b")
        );
        assert_eq!(
            source("ref=%F0%9F%98%80", None, None).as_deref(),
            Some("tag:(dropped)")
        );
        assert_eq!(source("ref=&utm_source=", None, None), None, "empty");
        // A name is matched as decoded and whatever its ASCII case.
        assert_eq!(
            source("utm%5Fsource=Mail", None, None).as_deref(),
            Some("tag:mail")
        );
        assert_eq!(source("REF=Mail", None, None).as_deref(), Some("tag:mail"));
        assert_eq!(
            source("re%66=Mail", None, None).as_deref(),
            Some("tag:mail")
        );
        let long = format!("ref={}", "a".repeat(60));
        assert_eq!(
            source(&long, None, None).map(|s| s.len()),
            Some(4 + MAX_TAG_CHARS),
            "a label longer than a tag is cut"
        );
        let longer = format!("ref={}", "a".repeat(65));
        assert_eq!(
            source(&longer, None, None).as_deref(),
            Some("tag:(dropped)")
        );
    }

    #[test]
    fn groups() {
        let group = |host: &str| SourceGroup::of(Some(&Source::Referrer(host.to_owned())));
        assert_eq!(group("www.linkedin.com"), SourceGroup::LinkedIn);
        assert_eq!(group("lnkd.in"), SourceGroup::LinkedIn);
        assert_eq!(group("notlinkedin.com"), SourceGroup::OtherSite);
        assert_eq!(group("gist.github.com"), SourceGroup::GitHub);
        assert_eq!(group("www.google.co.uk"), SourceGroup::Search);
        assert_eq!(group("duckduckgo.com"), SourceGroup::Search);
        assert_eq!(group("news.ycombinator.com"), SourceGroup::OtherSite);
        assert_eq!(
            SourceGroup::of(Some(&Source::Tag("cv".into()))),
            SourceGroup::Tagged
        );
        assert_eq!(SourceGroup::of(None), SourceGroup::Typed);
    }

    #[test]
    fn sources_round_trip_as_text() {
        for text in ["example.org", "tag:resume"] {
            let source = Source::try_from(text.to_owned()).expect("valid");
            assert_eq!(source.to_string(), text);
        }
        assert!(Source::try_from("tag:".to_owned()).is_err());
        assert!(Source::try_from("Bad Host".to_owned()).is_err());
    }
}
