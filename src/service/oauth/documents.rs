//! Client ID Metadata Documents (DESIGN §12): a client whose `client_id` is the https URL of its
//! metadata document. The document is fetched only for a signed-in user (the consent page),
//! with the webhook address rules and the outbound lookup's deadline, and kept for as long as
//! its `Cache-Control: max-age` allows (at most an hour; at most `MAX_KEPT` documents). Whatever
//! went wrong reaches the user as one plain sentence; the details go to the log, so that the
//! authorization endpoint tells nobody what lies on the networks behind the server.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use serde_json::Value;
use url::Url;

use crate::{model::oauth::Client, service::Ctx};

/// A metadata document larger than this is refused.
const MAX_DOCUMENT_BYTES: usize = 64 * 1024;
/// The longest a document is kept, whatever its server says.
const MAX_AGE: Duration = Duration::from_secs(3600);
/// Documents kept at most.
const MAX_KEPT: usize = 256;
/// The longest a client name from a document is shown.
const MAX_NAME_CHARS: usize = 200;

/// Documents fetched, by URL, until they expire.
#[derive(Default)]
pub struct Cache {
    kept: Mutex<HashMap<String, (Client, Instant)>>,
}

impl Cache {
    fn get(&self, url: &str, now: Instant) -> Option<Client> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(url)
            .filter(|(_, until)| *until > now)
            .map(|(client, _)| client.clone())
    }

    fn put(&self, url: &str, client: &Client, keep: Duration, now: Instant) {
        if keep.is_zero() {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= MAX_KEPT && !kept.contains_key(url) {
            kept.retain(|_, (_, until)| *until > now);
            if kept.len() >= MAX_KEPT {
                // The one that expires first makes room.
                if let Some(first) = kept
                    .iter()
                    .min_by_key(|(_, (_, until))| *until)
                    .map(|(url, _)| url.clone())
                {
                    kept.remove(&first);
                }
            }
        }
        kept.insert(url.to_string(), (client.clone(), now + keep.min(MAX_AGE)));
    }
}

/// The client the document at `url` describes; Err is the sentence to show.
pub async fn client(ctx: &Ctx, url: &str) -> Result<Client, String> {
    let now = Instant::now();
    if let Some(client) = ctx.documents.get(url, now) {
        return Ok(client);
    }
    let host = Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    let generic = || {
        format!(
            "The app's details could not be read from {host}. Try again later, or ask the app's maker."
        )
    };
    let fetched = ctx
        .sender
        .get_json(url, MAX_DOCUMENT_BYTES)
        .await
        .map_err(|why| {
            tracing::info!(url, why, "a client metadata document could not be fetched");
            generic()
        })?;
    let client = parse(url, &fetched.body).map_err(|why| {
        tracing::info!(url, why, "a client metadata document is not usable");
        generic()
    })?;
    ctx.documents
        .put(url, &client, fetched.max_age.unwrap_or_default(), now);
    Ok(client)
}

/// The client a document describes, when it names `url` as its `client_id` and lists a usable
/// redirect URI.
fn parse(url: &str, body: &[u8]) -> Result<Client, &'static str> {
    let document: Value = serde_json::from_slice(body).map_err(|_| "not JSON")?;
    if document.get("client_id").and_then(Value::as_str) != Some(url) {
        return Err("it names another client_id");
    }
    let redirect_uris: Vec<String> = document
        .get("redirect_uris")
        .and_then(Value::as_array)
        .map(|uris| {
            uris.iter()
                .filter_map(Value::as_str)
                .filter(|uri| crate::model::oauth::check_redirect_uri(uri).is_ok())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if redirect_uris.is_empty() {
        return Err("it lists no usable redirect_uris");
    }
    let host = Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    let name = document
        .get("client_name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .map(|n| n.chars().take(MAX_NAME_CHARS).collect())
        .unwrap_or_else(|| host.clone());
    Ok(Client {
        id: url.to_string(),
        name,
        redirect_uris,
        client_uri: document
            .get("client_uri")
            .and_then(Value::as_str)
            .filter(|u| u.len() <= 2000)
            .map(str::to_string),
        created_at: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(name: &str) -> Client {
        Client {
            id: "https://app.example/client.json".into(),
            name: name.into(),
            redirect_uris: vec!["https://app.example/cb".into()],
            client_uri: None,
            created_at: String::new(),
        }
    }

    #[test]
    fn documents_are_kept_for_their_lifetime_at_most_an_hour() {
        let cache = Cache::default();
        let now = Instant::now();
        cache.put("u", &client("A"), Duration::from_secs(60), now);
        assert!(cache.get("u", now + Duration::from_secs(59)).is_some());
        assert!(cache.get("u", now + Duration::from_secs(61)).is_none());
        cache.put("v", &client("B"), Duration::from_secs(86_400), now);
        assert!(
            cache
                .get("v", now + MAX_AGE + Duration::from_secs(1))
                .is_none()
        );
        cache.put("w", &client("C"), Duration::ZERO, now);
        assert!(cache.get("w", now).is_none(), "no-store is not kept");
    }

    #[test]
    fn the_cache_is_bounded() {
        let cache = Cache::default();
        let now = Instant::now();
        for n in 0..(MAX_KEPT + 10) {
            cache.put(
                &format!("u{n}"),
                &client("A"),
                Duration::from_secs(60 + n as u64),
                now,
            );
        }
        assert_eq!(cache.kept.lock().map(|k| k.len()).unwrap_or(0), MAX_KEPT);
        assert!(
            cache.get(&format!("u{}", MAX_KEPT + 9), now).is_some(),
            "the newest stays"
        );
    }

    #[test]
    fn a_document_must_name_itself_and_a_usable_redirect() {
        let url = "https://app.example/client.json";
        let good = br#"{"client_id": "https://app.example/client.json", "client_name": "App",
            "redirect_uris": ["https://app.example/cb", "javascript:alert(1)"]}"#;
        let parsed = parse(url, good).map(|c| (c.name, c.redirect_uris));
        assert_eq!(
            parsed,
            Ok((
                "App".to_string(),
                vec!["https://app.example/cb".to_string()]
            ))
        );
        assert_eq!(
            parse(url, br#"{"client_id": "https://other.example/c.json", "redirect_uris": ["https://a.example/cb"]}"#)
                .map(|c| c.name),
            Err("it names another client_id")
        );
        assert_eq!(parse(url, b"<html>").map(|c| c.name), Err("not JSON"));
    }
}
