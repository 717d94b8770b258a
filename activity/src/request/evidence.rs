//! Evidence of a browser, per visitor-day (SPEC §3): what a visitor's
//! requests showed, kept as a few bits on its visitor-day row and nothing
//! else. A visitor-day whose requests look like a person's is counted as
//! people only if it also shows a browser's evidence — it fetched one of the
//! page's own files (a stylesheet, script, wasm, image, font, favicon), the
//! hydrated app reported a navigation or a page drawn from its cache, or the
//! page's script called the site (fetch metadata) — and no impostor's sign:
//! an HTTP/1.0 request line, a form posted within [`INSTANT_POST`] of its
//! page by a visitor that fetched none of the page's scripts, more than
//! [`RATE_PAGES`] pages within [`RATE_WINDOW`], or a request that
//! contradicts its own agent (`request::consistency`).
//!
//! The bits are facts about requests, never about a person: no time, path,
//! header or agent text is kept for them. The writer's short memory for the
//! signs that need time is `verdict::watch`; [`FilesSeen`] is the layer's,
//! so that a page's many files cost one mark.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

pub use crate::request::mark::FilesMark;
// 0.2's path of the watch, which now lives with the verdict it feeds.
pub use crate::verdict::watch::Watch;

/// A visitor-day's evidence, as bits (kept as one small integer; nine of
/// sixteen used).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Evidence(pub u16);

impl Evidence {
    /// It fetched one of the page's own files, or the hydrated app reported
    /// a navigation inside it: a browser drew the page.
    pub const FILES: Self = Self(1);
    /// The files' evidence is not asked for: rows kept before this rule, or
    /// counted with `--browser-evidence off` (a site whose files come from
    /// another host).
    pub const WAIVED: Self = Self(2);
    /// A page asked for with an HTTP/1.0 request line (no browser of this
    /// century sends one; believed only from a client, never from a proxy).
    pub const OLD_PROTOCOL: Self = Self(4);
    /// A form posted within [`INSTANT_POST`] of its visitor's last page load.
    pub const INSTANT_POST: Self = Self(8);
    /// More than [`RATE_PAGES`] page requests within [`RATE_WINDOW`].
    pub const RATE: Self = Self(16);
    /// The page's own code called the site: a request the browser marks as
    /// a script's (`Sec-Fetch-Mode: cors`, `same-origin` or `no-cors`, or
    /// `Sec-Fetch-Dest: empty`).
    pub const CALLED: Self = Self(32);
    /// A claimed crawler whose address is in its operator's published ranges.
    pub const VERIFIED: Self = Self(64);
    /// It fetched one of the page's scripts (`.js`, `.mjs`, `.wasm`): a
    /// quick POST after that is the page's script, not a form filled in by
    /// nobody.
    pub const SCRIPTS: Self = Self(128);
    /// A request that contradicts its own agent: client hints that name
    /// another browser, version, platform or phone; a browser recent enough
    /// to send client hints or fetch metadata to a trustworthy origin that
    /// sent none; a document load that does not ask for HTML
    /// (`request::consistency`).
    pub const CONTRADICTED: Self = Self(256);
    /// The signs that a person-looking visitor-day is a browser.
    pub const BROWSER: Self = Self(Self::FILES.0 | Self::WAIVED.0 | Self::CALLED.0);
    /// The signs that it is a script wearing a browser's agent.
    pub const IMPOSTOR: Self =
        Self(Self::OLD_PROTOCOL.0 | Self::INSTANT_POST.0 | Self::RATE.0 | Self::CONTRADICTED.0);
    /// Every bit in use.
    pub const ALL: Self = Self(511);

    /// No evidence at all.
    pub const NONE: Self = Self(0);

    /// Whether any bit of `other` is set.
    pub fn has(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether a visitor-day with these bits and at least one person
    /// request counts as people: a browser's sign and no impostor's.
    pub fn passes(self) -> bool {
        self.has(Self::BROWSER) && !self.has(Self::IMPOSTOR)
    }

    /// The bits in words, for `whocomes explain` and the visitor table.
    pub fn words(self) -> Vec<&'static str> {
        [
            (Self::FILES, "fetched the page's files"),
            (Self::WAIVED, "files not asked for"),
            (Self::OLD_PROTOCOL, "HTTP/1.0"),
            (Self::INSTANT_POST, "form posted at once"),
            (Self::RATE, "request rate no reader keeps"),
            (Self::CALLED, "the page's script called the site"),
            (Self::VERIFIED, "a crawler verified by its address"),
            (Self::SCRIPTS, "fetched the page's scripts"),
            (Self::CONTRADICTED, "its request contradicts its agent"),
        ]
        .into_iter()
        .filter(|(bit, _)| self.has(*bit))
        .map(|(_, words)| words)
        .collect()
    }
}

