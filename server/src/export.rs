//! `whocomes export hours|visitors`: what a store holds, as JSON or CSV, for
//! operators and scripts. It reads the store `serve` writes to (same flags).

use std::io::Write;

use admin::server::export::{ExportFormat, write_hours, write_visitors};
use chrono::{NaiveDate, Utc};
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

/// What `whocomes export` takes.
#[derive(Clone, Debug, Args)]
pub struct ExportArgs {
    /// `hours` or `visitors`.
    #[arg(value_enum)]
    pub what: ExportWhat,

    /// From this UTC day on, YYYY-MM-DD (default: 30 days ago).
    #[arg(long)]
    pub since: Option<NaiveDate>,

    /// `json` (an array of records) or `csv` (a header row; paths and
    /// sources as JSON in their cells).
    #[arg(long, default_value = "json", value_parser = parse_format)]
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
            let rows = store
                .hours_since(activity::summary::midnight(since))
                .await?;
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

fn parse_format(text: &str) -> Result<ExportFormat, String> {
    text.parse()
}
