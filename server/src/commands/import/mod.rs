//! `whocomes import`: replays Apache/nginx access logs into a store through
//! exactly the rules `serve` applies — each line becomes the request it
//! describes and goes through `activity::Counter::count`, and the hits
//! through the same batch writer. A store's import ledger (`ledger.rs`)
//! keeps a log from being counted twice. `--follow` (`follow.rs`) keeps
//! reading one live log.

pub mod evidence;
pub mod follow;
pub mod ledger;
pub mod lines;
pub use activity::logline;
pub mod progress;
pub mod tail;
pub mod tally;

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::path::PathBuf;
use std::sync::Arc;

use activity::Counter;
use activity::recording::{HitFeed, start_feed};
use activity::rows::Seen;
use activity::store::{ActivityStore, Imported};
use anyhow::Context as _;
use clap::Args;

use crate::config::counting::CountingArgs;
use crate::config::storage::{RecorderArgs, StoreArgs};
use ledger::{Hasher, Plan};
use lines::{Line, next_line};
use logline::{LogFormat, LogRequest, MAX_LINE_BYTES};
use progress::Progress;
use tally::Tally;

/// What to import, and where: the same store, key, rules and store-name
/// flags as `serve`.
#[derive(Clone, Debug, Args)]
pub struct ImportArgs {
    /// The logs' line format: `combined` (which reads the `whocomes`
    /// format's signs when a line carries them, docs/DEPLOY.md), `common`
    /// or `caddy` (Caddy's JSON access log). Without it, each log's first
    /// line tells: JSON is Caddy's, anything else combined.
    #[arg(long)]
    pub format: Option<LogFormat>,

    /// Access logs to import, in order (`-`: stdin; gzip is read directly).
    /// Stdin is read once, so it is not checked against the import ledger.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,

    /// No progress output (the summary is still printed).
    #[arg(long)]
    pub quiet: bool,

    /// Keep reading the one log given as it grows (a live access log),
    /// through logrotate's rename-and-create and copytruncate, until
    /// SIGTERM or Ctrl-C. The ledger is brought up to date every few
    /// seconds and at the stop, so a restart resumes where it stopped.
    #[arg(long)]
    pub follow: bool,

    /// With --follow: how often to look for new lines, in milliseconds.
    #[arg(long, default_value_t = 250, requires = "follow", value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub follow_poll_ms: u64,

    /// With --follow: how often the ledger is brought up to date (once
    /// what was read is written), in milliseconds.
    #[arg(long, default_value_t = 5_000, requires = "follow", value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    pub follow_checkpoint_ms: u64,

    #[command(flatten)]
    pub counting: CountingArgs,

    #[command(flatten)]
    pub store: StoreArgs,

    #[command(flatten)]
    pub recorder: RecorderArgs,

    /// The country table to look addresses up in, if not the built-in one
    /// (the demo's made-up history brings its own).
    #[arg(skip)]
    pub countries: Option<&'static activity::countries::CountryTable>,
}

/// Imports every log of `args` and says what it saw. Malformed lines are
/// counted, never fatal; a log that cannot be opened stops the import
/// before anything of it is noted in the ledger.
/// With `--follow`, see [`follow::follow`].
pub async fn import(args: &ImportArgs) -> anyhow::Result<Tally> {
    anyhow::ensure!(
        !args.follow,
        "a followed log is read by import::follow::follow"
    );
    let (counter, store) = open(args).await?;
    let (feed, writer) = start_feed(store.clone(), args.recorder.config());
    // The bar covers the files' size on disk; stdin has no known size.
    let total = args
        .logs
        .iter()
        .map(|log| std::fs::metadata(log).ok().map(|m| m.len()))
        .sum::<Option<u64>>()
        .filter(|_| !args.logs.iter().any(|log| log.as_os_str() == "-"));
    let mut progress = Progress::new(args.quiet, total);
    let mut tally = Tally::default();
    let mut watch = evidence::EvidenceWatch::default();
    let mut noted: HashMap<String, Imported> = HashMap::new();

    for path in &args.logs {
        let label = path.display().to_string();
        let from = if path.as_os_str() == "-" {
            0
        } else {
            let mut input = lines::open(path, Arc::default())
                .with_context(|| format!("cannot open {label}"))?;
            let plan = plan_log(&mut *input, &store, &noted)
                .await
                .with_context(|| format!("cannot read {label}"))?;
            match plan {
                Plan::From(from) => from,
                Plan::Nothing => {
                    tally.truncated_copies += 1;
                    continue;
                }
            }
        };
        let input =
            lines::open(path, progress.bytes()).with_context(|| format!("cannot open {label}"))?;
        let mut input = Hashing {
            inner: input,
            hasher: Hasher::default(),
        };
        let (skipped, lines_before) = skip(&mut input, from)?;
        tally.already_imported_bytes += skipped;
        Run {
            format: args.format,
            counter: &counter,
            feed: &feed,
            tally: &mut tally,
            watch: Some(&mut watch),
            progress: &mut progress,
        }
        .log(&mut input, &label, lines_before)
        .await
        .with_context(|| format!("cannot read {label}"))?;
        if path.as_os_str() != "-" {
            let imported = input.hasher.finish();
            noted.insert(imported.log.clone(), imported);
        }
    }
    drop(feed);
    tally.evidence = Some(watch.finish(counter.rules().config().browser_evidence));
    let written = writer.finish().await;
    let took = progress.finish(tally.lines);
    if !args.quiet {
        eprintln!("whocomes import: {took}");
    }
    anyhow::ensure!(
        written.lost == 0 && written.dropped == 0,
        "{} hits could not be written ({} lost, {} dropped); the import ledger is unchanged, so importing again retries these logs",
        written.lost + written.dropped,
        written.lost,
        written.dropped
    );
    for imported in noted.values() {
        store
            .mark_imported(imported)
            .await
            .context("the hits are written, but the import ledger could not be updated")?;
    }
    store.close().await;
    Ok(tally)
}

