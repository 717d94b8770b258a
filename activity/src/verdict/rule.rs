//! A visitor-day's verdict (SPEC §3): from its counts and its signs, its
//! kind (people, scanners and crawlers, or the site's own reads), whether
//! person-looking requests were moved to scanners and crawlers (disguised),
//! the bot classes it counts under, and why — in the words `explain`, the
//! export and the visitor table show. Every reader asks [`DayCounts::verdict`]:
//! the dashboard's sums, retention's totals, the export, `explain`, and
//! `import`'s summary; the SQL stores run [`crate::verdict::sql`], which
//! their tests check against this over every combination of signs.

use serde::{Deserialize, Serialize};

use crate::request::bot_class::{BotClass, ClassSet};
use crate::request::evidence::Evidence;

/// The kind of a visitor-day: exactly one of three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VisitorKind {
    /// Made at least one person request, and showed a browser's evidence
    /// and no impostor's sign ([`Evidence::passes`]).
    Person,
    /// Otherwise, made at least one bot request or person-looking request:
    /// scanners and crawlers.
    Bot,
    /// Otherwise: only the site's own reads.
    SelfRead,
}

/// What a visitor-day's verdict reads: its requests by kind of request and
/// its signs (summed over stores, when several saw it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DayCounts {
    /// All counted requests.
    pub requests: u64,
    /// Of those, bot requests.
    pub bots: u64,
    /// Of those, the site's own reads.
    pub self_reads: u64,
    /// The signs its requests showed.
    pub evidence: Evidence,
}

impl DayCounts {
    /// The counts of a row (or of rows merged).
    pub const fn new(requests: u64, bots: u64, self_reads: u64, evidence: Evidence) -> Self {
        Self {
            requests,
            bots,
            self_reads,
            evidence,
        }
    }

    /// One person-looking request with these signs: what a single request
    /// does to its visitor-day, as `explain` tells it.
    pub fn one_person_request(evidence: Evidence) -> Self {
        Self {
            requests: 1,
            evidence,
            ..Self::default()
        }
    }

    /// The verdict (SPEC §3).
    pub fn verdict(&self) -> Verdict {
        let person_looking = self.requests > self.bots.saturating_add(self.self_reads);
        let browser = self.evidence.has(Evidence::BROWSER);
        let impostor = Evidence(self.evidence.0 & Evidence::IMPOSTOR.0);
        let kind = if person_looking && self.evidence.passes() {
            VisitorKind::Person
        } else if self.requests > self.self_reads {
            VisitorKind::Bot
        } else {
            VisitorKind::SelfRead
        };
        Verdict {
            kind,
            person_looking,
            browser,
            impostor,
            evidence: self.evidence,
        }
    }
}

/// A visitor-day's verdict and the facts that decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Its kind.
    pub kind: VisitorKind,
    /// It made at least one request that looked like a person's.
    pub person_looking: bool,
    /// It showed a browser's sign ([`Evidence::BROWSER`]).
    pub browser: bool,
    /// The impostor's signs it showed ([`Evidence::IMPOSTOR`]), if any.
    pub impostor: Evidence,
    /// Every sign it showed.
    pub evidence: Evidence,
}

impl Verdict {
    /// Whether its person-looking requests were moved to scanners and
    /// crawlers: no browser's sign, or an impostor's (a disguised agent).
    pub fn disguised(&self) -> bool {
        self.person_looking && self.kind != VisitorKind::Person
    }

    /// The bot classes it counts under, given those its bot requests
    /// showed: none unless scanners and crawlers, and scanner's when it
    /// was disguised.
    pub fn classes(&self, shown: ClassSet) -> ClassSet {
        if self.kind != VisitorKind::Bot {
            return ClassSet::default();
        }
        let mut classes = shown;
        if self.disguised() {
            classes.insert(BotClass::Scanner);
        }
        classes
    }

