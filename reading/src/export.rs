//! The exports: hourly rows, goals' hourly rows, visitor-day rows and the
//! chart's notes as JSON or CSV, the same
//! bytes for the tab's download links and for `whocomes export`.

use std::io::Write;

use activity::report::VisitorKind;
use activity::rows::{GoalHour, HourRow, VisitorDay};

/// Which rows an export holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Requests per hour and path.
    Hours,
    /// One row per visitor-day (token, network, country, counts, paths, sources, goals).
    Visitors,
    /// The owner's dated notes on the chart (kept in the first store).
    Notes,
    /// Requests per hour and goal, by kind (kept as long as the hourly rows).
    Goals,
}

impl std::str::FromStr for Rows {
    type Err = String;

    /// `hours`, `visitors`, `notes` or `goals` (a download's name, `whocomes export`'s argument).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "hours" => Ok(Self::Hours),
            "visitors" => Ok(Self::Visitors),
            "notes" => Ok(Self::Notes),
            "goals" => Ok(Self::Goals),
            _ => Err(format!(
                "'{text}' is not an export: use hours, visitors, notes or goals"
            )),
        }
    }
}

impl Rows {
    /// The name of the export (`hours`, `visitors`, `notes`, `goals`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hours => "hours",
            Self::Visitors => "visitors",
            Self::Notes => "notes",
            Self::Goals => "goals",
        }
    }
}

/// How rows are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// A JSON array of records.
    Json,
    /// CSV with a header row; paths and sources as JSON in their cells.
    Csv,
}

impl std::str::FromStr for ExportFormat {
    type Err = String;

    /// `json` or `csv` (a download's extension, `whocomes export --format`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "json" => Ok(Self::Json),
            "csv" => Ok(Self::Csv),
            _ => Err(format!("'{text}' is not an export format: use json or csv")),
        }
    }
}

impl ExportFormat {
    /// The file extension and the media type.
    pub fn describe(self) -> (&'static str, &'static str) {
        match self {
            Self::Json => ("json", "application/json"),
            Self::Csv => ("csv", "text/csv; charset=utf-8"),
        }
    }
}

