//! The Admin tab's flags: who may sign in, whether the whole tab is
//! private, and the funnel's steps. The password is read here and handed to
//! `admin`, which keeps only its argon2 hash; it is never logged.

use std::path::PathBuf;

use activity::funnel::FunnelStep;
use anyhow::Context as _;
use clap::Args;

/// How the Admin tab is protected.
#[derive(Clone, Args)]
pub struct AdminArgs {
    /// File holding the admin password (its surrounding whitespace ignored).
    /// Without a password nobody can sign in, so the visitor table stays closed.
    #[arg(long, env = "WHOCOMES_ADMIN_PASSWORD_FILE", value_name = "FILE")]
    pub admin_password_file: Option<PathBuf>,

    /// The admin password itself (prefer the file: an environment can leak).
    #[arg(
        long = "admin-password",
        env = "WHOCOMES_ADMIN_PASSWORD",
        hide_env_values = true
    )]
    pub admin_password: Option<String>,

    /// Make the whole Admin tab sign-in only (by default the aggregates are
    /// public and only the visitor table needs a session).
    #[arg(long, env = "WHOCOMES_PRIVATE")]
    pub private: bool,

    /// A step of the funnel card, in order: its name, then the paths that
    /// take it (`--funnel-step landing=/ --funnel-step signup=/signup,/signup/done`).
    /// Repeat it for each step, at most 8. In the environment, steps are
    /// separated by `;`. None: the card says how to name them (`--demo`
    /// brings the demo site's).
    #[arg(
        long = "funnel-step",
        env = "WHOCOMES_FUNNEL",
        value_name = "NAME=PATH[,PATH…]",
        value_delimiter = ';'
    )]
    pub funnel_steps: Vec<FunnelStep>,

    /// Requests each stats API key may make in an hour (keys: `whocomes
    /// api-key create`); past it the API answers 429 with Retry-After.
    #[arg(
        long,
        env = "WHOCOMES_API_REQUESTS_PER_HOUR",
        default_value_t = admin::server::stats_api::keys::PER_HOUR
    )]
    pub api_requests_per_hour: u32,
}

impl std::fmt::Debug for AdminArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminArgs")
            .field("admin_password_file", &self.admin_password_file)
            .field(
                "admin_password",
                &self.admin_password.as_ref().map(|_| "redacted"),
            )
            .field("private", &self.private)
            .field("funnel_steps", &self.funnel_steps)
            .finish()
    }
}

impl AdminArgs {
    /// The password, from the file or the variable (not both).
    pub fn password(&self) -> anyhow::Result<Option<String>> {
        match (&self.admin_password_file, &self.admin_password) {
            (Some(_), Some(_)) => {
                anyhow::bail!(
                    "give the admin password once: --admin-password-file or WHOCOMES_ADMIN_PASSWORD"
                )
            }
            (Some(path), None) => {
                let text = std::fs::read_to_string(path).with_context(|| {
                    format!(
                        "--admin-password-file (WHOCOMES_ADMIN_PASSWORD_FILE): cannot read {}",
                        path.display()
                    )
                })?;
                Ok(Some(text))
            }
            (None, given) => Ok(given.clone()),
        }
    }
}
