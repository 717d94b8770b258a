//! The exports: hourly rows and visitor rows as JSON or CSV. Used by the
//! tab's download links (served by [`AdminLayer`](super::AdminLayer)) and by
//! `whocomes export`.

use std::io::Write;

use activity::rows::{HourRow, VisitorDay};

/// How rows are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// A JSON array of records.
    Json,
    /// CSV with a header row; paths and sources as JSON in their cells.
    Csv,
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
}

/// Writes hourly rows.
pub fn write_hours(
    rows: &[HourRow],
    format: ExportFormat,
    mut out: impl Write,
) -> Result<(), ExportError> {
    match format {
        ExportFormat::Json => serde_json::to_writer_pretty(&mut out, rows)?,
        ExportFormat::Csv => {
            let mut csv = csv::Writer::from_writer(&mut out);
            csv.write_record(["store", "hour", "path", "requests", "bots", "self_reads"])?;
            for row in rows {
                csv.write_record([
                    row.store.to_string(),
                    row.hour.to_rfc3339(),
                    row.path.clone(),
                    row.requests.to_string(),
                    row.bots.to_string(),
                    row.self_reads.to_string(),
                ])?;
            }
            csv.flush()?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// Writes visitor-day rows.
pub fn write_visitors(
    rows: &[VisitorDay],
    format: ExportFormat,
    mut out: impl Write,
) -> Result<(), ExportError> {
    match format {
        ExportFormat::Json => serde_json::to_writer_pretty(&mut out, rows)?,
        ExportFormat::Csv => {
            let mut csv = csv::Writer::from_writer(&mut out);
            csv.write_record([
                "store",
                "day",
                "visitor",
                "network",
                "first_seen",
                "last_seen",
                "requests",
                "bots",
                "self_reads",
                "top_paths",
                "sources",
            ])?;
            for row in rows {
                csv.write_record([
                    row.store.to_string(),
                    row.day.to_string(),
                    row.visitor.to_string(),
                    row.network.to_string(),
                    row.first_seen.to_rfc3339(),
                    row.last_seen.to_rfc3339(),
                    row.requests.to_string(),
                    row.bots.to_string(),
                    row.self_reads.to_string(),
                    serde_json::to_string(&row.top_paths)?,
                    serde_json::to_string(&row.sources)?,
                ])?;
            }
            csv.flush()?;
        }
    }
    writeln!(out)?;
    Ok(())
}
