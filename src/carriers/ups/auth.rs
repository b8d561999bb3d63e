//! UPS's OAuth client credentials: an access token per client, kept until shortly before UPS
//! says it expires; a request sent with it, and once more with a new one when UPS refuses a
//! kept token (revoked early); the `transId` every request carries.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};

use super::{NAME, SOURCE, answer, base, setting};
use crate::{
    carriers::{
        Env,
        http::{self, Answer},
    },
    error::{Error, Result},
    model::carrier::CarrierRecord,
};

/// A fresh 32-character id for UPS's `transId` header.
fn transaction_id() -> Result<String> {
    let mut bytes = [0u8; 24];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Internal("no randomness available".into()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// The key the carrier's token is kept under: where it was issued and for which client.
fn token_key(env: &Env, carrier: &CarrierRecord) -> Result<String> {
    Ok(format!(
        "ups {} {}",
        base(env, carrier),
        setting(carrier, "clientId")?
    ))
}

/// An access token for the carrier's client: the kept one, else a new one (OAuth client
/// credentials, kept for as long as UPS says it lives).
async fn token(env: &Env, carrier: &CarrierRecord) -> Result<String> {
    let key = token_key(env, carrier)?;
    if let Some(token) = env.tokens.get(&key) {
        return Ok(token);
    }
    let builder = env
        .http()?
        .post(format!("{}/security/v1/oauth/token", base(env, carrier)))
        .basic_auth(
            setting(carrier, "clientId")?,
            Some(setting(carrier, "clientSecret")?),
        )
        .header("x-merchant-id", setting(carrier, "accountNumber")?)
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body("grant_type=client_credentials");
    let answer = http::send(NAME, builder).await?;
    if !answer.status.is_success() {
        let status = answer.status.as_u16();
        if http::is_unavailable(answer.status) {
            return Err(Error::CarrierUnavailable(format!(
                "UPS could not issue an access token (HTTP {status}): {}; nothing was booked, try again",
                answer::problem(&answer.json())
            )));
        }
        return Err(Error::CarrierRejected(format!(
            "UPS refused the client ID and secret (HTTP {status}): {}",
            answer::problem(&answer.json())
        )));
    }
    let body = answer.json();
    let token = body["access_token"]
        .as_str()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            Error::CarrierUnavailable("UPS issued no access token; nothing was booked".into())
        })?
        .to_string();
    // UPS writes the lifetime in seconds as a string.
    let seconds = match &body["expires_in"] {
        serde_json::Value::String(s) => s.trim().parse::<u64>().unwrap_or(0),
        other => other.as_u64().unwrap_or(0),
    };
    env.tokens
        .put(&key, &token, std::time::Duration::from_secs(seconds));
    Ok(token)
}

/// Sends `method url` to UPS's API with the access token, a fresh `transId` and the source;
/// `finish` adds the query and body. Sent once more with a new token when UPS answers 401 to a
/// kept one (revoked early).
pub(super) async fn call(
    env: &Env,
    carrier: &CarrierRecord,
    method: reqwest::Method,
    url: &str,
    finish: impl Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
) -> Result<Answer> {
    let trans_id = transaction_id()?;
    let build = |token: &str| -> Result<reqwest::RequestBuilder> {
        Ok(finish(
            env.http()?
                .request(method.clone(), url)
                .bearer_auth(token)
                .header("transId", &trans_id)
                .header("transactionSrc", SOURCE),
        ))
    };
    let kept = env.tokens.get(&token_key(env, carrier)?).is_some();
    let answer = http::send(NAME, build(&token(env, carrier).await?)?).await?;
    if answer.status.as_u16() == 401 && kept {
        env.tokens.forget(&token_key(env, carrier)?);
        return http::send(NAME, build(&token(env, carrier).await?)?).await;
    }
    Ok(answer)
}
