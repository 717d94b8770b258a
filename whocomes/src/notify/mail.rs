//! E-mail over SMTP, by lettre: `smtp://HOST:PORT?tls=required` (STARTTLS),
//! `smtps://HOST:PORT` (TLS from the start), a user and password in the URL
//! if the server wants them. Plain `smtp://` (no TLS at all) is taken only
//! for a server on this machine, so a password never crosses a network in
//! the clear. A notice with HTML is sent as text and HTML alternatives; the
//! password is never said.

use async_trait::async_trait;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart, header::ContentType};
use lettre::{AsyncSmtpTransport, AsyncTransport as _, Message, Tokio1Executor};

use super::channel::{Channel, SEND_TIMEOUT, host_of};
use super::notice::Notice;

/// An SMTP server and the addresses notices go to.
pub struct Mail {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    server: String,
    from: Mailbox,
    to: Vec<Mailbox>,
}

impl Mail {
    /// Mail through the server at `url`, from `from`, to each of `to`.
    pub fn open(url: &str, from: &str, to: &[String]) -> Result<Self, String> {
        let parsed =
            reqwest::Url::parse(url).map_err(|error| format!("the mail server's URL: {error}"))?;
        if !matches!(parsed.scheme(), "smtp" | "smtps") {
            return Err("the mail server's URL starts with smtp:// or smtps://".to_owned());
        }
        let server = host_of(&parsed).ok_or("the mail server's URL names no host")?;
        let tls = parsed.query_pairs().any(|(key, _)| key == "tls");
        let host = parsed.host_str().unwrap_or_default();
        let local = host == "localhost"
            || host
                .trim_matches(['[', ']'])
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if parsed.scheme() == "smtp" && !tls && !local {
            return Err(format!(
                "smtp://{server} would send mail (and any password) unencrypted: add \
                 ?tls=required for STARTTLS, or use smtps:// (plain smtp:// is for a \
                 server on this machine)"
            ));
        }
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            // lettre's words about a URL do not repeat its password.
            .map_err(|error| format!("the mail server's URL: {error}"))?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        let from = from
            .parse()
            .map_err(|error| format!("the sender's address {from:?}: {error}"))?;
        if to.is_empty() {
            return Err("mail needs at least one address to send to".to_owned());
        }
        let to = to
            .iter()
            .map(|address| {
                address
                    .parse()
                    .map_err(|error| format!("the address {address:?}: {error}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            transport,
            server,
            from,
            to,
        })
    }

    fn message(&self, notice: &Notice) -> Result<Message, String> {
        let mut builder = Message::builder()
            .from(self.from.clone())
            .subject(notice.subject.clone());
        for to in &self.to {
            builder = builder.to(to.clone());
        }
        let message = match (&notice.html, &notice.chart) {
            (Some(html), Some(chart)) => {
                let png = super::digest::image::from_text(chart)?;
                let image = Attachment::new_inline("chart".to_owned()).body(
                    png,
                    ContentType::parse("image/png").map_err(|e| e.to_string())?,
                );
                builder.multipart(
                    MultiPart::alternative()
                        .singlepart(SinglePart::plain(notice.text.clone()))
                        .multipart(
                            MultiPart::related()
                                .singlepart(SinglePart::html(html.clone()))
                                .singlepart(image),
                        ),
                )
            }
            (Some(html), None) => builder.multipart(MultiPart::alternative_plain_html(
                notice.text.clone(),
                html.clone(),
            )),
            (None, _) => builder.singlepart(
                SinglePart::builder()
                    .header(ContentType::TEXT_PLAIN)
                    .body(notice.text.clone()),
            ),
        };
        message.map_err(|error| format!("the message could not be made: {error}"))
    }
}

#[async_trait]
impl Channel for Mail {
    fn describe(&self) -> String {
        let to = self.to.len();
        let addresses = if to == 1 { "address" } else { "addresses" };
        format!("mail through {} to {to} {addresses}", self.server)
    }

    fn takes_digests(&self) -> bool {
        true
    }

    async fn send(&self, notice: &Notice) -> Result<(), String> {
        let message = self.message(notice)?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|error| format!("{} did not take the mail: {error}", self.server))
    }
}
