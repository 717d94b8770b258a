//! A request's kind (SPEC §3) and why: [`Kind`], [`KindReason`] in words
//! an operator can check, and [`is_absent`], what a 4xx answer says of
//! software the site may or may not run. Deciding the kind is
//! `classify::kind_of`'s; naming a bot's class is `bot_class`'s.

use serde::{Deserialize, Serialize};

/// The three kinds of request (SPEC §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A person at a browser.
    Person,
    /// A crawler, scanner, monitor or HTTP library.
    Bot,
    /// The site reading itself.
    SelfRead,
}

/// Why a request is of its kind, in words an operator can check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "by", content = "detail")]
pub enum KindReason {
    /// The user agent carries the site's self-read mark.
    SelfReadMark,
    /// The request came from loopback.
    Loopback,
    /// The request came from an address the operator lists as the site's own.
    OwnAddress,
    /// There is no user agent at all.
    NoUserAgent,
    /// The user agent contains a bot word.
    BotWord(String),
    /// The user agent has a shape no browser's has.
    BotShape(String),
    /// The agent claims a crawler whose operator publishes its address
    /// ranges, and the address is in them.
    VerifiedCrawler(String),
    /// The agent claims a crawler whose operator publishes its address
    /// ranges, and the address is not in them: a scanner in its clothes.
    FalseCrawler(String),
    /// The path is one no site serves in public (a probe whatever the answer).
    ProbePath(String),
    /// The path has an extension no site serves in public.
    ProbeExtension(String),
    /// The path is software's a site may or may not run (`/wp-login.php`,
    /// `*.php`): a probe when the site answered 4xx (it has no such thing),
    /// a reader's request when it answered with what it has. `status` is
    /// `None` until the answer is known (or when it never was).
    Software {
        /// The probe path or `*.extension` it matched.
        what: String,
        /// The answer's status.
        status: Option<u16>,
    },
    /// Nothing says otherwise.
    Person,
}

/// Whether a status says the site has no such thing (4xx).
pub fn is_absent(status: Option<u16>) -> bool {
    status.is_some_and(|status| (400..500).contains(&status))
}

impl KindReason {
    /// The kind this reason gives.
    pub fn kind(&self) -> Kind {
        match self {
            Self::SelfReadMark | Self::Loopback | Self::OwnAddress => Kind::SelfRead,
            Self::NoUserAgent
            | Self::BotWord(_)
            | Self::BotShape(_)
            | Self::VerifiedCrawler(_)
            | Self::FalseCrawler(_)
            | Self::ProbePath(_)
            | Self::ProbeExtension(_) => Kind::Bot,
            Self::Software { status, .. } if is_absent(*status) => Kind::Bot,
            Self::Software { .. } | Self::Person => Kind::Person,
        }
    }
}

impl std::fmt::Display for KindReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SelfReadMark => {
                f.write_str("self-read: the user agent carries the self-read mark")
            }
            Self::Loopback => f.write_str("self-read: loopback"),
            Self::OwnAddress => f.write_str("self-read: one of the site's own addresses"),
            Self::NoUserAgent => f.write_str("bot: no user agent"),
            Self::BotWord(word) => write!(f, "bot: user agent matches '{word}'"),
            Self::BotShape(shape) => write!(f, "bot: user agent {shape}"),
            Self::VerifiedCrawler(name) => write!(
                f,
                "bot: a verified {name} crawler (its address is in {name}'s published ranges)"
            ),
            Self::FalseCrawler(name) => write!(
                f,
                "bot: claims to be {name}'s crawler from outside {name}'s published ranges"
            ),
            Self::ProbePath(path) => write!(f, "bot: probe path {path}"),
            Self::ProbeExtension(ext) => write!(f, "bot: probe path *.{ext}"),
            Self::Software {
                what,
                status: Some(status),
            } if is_absent(Some(*status)) => write!(
                f,
                "bot: asked for {what}, which this site does not have (answered {status})"
            ),
            Self::Software {
                what,
                status: Some(status),
            } => write!(
                f,
                "person: asked for {what}, which this site serves (answered {status})"
            ),
            Self::Software { what, status: None } => write!(
                f,
                "person: asked for {what}, with no answer to tell whether this site has it"
            ),
            Self::Person => f.write_str("person"),
        }
    }
}
