//! What the browser-evidence rule did to an import: each imported
//! visitor-day that made a person-looking request, whether it counts as
//! people, and if not, by which rule (SPEC §3). Kept in memory for the run
//! as a few bits per visitor-day, keyed by a hash of its day and token (about
//! 30 bytes each: a million visitor-days take some 30 MB); never printed but
//! as counts.

use std::collections::HashMap;

use activity::evidence::{BrowserEvidence, Evidence, FilesMark};
use activity::rows::Seen;
use activity::verdict::DayCounts;
use activity::verdict::watch::{Watch, day_key};
use activity::{Hit, Kind};

/// The visitor-days of an import and their evidence.
#[derive(Debug, Default)]
pub struct EvidenceWatch {
    days: HashMap<u64, (bool, Evidence)>,
    watch: Watch,
    files: u64,
    revalidated: u64,
}

impl EvidenceWatch {
    /// Notes a counted request, in log order, and adds the signs that need
    /// time to its evidence (the writer's own watch finds the same ones).
    pub fn hit(&mut self, hit: &mut Hit) {
        self.watch.see_hit(hit);
        let entry = self
            .days
            .entry(day_key(hit.at.date_naive(), &hit.visitor))
            .or_default();
        entry.0 |= hit.kind == Kind::Person;
        entry.1 |= hit.evidence;
    }

    /// Notes a request for one of the page's files (`scripts`: one of its
    /// scripts; `revalidated`: answered 304, a browser asking its cache's copy again).
    pub fn files(&mut self, mark: &FilesMark, scripts: bool, revalidated: bool) {
        self.files += 1;
        self.revalidated += u64::from(revalidated);
        self.watch.see(&mut Seen::mark(mark.clone(), scripts));
        let entry = self
            .days
            .entry(day_key(mark.day, &mark.visitor))
            .or_default();
        entry.1 |= Evidence::FILES;
    }

    /// The counts, under `rule`: each person-looking visitor-day's verdict.
    pub fn finish(self, rule: BrowserEvidence) -> EvidenceTally {
        let mut tally = EvidenceTally {
            rule,
            file_requests: self.files,
            revalidated: self.revalidated,
            ..EvidenceTally::default()
        };
        for (_, evidence) in self.days.values().filter(|(person, _)| *person) {
            let verdict = DayCounts::one_person_request(*evidence).verdict();
            let impostor = verdict.impostor != Evidence::NONE;
            tally.person_looking += 1;
            tally.impostor += u64::from(impostor);
            if !verdict.disguised() {
                continue;
            }
            tally.moved += 1;
            if !verdict.browser {
                tally.no_files += 1;
                tally.only_no_files += u64::from(!impostor);
            }
            for (bit, count) in [
                (Evidence::OLD_PROTOCOL, &mut tally.old_protocol),
                (Evidence::INSTANT_POST, &mut tally.instant_post),
                (Evidence::RATE, &mut tally.rate),
                (Evidence::CONTRADICTED, &mut tally.contradicted),
            ] {
                *count += u64::from(verdict.impostor.has(bit));
            }
        }
        tally
    }
}

/// What the rule changed: visitor-days that looked like people, and those
/// of them moved to scanners and crawlers, by rule (one visitor-day can
/// break several rules).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvidenceTally {
    /// The rule applied.
    pub rule: BrowserEvidence,
    /// Requests for the page's files the logs held.
    pub file_requests: u64,
    /// Of those, answered 304 (a browser revalidating its cached copy).
    pub revalidated: u64,
    /// Visitor-days that made at least one person-looking request.
    pub person_looking: u64,
    /// Of those, moved to scanners and crawlers.
    pub moved: u64,
    /// …because they fetched none of the page's files.
    pub no_files: u64,
    /// …for that alone: no impostor's sign (a returning reader whose
    /// browser kept the files looks like this).
    pub only_no_files: u64,
    /// Person-looking visitor-days with an impostor's sign (moved under
    /// either rule).
    pub impostor: u64,
    /// …because of an HTTP/1.0 request line.
    pub old_protocol: u64,
    /// …because they posted a form within 2 s of its page.
    pub instant_post: u64,
    /// …because of a request rate no reader keeps.
    pub rate: u64,
    /// …because a request contradicted its agent (a log in the `whocomes`
    /// or Caddy's format; the combined format carries nothing to tell).
    pub contradicted: u64,
}

impl std::fmt::Display for EvidenceTally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rule = match self.rule {
            BrowserEvidence::Files => "files",
            BrowserEvidence::Off => "off",
        };
        writeln!(
            f,
            "browser evidence  {:>10} person-looking visitor-days, {} moved to scanners and crawlers (--browser-evidence {rule})",
            self.person_looking, self.moved
        )?;
        for (count, why) in [
            (self.no_files, "fetched none of the page's files"),
            (self.old_protocol, "HTTP/1.0 request line"),
            (self.instant_post, "form posted within 2 s of its page"),
            (self.rate, "more than 20 pages in 10 s"),
            (self.contradicted, "a request that contradicts its agent"),
        ] {
            if count > 0 {
                writeln!(f, "  {count:>10}  {why}")?;
            }
        }
        if self.rule == BrowserEvidence::Files && self.file_requests == 0 && self.person_looking > 0
        {
            writeln!(
                f,
                "  these logs hold no request for a page's file: if this site's files come from another host, import with --browser-evidence off"
            )?;
        } else if self.rule == BrowserEvidence::Files && self.only_no_files > 0 {
            let with_off = self.person_looking - self.impostor;
            if self.revalidated == 0 {
                writeln!(
                    f,
                    "  these logs look like long-lived caching ({} file requests, none answered 304): {} visitor-days were moved only for fetching no file, as returning readers whose browser kept the files would be; --browser-evidence off would count {with_off} of {} as people",
                    self.file_requests, self.only_no_files, self.person_looking
                )?;
            } else {
                writeln!(
                    f,
                    "  {} visitor-days were moved only for fetching no file; --browser-evidence off would count {with_off} of {} as people",
                    self.only_no_files, self.person_looking
                )?;
            }
        }
        Ok(())
    }
}