/// Rows could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The output refused the bytes.
    #[error("cannot write the export: {0}")]
    Io(#[from] std::io::Error),
    /// A row could not be put in CSV.
    #[error("cannot write the export as CSV: {0}")]
    Csv(#[from] csv::Error),
    /// A row could not be put in JSON.
    #[error("cannot write the export as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A store could not be read.
    #[error(transparent)]
    Unreadable(#[from] crate::merge::Unreadable),
}

/// Writes rows a page at a time, so that an export holds one page however
/// many rows it has: the CSV header (or JSON's `[`) before the first row,
/// each page's rows, and [`finish`](Self::finish) after the last.
#[derive(Debug)]
pub struct Pages {
    format: ExportFormat,
    begun: bool,
    rows: usize,
}

impl Pages {
    /// No row written yet.
    pub fn new(format: ExportFormat) -> Self {
        Self {
            format,
            begun: false,
            rows: 0,
        }
    }

    /// How many rows were written.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes the beginning (before any row) to `out`, once.
    fn begin(&mut self, header: &[&str], out: &mut Vec<u8>) -> Result<(), ExportError> {
        if std::mem::replace(&mut self.begun, true) {
            return Ok(());
        }
        match self.format {
            ExportFormat::Json => out.push(b'['),
            ExportFormat::Csv => {
                let mut csv = csv::Writer::from_writer(&mut *out);
                csv.write_record(header)?;
                csv.flush()?;
            }
        }
        Ok(())
    }

    /// Writes `rows` to `out` (after the beginning if they are the first),
    /// as JSON records, or as CSV with `header` and one `record` per row.
    pub fn page<T: serde::Serialize>(
        &mut self,
        rows: &[T],
        header: &[&str],
        record: impl Fn(&T) -> Result<Vec<String>, ExportError>,
        out: &mut Vec<u8>,
    ) -> Result<(), ExportError> {
        self.begin(header, out)?;
        match self.format {
            ExportFormat::Json => {
                for (n, row) in rows.iter().enumerate() {
                    out.extend_from_slice(if self.rows + n == 0 { b"\n" } else { b",\n" });
                    serde_json::to_writer_pretty(&mut *out, row)?;
                }
            }
            ExportFormat::Csv => {
                let mut csv = csv::WriterBuilder::new()
                    .has_headers(false)
                    .from_writer(&mut *out);
                for row in rows {
                    csv.write_record(record(row)?)?;
                }
                csv.flush()?;
            }
        }
        self.rows += rows.len();
        Ok(())
    }

    /// Writes the end (and the beginning, if no row came) to `out`.
    pub fn finish(mut self, header: &[&str], out: &mut Vec<u8>) -> Result<(), ExportError> {
        self.begin(header, out)?;
        // CSV's every record already ends its line; JSON's array is closed
        // on a line of its own.
        if self.format == ExportFormat::Json {
            out.extend_from_slice(if self.rows == 0 { b"]\n" } else { b"\n]\n" });
        }
        Ok(())
    }
}

/// The CSV header of the chart's notes.
pub const NOTES_HEADER: &[&str] = &["id", "day", "text", "added"];

/// A note's CSV record.
fn note_record(note: &activity::annotations::Annotation) -> Result<Vec<String>, ExportError> {
    Ok(vec![
        note.id.to_string(),
        note.day.to_string(),
        note.text.clone(),
        note.added.to_rfc3339(),
    ])
}

/// Writes a page of notes.
pub fn notes_page(
    pages: &mut Pages,
    notes: &[activity::annotations::Annotation],
    out: &mut Vec<u8>,
) -> Result<(), ExportError> {
    pages.page(notes, NOTES_HEADER, note_record, out)
}

/// The CSV header of goals' hourly rows.
pub const GOALS_HEADER: &[&str] = &["store", "hour", "goal", "requests", "bots", "self_reads"];

/// A goal's hourly row's CSV record.
fn goal_record(row: &GoalHour) -> Result<Vec<String>, ExportError> {
    Ok(vec![
        row.store.to_string(),
        row.hour.to_rfc3339(),
        row.goal.to_string(),
        row.requests.to_string(),
        row.bots.to_string(),
        row.self_reads.to_string(),
    ])
}

/// Writes a page of goals' hourly rows.
pub fn goals_page(
    pages: &mut Pages,
    rows: &[GoalHour],
    out: &mut Vec<u8>,
) -> Result<(), ExportError> {
    pages.page(rows, GOALS_HEADER, goal_record, out)
}

/// The CSV header of hourly rows.
pub const HOURS_HEADER: &[&str] = &["store", "hour", "path", "requests", "bots", "self_reads"];

/// An hourly row's CSV record.
fn hour_record(row: &HourRow) -> Result<Vec<String>, ExportError> {
    Ok(vec![
        row.store.to_string(),
        row.hour.to_rfc3339(),
        row.path.clone(),
        row.requests.to_string(),
        row.bots.to_string(),
        row.self_reads.to_string(),
    ])
}

/// Writes a page of hourly rows.
pub fn hours_page(
    pages: &mut Pages,
    rows: &[HourRow],
    out: &mut Vec<u8>,
) -> Result<(), ExportError> {
    pages.page(rows, HOURS_HEADER, hour_record, out)
}

/// Writes hourly rows, whole.
pub fn write_hours(
    rows: &[HourRow],
    format: ExportFormat,
    mut out: impl Write,
) -> Result<(), ExportError> {
    let mut pages = Pages::new(format);
    let mut bytes = Vec::new();
    hours_page(&mut pages, rows, &mut bytes)?;
    pages.finish(HOURS_HEADER, &mut bytes)?;
    out.write_all(&bytes)?;
    Ok(())
}

/// A visitor-day as exported: the row, its kind (SPEC §3) and the signs
/// that decided it, in words, so that a count can be audited row by row.
#[derive(serde::Serialize)]
struct Exported<'a> {
    #[serde(flatten)]
    row: &'a VisitorDay,
    kind: VisitorKind,
    signs: Vec<&'static str>,
}

/// The kind of a visitor-day and its signs in words: the browser's and the
/// impostor's it showed, and why it is not people when it is not (the
/// verdict's own words).
pub fn kind_and_signs(row: &VisitorDay) -> (VisitorKind, Vec<&'static str>) {
    let verdict = row.counts().verdict();
    (verdict.kind, verdict.signs())
}

/// The words of a kind, as the export writes it.
fn kind_word(kind: VisitorKind) -> &'static str {
    match kind {
        VisitorKind::Person => "person",
        VisitorKind::Bot => "bot",
        VisitorKind::SelfRead => "self-read",
    }
}

