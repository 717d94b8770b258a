//! Where activity is kept: the store flags of every command, and how hits
//! are queued and written. `serve` hands them to the `whocomes` builder
//! (`to_builder.rs`); the commands that read a store and stop open it once
//! here. Which schemes a URL may have, and the default URL, are the
//! library's (`whocomes::stores`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use activity::StoreName;
use activity::recording::RecorderConfig;
use activity::store::{ActivityStore, Retention};

use crate::config::counting::StoreNameArg;
use clap::Args;

/// How many days hourly rows are kept unless `--hour-days` says otherwise.
pub const DEFAULT_HOUR_DAYS: u32 = activity::store::DEFAULT_HOUR_DAYS;

/// How and where `serve` keeps activity.
#[derive(Clone, Debug, Args)]
pub struct StoreArgs {
    /// Folder for the SQLite file and the generated key.
    #[arg(long, env = "WHOCOMES_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// Where to keep activity: `sqlite://PATH` (default: DATA_DIR/activity.db),
    /// `postgres://USER@HOST/DB`, or
    /// `cosmos+https://ACCOUNT.documents.azure.com/?database=DB&container=C`
    /// (key in WHOCOMES_COSMOS_KEY or WHOCOMES_COSMOS_KEY_FILE). Never logged.
    #[arg(long, env = "WHOCOMES_STORE_URL", hide_env_values = true)]
    pub store_url: Option<String>,

    #[command(flatten)]
    pub name: StoreNameArg,

    /// Another store to read besides the one written to, as NAME=URL
    /// (`eu=postgres://…`, `blog=sqlite:///srv/blog/activity.db`); repeatable.
    /// The Admin tab draws them all in one chart. Never logged.
    #[arg(long = "read-store", env = "WHOCOMES_READ_STORE", value_delimiter = ',', value_parser = parse_read_store, hide_env_values = true)]
    pub read_stores: Vec<ReadStore>,

    /// Delete visitor-day rows older than this many days (their counts by
    /// kind are kept per day).
    #[arg(long, env = "WHOCOMES_VISITOR_DAYS", default_value_t = 30)]
    pub visitor_days: u32,

    /// Delete hourly rows older than this many days (0: keep them without a
    /// time limit). The default outlasts the tab's longest range.
    #[arg(long, env = "WHOCOMES_HOUR_DAYS", default_value_t = DEFAULT_HOUR_DAYS)]
    pub hour_days: u32,
}

/// How `serve` queues and writes hits.
#[derive(Clone, Debug, Args)]
pub struct RecorderArgs {
    /// Hits the queue between requests and the writer holds; beyond it, hits
    /// are dropped and counted (requests never wait for the store).
    #[arg(long, env = "WHOCOMES_QUEUE", default_value_t = 65_536)]
    pub queue: usize,

    /// Write what was counted this often (milliseconds): hits are folded
    /// into rows as they come, and each row is written at most once an
    /// interval, however many requests its visitor made. Also the most a
    /// crash (SIGKILL) can lose; a stop (SIGTERM, Ctrl-C) writes everything.
    #[arg(long, env = "WHOCOMES_FLUSH_MS", default_value_t = 10_000)]
    pub flush_ms: u64,

    /// Fold as soon as this many hits are queued (they are folded at least
    /// every second anyway).
    #[arg(long, env = "WHOCOMES_FLUSH_HITS", default_value_t = 16_384)]
    pub flush_hits: usize,

    /// Write before the interval is over once this many rows are pending
    /// (hourly rows, visitor-days, bot days): what the writer holds stays
    /// bounded, and nothing is dropped.
    #[arg(long, env = "WHOCOMES_MAX_PENDING_ROWS", default_value_t = 200_000)]
    pub max_pending_rows: usize,

    /// The most distinct paths kept per hour; requests for any other are
    /// counted under `(other paths)` (a flood of made-up paths cannot fill
    /// the disk). Every total stays exact.
    #[arg(long, env = "WHOCOMES_PATHS_PER_HOUR", default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub paths_per_hour: u32,

    /// The most queued hits one write takes when the store falls behind
    /// (bigger batches fold into fewer rows per hit).
    #[arg(long, env = "WHOCOMES_MAX_BATCH_HITS", default_value_t = 50_000)]
    pub max_batch_hits: usize,

