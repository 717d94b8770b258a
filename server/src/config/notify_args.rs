//! The alerts' flags: where notices go (an SMTP server and its addresses,
//! webhooks) and when they are sent (the thresholds). A mail URL and a
//! webhook's URL may hold a secret: never logged, never in `--help`'s
//! values.

use std::time::Duration;

use clap::Args;
use whocomes::notify::digest::{DigestSettings, Every};
use whocomes::notify::{ChannelConfig, NotifySettings, TrafficThresholds};

/// Where alerts go, and when.
#[derive(Clone, Args)]
pub struct NotifyArgs {
    /// The SMTP server alerts are mailed through: smtp://HOST:587?tls=required
    /// (STARTTLS) or smtps://HOST:465, with USER:PASSWORD@ before the host if
    /// it asks (percent-encoded); plain smtp:// only to this machine.
    #[arg(
        long,
        env = "WHOCOMES_MAIL_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub mail_url: Option<String>,

    /// The sender's address of the mail whocomes sends.
    #[arg(long, env = "WHOCOMES_MAIL_FROM", value_name = "ADDRESS")]
    pub mail_from: Option<String>,

    /// Where alerts are mailed (comma-separated).
    #[arg(
        long,
        env = "WHOCOMES_MAIL_TO",
        value_name = "ADDRESS,…",
        value_delimiter = ','
    )]
    pub mail_to: Vec<String>,

    /// A webhook alerts are posted to: URL (a JSON body), slack=URL
    /// (a Slack incoming webhook) or ntfy=URL (an ntfy topic). Repeat it for
    /// each; in the environment, comma-separated.
    #[arg(
        long = "webhook",
        env = "WHOCOMES_WEBHOOK",
        hide_env_values = true,
        value_name = "[slack=|ntfy=]URL",
        value_delimiter = ','
    )]
    pub webhooks: Vec<ChannelConfig>,

    /// A spike: people arriving in an hour at least this many times that
    /// hour's usual level…
    #[arg(long, env = "WHOCOMES_ALERT_SPIKE_FACTOR", default_value_t = TrafficThresholds::default().spike_factor)]
    pub alert_spike_factor: f64,

    /// …and at least this many of them.
    #[arg(long, env = "WHOCOMES_ALERT_SPIKE_FLOOR", default_value_t = TrafficThresholds::default().spike_floor)]
    pub alert_spike_floor: u64,

    /// A drop: no people arriving in an hour whose usual level is at least
    /// this many.
    #[arg(long, env = "WHOCOMES_ALERT_DROP_USUAL", default_value_t = TrafficThresholds::default().drop_usual)]
    pub alert_drop_usual: f64,

    /// How many days before an hour its usual level is read from.
    #[arg(long, env = "WHOCOMES_ALERT_HISTORY_DAYS", default_value_t = TrafficThresholds::default().history_days)]
    pub alert_history_days: u32,

    /// How many seconds a store may be unreachable before it is told.
    #[arg(long, env = "WHOCOMES_ALERT_STORE_DOWN_SECS", default_value_t = NotifySettings::default().store_down_after.as_secs())]
    pub alert_store_down_secs: u64,

    /// A digest by mail: daily (the day before) or weekly (the seven days
    /// before --digest-day). None by default.
    #[arg(long, env = "WHOCOMES_DIGEST", value_name = "daily|weekly", value_parser = ["daily", "weekly"])]
    pub digest: Option<String>,

    /// The weekly digest's day.
    #[arg(long, env = "WHOCOMES_DIGEST_DAY", default_value = "monday", value_parser = parse_weekday)]
    pub digest_day: chrono::Weekday,

    /// The hour the digest is sent at, 0 to 23, in --digest-zone.
    #[arg(long, env = "WHOCOMES_DIGEST_HOUR", default_value_t = 8, value_parser = clap::value_parser!(u8).range(0..=23))]
    pub digest_hour: u8,

    /// The time zone of --digest-hour, as the IANA names it (Europe/Paris).
    #[arg(long, env = "WHOCOMES_DIGEST_ZONE", default_value = "UTC", value_parser = parse_zone)]
    pub digest_zone: chrono_tz::Tz,

    /// One store's digest (its --store-name); by default every store's.
    #[arg(long, env = "WHOCOMES_DIGEST_STORE", value_name = "NAME")]
    pub digest_store: Option<String>,

    /// How often, in seconds, the alerts look.
    #[arg(long, env = "WHOCOMES_ALERT_LOOK_SECS", default_value_t = NotifySettings::default().look_every.as_secs())]
    pub alert_look_secs: u64,
}

impl std::fmt::Debug for NotifyArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never a URL: it may hold a password or a webhook's secret.
        f.debug_struct("NotifyArgs")
            .field("mail_url", &self.mail_url.as_ref().map(|_| "redacted"))
            .field("mail_to", &self.mail_to.len())
            .field("webhooks", &self.webhooks)
            .finish_non_exhaustive()
    }
}

fn parse_weekday(text: &str) -> Result<chrono::Weekday, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a day of the week, like monday"))
}

fn parse_zone(text: &str) -> Result<chrono_tz::Tz, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a time zone as the IANA names it, like Europe/Paris"))
}

impl NotifyArgs {
    /// The digest the flags ask for, if any.
    pub fn digest_settings(&self) -> Option<DigestSettings> {
        let every = match self.digest.as_deref()? {
            "daily" => Every::Day,
            _ => Every::Week(self.digest_day),
        };
        Some(DigestSettings {
            every,
            hour: self.digest_hour,
            zone: self.digest_zone,
            store: self.digest_store.clone(),
        })
    }

    /// The settings the flags say; mail needs its URL, sender and an
    /// address together.
    pub fn settings(&self) -> anyhow::Result<NotifySettings> {
        let mut channels = Vec::new();
        match (&self.mail_url, &self.mail_from, self.mail_to.is_empty()) {
            (None, None, true) => {}
            (Some(url), Some(from), false) => channels.push(ChannelConfig::Mail {
                url: url.clone(),
                from: from.clone(),
                to: self.mail_to.clone(),
            }),
            _ => anyhow::bail!(
                "mail needs --mail-url, --mail-from and --mail-to together (WHOCOMES_MAIL_URL, WHOCOMES_MAIL_FROM, WHOCOMES_MAIL_TO)"
            ),
        }
        channels.extend(self.webhooks.iter().cloned());
        Ok(NotifySettings {
            channels,
            traffic: TrafficThresholds {
                spike_factor: self.alert_spike_factor,
                spike_floor: self.alert_spike_floor,
                drop_usual: self.alert_drop_usual,
                history_days: self.alert_history_days,
                ..TrafficThresholds::default()
            },
            store_down_after: Duration::from_secs(self.alert_store_down_secs),
            look_every: Duration::from_secs(self.alert_look_secs),
            digest: self.digest_settings(),
        })
    }
}
