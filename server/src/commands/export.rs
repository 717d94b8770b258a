//! `whocomes export hours|visitors`: what a store holds, as JSON or CSV, for
//! operators and scripts. It reads the store `serve` writes to (same flags),
//! through the same read side as the tab's download links.

use std::io::Write;

use chrono::{NaiveDate, Utc};
use clap::Args;
use reading::{ExportFormat, Reading, Rows};

use crate::config::storage::StoreArgs;

/// What `whocomes export` takes.
#[derive(Clone, Debug, Args)]
pub struct ExportArgs {
    /// `hours` (requests per hour and path), `visitors` (one row per
    /// visitor-day: token, network, counts, paths, sources) or `notes` (the
    /// chart's dated notes).
    #[arg(value_parser = parse::<Rows>)]
    pub what: Rows,

    /// From this UTC day on, YYYY-MM-DD (default: 30 days ago).
    #[arg(long)]
    pub since: Option<NaiveDate>,

    /// `json` (an array of records) or `csv` (a header row; paths and
    /// sources as JSON in their cells).
    #[arg(long, default_value = "json", value_parser = parse::<ExportFormat>)]
    pub format: ExportFormat,

    #[command(flatten)]
    pub store: StoreArgs,
}

/// Writes the rows to `out`; returns how many.
pub async fn export(args: &ExportArgs, out: impl Write) -> anyhow::Result<usize> {
    let store = args.store.open_for_command().await?;
    let since = args
        .since
        .unwrap_or_else(|| Utc::now().date_naive() - chrono::Days::new(30));
    let reading = Reading::new(vec![store.clone()], Vec::new());
    let written = reading
        .export(args.what, args.format, since, None, out)
        .await;
    store.close().await;
    Ok(written?)
}

fn parse<T: std::str::FromStr<Err = String>>(text: &str) -> Result<T, String> {
    text.parse()
}
