//! `whocomes api-key create|list|revoke`: the stats API's keys in the data
//! folder's `api-keys` file (their hashes only; a new key is printed once).
//! A serving whocomes reads the file again when it changes, so a revoked
//! key is refused from its next request on.

use std::io::Write;
use std::path::PathBuf;

use admin::server::stats_api::keys::{self, FILE};
use clap::{Args, Subcommand};

/// Which key command, in which data folder.
#[derive(Clone, Debug, Args)]
pub struct ApiKeyArgs {
    /// The data folder whose keys these are (as `serve`'s).
    #[arg(long, env = "WHOCOMES_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    #[command(subcommand)]
    pub action: ApiKeyAction,
}

/// What to do with the keys.
#[derive(Clone, Debug, Subcommand)]
pub enum ApiKeyAction {
    /// Make a key and print it (once: only its hash is kept).
    Create {
        /// Its name (letters, digits, -_.), said in lists and logs.
        name: String,
        /// A store it reads (its `site_id`); repeat for several. None: every store.
        #[arg(long = "store")]
        stores: Vec<String>,
    },
    /// List the keys: name, stores, when made (never a key).
    List,
    /// Remove a key: the API refuses it from its next request on.
    Revoke {
        /// The key's name.
        name: String,
    },
}

/// Runs the command, writing what it says to `out`.
pub fn run(args: &ApiKeyArgs, mut out: impl Write) -> anyhow::Result<()> {
    let file = args.data_dir.join(FILE);
    match &args.action {
        ApiKeyAction::Create { name, stores } => {
            std::fs::create_dir_all(&args.data_dir)?;
            let key = keys::create(&file, name, stores)?;
            writeln!(out, "{key}")?;
            let scope = if stores.is_empty() {
                "every store".to_owned()
            } else {
                stores.join(", ")
            };
            eprintln!(
                "whocomes api-key: {name:?} reads {scope}; the key above is shown once (only its hash is kept in {})",
                file.display()
            );
        }
        ApiKeyAction::List => {
            for key in keys::read_file(&file)? {
                writeln!(
                    out,
                    "{}\t{}\t{}",
                    key.name,
                    key.scope(),
                    key.created.format("%Y-%m-%d %H:%M UTC")
                )?;
            }
        }
        ApiKeyAction::Revoke { name } => {
            keys::revoke(&file, name)?;
            eprintln!("whocomes api-key: {name:?} revoked");
        }
    }
    Ok(())
}