    /// Its signs in words, and why it is not people when it is not: what
    /// the export's `signs` and the visitor table show.
    pub fn signs(&self) -> Vec<&'static str> {
        let mut signs = self.evidence.words();
        match self.kind {
            VisitorKind::Bot if self.person_looking && !self.browser => {
                signs.push("no browser's sign (no file of the page, no call from its script)");
            }
            VisitorKind::Bot if !self.person_looking => {
                signs.push("every request a bot's or the site's own");
            }
            VisitorKind::SelfRead => signs.push("only the site's own reads"),
            VisitorKind::Bot | VisitorKind::Person => {}
        }
        signs
    }

    /// What a person-looking request with these signs does to its
    /// visitor-day, in words (`explain`'s note; see
    /// [`DayCounts::one_person_request`]).
    pub fn request_note(&self) -> &'static str {
        if self.impostor != Evidence::NONE {
            "an impostor's sign: its visitor-day counts under scanners and crawlers"
        } else if self.kind == VisitorKind::Person {
            "its visitor-day counts as people (unless it shows an impostor's sign)"
        } else {
            "its visitor-day counts as people once it fetches one of the page's files or the app reports a navigation; until then, under scanners and crawlers"
        }
    }
}

/// The kind of a visitor-day with these request counts and evidence: the
/// verdict's kind (kept as a function for 0.2's callers).
pub fn visitor_kind(requests: u64, bots: u64, self_reads: u64, evidence: Evidence) -> VisitorKind {
    DayCounts::new(requests, bots, self_reads, evidence)
        .verdict()
        .kind
}

/// Whether a visitor-day's person-looking requests were moved to scanners
/// and crawlers for want of a browser's evidence (a disguised agent).
pub fn is_disguised(requests: u64, bots: u64, self_reads: u64, evidence: Evidence) -> bool {
    DayCounts::new(requests, bots, self_reads, evidence)
        .verdict()
        .disguised()
}

/// The classes a scanners-and-crawlers visitor-day counts under: those of
/// its bot requests, and scanner when it was disguised.
pub fn classes_of(
    requests: u64,
    bots: u64,
    self_reads: u64,
    evidence: Evidence,
    classes: ClassSet,
) -> ClassSet {
    DayCounts::new(requests, bots, self_reads, evidence)
        .verdict()
        .classes(classes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(requests: u64, bots: u64, self_reads: u64, evidence: Evidence) -> Verdict {
        DayCounts::new(requests, bots, self_reads, evidence).verdict()
    }

    #[test]
    fn the_verdict_is_the_rule_of_spec_3() {
        // A browser's sign and no impostor's: people.
        assert_eq!(verdict(3, 1, 1, Evidence::FILES).kind, VisitorKind::Person);
        assert_eq!(verdict(1, 0, 0, Evidence::WAIVED).kind, VisitorKind::Person);
        // Person-looking without a browser's sign: disguised, a scanner.
        let bare = verdict(1, 0, 0, Evidence::NONE);
        assert_eq!(bare.kind, VisitorKind::Bot);
        assert!(bare.disguised());
        assert!(
            bare.classes(ClassSet::default())
                .contains(BotClass::Scanner)
        );
        // An impostor's sign beats the browser's.
        let old = verdict(1, 0, 0, Evidence::FILES | Evidence::OLD_PROTOCOL);
        assert_eq!((old.kind, old.disguised()), (VisitorKind::Bot, true));
        assert_eq!(old.impostor, Evidence::OLD_PROTOCOL);
        // Only bots: not disguised; only own reads: self-reads.
        assert!(!verdict(2, 2, 0, Evidence::NONE).disguised());
        assert_eq!(verdict(2, 0, 2, Evidence::NONE).kind, VisitorKind::SelfRead);
        assert_eq!(verdict(0, 0, 0, Evidence::NONE).kind, VisitorKind::SelfRead);
        assert!(
            verdict(1, 0, 0, Evidence::FILES)
                .classes(ClassSet::default())
                .is_empty()
        );
    }

    #[test]
    fn the_words_say_why() {
        assert_eq!(
            verdict(1, 0, 0, Evidence::NONE).signs(),
            vec!["no browser's sign (no file of the page, no call from its script)"]
        );
        assert_eq!(
            verdict(2, 2, 0, Evidence::NONE).signs(),
            vec!["every request a bot's or the site's own"]
        );
        assert_eq!(
            verdict(1, 0, 1, Evidence::NONE).signs(),
            vec!["only the site's own reads"]
        );
        assert_eq!(
            verdict(1, 0, 0, Evidence::FILES).signs(),
            vec!["fetched the page's files"]
        );
        let note = |evidence| {
            DayCounts::one_person_request(evidence)
                .verdict()
                .request_note()
        };
        assert!(note(Evidence::NONE).contains("once it fetches"));
        assert!(note(Evidence::FILES).starts_with("its visitor-day counts as people"));
        assert!(note(Evidence::FILES | Evidence::RATE).contains("impostor"));
    }
}
