//! A channel as the builder and the flags name it ([`ChannelConfig`]), and
//! opening it: the one place that knows every kind of channel.

use std::fmt;

use super::channel::Channel;
use super::{mail, ntfy, slack, webhook};

/// A channel as the builder and the flags name it.
#[derive(Clone, PartialEq, Eq)]
pub enum ChannelConfig {
    /// E-mail over SMTP: `smtp://host:port?tls=required` (STARTTLS),
    /// `smtps://host:port` (TLS from the start), with `user:password@` if
    /// the server wants them; plain `smtp://` only to this machine.
    Mail {
        /// The server's URL.
        url: String,
        /// The sender's address.
        from: String,
        /// Where notices go.
        to: Vec<String>,
    },
    /// A POST of a JSON body (`topic`, `state`, `at`, `subject`, `text`).
    Webhook {
        /// Where it is posted.
        url: String,
    },
    /// A Slack incoming webhook's `{"text": …}`.
    Slack {
        /// The webhook's URL (a secret: never logged).
        url: String,
    },
    /// An ntfy topic: the text as the body, the subject as its title.
    Ntfy {
        /// The topic's URL (`https://ntfy.sh/TOPIC`).
        url: String,
    },
}

impl fmt::Debug for ChannelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never a URL: it may hold a password or a webhook's secret.
        f.write_str(match self {
            Self::Mail { .. } => "Mail",
            Self::Webhook { .. } => "Webhook",
            Self::Slack { .. } => "Slack",
            Self::Ntfy { .. } => "Ntfy",
        })
    }
}

impl std::str::FromStr for ChannelConfig {
    type Err = String;

    /// A webhook as the flag takes it: `URL` (the JSON body), `slack=URL`,
    /// `ntfy=URL` or `json=URL`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (kind, url) = match text.split_once('=') {
            Some((kind, url)) if ["json", "slack", "ntfy"].contains(&kind) => (kind, url),
            _ => ("json", text),
        };
        let parsed = reqwest::Url::parse(url)
            .map_err(|error| format!("a webhook is json=URL, slack=URL or ntfy=URL: {error}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err("a webhook's URL starts with https:// or http://".to_owned());
        }
        let url = url.to_owned();
        Ok(match kind {
            "slack" => Self::Slack { url },
            "ntfy" => Self::Ntfy { url },
            _ => Self::Webhook { url },
        })
    }
}

impl ChannelConfig {
    /// Opens the channel it names; `Err` says why it cannot be (a URL or
    /// an address that does not parse, plain SMTP to another machine).
    pub fn open(&self) -> Result<Box<dyn Channel>, String> {
        Ok(match self {
            Self::Mail { url, from, to } => Box::new(mail::Mail::open(url, from, to)?),
            Self::Webhook { url } => Box::new(webhook::Webhook::open(url)?),
            Self::Slack { url } => Box::new(slack::Slack::open(url)?),
            Self::Ntfy { url } => Box::new(ntfy::Ntfy::open(url)?),
        })
    }
}
