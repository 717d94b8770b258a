//! The command line: `whocomes [serve] [FLAGS]`.
//!
//! Every flag can also be given as a `WHOCOMES_*` environment variable (the
//! flag wins when both are set). `serve` is the default command, so
//! `whocomes --addr 127.0.0.1:8080` and `whocomes serve --addr 127.0.0.1:8080`
//! mean the same.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::config::admin_args::AdminArgs;
use crate::config::counting::{CountingArgs, StoreNameArg};
use crate::config::storage::{RecorderArgs, StoreArgs};

/// whocomes: counts who visits a website, from the server, without naming anybody.
#[derive(Debug, Parser)]
#[command(name = "whocomes", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to log, as a tracing filter ("info", "warn", "server=debug,info", …).
    #[arg(long, global = true, env = "WHOCOMES_LOG", default_value = "info")]
    pub log: String,

    #[command(subcommand)]
    command: Option<Command>,

    /// `serve`'s flags, for when no command is named.
    #[command(flatten)]
    serve: ServeArgs,
}

impl Cli {
    /// The command to run: `serve` unless another one was named.
    pub fn into_command(self) -> Command {
        self.command.unwrap_or(Command::Serve(Box::new(self.serve)))
    }
}

/// What `whocomes` can do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the site (the default command).
    Serve(Box<ServeArgs>),
    /// Read requests as JSON lines on stdin and write, for each, whether it
    /// is counted, why, and the hit it would leave.
    ///
    /// Input, one per line: {"at": "2026-11-29T10:00:00Z", "peer": "203.0.113.7:5123",
    /// "method": "GET", "target": "/path?query", "headers": {"user-agent": "…",
    /// "referer": "…", "x-forwarded-for": "…"}}. `at` defaults to now and
    /// `method` to GET. A line that cannot be read gets an error line with
    /// its number, and the rest are still explained.
    Explain(ExplainArgs),
    /// Print what the store holds: `hours` (requests per hour and path) or
    /// `visitors` (one row per visitor-day), as JSON or CSV.
    Export(crate::commands::export::ExportArgs),
    /// Make the latest digest due, as `serve` would mail it (--digest
    /// daily|weekly, --digest-day, --digest-hour, --digest-zone), and write
    /// it to a file (--preview FILE) or mail it now (--send-now).
    Digest(Box<crate::commands::digest::DigestArgs>),
    /// Add a dated note to the chart (`annotate 2026-12-03 "Released 0.3"`),
    /// list the notes (--list) or remove one (--remove ID). The tab draws
    /// them as marks on its chart; the digest and the stats API list them.
    Annotate(crate::commands::annotate::AnnotateArgs),
    /// Replay Apache/nginx access logs (combined or common format, `.gz`
    /// read directly, `-` for stdin) into the store through the same rules
    /// as `serve`, and print what was counted and what was not, and why.
    /// A log imported before is not counted again (the store keeps an
    /// import ledger); a log that has grown adds only its new lines.
    Import(Box<crate::commands::import::ImportArgs>),
    /// Write 90 days of made-up visits (people, crawlers, scanners, a
    /// monitor) as access logs into DATA_DIR/demo/ and import them into a
    /// store of their own, named `demo`. Then `serve --demo` draws it
    /// beside the site's own counts. The same `--seed` gives the same
    /// history; loading again counts no day twice.
    Demo(Box<crate::commands::demo::DemoArgs>),
    /// Compress the built site's files once (brotli and gzip beside each
    /// file under `pkg/`), as `serve` does at start when it may write
    /// there. For a release installed where the server cannot write.
    CompressSite(CompressSiteArgs),
    /// Make, list or revoke the keys of the stats API (Plausible's, at
    /// {tab}/api/v1/stats/… and {tab}/api/v2/query), kept hashed in
    /// DATA_DIR/api-keys.
    ApiKey(crate::commands::api_key::ApiKeyArgs),
}

