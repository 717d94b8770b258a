//! Slack's incoming webhook: `{"text": …}` with the subject in bold.

use async_trait::async_trait;
use serde_json::json;

use super::channel::Channel;
use super::notice::Notice;
use super::webhook::Endpoint;

/// A Slack incoming webhook.
pub struct Slack {
    endpoint: Endpoint,
}

impl Slack {
    /// The webhook at `url` (Slack's URL is its secret: never said).
    pub fn open(url: &str) -> Result<Self, String> {
        Ok(Self {
            endpoint: Endpoint::open(url)?,
        })
    }
}

/// Slack's mrkdwn treats `&`, `<` and `>` as markup.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[async_trait]
impl Channel for Slack {
    fn describe(&self) -> String {
        format!("Slack webhook at {}", self.endpoint.host())
    }

    async fn send(&self, notice: &Notice) -> Result<(), String> {
        let text = format!("*{}*\n{}", escaped(&notice.subject), escaped(&notice.text));
        let body = json!({ "text": text });
        self.endpoint
            .post(
                body.to_string().into_bytes(),
                &[("content-type", "application/json".to_owned())],
            )
            .await
    }
}
