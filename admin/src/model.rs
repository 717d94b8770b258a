//! What the server sends the tab: plain, serialisable figures, already
//! summed. The same types are drawn on the server (first paint) and in the
//! browser (after a toggle or a range change).

use activity::report::{FunnelCount, KindCounts, PathTotal};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

// The ranges keep their 0.2 path here; they belong to the span.
pub use crate::span::{DEFAULT_RANGE, RANGES, range_or_default};

/// Where the export downloads are served, beside the tab's functions:
/// `{tab}/api/export/{file}` (under the tab's path, which the counter
/// never counts).
pub const EXPORTS: &str = "export/";

/// Everything the tab's cards show for one range (the public aggregates).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    /// The days it covers (UTC).
    pub span: crate::span::Span,
    /// Visitor-days by kind, one entry per day of the range, oldest first;
    /// a visitor seen on two stores the same day counts once.
    pub days: Vec<DayKinds>,
    /// The range's totals, and the same for the period just before it.
    pub totals: Totals,
    /// The previous period's totals.
    pub previous: Totals,
    /// Requests per store per day (aligned with `days`).
    pub store_lines: Vec<StoreLine>,
    /// Where people came from (people visitor-days by source group, tags broken out).
    pub sources: Vec<SourceRow>,
    /// Where from, by place: people visitor-days by country, most first.
    #[serde(default)]
    pub countries: Vec<CountryRow>,
    /// People's visits: pages per visitor-day, one-page visitor-days, time
    /// on site, entry and exit pages.
    #[serde(default)]
    pub visits: VisitFigures,
    /// The goals reached: per goal, its visitor-days by kind and requests,
    /// most people first.
    #[serde(default)]
    pub goals: Vec<GoalRow>,
    /// The path through: visitor-days per step.
    pub funnel: Vec<FunnelCount>,
    /// The most requested paths of the range.
    pub top_paths: Vec<PathTotal>,
    /// Scanners and crawlers by class, every class of the closed list.
    pub bots: Vec<BotRow>,
    /// Counted requests this server queued in the last five minutes.
    pub last_five_minutes: u64,
    /// Each store read: what it says of itself.
    pub stores: Vec<StoreStatus>,
    /// What the writer of this server has done since it started.
    pub writer: WriterStatus,
    /// What the alerts sent, for a signed-in reader of a server that sends
    /// them.
    #[serde(default)]
    pub notices: Option<NoticesStatus>,
    /// Who set the tab up (which settings its sentences name).
    #[serde(default)]
    pub host: Host,
    /// Whether visits from the server's own machine are counted as people
    /// (`--own-address none`), not as the site's own reads.
    #[serde(default)]
    pub loopback_as_people: bool,
    /// Whether every day is summed as the stores hold it now; `false`: a
    /// day that changed is being summed again and is shown as it was (the
    /// next read shows it new).
    #[serde(default)]
    pub current: bool,
    /// Under a filter, the first day whose visitor rows are still kept,
    /// when it is after the range's first day: a filter counts visitor
    /// rows, so the days before it show nothing.
    #[serde(default)]
    pub filter_covers: Option<NaiveDate>,
    /// The owner's dated notes on the range's days, oldest first.
    #[serde(default)]
    pub notes: Vec<NoteRow>,
    /// Whether the reader is signed in (and may add and remove notes).
    #[serde(default)]
    pub signed_in: bool,
}

/// One dated note on the chart (a release, a post, a campaign).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteRow {
    /// Its number (what removing it names).
    pub id: u64,
    /// The day it marks.
    pub day: NaiveDate,
    /// What it says.
    pub text: String,
}

/// People's visits over the range (ACCURACY.md, "Visits"): sums, from
/// which the rates are made, and the most common entry and exit pages.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitFigures {
    /// The sums, over the people visitor-days that loaded a page.
    pub sums: VisitTotals,
    /// The same sums over the period before.
    pub previous: VisitTotals,
    /// People visitor-days by the page they came in on, most first.
    pub entries: Vec<PageCount>,
    /// People visitor-days by the page they left from, most first.
    pub exits: Vec<PageCount>,
    /// People visitor-days by the campaign of their first tagged page
    /// load, most first.
    #[serde(default)]
    pub campaigns: Vec<CampaignRow>,
}

