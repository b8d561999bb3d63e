//! Calling a carrier's API: a request is retried only when it never reached the carrier (the
//! connection could not be made), so that a booking is never sent twice. What went wrong says
//! whether the carrier may have acted: it could not be reached (`CarrierUnreachable`: nothing
//! left), it did not answer in time or the connection broke once the request was on its way
//! (`CarrierTimeout`: unknown), it answered a server error (the adapter's `CarrierUnavailable`:
//! nothing booked), or it refused (the adapter's `CarrierRejected`).

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
    if e.is_connect() {
        return Error::CarrierUnreachable(format!(
            "{carrier} could not be reached; nothing was sent, try again"
        ));
    }
    let what = if e.is_timeout() {
        "did not answer in time".to_string()
    } else {
        format!("broke off: {}", without_url(e))
    };
    Error::CarrierTimeout(format!("{carrier} {what}; whether it booked is unknown"))
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
