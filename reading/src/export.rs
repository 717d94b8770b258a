//! The exports: hourly rows and visitor-day rows as JSON or CSV, the same
//! bytes for the tab's download links and for `whocomes export`.

use std::io::Write;

use activity::evidence::Evidence;
use activity::report::{VisitorKind, visitor_kind};
use activity::rows::{HourRow, VisitorDay};

/// Which rows an export holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Requests per hour and path.
    Hours,
    /// One row per visitor-day (token, network, counts, paths, sources).
    Visitors,
}

impl std::str::FromStr for Rows {
    type Err = String;

    /// `hours` or `visitors` (a download's name, `whocomes export`'s argument).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "hours" => Ok(Self::Hours),
            "visitors" => Ok(Self::Visitors),
            _ => Err(format!("'{text}' is not an export: use hours or visitors")),
        }
    }
}

impl Rows {
    /// The name of the export (`hours`, `visitors`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hours => "hours",
            Self::Visitors => "visitors",
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

/// Writes `rows` as JSON, or as CSV with `header` and one `record` per row.
fn write_rows<T: serde::Serialize>(
    rows: &[T],
    format: ExportFormat,
    header: &[&str],
    record: impl Fn(&T) -> Result<Vec<String>, ExportError>,
    mut out: impl Write,
) -> Result<(), ExportError> {
    match format {
        ExportFormat::Json => serde_json::to_writer_pretty(&mut out, rows)?,
        ExportFormat::Csv => {
            let mut csv = csv::Writer::from_writer(&mut out);
            csv.write_record(header)?;
            for row in rows {
                csv.write_record(record(row)?)?;
            }
            csv.flush()?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// Writes hourly rows.
pub fn write_hours(
    rows: &[HourRow],
    format: ExportFormat,
    out: impl Write,
) -> Result<(), ExportError> {
    let header = ["store", "hour", "path", "requests", "bots", "self_reads"];
    let record = |row: &HourRow| {
        Ok(vec![
            row.store.to_string(),
            row.hour.to_rfc3339(),
            row.path.clone(),
            row.requests.to_string(),
            row.bots.to_string(),
            row.self_reads.to_string(),
        ])
    };
    write_rows(rows, format, &header, record, out)
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
/// impostor's it showed, and why it is not people when it is not.
pub fn kind_and_signs(row: &VisitorDay) -> (VisitorKind, Vec<&'static str>) {
    let kind = visitor_kind(row.requests, row.bots, row.self_reads, row.evidence);
    let mut signs = row.evidence.words();
    let person_looking = row.requests > row.bots.saturating_add(row.self_reads);
    if kind == VisitorKind::Bot {
        if person_looking && !row.evidence.has(Evidence::BROWSER) {
            signs.push("no browser's sign (no file of the page, no call from its script)");
        }
        if !person_looking {
            signs.push("every request a bot's or the site's own");
        }
    }
    if kind == VisitorKind::SelfRead {
        signs.push("only the site's own reads");
    }
    (kind, signs)
}

/// The words of a kind, as the export writes it.
fn kind_word(kind: VisitorKind) -> &'static str {
    match kind {
        VisitorKind::Person => "person",
        VisitorKind::Bot => "bot",
        VisitorKind::SelfRead => "self-read",
    }
}

/// Writes visitor-day rows (paths and sources as JSON in their CSV cells),
/// each with its `kind` and `signs`.
pub fn write_visitors(
    rows: &[VisitorDay],
    format: ExportFormat,
    out: impl Write,
) -> Result<(), ExportError> {
    let exported: Vec<Exported<'_>> = rows
        .iter()
        .map(|row| {
            let (kind, signs) = kind_and_signs(row);
            Exported { row, kind, signs }
        })
        .collect();
    let header = [
        "store",
        "day",
        "visitor",
        "network",
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
    ];
    let record = |exported: &Exported<'_>| {
        let row = exported.row;
        Ok(vec![
            row.store.to_string(),
            row.day.to_string(),
            row.visitor.to_string(),
            row.network.to_string(),
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
        ])
    };
    write_rows(&exported, format, &header, record, out)
}