/// A campaign and the people visitor-days it brought.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignRow {
    /// Its labels (`utm_source`, `utm_medium`, `utm_campaign`).
    pub campaign: activity::campaign::Campaign,
    /// People visitor-days.
    pub visitor_days: u64,
}

/// People's visits summed over a period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitTotals {
    /// People visitor-days that loaded a page.
    pub visitor_days: u64,
    /// Their page loads.
    pub page_loads: u64,
    /// Those that loaded exactly one page.
    pub one_page: u64,
    /// Their visits (30 minutes without a page load ends one).
    pub visits: u64,
    /// Their time on site, in milliseconds.
    pub stay_ms: u64,
}

impl VisitTotals {
    /// Pages per visitor-day, to one decimal (`None`: no page loaded).
    pub fn pages_per_visitor_day(&self) -> Option<String> {
        (self.visitor_days > 0)
            .then(|| format!("{:.1}", self.page_loads as f64 / self.visitor_days as f64))
    }

    /// The share of visitor-days that loaded one page, as a whole percent.
    pub fn bounce_rate(&self) -> Option<String> {
        (self.visitor_days > 0).then(|| {
            format!(
                "{}%",
                (self.one_page as f64 * 100.0 / self.visitor_days as f64).round()
            )
        })
    }

    /// The mean time on site per visit, as minutes and seconds (`2m 05s`).
    pub fn time_per_visit(&self) -> Option<String> {
        (self.visits > 0).then(|| {
            let seconds = (self.stay_ms / self.visits + 500) / 1000;
            format!("{}m {:02}s", seconds / 60, seconds % 60)
        })
    }
}

/// A page and the people visitor-days that entered or left on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCount {
    /// The cleaned path.
    pub path: String,
    /// People visitor-days.
    pub visitor_days: u64,
}

/// One day's visitor-days by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayKinds {
    /// The UTC day.
    pub day: NaiveDate,
    /// Its visitor-days by kind.
    pub kinds: KindCounts,
}

/// Headline figures for one period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Visitor-days by kind.
    pub visitors: KindCounts,
    /// Counted requests.
    pub requests: u64,
}

/// How a store is named in the chart's legend and the stores card: its
/// name, and "demo data" after it when it holds made-up visits.
pub fn store_label(store: &str, demo: bool) -> String {
    if demo {
        format!("{store} (demo data)")
    } else {
        store.to_owned()
    }
}

/// One store's requests per day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreLine {
    /// The store's name.
    pub store: String,
    /// Whether it holds made-up demo visits.
    pub demo: bool,
    /// Requests per day, aligned with [`Overview::days`].
    pub requests: Vec<u64>,
}

/// A source group (or one tag within "tagged") and the people it brought.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRow {
    /// The group's label, or the tag.
    pub label: String,
    /// Whether this row is a tag inside the "tagged" group.
    pub tag: bool,
    /// The source filter's value for it (`linkedin`, `tag:resume`).
    #[serde(default)]
    pub filter: String,
    /// People visitor-days whose page loads came from it (one that came
    /// from two places counts under each).
    pub visitor_days: u64,
}

/// The most countries the "Where from" card names; the rest are summed
/// in one row.
pub const TOP_COUNTRIES: usize = 20;

/// A country (or the rest, or none known) and the people it brought.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountryRow {
    /// The two-letter code; `None` for the summed rest and for no country.
    pub code: Option<String>,
    /// The country's name, or what the row sums.
    pub name: String,
    /// People visitor-days.
    pub visitor_days: u64,
}

/// One goal over the range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalRow {
    /// Its name.
    pub goal: String,
    /// The visitor-days that reached it, by kind (each once).
    pub visitor_days: KindCounts,
    /// The requests that reached it, of every kind.
    pub requests: u64,
}

/// One bot class over the range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRow {
    /// The class's identifier (`ai-crawler`).
    pub class: String,
    /// The class in words (`AI crawlers`).
    pub label: String,
    /// Its requests.
    pub requests: u64,
    /// Visitor-days of scanners and crawlers that showed it.
    pub visitor_days: u64,
    /// Of those, claimed crawlers verified by their address.
    #[serde(default)]
    pub verified: u64,
}

