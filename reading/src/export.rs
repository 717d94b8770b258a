//! The exports: hourly rows and visitor-day rows as JSON or CSV, the same
//! bytes for the tab's download links and for `whocomes export`.

use std::io::Write;

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

/// Writes visitor-day rows (paths and sources as JSON in their CSV cells).
pub fn write_visitors(
    rows: &[VisitorDay],
    format: ExportFormat,
    out: impl Write,
) -> Result<(), ExportError> {
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
        "evidence",
        "bot_classes",
        "top_paths",
        "sources",
    ];
    let record = |row: &VisitorDay| {
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
            row.evidence.words().join("; "),
            row.bot_classes
                .iter()
                .map(activity::bot_class::BotClass::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            serde_json::to_string(&row.top_paths)?,
            serde_json::to_string(&row.sources)?,
        ])
    };
    write_rows(rows, format, &header, record, out)
}