    /// The most memory, in MiB, the rows held for a store that fails (or
    /// writes slowly) may take: more requests from the same visitors cost
    /// nothing more; past it whole visitor-days are given up, the oldest
    /// first, and counted as lost.
    #[arg(long, env = "WHOCOMES_MAX_HELD_MB", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_held_mb: u64,

    /// The most disk, in MiB, the journal of a remote store (PostgreSQL,
    /// Cosmos DB) may take: what is held while it fails is kept in the
    /// data folder too, so a stop or a crash loses none of it.
    #[arg(long, env = "WHOCOMES_MAX_JOURNAL_MB", default_value_t = 1_024, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_journal_mb: u64,
}

impl RecorderArgs {
    /// How the recorder queues and writes.
    pub fn config(&self) -> RecorderConfig {
        RecorderConfig {
            queue: self.queue.max(1),
            flush_every: Duration::from_millis(self.flush_ms.max(1)),
            flush_hits: self.flush_hits.max(1),
            max_pending_rows: self.max_pending_rows.max(1),
            max_batch_hits: self.max_batch_hits.max(1),
            max_held_bytes: self.max_held_mb.saturating_mul(MIB),
            max_journal_bytes: self.max_journal_mb.saturating_mul(MIB),
            paths_per_hour: usize::try_from(self.paths_per_hour).unwrap_or(usize::MAX),
            peer_address: whocomes::connect_info,
            ..RecorderConfig::default()
        }
    }
}

/// Bytes in a MiB.
const MIB: u64 = 1024 * 1024;

/// A store read besides the one written to. Its `Debug` never shows the URL
/// (it may hold a password).
#[derive(Clone)]
pub struct ReadStore {
    /// The name its rows are kept under.
    pub name: StoreName,
    /// Where it is.
    pub url: String,
}

impl std::fmt::Debug for ReadStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReadStore({})", self.name)
    }
}

fn parse_read_store(text: &str) -> Result<ReadStore, String> {
    let (name, url) = text
        .split_once('=')
        .ok_or_else(|| "expected NAME=URL, e.g. eu=postgres://host/db".to_owned())?;
    let name = StoreName::parse(name.trim()).map_err(|error| error.to_string())?;
    let url = url.trim();
    if StoreKind::of(url).is_none() {
        return Err(format!(
            "the URL must start with {}",
            whocomes::stores::SCHEMES
        ));
    }
    Ok(ReadStore {
        name,
        url: url.to_owned(),
    })
}

pub use whocomes::stores::StoreKind;

impl StoreArgs {
    /// The store URL: the one given, or the library's default (the
    /// SQLite file in the data folder).
    pub fn url(&self) -> String {
        self.store_url
            .clone()
            .unwrap_or_else(|| whocomes::stores::default_url(&self.data_dir))
    }

    /// The kind of store the URL names (`None`: a scheme whocomes does not know).
    pub fn kind(&self) -> Option<StoreKind> {
        StoreKind::of(&self.url())
    }

    /// How long rows are kept.
    pub fn retention(&self) -> Retention {
        Retention {
            visitor_days: self.visitor_days,
            hour_days: (self.hour_days > 0).then_some(self.hour_days),
        }
    }

    /// Opens the store once, or says why it cannot (for commands that read
    /// a store and have no site to keep serving).
    pub async fn open_once(&self, name: StoreName) -> Result<Arc<dyn ActivityStore>, String> {
        whocomes::stores::open_once(&self.url(), name, self.retention()).await
    }

    /// The named store, opened once for a command (`export`, `digest`,
    /// `annotate`), or why it cannot be read.
    pub async fn open_for_command(&self) -> anyhow::Result<Arc<dyn ActivityStore>> {
        let name = self.store_name()?;
        self.open_once(name)
            .await
            .map_err(|reason| anyhow::anyhow!("cannot read the store: {reason}"))
    }

    /// The store's name: the one given, or the kind of store.
    pub fn store_name(&self) -> anyhow::Result<StoreName> {
        self.name
            .or(self.kind().map_or("sqlite", StoreKind::default_name))
    }
}
