//! `whocomes annotate DAY "TEXT"`: a dated note on the chart (a release, a
//! post, a campaign), kept in the store `serve` writes to (same flags), as
//! the tab's form and the stats API add them; `--list` prints them,
//! `--remove ID` removes one.

use chrono::{NaiveDate, Utc};
use clap::Args;

use crate::config::storage::StoreArgs;

/// What `whocomes annotate` takes.
#[derive(Clone, Debug, Args)]
pub struct AnnotateArgs {
    /// The day the note marks, YYYY-MM-DD (a UTC day, as the chart's).
    #[arg(required_unless_present_any = ["list", "remove"])]
    pub day: Option<NaiveDate>,

    /// What it says: one line of at most 200 characters.
    #[arg(required_unless_present_any = ["list", "remove"])]
    pub text: Option<String>,

    /// Print the notes (tab-separated: id, day, text), oldest day first.
    #[arg(long, conflicts_with_all = ["day", "text", "remove"])]
    pub list: bool,

    /// Remove the note with this id (`--list` shows them).
    #[arg(long, value_name = "ID", conflicts_with_all = ["day", "text"])]
    pub remove: Option<u64>,

    #[command(flatten)]
    pub store: StoreArgs,
}

/// Adds, lists or removes; what it did goes to `out`.
pub async fn run(args: &AnnotateArgs, mut out: impl std::io::Write) -> anyhow::Result<()> {
    let store = args.store.open_for_command().await?;
    let result = async {
        if args.list {
            let first = NaiveDate::MIN;
            let last = NaiveDate::MAX;
            for note in activity::annotations::between(store.as_ref(), first, last).await? {
                writeln!(out, "{}\t{}\t{}", note.id, note.day, note.text)?;
            }
            return anyhow::Ok(());
        }
        if let Some(id) = args.remove {
            let note = activity::annotations::remove(store.as_ref(), id).await?;
            writeln!(out, "removed note {}: {} {}", note.id, note.day, note.text)?;
            return Ok(());
        }
        let (Some(day), Some(text)) = (args.day, &args.text) else {
            anyhow::bail!(
                "say the note's day and text: whocomes annotate 2026-12-03 \"Released 0.3\""
            );
        };
        let note = activity::annotations::add(store.as_ref(), day, text, Utc::now()).await?;
        writeln!(out, "added note {}: {} {}", note.id, note.day, note.text)?;
        Ok(())
    }
    .await;
    store.close().await;
    result
}