/// What a store says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreStatus {
    /// The store's name.
    pub store: String,
    /// Whether it holds made-up demo visits.
    pub demo: bool,
    /// Whether it answers now.
    pub available: bool,
    /// Its availability sentence.
    pub availability: String,
    /// Its retention sentence.
    pub retention: String,
    /// Operations, failures and milliseconds spent, since this server started.
    pub operations: u64,
    /// Of the operations, how many failed.
    pub failures: u64,
    /// Milliseconds spent in them.
    pub milliseconds: u64,
    /// The reason it could not be read for this overview, if it could not.
    pub read_error: Option<String>,
    /// When its figures were read, if they are shown as it was last read
    /// (`17:42:10 UTC`): it could not be read now.
    #[serde(default)]
    pub read_at: Option<String>,
}

/// What the alerts have sent since this server started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoticesStatus {
    /// Where they go, in words.
    pub channels: Vec<String>,
    /// Notices a channel took (one per channel).
    pub sent: u64,
    /// Tries that failed.
    pub failed: u64,
    /// Notices some channel has not taken yet (tried again later).
    pub waiting: u64,
    /// Why the last try failed, while a notice waits.
    pub last_failure: Option<String>,
}

/// What this server's writer has done since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriterStatus {
    /// Hits queued.
    pub queued: u64,
    /// Hits dropped because the queue was full.
    pub dropped: u64,
    /// Hits written.
    pub written: u64,
    /// Hits counted that wait for the next write (not written nor given
    /// up yet).
    #[serde(default)]
    pub waiting: u64,
    /// In how many seconds the next write is due (at most the writer's
    /// interval), if a writer runs.
    #[serde(default)]
    pub next_write_in: Option<u64>,
    /// Hits given up after the store failed too long.
    pub lost: u64,
    /// Marks of a browser's evidence (a page's own file fetched) queued.
    #[serde(default)]
    pub marks_queued: u64,
    /// Of them, written or given up.
    #[serde(default)]
    pub marks_done: u64,
    /// Whether everything queued has been written (or given up): nothing
    /// this server counted is still on its way to the store.
    #[serde(default)]
    pub settled: bool,
    /// Requests from this machine or a private network whose forwarding
    /// header was not believed because no proxy is trusted.
    pub untrusted_forwarding: u64,
    /// Requests counted without their peer address (an app served without
    /// axum's `ConnectInfo`).
    #[serde(default)]
    pub without_peer: u64,
    /// Connections open now, if this server counts them.
    pub connections_open: Option<u64>,
    /// Connections refused at the cap (503) since start.
    pub connections_refused: u64,
    /// Sign-in attempts refused before the password was checked (over a
    /// budget) since start.
    pub sign_ins_refused: u64,
    /// Whether this server counts (the tab was given its writer's figures):
    /// without, the writer's line is not shown.
    #[serde(default)]
    pub counting: bool,
    /// Rows the writer holds: waiting for the next write, or for a store
    /// that fails.
    #[serde(default)]
    pub held_rows: u64,
    /// What they take in memory, in bytes (the writer's estimate).
    #[serde(default)]
    pub held_bytes: u64,
    /// How long ago the oldest of them arrived, in seconds.
    #[serde(default)]
    pub held_for: Option<u64>,
    /// The journal's size on disk, in bytes (0: none).
    #[serde(default)]
    pub journal_bytes: u64,
    /// Hits an earlier run left in the journal, taken up at this start.
    #[serde(default)]
    pub recovered: u64,
}

/// One visitor-day as the signed-in admin sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitorRow {
    /// The store that served it.
    pub store: String,
    /// The UTC day.
    pub day: NaiveDate,
    /// The day's token.
    pub visitor: String,
    /// The network (`203.0.113.x`).
    pub network: String,
    /// The country's two-letter code, or `unknown`.
    #[serde(default)]
    pub country: String,
    /// First and last request, `HH:MM:SS` UTC.
    pub first_seen: String,
    /// Last request, `HH:MM:SS` UTC.
    pub last_seen: String,
    /// Counted requests.
    pub requests: u64,
    /// Of them, bots.
    pub bots: u64,
    /// Of them, the site's own reads.
    pub self_reads: u64,
    /// What its requests showed of a browser or of an impostor, in words.
    pub evidence: String,
    /// The most requested paths, most first.
    pub top_paths: Vec<String>,
    /// The sources of its page loads.
    pub sources: Vec<String>,
}

