//! An ntfy topic: the text as the body, the subject as its `Title`, a
//! raised notice at high priority with a warning tag, a recovery at the
//! default one.

use async_trait::async_trait;

use super::channel::Channel;
use super::notice::{Notice, State};
use super::webhook::Endpoint;

/// An ntfy topic (`https://ntfy.sh/TOPIC` or a server of the owner's own).
pub struct Ntfy {
    endpoint: Endpoint,
}

impl Ntfy {
    /// The topic at `url`.
    pub fn open(url: &str) -> Result<Self, String> {
        Ok(Self {
            endpoint: Endpoint::open(url)?,
        })
    }
}

/// A header's value holds no line break, and ntfy reads it as UTF-8 only
/// when it is RFC 2047-encoded: kept to printable ASCII here.
fn header_text(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect()
}

#[async_trait]
impl Channel for Ntfy {
    fn describe(&self) -> String {
        format!("ntfy at {}", self.endpoint.host())
    }

    async fn send(&self, notice: &Notice) -> Result<(), String> {
        let (priority, tags) = match notice.state {
            State::Raised => ("high", "warning"),
            State::Recovered => ("default", "white_check_mark"),
            State::Report => ("low", "bar_chart"),
        };
        self.endpoint
            .post(
                notice.text.clone().into_bytes(),
                &[
                    ("title", header_text(&notice.subject)),
                    ("priority", priority.to_owned()),
                    ("tags", tags.to_owned()),
                ],
            )
            .await
    }
}
