//! The generic webhook: a notice POSTed as JSON (`topic`, `state`, `at`,
//! `subject`, `text`), and the HTTP post that Slack's and ntfy's channels
//! use too. A webhook's URL is often its secret, so only its host is ever
//! said.

use async_trait::async_trait;
use serde_json::json;

use super::channel::{Channel, SEND_TIMEOUT, host_of};
use super::notice::Notice;

/// An HTTP endpoint notices are posted to, known in words by its host.
pub(super) struct Endpoint {
    client: reqwest::Client,
    url: reqwest::Url,
    host: String,
}

impl Endpoint {
    /// The endpoint at `url` (http or https).
    pub(super) fn open(url: &str) -> Result<Self, String> {
        let url = reqwest::Url::parse(url).map_err(|error| format!("a webhook's URL: {error}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err("a webhook's URL starts with https:// or http://".to_owned());
        }
        let host = host_of(&url).ok_or("a webhook's URL names no host")?;
        let client = reqwest::Client::builder()
            .timeout(SEND_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| format!("no HTTP client: {error}"))?;
        Ok(Self { client, url, host })
    }

    /// Its host (and port), the only part of its URL ever said.
    pub(super) fn host(&self) -> &str {
        &self.host
    }

    /// POSTs `body` with `headers`; a status other than 2xx is an error.
    pub(super) async fn post(
        &self,
        body: Vec<u8>,
        headers: &[(&'static str, String)],
    ) -> Result<(), String> {
        let mut request = self.client.post(self.url.clone()).body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let response = request
            .send()
            .await
            // Without the URL: reqwest's error would name it.
            .map_err(|error| format!("{} did not answer: {}", self.host, error.without_url()))?;
        let status = response.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(format!("{} answered {status}", self.host))
        }
    }
}

/// The generic JSON webhook.
pub struct Webhook {
    endpoint: Endpoint,
}

impl Webhook {
    /// The webhook at `url`.
    pub fn open(url: &str) -> Result<Self, String> {
        Ok(Self {
            endpoint: Endpoint::open(url)?,
        })
    }
}

#[async_trait]
impl Channel for Webhook {
    fn describe(&self) -> String {
        format!("webhook at {}", self.endpoint.host())
    }

    async fn send(&self, notice: &Notice) -> Result<(), String> {
        let body = json!({
            "id": notice.id,
            "topic": notice.topic,
            "state": notice.state.word(),
            "at": notice.at.to_rfc3339(),
            "subject": notice.subject,
            "text": notice.text,
        });
        self.endpoint
            .post(
                body.to_string().into_bytes(),
                &[("content-type", "application/json".to_owned())],
            )
            .await
    }
}