/// The CSV header of visitor-day rows.
pub const VISITORS_HEADER: &[&str] = &[
    "store",
    "day",
    "visitor",
    "network",
    "country",
    "first_seen",
    "last_seen",
    "requests",
    "bots",
    "self_reads",
    "kind",
    "signs",
    "bot_classes",
    "top_paths",
    "sources",
    "goals",
];

/// A visitor-day's CSV record.
fn visitor_record(exported: &Exported<'_>) -> Result<Vec<String>, ExportError> {
    let row = exported.row;
    Ok(vec![
        row.store.to_string(),
        row.day.to_string(),
        row.visitor.to_string(),
        row.network.to_string(),
        // The two-letter code; empty when no country is known.
        row.country
            .map(|country| country.to_string())
            .unwrap_or_default(),
        row.first_seen.to_rfc3339(),
        row.last_seen.to_rfc3339(),
        row.requests.to_string(),
        row.bots.to_string(),
        row.self_reads.to_string(),
        kind_word(exported.kind).to_owned(),
        exported.signs.join("; "),
        row.bot_classes
            .iter()
            .map(activity::bot_class::BotClass::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        serde_json::to_string(&row.top_paths)?,
        serde_json::to_string(&row.sources)?,
        serde_json::to_string(&row.goals)?,
    ])
}

/// Writes a page of visitor-day rows (paths, sources and goals as JSON in their
/// CSV cells), each with its `kind` and `signs`.
pub fn visitors_page(
    pages: &mut Pages,
    rows: &[VisitorDay],
    out: &mut Vec<u8>,
) -> Result<(), ExportError> {
    let exported: Vec<Exported<'_>> = rows
        .iter()
        .map(|row| {
            let (kind, signs) = kind_and_signs(row);
            Exported { row, kind, signs }
        })
        .collect();
    pages.page(&exported, VISITORS_HEADER, visitor_record, out)
}

/// Writes visitor-day rows, whole.
pub fn write_visitors(
    rows: &[VisitorDay],
    format: ExportFormat,
    mut out: impl Write,
) -> Result<(), ExportError> {
    let mut pages = Pages::new(format);
    let mut bytes = Vec::new();
    visitors_page(&mut pages, rows, &mut bytes)?;
    pages.finish(VISITORS_HEADER, &mut bytes)?;
    out.write_all(&bytes)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use activity::StoreName;
    use chrono::{TimeZone as _, Utc};

    fn hour_rows(n: usize) -> Vec<HourRow> {
        (0..n)
            .map(|i| HourRow {
                store: StoreName::parse("sqlite").expect("a name"),
                hour: Utc.with_ymd_and_hms(2026, 12, 3, 10, 0, 0).unwrap(),
                path: format!("/{i}"),
                requests: 2,
                bots: 1,
                self_reads: 0,
            })
            .collect()
    }

    /// Pages written one after another, empty ones among them, make one
    /// file: one header, one JSON array, every row once.
    #[test]
    fn pages_make_one_file_whatever_their_sizes() {
        for format in [ExportFormat::Csv, ExportFormat::Json] {
            for sizes in [&[][..], &[0][..], &[0, 3, 0, 2][..], &[1, 1][..]] {
                let mut pages = Pages::new(format);
                let mut out = Vec::new();
                for &size in sizes {
                    hours_page(&mut pages, &hour_rows(size), &mut out).expect("written");
                }
                pages.finish(HOURS_HEADER, &mut out).expect("ended");
                let text = String::from_utf8(out).expect("UTF-8");
                let all: usize = sizes.iter().sum();
                match format {
                    ExportFormat::Csv => {
                        assert_eq!(text.matches("store,hour").count(), 1, "{text}");
                        // A header, each row on its line, and no empty line.
                        assert_eq!(text.lines().count(), all + 1, "{text:?}");
                        assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{text:?}");
                    }
                    ExportFormat::Json => {
                        let rows: Vec<serde_json::Value> =
                            serde_json::from_str(&text).expect("one JSON array");
                        assert_eq!(rows.len(), all, "{text}");
                        assert!(text.ends_with("]\n"), "{text:?}");
                    }
                }
            }
        }
    }
}
