//! OAuth clients (DESIGN §12): public clients registered with RFC 7591 (`cli_…`), and clients
//! whose `client_id` is the https URL of their Client ID Metadata Document, fetched when they
//! ask for authorization with the webhook address rules. Redirect URIs match exactly, except the
//! port of a loopback one.

use serde_json::{Value, json};
use url::Url;

use crate::{
    error::Result,
    model::{
        ids,
        oauth::{Client, MAX_URI_LEN, check_redirect_uri, is_loopback},
    },
    service::{Ctx, oauth::OAuthError},
    store,
};

const MAX_REDIRECT_URIS: usize = 10;
/// The longest redirect URI, `client_uri` and `client_name` a client may register.
const MAX_NAME_LEN: usize = 2000;
/// What the consent page calls a client that gave no name.
const UNNAMED: &str = "An unnamed app";

/// RFC 7591 registration of a public client. Unknown metadata is ignored, as RFC 7591 asks;
/// what is kept is bounded (ten redirect URIs, 2,000 characters a field), and of the clients
/// that never complete a sign-in only the newest `oauth.max_unused_clients` are kept.
pub async fn register(ctx: &Ctx, body: &Value) -> std::result::Result<Value, OAuthError> {
    let metadata = body
        .as_object()
        .ok_or_else(|| invalid_metadata("the body must be a JSON object"))?;
    let uris = metadata
        .get("redirect_uris")
        .and_then(Value::as_array)
        .filter(|uris| !uris.is_empty())
        .ok_or_else(|| invalid_redirect("redirect_uris must be a non-empty array of URIs"))?;
    if uris.len() > MAX_REDIRECT_URIS {
        return Err(invalid_metadata(format!(
            "at most {MAX_REDIRECT_URIS} redirect_uris may be registered"
        )));
    }
    let redirect_uris = uris
        .iter()
        .map(|uri| {
            let uri = uri
                .as_str()
                .ok_or_else(|| invalid_redirect("each redirect URI must be a string"))?;
            if uri.chars().count() > MAX_URI_LEN {
                return Err(invalid_metadata(format!(
                    "each redirect URI must be at most {MAX_URI_LEN} characters"
                )));
            }
            check_redirect_uri(uri).map_err(invalid_redirect)?;
            Ok(uri.to_string())
        })
        .collect::<std::result::Result<Vec<_>, OAuthError>>()?;
    if let Some(method) = metadata.get("token_endpoint_auth_method")
        && method.as_str() != Some("none")
    {
        return Err(invalid_metadata(
            "token_endpoint_auth_method must be \"none\": only public clients with PKCE are supported",
        ));
    }
    check_listed(
        metadata,
        "grant_types",
        &["authorization_code", "refresh_token"],
    )?;
    check_listed(metadata, "response_types", &["code"])?;
    let name = optional_string(metadata, "client_name")?;
    if name
        .as_ref()
        .is_some_and(|n| n.chars().count() > MAX_NAME_LEN)
    {
        return Err(invalid_metadata(format!(
            "client_name must be at most {MAX_NAME_LEN} characters"
        )));
    }
    let client_uri = optional_string(metadata, "client_uri")?;
    if client_uri
        .as_ref()
        .is_some_and(|u| u.chars().count() > MAX_URI_LEN)
    {
        return Err(invalid_metadata(format!(
            "client_uri must be at most {MAX_URI_LEN} characters"
        )));
    }
    if let Some(uri) = &client_uri
        && !Url::parse(uri).is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
    {
        return Err(invalid_metadata("client_uri must be an http(s) URL"));
    }
    let now = ctx.clock.now();
    let client = Client {
        id: ids::new(ids::OAUTH_CLIENT),
        name: name.unwrap_or_else(|| UNNAMED.into()),
        redirect_uris,
        client_uri,
        created_at: crate::model::time::format(now),
    };
    let stored = client.clone();
    let keep = u64::from(ctx.config.oauth.max_unused_clients);
    ctx.db
        .write(move |tx| {
            store::oauth::insert_client(tx, &stored)?;
            store::oauth::cap_unused_clients(tx, keep)?;
            Ok(())
        })
        .await?;
    let mut answer = json!({
        "client_id": client.id,
        "client_id_issued_at": now.unix_timestamp(),
        "client_name": client.name,
        "redirect_uris": client.redirect_uris,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    if let Some(uri) = client.client_uri {
        answer["client_uri"] = Value::String(uri);
    }
    Ok(answer)
}

/// The client behind `client_id`: a registered one, or the one its metadata document describes
/// (fetched only when `signed_in`: otherwise `Ok(None)`, and the user is asked to sign in
/// first). `Err` says why there is none, for the error page.
pub async fn resolve(
    ctx: &Ctx,
    client_id: &str,
    signed_in: bool,
) -> Result<std::result::Result<Option<Client>, String>> {
    if is_metadata_url(ctx, client_id) {
        if !signed_in {
            return Ok(Ok(None));
        }
        return Ok(super::documents::client(ctx, client_id).await.map(Some));
    }
    if !ids::is_valid(ids::OAUTH_CLIENT, client_id) {
        return Ok(Err(format!("{client_id:?} is not a client of this server")));
    }
    let id = client_id.to_string();
    Ok(ctx
        .db
        .point(|db| store::oauth::client(db, &id))?
        .map(Some)
        .ok_or_else(|| "this app is not registered with this server (or no longer is)".into()))
}

/// Whether `client_id` names a Client ID Metadata Document: an https URL with a path (plain
/// http on loopback too, when private targets are allowed, for local testing).
pub fn is_metadata_url(ctx: &Ctx, client_id: &str) -> bool {
    Url::parse(client_id).is_ok_and(|url| {
        let secure = url.scheme() == "https"
            || (url.scheme() == "http"
                && ctx.config.webhooks.allow_private_targets
                && is_loopback(&url));
        secure && url.path() != "/" && url.fragment().is_none() && url.username().is_empty()
    })
}

/// Whether `requested` is one of the client's redirect URIs: the same string, or a loopback
/// http URI that differs only in its port (RFC 8252 §7.3).
pub fn allows_redirect(client: &Client, requested: &str) -> bool {
    client.redirect_uris.iter().any(|registered| {
        registered == requested
            || match (Url::parse(registered), Url::parse(requested)) {
                (Ok(a), Ok(b)) => {
                    is_loopback(&a)
                        && is_loopback(&b)
                        && a.scheme() == b.scheme()
                        && a.host() == b.host()
                        && a.path() == b.path()
                        && a.query() == b.query()
                        && b.fragment().is_none()
                }
                _ => false,
            }
    })
}

fn check_listed(
    metadata: &serde_json::Map<String, Value>,
    field: &str,
    allowed: &[&str],
) -> std::result::Result<(), OAuthError> {
    let Some(value) = metadata.get(field) else {
        return Ok(());
    };
    let ok = value.as_array().is_some_and(|items| {
        items
            .iter()
            .all(|i| i.as_str().is_some_and(|s| allowed.contains(&s)))
    });
    if ok {
        Ok(())
    } else {
        Err(invalid_metadata(format!(
            "{field} may only hold {}",
            allowed.join(", ")
        )))
    }
}

fn optional_string(
    metadata: &serde_json::Map<String, Value>,
    field: &str,
) -> std::result::Result<Option<String>, OAuthError> {
    match metadata.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(_) => Err(invalid_metadata(format!("{field} must be a string"))),
    }
}

fn invalid_metadata(description: impl Into<String>) -> OAuthError {
    OAuthError::new(400, "invalid_client_metadata", description)
}

fn invalid_redirect(description: impl Into<String>) -> OAuthError {
    OAuthError::new(400, "invalid_redirect_uri", description)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(uris: &[&str]) -> Client {
        Client {
            id: "cli_x".into(),
            name: "x".into(),
            redirect_uris: uris.iter().map(|u| u.to_string()).collect(),
            client_uri: None,
            created_at: String::new(),
        }
    }

    #[test]
    fn redirect_uris_match_exactly_except_a_loopback_port() {
        let c = client(&["http://127.0.0.1:43110/callback", "https://app.example/cb"]);
        assert!(allows_redirect(&c, "http://127.0.0.1:43110/callback"));
        assert!(allows_redirect(&c, "http://127.0.0.1:50123/callback"));
        assert!(allows_redirect(&c, "http://127.0.0.1/callback"));
        assert!(!allows_redirect(&c, "http://127.0.0.1:43110/elsewhere"));
        assert!(!allows_redirect(&c, "http://localhost:43110/callback"));
        assert!(!allows_redirect(&c, "http://127.0.0.1:43110/callback?x=1"));
        assert!(allows_redirect(&c, "https://app.example/cb"));
        assert!(!allows_redirect(&c, "https://app.example:8443/cb"));
        assert!(!allows_redirect(&c, "https://app.example/cb/"));
    }
}
