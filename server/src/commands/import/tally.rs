//! What an import saw, line by line, and the summary printed at its end.
//! It holds counts and line numbers only — never a line's bytes.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use std::fmt;

use activity::{Counted, Decision, Kind, Skip};

use activity::logline::LineError;

/// How many malformed lines are listed by number.
pub const LISTED: usize = 5;

/// The counts of an import.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Lines read (blank and malformed ones included; not those skipped
    /// as already imported).
    pub lines: u64,
    /// Bytes not read again because the store had imported them.
    pub already_imported_bytes: u64,
    /// Logs the store had imported more of than the file holds.
    pub truncated_copies: u64,
    /// A followed log: times its path named a new file (rename-and-create).
    pub rotations: u64,
    /// A followed log: times it was truncated in place (copytruncate).
    pub truncations: u64,
    /// Empty lines.
    pub blank: u64,
    /// Requests counted as pages.
    pub pages: u64,
    /// Requests counted as API requests.
    pub api: u64,
    /// Counted requests by kind.
    pub people: u64,
    /// Counted bot requests.
    pub bots: u64,
    /// Counted self-reads.
    pub self_reads: u64,
    /// Requests not counted, by reason.
    pub not_counted: BTreeMap<String, u64>,
    /// Requests not counted, by the UTC day they were made on.
    pub not_counted_by_day: BTreeMap<NaiveDate, u64>,
    /// Malformed lines, by what is wrong.
    pub malformed: BTreeMap<LineError, u64>,
    /// The first malformed lines: (log, line number, what is wrong).
    pub first_malformed: Vec<(String, u64, LineError)>,
    /// What the browser-evidence rule did to the imported visitor-days.
    pub evidence: Option<super::evidence::EvidenceTally>,
}

impl Tally {
    /// Counted requests.
    pub fn counted(&self) -> u64 {
        self.pages + self.api
    }

    /// Requests read but not counted.
    pub fn not_counted_total(&self) -> u64 {
        self.not_counted.values().sum()
    }

    /// Malformed lines.
    pub fn malformed_total(&self) -> u64 {
        self.malformed.values().sum()
    }

    /// Notes the decision on a request made on `day`.
    pub fn decided(&mut self, decision: &Decision, day: NaiveDate) {
        match &decision.counted {
            Counted::Page => self.pages += 1,
            Counted::Api => self.api += 1,
            Counted::Not(skip) => {
                *self.not_counted.entry(reason(skip)).or_default() += 1;
                *self.not_counted_by_day.entry(day).or_default() += 1;
                return;
            }
        }
        match decision.hit.as_ref().map(|hit| hit.kind) {
            Some(Kind::Bot) => self.bots += 1,
            Some(Kind::SelfRead) => self.self_reads += 1,
            Some(Kind::Person) | None => self.people += 1,
        }
    }

    /// Notes a malformed line.
    pub fn malformed(&mut self, log: &str, line: u64, error: LineError) {
        *self.malformed.entry(error).or_default() += 1;
        if self.first_malformed.len() < LISTED {
            self.first_malformed.push((log.to_owned(), line, error));
        }
    }
}

/// A reason without the detail that would split it (an asset's extension).
fn reason(skip: &Skip) -> String {
    match skip {
        Skip::Asset(_) => "asset (by extension)".to_owned(),
        other => other.to_string(),
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "lines read        {:>10}", self.lines)?;
        if self.already_imported_bytes > 0 || self.truncated_copies > 0 {
            writeln!(
                f,
                "already imported  {:>10} bytes skipped ({} truncated copies)",
                self.already_imported_bytes, self.truncated_copies
            )?;
        }
        if self.rotations > 0 || self.truncations > 0 {
            writeln!(
                f,
                "followed through  {:>10} rotations, {} truncations",
                self.rotations, self.truncations
            )?;
        }
        writeln!(
            f,
            "counted           {:>10} ({} pages, {} API)",
            self.counted(),
            self.pages,
            self.api
        )?;
        writeln!(
            f,
            "  by kind         people {}, bots {}, self-reads {}",
            self.people, self.bots, self.self_reads
        )?;
        writeln!(f, "not counted       {:>10}", self.not_counted_total())?;
        for (why, count) in &self.not_counted {
            writeln!(f, "  {count:>10}  {why}")?;
        }
        writeln!(f, "blank             {:>10}", self.blank)?;
        writeln!(f, "malformed         {:>10}", self.malformed_total())?;
        for (why, count) in &self.malformed {
            writeln!(f, "  {count:>10}  {why}")?;
        }
        for (log, line, why) in &self.first_malformed {
            writeln!(f, "  {log}:{line}: {why}")?;
        }
        if let Some(evidence) = &self.evidence {
            write!(f, "{evidence}")?;
        }
        Ok(())
    }
}