/// Which site to compress.
#[derive(Clone, Debug, Args)]
pub struct CompressSiteArgs {
    /// Folder of the built site (holding `pkg/`).
    pub site_root: PathBuf,
}

/// How to explain requests: the same counting flags as `serve`.
#[derive(Clone, Debug, Args)]
pub struct ExplainArgs {
    /// What stdin holds: `json` (one request a line, the default), or
    /// access-log lines in the `combined` or `common` format.
    #[arg(long, default_value = "json")]
    pub format: crate::commands::explain::InputFormat,

    #[command(flatten)]
    pub counting: CountingArgs,

    #[command(flatten)]
    pub store_name: StoreNameArg,
}

/// How to serve the site.
#[derive(Clone, Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on. Port 0 picks a free port (the log says which).
    #[arg(long, env = "WHOCOMES_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,

    /// Folder of the built site: the wasm bundle and stylesheet under `pkg/`,
    /// and the files copied from `public/` (favicon, robots.txt, resume.pdf).
    /// By default the `site` folder beside the binary (a release, made by
    /// `scripts/release`), else `target/site` (a build in a checkout).
    #[arg(long, env = "WHOCOMES_SITE_ROOT")]
    pub site_root: Option<PathBuf>,

    #[command(flatten)]
    pub counting: CountingArgs,

    #[command(flatten)]
    pub store: StoreArgs,

    #[command(flatten)]
    pub recorder: RecorderArgs,

    #[command(flatten)]
    pub admin: AdminArgs,

    #[command(flatten)]
    pub notify: crate::config::notify_args::NotifyArgs,

    #[command(flatten)]
    pub connections: crate::config::connection_args::ConnectionArgs,

    /// Also read the demo store (a made-up history in the store named
    /// `demo`, beside the site's own), loading it first as `whocomes demo`
    /// does: 90 days, or the days missing since it was last loaded.
    #[arg(long, env = "WHOCOMES_DEMO")]
    pub demo: bool,

    /// The demo history's seed (with `--demo`).
    #[arg(long, env = "WHOCOMES_DEMO_SEED", default_value_t = 1)]
    pub demo_seed: u64,

    /// Serve without counting anything: the counting layer is left off, so
    /// no request leaves a hit (the store is still opened and the Admin tab
    /// still reads it). For measuring what counting costs, side by side with
    /// a counting server.
    #[arg(long, env = "WHOCOMES_NO_COUNTING")]
    pub no_counting: bool,

    /// Where monitors read `/ready` (200 while every store keeps activity,
    /// 503 with why) and `/metrics` (OpenMetrics text): an address of its
    /// own, on loopback unless you say otherwise — never the site's public
    /// one. `none`: only behind the Admin tab's sign-in
    /// (`/admin/api/ready`, `/admin/api/metrics`), as they always are too.
    /// Port 0 picks a free port (the log says which); a port already taken
    /// is said in the log and the site serves on.
    #[arg(long, env = "WHOCOMES_METRICS_ADDR", default_value = "127.0.0.1:9464")]
    pub metrics_addr: String,

    /// How long a browser may keep the page's files (`/pkg/…`, the favicon)
    /// without asking again, in seconds. 0 (default): `no-cache`, asked
    /// again (304) on every visit, so a deploy reaches every reader at once.
    /// Longer saves returning readers a round trip; the hydrated app then
    /// reports a page drawn from its cache, so they still count as people.
    #[arg(long, env = "WHOCOMES_FILES_MAX_AGE", default_value_t = 0)]
    pub files_max_age: u32,
}