/// The rules an import counts by, and the store it writes to.
async fn open(args: &ImportArgs) -> anyhow::Result<(Counter, Arc<dyn ActivityStore>)> {
    let name = args.store.store_name()?;
    let keys = args
        .counting
        .import_keys(&args.store.data_dir, args.store.visitor_days)?;
    let mut counter = args.counting.counter(keys, name.clone())?;
    if let Some(countries) = args.countries {
        counter = counter.with_countries(countries);
    }
    let store = args
        .store
        .open_once(name)
        .await
        .map_err(|reason| anyhow::anyhow!("cannot open the store: {reason}"))?;
    Ok((counter, store))
}

/// Where to start reading a log (`input`, from its start): by the store's
/// import ledger, and by what this run has imported already (`noted`).
async fn plan_log(
    input: &mut dyn BufRead,
    store: &Arc<dyn ActivityStore>,
    noted: &HashMap<String, Imported>,
) -> io::Result<Plan> {
    ledger::plan(input, |log| {
        let known = noted.get(&log).cloned();
        let store = store.clone();
        async move {
            match known {
                Some(known) => Ok(Some(known)),
                None => store.imported(&log).await.map_err(|error| {
                    io::Error::other(format!("cannot read the import ledger: {error}"))
                }),
            }
        }
    })
    .await
}

/// What reading a log needs besides the log.
struct Run<'a> {
    /// The lines' format; `None`: the log's first line tells.
    format: Option<LogFormat>,
    counter: &'a Counter,
    feed: &'a HitFeed,
    tally: &'a mut Tally,
    /// The evidence report of a one-off import (a followed log keeps none:
    /// it would grow for as long as the log is followed).
    watch: Option<&'a mut evidence::EvidenceWatch>,
    progress: &'a mut Progress,
}

impl Run<'_> {
    /// Reads and counts every line of one log (its first `lines_before`
    /// lines were skipped, so line numbers go on from there).
    async fn log(
        &mut self,
        input: &mut dyn BufRead,
        label: &str,
        lines_before: u64,
    ) -> anyhow::Result<()> {
        let mut line = Line::default();
        let mut number = lines_before;
        while next_line(input, &mut line, MAX_LINE_BYTES)? {
            number += 1;
            self.line(&line, label, number).await?;
        }
        Ok(())
    }

    /// Reads and counts one line, line `number` of `label`.
    async fn line(&mut self, line: &Line, label: &str, number: u64) -> anyhow::Result<()> {
        self.tally.lines += 1;
        self.progress.lines(self.tally.lines, label);
        if line.too_long {
            self.tally
                .malformed(label, number, logline::LineError::TooLong);
            return Ok(());
        }
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            self.tally.blank += 1;
            return Ok(());
        }
        let format = *self
            .format
            .get_or_insert_with(|| LogFormat::detect(&line.bytes));
        match logline::parse(&line.bytes, format) {
            Ok(request) => self.request(&request).await,
            Err(error) => {
                self.tally.malformed(label, number, error);
                Ok(())
            }
        }
    }

    /// Counts one request exactly as the live layer would.
    async fn request(&mut self, request: &LogRequest<'_>) -> anyhow::Result<()> {
        let view = request.view();
        let decision = self.counter.count(&view, Some(request.peer), request.at);
        self.tally.decided(&decision, request.at.date_naive());
        if let Some(mut hit) = decision.hit {
            if let Some(watch) = self.watch.as_deref_mut() {
                watch.hit(&mut hit);
            }
            self.feed
                .send(hit)
                .await
                .context("the writer stopped during the import")?;
        } else if decision.shows_files {
            let mark = self
                .counter
                .files_mark(&view, Some(request.peer), request.at);
            if let Some(watch) = self.watch.as_deref_mut() {
                watch.files(&mark, decision.shows_scripts, request.status == 304);
            }
            self.feed
                .send(Seen::mark(mark, decision.shows_scripts))
                .await
                .context("the writer stopped during the import")?;
        }
        Ok(())
    }
}

/// Reads and drops the first `bytes` bytes (already imported); returns how
/// many there were and how many lines they held.
fn skip(input: &mut dyn BufRead, bytes: u64) -> io::Result<(u64, u64)> {
    let (mut left, mut lines) = (bytes, 0);
    while left > 0 {
        let available = input.fill_buf()?;
        if available.is_empty() {
            break;
        }
        let take = available
            .len()
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        lines += available[..take].iter().filter(|b| **b == b'\n').count() as u64;
        input.consume(take);
        left -= take as u64;
    }
    Ok((bytes - left, lines))
}

/// A log being read, hashed as its bytes are consumed (for the ledger).
struct Hashing {
    inner: Box<dyn BufRead>,
    hasher: Hasher,
}

impl io::Read for Hashing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Hashing {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if let Ok(available) = self.inner.fill_buf() {
            let amount = amount.min(available.len());
            self.hasher.update(&available[..amount]);
        }
        self.inner.consume(amount);
    }
}
