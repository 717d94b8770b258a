//! A notice: what the owner is told, once, on every channel. Its words
//! hold counts, paths the tab shows, and a store's own words about
//! itself; never an address, an agent, a query string or a secret.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What a notice says of its topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Something began (a spike, a store down).
    Raised,
    /// It is over.
    Recovered,
    /// A report that was due (a digest).
    Report,
}

impl State {
    /// The word a webhook's body carries.
    pub fn word(self) -> &'static str {
        match self {
            Self::Raised => "raised",
            Self::Recovered => "recovered",
            Self::Report => "report",
        }
    }
}

/// One message for every channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Notice {
    /// Its number, unique among what was kept (what a channel's retry and
    /// a restart know it by).
    pub id: u64,
    /// What it is about: `spike`, `drop`, `store-down:NAME`, `hits-lost`,
    /// `day-keys`, `digest`.
    pub topic: String,
    /// Raised, recovered or a report.
    pub state: State,
    /// When it was made.
    pub at: DateTime<Utc>,
    /// Its one line: a mail's subject, a chat message's first line.
    pub subject: String,
    /// The rest, as plain text.
    pub text: String,
    /// The same as HTML, for mail (a digest); `None`: the text alone.
    #[serde(default)]
    pub html: Option<String>,
    /// The HTML's chart (`cid:chart`), a PNG in base64.
    #[serde(default)]
    pub chart: Option<String>,
}

/// A notice before it is numbered and dated: what a rule tells.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// What it is about (see [`Notice::topic`]).
    pub topic: String,
    /// Raised, recovered or a report.
    pub state: State,
    /// Its one line.
    pub subject: String,
    /// The rest, as plain text.
    pub text: String,
    /// The same as HTML, if it has any.
    pub html: Option<String>,
    /// The HTML's chart (`cid:chart`), a PNG in base64.
    pub chart: Option<String>,
}