/// Whether the caller is signed in, and whether the whole tab needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// The caller holds a valid session.
    pub signed_in: bool,
    /// The operator made the whole tab sign-in only.
    pub private: bool,
    /// An admin password is configured at all.
    pub sign_in_possible: bool,
    /// Who set the tab up (which settings its sentences name).
    #[serde(default)]
    pub host: Host,
}

/// Who set the tab up, so that a sentence that says how to change
/// something names the settings its reader has: the binary's flags, or an
/// embedding app's builder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Host {
    /// The `whocomes` binary: its flags and variables.
    Binary,
    /// An app that embeds the tab: the `whocomes` builder's settings.
    #[default]
    Embedded,
}

/// Why a sign-in was refused.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignInError {
    /// The operator set no password.
    #[error("signing in is off: the server has no admin password")]
    NoPassword,
    /// The password is not the admin password.
    #[error("wrong password")]
    Wrong,
    /// Too many attempts from this network: try again in this many seconds.
    #[error("too many sign-in attempts from your network; try again in {} minutes", .0.div_ceil(60))]
    TooMany(u64),
    /// Too many attempts from everywhere at once: try again in this many seconds.
    #[error("too many sign-in attempts right now; try again in {0} seconds")]
    Busy(u64),
}

impl SignInError {
    /// The seconds to send as `Retry-After`, when there is a wait.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::TooMany(seconds) | Self::Busy(seconds) => Some(*seconds),
            Self::NoPassword | Self::Wrong => None,
        }
    }
}

/// Why a server function of the tab did not answer with its figures: what
/// the view shows, matched by variant (never parsed from text). Sent as JSON.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq, Serialize, Deserialize)]
pub enum AdminError {
    /// The server has no Admin state: the embedder left the layer out.
    #[error("the Admin tab is not set up: add admin::server::Admin::layer() to the router")]
    NotSetUp,
    /// The operator made the whole tab sign-in only.
    #[error("this Admin tab is private: sign in")]
    Private,
    /// The visitor table needs a session.
    #[error("sign in to see the visitor table")]
    SignInFirst,
    /// A sign-in was refused.
    #[error(transparent)]
    SignIn(#[from] SignInError),
    /// The days asked for are not a span the tab shows (in its words).
    #[error("{0}")]
    Span(String),
    /// The filter asked for cannot be read (in its words).
    #[error("the filter cannot be read: {0}")]
    Filter(String),
    /// Notes are added and removed by the signed-in admin only.
    #[error("sign in to add or remove a note")]
    SignInToNote,
    /// A note was refused or could not be kept (in its words).
    #[error("{0}")]
    Note(String),
    /// The call itself failed (the network, an argument, the server).
    #[error("{0}")]
    Call(leptos::server_fn::error::ServerFnErrorErr),
}

impl AdminError {
    /// The error as the page says it: the call's own words without the
    /// framework's prefix for a failed call, else the sentence above.
    pub fn sentence(&self) -> String {
        use leptos::server_fn::error::ServerFnErrorErr as Call;
        match self {
            Self::Call(
                Call::ServerError(words)
                | Call::Request(words)
                | Call::Response(words)
                | Call::Args(words)
                | Call::MissingArg(words)
                | Call::Deserialization(words)
                | Call::Serialization(words)
                | Call::Registration(words)
                | Call::MiddlewareError(words)
                | Call::UnsupportedRequestMethod(words),
            ) => words.clone(),
            other => other.to_string(),
        }
    }
}

impl leptos::server_fn::error::FromServerFnError for AdminError {
    type Encoder = leptos::server_fn::codec::JsonEncoding;

    fn from_server_fn_error(value: leptos::server_fn::error::ServerFnErrorErr) -> Self {
        Self::Call(value)
    }
}
