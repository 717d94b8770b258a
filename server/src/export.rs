//! `whocomes export hours|visitors`: what a store holds, as JSON or CSV, for
//! operators and scripts. It reads the store `serve` writes to (same flags).

use std::io::Write;

use activity::rows::{HourRow, VisitorDay};
use anyhow::Context as _;
use chrono::{NaiveDate, TimeZone as _, Utc};
use clap::{Args, ValueEnum};

use crate::storage::StoreArgs;

/// Which rows to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportWhat {
    /// Requests per hour and path.
    Hours,
    /// One row per visitor-day (token, network, counts, paths, sources).
    Visitors,
}

/// How to write them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A JSON array of records.
    Json,
    /// CSV with a header row; paths and sources as JSON in their cells.
    Csv,
}

/// What `whocomes export` takes.
#[derive(Clone, Debug, Args)]
pub struct ExportArgs {
    /// `hours` or `visitors`.
    #[arg(value_enum)]
    pub what: ExportWhat,

    /// From this UTC day on, YYYY-MM-DD (default: 30 days ago).
    #[arg(long)]
    pub since: Option<NaiveDate>,

    /// `json` or `csv`.
    #[arg(long, value_enum, default_value = "json")]
    pub format: ExportFormat,

    #[command(flatten)]
    pub store: StoreArgs,
}

/// Writes the rows to `out`; returns how many.
pub async fn export(args: &ExportArgs, out: impl Write) -> anyhow::Result<usize> {
    let name = args.store.store_name()?;
    let store = args
        .store
        .open_once(name)
        .await
        .map_err(|reason| anyhow::anyhow!("cannot read the store: {reason}"))?;
    let since = args
        .since
        .unwrap_or_else(|| Utc::now().date_naive() - chrono::Days::new(30));
    let written = match args.what {
        ExportWhat::Hours => {
            let start = Utc.from_utc_datetime(&since.and_time(chrono::NaiveTime::MIN));
            let rows = store.hours_since(start).await?;
            write_hours(&rows, args.format, out)?;
            rows.len()
        }
        ExportWhat::Visitors => {
            let rows = store.visitors_since(since).await?;
            write_visitors(&rows, args.format, out)?;
            rows.len()
        }
    };
    store.close().await;
    Ok(written)
}

fn write_hours(rows: &[HourRow], format: ExportFormat, mut out: impl Write) -> anyhow::Result<()> {
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
    writeln!(out).context("cannot write the export")?;
    Ok(())
}

fn write_visitors(
    rows: &[VisitorDay],
    format: ExportFormat,
    mut out: impl Write,
) -> anyhow::Result<()> {
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
    writeln!(out).context("cannot write the export")?;
    Ok(())
}
