//! Calling a carrier's API: a request is retried only when it never reached the carrier (the
//! connection could not be made), so that a booking is never sent twice; a carrier that does not
//! answer in time, or answers with a server error, is `carrier_unavailable` (502); what it
//! refuses is for the adapter to explain as `carrier_rejected` (422).

use std::time::Duration;

use reqwest::{RequestBuilder, StatusCode};

use crate::error::{Error, Result};

/// Delays before the retries of a request that could not connect.
const RETRIES: [Duration; 2] = [Duration::from_millis(200), Duration::from_secs(1)];

/// The carrier's answer: status and body.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub body: Vec<u8>,
}

impl Answer {
    /// The body as JSON (null when it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Sends `request` to `carrier` (its name, for messages); retries connection failures.
pub async fn send(carrier: &str, request: RequestBuilder) -> Result<Answer> {
    let mut attempt = 0;
    loop {
        let Some(this) = request.try_clone() else {
            return Err(Error::Internal(
                "a carrier request body cannot be resent".into(),
            ));
        };
        match this.send().await {
            Ok(response) => {
                let status = response.status();
                let body = response
                    .bytes()
                    .await
                    .map_err(|e| unavailable(carrier, &e))?;
                return Ok(Answer {
                    status,
                    body: body.to_vec(),
                });
            }
            Err(e) if e.is_connect() && attempt < RETRIES.len() => {
                let error = without_url(&e);
                tracing::info!(carrier, error, "carrier connection failed; retrying");
                tokio::time::sleep(RETRIES[attempt]).await;
                attempt += 1;
            }
            Err(e) => return Err(unavailable(carrier, &e)),
        }
    }
}

fn unavailable(carrier: &str, e: &reqwest::Error) -> Error {
    let what = if e.is_timeout() {
        "did not answer in time".to_string()
    } else if e.is_connect() {
        "could not be reached".to_string()
    } else {
        format!("failed: {}", without_url(e))
    };
    Error::CarrierUnavailable(format!("{carrier} {what}; nothing was booked, try again"))
}

/// The error's text without the URL, which may hold an API key in its query.
fn without_url(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(url) = e.url() {
        text = text.replace(url.as_str(), "<url>");
    }
    text
}

/// A server error or throttling is the carrier's trouble (502); other refusals are the
/// adapter's to word (422).
pub fn is_unavailable(status: StatusCode) -> bool {
    status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS || status.as_u16() == 499
}
