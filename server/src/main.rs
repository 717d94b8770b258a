//! `whocomes`: parse the command line, start logging, run the command.
#![forbid(unsafe_code)]

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser as _;
use server::Application;
use server::cli::{Cli, Command};
use tracing::{error, info};

/// Every counted request makes a hit on a request thread that the writer
/// frees on its own; mimalloc does that far faster than the system allocator
/// (see docs/BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long a stop waits for work left on the blocking pool once the
/// command is done: the background compression of the page's files (brotli
/// 11 of a debug bundle takes minutes) is not worth keeping a stopped server
/// alive for; its copies are made again at the next start.
const BLOCKING_WORK_AT_STOP: Duration = Duration::from_secs(1);

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(error) = server::telemetry::init(&cli.log) {
        eprintln!("whocomes: {error:#}");
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("whocomes: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let code = match runtime.block_on(run(cli.into_command())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            error!("{error:#}");
            ExitCode::FAILURE
        }
    };
    runtime.shutdown_timeout(BLOCKING_WORK_AT_STOP);
    code
}

async fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => {
            let app = Application::build(*args).await?;
            let address = app.local_addr();
            let running = app.run_until_stopped();
            info!("serving on http://{address}");
            running.await?;
            info!("stopped");
            Ok(())
        }
        Command::Explain(args) => explain(args),
        Command::Import(args) => {
            let tally = if args.follow {
                server::import::follow::follow(&args, whocomes::signal()).await?
            } else {
                server::import::import(&args).await?
            };
            write!(std::io::stdout().lock(), "{tally}")?;
            Ok(())
        }
        Command::Demo(args) => {
            let loaded = server::demo::load(&args, chrono::Utc::now()).await?;
            let mut out = std::io::stdout().lock();
            write!(out, "{}", loaded.tally)?;
            writeln!(
                out,
                "Demo: {} days of made-up visits (seed {}) in the store named {}; {} requests counted now (days loaded before are skipped). See them with: whocomes serve --demo (or scripts/serve --demo)",
                loaded.days.len(),
                args.seed,
                server::demo::DEMO_STORE,
                loaded.tally.counted(),
            )?;
            Ok(())
        }
        Command::CompressSite(args) => {
            let pkg = args.site_root.join("pkg");
            let done = server::precompress::folder(&pkg)
                .with_context(|| format!("cannot compress the files in {}", pkg.display()))?;
            writeln!(
                std::io::stdout().lock(),
                "{} files compressed ({} KiB as they are, {} KiB as brotli), {} already current",
                done.files,
                done.raw_bytes / 1024,
                done.brotli_bytes / 1024,
                done.current
            )?;
            Ok(())
        }
        Command::ApiKey(args) => server::api_key::run(&args, std::io::stdout().lock()),
        Command::Digest(args) => server::digest::run(&args).await,
        Command::Annotate(args) => server::annotate::run(&args, std::io::stdout().lock()).await,
        Command::Export(args) => {
            let rows = server::export::export(&args, std::io::stdout().lock()).await?;
            eprintln!("whocomes export: {rows} rows");
            Ok(())
        }
    }
}

fn explain(args: server::cli::ExplainArgs) -> anyhow::Result<()> {
    // Without a key, hits are still decided (with a key made for this run)
    // but their tokens are not shown: nothing could reproduce them.
    let (keys, no_token) = match args.counting.explain_keys()? {
        Some(keys) => (keys, None),
        None => {
            eprintln!("whocomes explain: no --key given; hits are shown without their tokens");
            (
                activity::TokenKeys::Static(server::counting::random_key()?),
                Some(server::explain::NO_KEY),
            )
        }
    };
    let store = args.store_name.or("sqlite")?;
    let counter = args.counting.counter(keys, store)?;
    let summary = server::explain::explain(
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        (&counter, args.format),
        chrono::Utc::now(),
        no_token,
    )?;
    if summary.malformed > 0 {
        anyhow::bail!(
            "{} of {} lines could not be read (see their error lines)",
            summary.malformed,
            summary.malformed + summary.explained
        );
    }
    Ok(())
}