impl ServeArgs {
    /// The folder of the built site: `--site-root`, else the `site` folder
    /// beside the binary if there is one, else `target/site`.
    pub fn site_root(&self) -> PathBuf {
        let beside_binary = || {
            let folder = std::env::current_exe().ok()?.parent()?.join("site");
            folder.is_dir().then_some(folder)
        };
        self.site_root
            .clone()
            .or_else(beside_binary)
            .unwrap_or_else(|| PathBuf::from("target/site"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_args(argv: &[&str]) -> ServeArgs {
        match Cli::try_parse_from(argv)
            .expect("arguments parse")
            .into_command()
        {
            Command::Serve(args) => *args,
            other => panic!("expected serve, got {other:?}"),
        }
    }

    #[test]
    fn serve_is_the_default_command() {
        let implicit = serve_args(&["whocomes", "--addr", "127.0.0.1:8080"]);
        let explicit = serve_args(&["whocomes", "serve", "--addr", "127.0.0.1:8080"]);
        assert_eq!(implicit.addr, explicit.addr);
        assert_eq!(implicit.addr.port(), 8080);
    }

    #[test]
    fn explain_takes_the_counting_flags() {
        let cli = Cli::try_parse_from([
            "whocomes",
            "explain",
            "--key",
            "k",
            "--trusted-proxy",
            "10.0.0.0/8,192.0.2.1",
            "--trusted-proxy",
            "::1",
            "--store-name",
            "eu-1",
            "--own-address",
            "none",
        ])
        .expect("arguments parse");
        let Command::Explain(args) = cli.into_command() else {
            panic!("expected explain")
        };
        assert_eq!(args.counting.trusted_proxies.len(), 3);
        let name = args.store_name.or("sqlite").expect("a name");
        assert_eq!(name.as_str(), "eu-1");
        let rules = args.counting.rules().expect("valid rules");
        assert!(!rules.config().loopback_is_self);

        let bad = Cli::try_parse_from(["whocomes", "explain", "--trusted-proxy", "10.0.0.0/33"]);
        assert!(bad.is_err());
        let bad = Cli::try_parse_from(["whocomes", "explain", "--store-name", "Bad Name"]);
        assert!(bad.is_err());
    }

    #[test]
    fn goals_by_path_are_labels_on_paths_and_a_bad_one_is_refused_at_start() {
        let cli = Cli::try_parse_from([
            "whocomes",
            "explain",
            "--goal",
            "signup=/welcome",
            "--goal",
            "download = /resume.pdf",
        ])
        .expect("arguments parse");
        let Command::Explain(args) = cli.into_command() else {
            panic!("expected explain")
        };
        let rules = args.counting.rules().expect("valid rules");
        let goals: Vec<(String, &str)> = rules
            .config()
            .goal_paths
            .iter()
            .map(|goal| (goal.goal.to_string(), goal.path.as_str()))
            .collect();
        assert_eq!(
            goals,
            [
                ("signup".to_owned(), "/welcome"),
                ("download".to_owned(), "/resume.pdf")
            ]
        );
        for (bad, said) in [
            ("ann@example.com=/welcome", "no @"),
            ("order 1234567=/paid", "no run of 6 digits"),
            ("signup", "NAME=PATH"),
            ("signup=welcome", "does not start with '/'"),
        ] {
            let error = Cli::try_parse_from(["whocomes", "explain", "--goal", bad])
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(error.contains(said), "{bad}: {error}");
        }
    }

    #[test]
    fn api_prefixes_and_crawler_ranges_are_checked_at_start() {
        let cli = Cli::try_parse_from([
            "whocomes",
            "explain",
            "--api-prefix",
            "/wp-json/",
            "--api-prefix",
            "/_server/,/wp-admin/admin-ajax.php",
        ])
        .expect("arguments parse");
        let Command::Explain(args) = cli.into_command() else {
            panic!("expected explain")
        };
        let rules = args.counting.rules().expect("valid rules");
        let prefixes = &rules.config().api_prefixes;
        for prefix in [
            "/api/",
            "/wp-json/",
            "/_server/",
            "/wp-admin/admin-ajax.php",
        ] {
            assert!(
                prefixes.iter().any(|p| p == prefix),
                "{prefix} in {prefixes:?}"
            );
        }
        let bad = Cli::try_parse_from(["whocomes", "explain", "--api-prefix", "wp-json/"])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(bad.contains("does not start with '/'"), "{bad}");

        let dir = tempfile::tempdir().expect("a folder");
        let file = dir.path().join("ranges.txt");
        std::fs::write(
            &file,
            "crawler googlebot Googlebot\n66.249.64.0/19\nnot-a-range\n",
        )
        .expect("writes");
        let cli = Cli::try_parse_from([
            "whocomes",
            "explain",
            "--crawler-ranges",
            file.to_str().expect("a path"),
        ])
        .expect("arguments parse");
        let Command::Explain(args) = cli.into_command() else {
            panic!("expected explain")
        };
        let error = format!("{:#}", args.counting.rules().expect_err("refused"));
        assert!(error.contains("line 3: 'not-a-range'"), "{error}");
    }

    #[test]
    fn defaults_listen_on_loopback_port_3000() {
        let args = serve_args(&["whocomes"]);
        assert_eq!(args.addr, "127.0.0.1:3000".parse().expect("literal"));
        assert_eq!(args.site_root, None);
        // A test binary has no `site` folder beside it.
        assert_eq!(args.site_root(), PathBuf::from("target/site"));
    }

    /// A stalled connection is closed within 30 s by default, and no limit
    /// can be set to zero (which would refuse or cut off everyone).
    #[test]
    fn connection_limits_have_safe_defaults_and_refuse_zero() {
        let limits = serve_args(&["whocomes"]).connections;
        assert_eq!(limits.max_connections, 1024);
        assert!(limits.header_timeout <= 30 && limits.request_timeout <= 30);
        assert!(limits.idle_timeout >= limits.request_timeout);
        for flag in [
            "--max-connections=0",
            "--header-timeout=0",
            "--request-timeout=0",
            "--idle-timeout=0",
        ] {
            assert!(Cli::try_parse_from(["whocomes", flag]).is_err(), "{flag}");
        }
    }

    #[test]
    fn a_bad_address_is_a_clear_error() {
        let error = Cli::try_parse_from(["whocomes", "--addr", "localhost"])
            .expect_err("an address needs an IP and a port");
        let message = error.to_string();
        assert!(message.contains("--addr"), "{message}");
    }

    #[test]
    fn help_mentions_every_environment_variable() {
        use clap::CommandFactory;
        let mut command = Cli::command();
        // Global flags reach subcommands only once the command is built.
        command.build();
        let help = command
            .find_subcommand_mut("serve")
            .expect("serve exists")
            .render_long_help()
            .to_string();
        for variable in [
            "WHOCOMES_ADDR",
            "WHOCOMES_SITE_ROOT",
            "WHOCOMES_LOG",
            "WHOCOMES_KEY",
            "WHOCOMES_KEY_FILE",
            "WHOCOMES_DATA_DIR",
            "WHOCOMES_STORE_URL",
            "WHOCOMES_STORE_NAME",
            "WHOCOMES_TRUSTED_PROXY",
            "WHOCOMES_SELF_READ_MARK",
            "WHOCOMES_OWN_ADDRESS",
            "WHOCOMES_QUEUE",
            "WHOCOMES_FLUSH_MS",
            "WHOCOMES_FLUSH_HITS",
            "WHOCOMES_VISITOR_DAYS",
            "WHOCOMES_HOUR_DAYS",
            "WHOCOMES_DEMO",
            "WHOCOMES_DEMO_SEED",
            "WHOCOMES_MAX_CONNECTIONS",
            "WHOCOMES_HEADER_TIMEOUT",
            "WHOCOMES_REQUEST_TIMEOUT",
            "WHOCOMES_IDLE_TIMEOUT",
        ] {
            assert!(help.contains(variable), "{variable} missing from:\n{help}");
        }
    }
}
