//! `whocomes demo` (and `serve --demo`): a made-up history for trying the
//! Admin tab. It writes one access log per day of the range (`day.rs`) into
//! `DATA_DIR/demo/seed-N/`, then imports them through `whocomes import`'s
//! path — the same rules, the same writer — into a store of its own, named
//! `demo`. Nothing is written to the store's tables any other way.
//!
//! Loading again is cheap and never counts a day twice: a past day's log is
//! the same bytes every time, so the import ledger skips it; today's log
//! has grown since, so only its new lines are counted.

mod cast;
pub mod day;

use std::path::{Path, PathBuf};

use activity::StoreName;
use activity::goal::Goal;
use activity::rules::GoalPath;
use anyhow::Context as _;
use chrono::{DateTime, Days, Utc};
use clap::Args;

use crate::commands::import::{
    self, ImportArgs, ledger::IDENTITY_BYTES, logline::LogFormat, tally::Tally,
};
use crate::config::counting::{CountingArgs, StoreNameArg};
use crate::config::storage::{RecorderArgs, StoreArgs};

/// The name of the store the demo is kept in.
pub const DEMO_STORE: &str = "demo";
/// How many days of history `serve --demo` loads.
pub const DEMO_DAYS: u16 = 90;
pub use cast::SITE_HOST;

/// The demo site's goal: its résumé's PDF downloaded (counted by path, as
/// `--goal download=/resume.pdf` counts it), unless the flags name goals.
pub fn goals() -> Vec<GoalPath> {
    vec![GoalPath {
        goal: Goal::new("download").unwrap_or_else(|_| unreachable!("a label")),
        path: "/resume.pdf".to_owned(),
    }]
}

/// The demo site's funnel, which `serve --demo` draws unless the site names
/// its own (`--funnel-step`): landing, then the pages people read after it
/// in order (the résumé's PDF takes the résumé step too), then the goal of
/// downloading it.
pub fn funnel() -> Vec<activity::funnel::FunnelStep> {
    let step = |name: &str, paths: Vec<String>| activity::funnel::FunnelStep {
        name: name.to_owned(),
        paths,
    };
    std::iter::once(step("landing", vec!["/".to_owned()]))
        .chain(cast::PAGES.iter().map(|page| {
            let name = page.trim_start_matches('/');
            let mut paths = vec![(*page).to_owned()];
            if *page == "/resume" {
                paths.push("/resume.pdf".to_owned());
            }
            step(name, paths)
        }))
        .chain(std::iter::once(step(
            "downloaded",
            vec!["goal:download".to_owned()],
        )))
        .collect()
}

/// What `whocomes demo` writes, and where: the same store, key and rules
/// flags as `serve`. The store is always named `demo` (`--store-name` names
/// the site's own store and is not used here).
#[derive(Clone, Debug, Args)]
pub struct DemoArgs {
    /// The history's seed: the same seed gives the same history, line for line.
    #[arg(long, env = "WHOCOMES_DEMO_SEED", default_value_t = 1)]
    pub seed: u64,

    /// Days of history, ending today (UTC).
    #[arg(long, default_value_t = DEMO_DAYS, value_parser = clap::value_parser!(u16).range(1..=400))]
    pub days: u16,

    /// No progress output (the summary is still printed).
    #[arg(long)]
    pub quiet: bool,

    #[command(flatten)]
    pub counting: CountingArgs,

    #[command(flatten)]
    pub store: StoreArgs,

    #[command(flatten)]
    pub recorder: RecorderArgs,
}

/// What loading the demo did.
#[derive(Debug)]
pub struct Loaded {
    /// The days written, oldest first.
    pub days: Vec<chrono::NaiveDate>,
    /// What the import counted (past days loaded before count 0 again).
    pub tally: Tally,
}

/// The demo's store name.
pub fn store_name() -> anyhow::Result<StoreName> {
    Ok(StoreName::parse(DEMO_STORE)?)
}

/// Writes the logs of the `args.days` days ending `now` and imports them
/// into the `demo` store.
pub async fn load(args: &DemoArgs, now: DateTime<Utc>) -> anyhow::Result<Loaded> {
    let name = store_name()?;
    let seeds = args.store.data_dir.join("demo");
    let folder = seeds.join(format!("seed-{}", args.seed));
    let others = other_seeds(&seeds, &folder);
    if !others.is_empty() {
        tracing::warn!(
            "the demo store also holds the history of {}: its figures add up both",
            others.join(", ")
        );
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let (days, logs) = write_logs(args, &folder, now)?;

    let mut counting = args.counting.clone();
    counting.site_hosts.push(SITE_HOST.to_owned());
    if counting.goals.is_empty() {
        counting.goals = goals();
    }
    // The demo's made-up crawlers are verified against made-up ranges.
    let ranges = seeds.join("crawler-ranges.txt");
    std::fs::write(&ranges, cast::crawler_ranges())
        .with_context(|| format!("cannot write {}", ranges.display()))?;
    counting.crawler_ranges = Some(ranges);
    let mut store = args.store.clone();
    store.name = StoreNameArg { name: Some(name) };
    store.read_stores.clear();
    let tally = import::import(&ImportArgs {
        format: Some(LogFormat::Combined),
        logs,
        quiet: args.quiet,
        follow: false,
        follow_poll_ms: 250,
        follow_checkpoint_ms: 5_000,
        counting,
        store,
        recorder: args.recorder.clone(),
        countries: Some(cast::countries()),
    })
    .await?;
    Ok(Loaded { days, tally })
}

/// The other seeds whose histories were loaded from this data folder.
fn other_seeds(seeds: &Path, this: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(seeds) else {
        return Vec::new();
    };
    let mut others: Vec<String> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path != this && path.is_dir())
        .filter_map(|path| {
            path.file_name()?
                .to_str()?
                .strip_prefix("seed-")
                .map(|n| format!("seed {n}"))
        })
        .collect();
    others.sort();
    others
}

/// Writes one log per day (today's up to `now`, unless it is still too
/// short to be told apart from a later, longer copy) and removes the logs
/// of days that left the range.
fn write_logs(
    args: &DemoArgs,
    folder: &Path,
    now: DateTime<Utc>,
) -> anyhow::Result<(Vec<chrono::NaiveDate>, Vec<PathBuf>)> {
    let today = now.date_naive();
    let first = today
        .checked_sub_days(Days::new(u64::from(args.days.max(1)) - 1))
        .context("the range starts before the calendar does")?;
    let (mut days, mut logs) = (Vec::new(), Vec::new());
    for day in first.iter_days().take_while(|day| *day <= today) {
        let until = (day == today).then_some(now);
        let text = day::day_log(args.seed, day, &args.counting.self_read_mark, until);
        if until.is_some() && text.len() < IDENTITY_BYTES {
            // The ledger knows a log by its first 4 KiB: a shorter one
            // would read as another log once it grew. Today waits.
            continue;
        }
        let path = folder.join(format!("{day}.log"));
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        days.push(day);
        logs.push(path);
    }
    for entry in std::fs::read_dir(folder)
        .with_context(|| format!("cannot read {}", folder.display()))?
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|ext| ext == "log") && !logs.contains(&path) {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok((days, logs))
}
