//! The SMTP client (`[smtp]`): lettre over tokio with rustls, certificates checked
//! by the platform verifier. `smtp://` speaks STARTTLS and insists on it unless the server is on
//! loopback or `allow_plain` is set; `smtps://` is TLS from the first byte.

use std::time::Duration;

use lettre::{
    AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor,
    message::Mailbox,
    transport::smtp::{
        authentication::Credentials,
        client::{Tls, TlsParameters},
        extension::ClientId,
    },
};

use crate::{config::Smtp, error::Error};

/// The configured mail server, or none.
#[derive(Clone)]
pub struct Mailer {
    server: Option<Server>,
}

#[derive(Clone)]
struct Server {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

/// Why a message was not sent.
#[derive(Debug)]
pub struct Failure {
    /// The server refused it for good (5xx): trying again cannot help.
    pub permanent: bool,
    pub reason: String,
}

impl Mailer {
    /// The client of `[smtp]`, whose keys `Config::check` has validated; `hello` is the name
    /// this server greets with (the host of its base URL).
    pub fn new(config: &Smtp, hello: &str) -> crate::error::Result<Mailer> {
        if config.url.is_empty() {
            return Ok(Mailer { server: None });
        }
        let bad = |what: String| Error::Internal(format!("smtp: {what}"));
        let url = url::Url::parse(&config.url).map_err(|e| bad(format!("url: {e}")))?;
        let host = url
            .host_str()
            .ok_or_else(|| bad("url names no host".into()))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let tls_parameters =
            || TlsParameters::new_rustls(host.clone()).map_err(|e| bad(format!("TLS: {e}")));
        let (tls, default_port) = match url.scheme() {
            "smtps" => (Tls::Wrapper(tls_parameters()?), 465),
            _ if config.allow_plain || is_loopback(&host) => {
                (Tls::Opportunistic(tls_parameters()?), 587)
            }
            _ => (Tls::Required(tls_parameters()?), 587),
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host.clone())
            .port(url.port().unwrap_or(default_port))
            .tls(tls)
            .hello_name(ClientId::Domain(hello.to_string()))
            .timeout(Some(Duration::from_secs(config.timeout_seconds)));
        if !url.username().is_empty() {
            builder = builder.credentials(Credentials::new(
                decode(url.username()),
                decode(url.password().unwrap_or_default()),
            ));
        }
        let from = config
            .from
            .parse::<Mailbox>()
            .map_err(|e| bad(format!("from: {e}")))?;
        Ok(Mailer {
            server: Some(Server {
                transport: builder.build(),
                from,
            }),
        })
    }

    /// Whether mail can be sent at all.
    pub fn configured(&self) -> bool {
        self.server.is_some()
    }

    /// The configured sender with `name` as its display name (the shop's).
    pub fn from_as(&self, name: &str) -> Option<Mailbox> {
        self.server
            .as_ref()
            .map(|server| Mailbox::new(Some(name.to_string()), server.from.email.clone()))
    }

    /// The domain of the sender address (for Message-IDs).
    pub fn domain(&self) -> Option<String> {
        self.server
            .as_ref()
            .map(|server| server.from.email.domain().to_string())
    }

    /// Hands `message` to the server.
    pub async fn send(&self, message: Message) -> Result<(), Failure> {
        let Some(server) = &self.server else {
            return Err(Failure {
                permanent: true,
                reason: NOT_CONFIGURED.into(),
            });
        };
        server
            .transport
            .send(message)
            .await
            .map(drop)
            .map_err(|err| Failure {
                permanent: err.is_permanent(),
                reason: err.to_string(),
            })
    }
}

/// The log's reason when no server is configured.
pub const NOT_CONFIGURED: &str = "no mail server is configured ([smtp] url)";

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The user or password of the URL, percent-decoded (`%40` for `@`).
fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_and_password_are_percent_decoded() {
        assert_eq!(decode("shop%40example.com"), "shop@example.com");
        assert_eq!(decode("p%3Ass+w"), "p:ss+w");
        assert!(is_loopback("127.0.0.1") && is_loopback("::1") && is_loopback("LOCALHOST"));
        assert!(!is_loopback("mail.example.com"));
    }
}
