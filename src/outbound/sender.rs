//! One delivery attempt over HTTP: a POST with the Standard Webhooks headers, 10 s to answer, no
//! redirects followed, and only to checked addresses (see `target`).

use std::{
    sync::{Arc, OnceLock},
    time::{Duration, Instant},
};

use crate::{
    error::Result,
    outbound::target::{self, GuardedResolver},
};

const TIMEOUT: Duration = Duration::from_secs(10);

/// A signed request to send.
pub struct Request<'a> {
    pub url: &'a str,
    pub id: &'a str,
    pub timestamp: i64,
    pub signature: &'a str,
    pub body: Vec<u8>,
}

/// What came of an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The endpoint's status, when it answered.
    pub status: Option<u16>,
    pub duration_ms: u32,
    /// Why the attempt did not succeed.
    pub error: Option<String>,
}

impl Outcome {
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// 410 Gone: the endpoint asks not to be called again.
    pub fn gone(&self) -> bool {
        self.status == Some(410)
    }
}

/// The HTTP client is built on first use: loading the system's trust roots takes a while, and
/// most processes (the CLI, tests) never send a webhook.
#[derive(Clone)]
pub struct Sender {
    client: Arc<OnceLock<reqwest::Client>>,
    allow_private: bool,
}

impl Sender {
    pub fn new(allow_private: bool) -> Result<Sender> {
        install_tls_provider();
        Ok(Sender {
            client: Arc::default(),
            allow_private,
        })
    }

    fn client(&self) -> std::result::Result<&reqwest::Client, String> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::new(GuardedResolver {
                allow_private: self.allow_private,
            }))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            // Webhook deliveries say so on each request; other fetches (client metadata
            // documents) are the server's own.
            .user_agent(concat!("Shipbase/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot build the webhook client: {e}"))?;
        Ok(self.client.get_or_init(|| client))
    }

    /// Sends one attempt; never fails, the outcome says how it went.
    pub async fn send(&self, request: Request<'_>) -> Outcome {
        let started = Instant::now();
        let result = self.try_send(request).await;
        let duration_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
        match result {
            Ok(status) => Outcome {
                status: Some(status),
                duration_ms,
                error: (!(200..300).contains(&status))
                    .then(|| format!("the endpoint answered {status}")),
            },
            Err(error) => Outcome {
                status: None,
                duration_ms,
                error: Some(error),
            },
        }
    }

    async fn try_send(&self, request: Request<'_>) -> std::result::Result<u16, String> {
        let url = target::parse(request.url)?;
        target::check_literal(&url, self.allow_private)?;
        let response = self
            .client()?
            .post(url)
            .header("content-type", "application/json")
            .header(
                "user-agent",
                concat!("Shipbase-Webhooks/", env!("CARGO_PKG_VERSION")),
            )
            .header("webhook-id", request.id)
            .header("webhook-timestamp", request.timestamp.to_string())
            .header("webhook-signature", request.signature)
            .body(request.body)
            .send()
            .await
            .map_err(describe)?;
        Ok(response.status().as_u16())
    }
}

/// A JSON document fetched, with how long it may be kept (`Cache-Control: max-age`).
pub struct Fetched {
    pub body: Vec<u8>,
    pub max_age: Option<Duration>,
}

impl Sender {
    /// GETs a JSON document (an OAuth Client ID Metadata Document) from a checked address, no
    /// larger than `max_bytes`; answers its bytes when the server answered 200.
    pub async fn get_json(
        &self,
        url: &str,
        max_bytes: usize,
    ) -> std::result::Result<Fetched, String> {
        let url = target::parse(url)?;
        target::check_literal(&url, self.allow_private)?;
        let mut response = self
            .client()?
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(describe)?;
        if response.status() != reqwest::StatusCode::OK {
            return Err(format!(
                "the server answered {}",
                response.status().as_u16()
            ));
        }
        let max_age = response
            .headers()
            .get(reqwest::header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .and_then(max_age);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(describe)? {
            body.extend_from_slice(&chunk);
            if body.len() > max_bytes {
                return Err(format!("the document is larger than {max_bytes} bytes"));
            }
        }
        Ok(Fetched { body, max_age })
    }
}

/// How long a `Cache-Control` value lets a response be kept: `max-age`, or nothing when it says
/// `no-store` or `no-cache`.
fn max_age(cache_control: &str) -> Option<Duration> {
    let directives: Vec<String> = cache_control
        .split(',')
        .map(|d| d.trim().to_ascii_lowercase())
        .collect();
    if directives
        .iter()
        .any(|d| d == "no-store" || d == "no-cache")
    {
        return None;
    }
    directives
        .iter()
        .find_map(|d| d.strip_prefix("max-age="))
        .and_then(|seconds| seconds.trim_matches('"').parse::<u64>().ok())
        .map(Duration::from_secs)
}

/// A transport error in a few words, with the refusal of the address guard when that was it.
fn describe(err: reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(&err);
    let mut innermost = err.to_string();
    while let Some(e) = source {
        innermost = e.to_string();
        source = e.source();
    }
    if err.is_timeout() {
        format!("no answer within {} s", TIMEOUT.as_secs())
    } else if err.is_connect() {
        format!("cannot connect: {innermost}")
    } else {
        innermost
    }
}

/// rustls needs a process-wide crypto provider; ring is the one this binary already carries.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_control_says_how_long_to_keep_a_document() {
        assert_eq!(
            max_age("public, max-age=300"),
            Some(Duration::from_secs(300))
        );
        assert_eq!(max_age("max-age=60, no-store"), None);
        assert_eq!(max_age("no-cache"), None);
        assert_eq!(max_age("public"), None);
    }
}
