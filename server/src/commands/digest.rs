//! `whocomes digest --preview FILE` and `--send-now`: the latest digest due
//! (as `serve` would send it, from the store `serve` writes to, with the
//! same flags and variables), written to a file a browser opens or mailed
//! now. Nothing is recorded: the server's own digest is still sent once.

use std::path::PathBuf;

use chrono::Utc;
use clap::Args;
use reading::Reading;
use whocomes::notify::digest::{self, schedule};
use whocomes::notify::notice::Notice;

use crate::config::admin_args::AdminArgs;
use crate::config::notify_args::NotifyArgs;
use crate::config::storage::StoreArgs;

/// What `whocomes digest` takes.
#[derive(Clone, Debug, Args)]
pub struct DigestArgs {
    /// Write the digest as one HTML file (its chart inside) to FILE, and
    /// its text beside it (FILE.txt).
    #[arg(long, value_name = "FILE")]
    pub preview: Option<PathBuf>,

    /// Mail the digest now, through --mail-url to --mail-to.
    #[arg(long)]
    pub send_now: bool,

    #[command(flatten)]
    pub notify: NotifyArgs,

    #[command(flatten)]
    pub admin: AdminArgs,

    #[command(flatten)]
    pub store: StoreArgs,
}

/// Makes the digest and writes or sends it; says what it did on stderr.
pub async fn run(args: &DigestArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.preview.is_some() || args.send_now,
        "say what to do with the digest: --preview FILE, --send-now, or both"
    );
    let settings = args.notify.settings()?;
    let schedule_settings = args.notify.digest_settings().unwrap_or_default();
    let mail: Vec<_> = settings
        .channels
        .iter()
        .filter(|channel| matches!(channel, whocomes::notify::ChannelConfig::Mail { .. }))
        .map(|channel| {
            channel
                .open()
                .map_err(|why| anyhow::anyhow!("--mail-url: {why}"))
        })
        .collect::<Result<_, _>>()?;
    anyhow::ensure!(
        !args.send_now || !mail.is_empty(),
        "--send-now mails the digest: it needs --mail-url, --mail-from and --mail-to"
    );
    let store = args.store.open_for_command().await?;
    let reading = Reading::new(vec![store.clone()], args.admin.funnel_steps.clone());
    let every = schedule_settings.every;
    let period = schedule::latest(
        every,
        schedule_settings.hour,
        schedule_settings.zone,
        Utc::now(),
    );
    let made = digest::make(&reading, every, store.name().as_str(), &period).await;
    store.close().await;
    let draft = made.map_err(|why| anyhow::anyhow!(why))?;
    if let Some(file) = &args.preview {
        std::fs::write(file, digest::preview_html(&draft))
            .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", file.display()))?;
        let mut text_file = file.clone().into_os_string();
        text_file.push(".txt");
        std::fs::write(&text_file, &draft.text).map_err(|error| {
            anyhow::anyhow!(
                "cannot write {}: {error}",
                PathBuf::from(&text_file).display()
            )
        })?;
        eprintln!(
            "whocomes digest: {} written ({})",
            file.display(),
            draft.subject
        );
    }
    if args.send_now {
        let notice = Notice {
            id: 0,
            topic: draft.topic,
            state: draft.state,
            at: Utc::now(),
            subject: draft.subject,
            text: draft.text,
            html: draft.html,
            chart: draft.chart,
        };
        for channel in &mail {
            channel
                .send(&notice)
                .await
                .map_err(|why| anyhow::anyhow!("the digest was not sent: {why}"))?;
            eprintln!(
                "whocomes digest: sent by {} ({})",
                channel.describe(),
                notice.subject
            );
        }
    }
    Ok(())
}
