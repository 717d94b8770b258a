//! The one small port every channel is behind: a notice in, sent or not.
//! A new channel is a file beside this one and one arm in `config.rs`.

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;

use super::notice::Notice;

/// How long one try to send may take.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(15);

/// A URL's host and port, the only part of a channel's URL ever said
/// (never its user, password or path).
pub(super) fn host_of(url: &reqwest::Url) -> Option<String> {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => Some(format!("{host}:{port}")),
        (Some(host), None) => Some(host.to_owned()),
        (None, _) => None,
    }
}

/// A place notices go.
#[async_trait]
pub trait Channel: Send + Sync {
    /// What it is, in words safe for a log line and the tab: its kind and
    /// host, never a password or a webhook's secret path.
    fn describe(&self) -> String;

    /// Whether it takes digests (a mail's HTML and chart); a chat or a
    /// webhook takes alerts only.
    fn takes_digests(&self) -> bool {
        false
    }

    /// Sends one notice; `Err` says why not, in the same safe words.
    async fn send(&self, notice: &Notice) -> Result<(), String>;
}

impl fmt::Debug for dyn Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}