impl std::ops::BitOr for Evidence {
    type Output = Self;

    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for Evidence {
    fn bitor_assign(&mut self, other: Self) {
        self.0 |= other.0;
    }
}

/// A form posted within this long of its visitor's last page load, by a
/// visitor that fetched none of the page's scripts, was not filled in by a
/// person.
pub const INSTANT_POST: chrono::Duration = chrono::Duration::seconds(2);
/// More page requests than this within [`RATE_WINDOW`]: no reader keeps it up.
pub const RATE_PAGES: u16 = 20;
/// The window [`RATE_PAGES`] is counted in (fixed windows from the epoch).
pub const RATE_WINDOW: i64 = 10;

/// Whether a person-looking visitor-day must show the files' evidence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum BrowserEvidence {
    /// Yes: the site serves its own files, so a browser fetches some.
    #[default]
    Files,
    /// No (the files come from another host, e.g. a CDN): only the
    /// impostor's signs move a visitor-day to scanners and crawlers.
    Off,
}

impl std::str::FromStr for BrowserEvidence {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "files" => Ok(Self::Files),
            "off" => Ok(Self::Off),
            _ => Err(format!(
                "'{text}' is not a browser evidence rule: use files or off"
            )),
        }
    }
}

/// What one counted request was, for the signs that need time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// A top-level document load (or the app's report of one).
    PageLoad,
    /// A POST to a page (a form), not to an API route, that no browser
    /// marked as a script's.
    FormPost,
    /// A request the browser marks as a page's script's (fetch metadata):
    /// neither a page nor a form.
    Script,
    /// Any other page request (a non-document GET, a HEAD, …).
    OtherPage,
    /// An API request.
    #[default]
    Api,
}

impl Shape {
    /// Whether it is a request for a page (counted towards the rate).
    pub fn is_page(self) -> bool {
        !matches!(self, Self::Api | Self::Script)
    }
}

/// The visitor-days that already sent a [`FilesMark`] today, so that a page
/// made of many files costs one mark, and a flood of file requests costs the
/// queue nothing. In memory only: a keyed hash of the day and the client
/// address (the key is made per process and never leaves it), bounded at
/// [`FilesSeen::MOST`] (then it starts again: a repeat mark is harmless).
#[derive(Debug)]
pub struct FilesSeen {
    key: (u64, u64),
    seen: std::sync::Mutex<std::collections::HashSet<u64, Prehashed>>,
}

/// The set's entries are already keyed hashes: hashing them again is waste.
type Prehashed = std::hash::BuildHasherDefault<Identity>;

/// A hasher that passes a `u64` through.
#[derive(Debug, Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

impl FilesSeen {
    /// The most visitor-days remembered before starting again.
    pub const MOST: usize = 200_000;

    /// An empty set with a key of its own.
    pub fn new() -> Self {
        let random = std::collections::hash_map::RandomState::new();
        let mut a = std::hash::BuildHasher::build_hasher(&random);
        a.write_u8(1);
        let mut b = std::hash::BuildHasher::build_hasher(&random);
        b.write_u8(2);
        Self {
            key: (a.finish(), b.finish()),
            seen: std::sync::Mutex::default(),
        }
    }

    /// Whether this is the first file of `client` on `day` (then it is
    /// remembered); `scripts`: the first of the page's scripts, kept apart.
    pub fn first(&self, day: NaiveDate, client: Option<std::net::IpAddr>, scripts: bool) -> bool {
        let entry = self.entry(day, client, scripts);
        let mut seen = self.lock();
        if seen.len() >= Self::MOST {
            seen.clear();
        }
        seen.insert(entry)
    }

    /// Forgets `client` on `day` (its mark could not be queued: the next
    /// file tries again).
    pub fn forget(&self, day: NaiveDate, client: Option<std::net::IpAddr>, scripts: bool) {
        let entry = self.entry(day, client, scripts);
        self.lock().remove(&entry);
    }

    fn entry(&self, day: NaiveDate, client: Option<std::net::IpAddr>, scripts: bool) -> u64 {
        let mut hasher = DefaultHasher::new();
        (self.key, day, client, scripts).hash(&mut hasher);
        hasher.finish()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<u64, Prehashed>> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for FilesSeen {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_764_374_400 + seconds, 0).unwrap_or_default()
    }

    #[test]
    fn people_need_a_browsers_sign_and_no_impostors() {
        assert!(Evidence::FILES.passes());
        assert!(Evidence::CALLED.passes());
        assert!(!Evidence::VERIFIED.passes());
        assert!(!(Evidence::CALLED | Evidence::INSTANT_POST).passes());
        assert!(Evidence::WAIVED.passes());
        assert!(!Evidence::NONE.passes());
        assert!(!(Evidence::FILES | Evidence::OLD_PROTOCOL).passes());
        assert!(!(Evidence::WAIVED | Evidence::INSTANT_POST).passes());
        assert!(!(Evidence::FILES | Evidence::RATE).passes());
        assert_eq!(
            (Evidence::FILES | Evidence::RATE).words(),
            vec!["fetched the page's files", "request rate no reader keeps"]
        );
    }

    #[test]
    fn files_seen_once_per_client_and_day() {
        let seen = FilesSeen::new();
        let day = at(0).date_naive();
        let client = Some(std::net::IpAddr::from([203, 0, 113, 7]));
        assert!(seen.first(day, client, false));
        assert!(!seen.first(day, client, false));
        assert!(seen.first(day, client, true));
        assert!(!seen.first(day, client, true));
        assert!(seen.first(day.succ_opt().unwrap_or(day), client, false));
        assert!(seen.first(day, Some(std::net::IpAddr::from([203, 0, 113, 8])), false));
    }
}
