//! The token endpoint (authorization_code and refresh_token grants) and revocation (RFC 7009).

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use ring::digest;
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

use crate::{
    error::Result,
    model::{
        ids,
        oauth::{Connection, RefreshGrant},
        scope::ScopeSet,
        time,
    },
    service::{
        Ctx,
        oauth::{
            self, OAuthError,
            access::{self, Claims},
            hash, keys,
        },
    },
    store::{self, Tx},
};

type Form = BTreeMap<String, String>;

/// `POST /oauth/token`.
pub async fn token(ctx: &Ctx, form: &Form) -> std::result::Result<Value, OAuthError> {
    match field(form, "grant_type")? {
        "authorization_code" => exchange_code(ctx, form).await,
        "refresh_token" => refresh(ctx, form).await,
        other => Err(OAuthError::new(
            400,
            "unsupported_grant_type",
            format!("grant_type {other} is not supported; use authorization_code or refresh_token"),
        )),
    }
}

async fn exchange_code(ctx: &Ctx, form: &Form) -> std::result::Result<Value, OAuthError> {
    let code_hash = hash(field(form, "code")?);
    let client_id = field(form, "client_id")?.to_string();
    let verifier = field(form, "code_verifier")?;
    if !(43..=128).contains(&verifier.len())
        || !verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
    {
        return Err(OAuthError::invalid_request(
            "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~",
        ));
    }
    let challenge = URL_SAFE_NO_PAD.encode(digest::digest(&digest::SHA256, verifier.as_bytes()));
    let redirect_uri = form.get("redirect_uri").cloned();
    let resource = form.get("resource").cloned();
    let now = ctx.clock.now();
    let (now_text, refresh_token) = (time::format(now), oauth::new_secret()?);
    let refresh_hash = hash(&refresh_token);
    let refresh_expires = time::format(now + refresh_lifetime(ctx));
    let connection_id = ids::new(ids::CONNECTION);
    let outcome = ctx
        .db
        .write(
            move |tx| -> Result<std::result::Result<Connection, OAuthError>> {
                let Some(grant) = store::oauth::code(tx, &code_hash)? else {
                    return Ok(Err(OAuthError::invalid_grant(
                        "the code is unknown or has expired",
                    )));
                };
                if let Some(issued) = &grant.connection_id {
                    // A code used twice: end what the first use gave (RFC 6749 §4.1.2).
                    store::oauth::delete_connection(tx, issued)?;
                    return Ok(Err(OAuthError::invalid_grant(
                        "the code was already used; the tokens issued for it are revoked",
                    )));
                }
                if grant.expires_at <= now_text {
                    return Ok(Err(OAuthError::invalid_grant("the code has expired")));
                }
                if grant.client_id != client_id {
                    return Ok(Err(OAuthError::invalid_grant(
                        "the code was issued to another client",
                    )));
                }
                if redirect_uri.is_some_and(|uri| uri != grant.redirect_uri) {
                    return Ok(Err(OAuthError::invalid_grant(
                        "redirect_uri differs from the one of the authorization request",
                    )));
                }
                if !bool::from(challenge.as_bytes().ct_eq(grant.code_challenge.as_bytes())) {
                    return Ok(Err(OAuthError::invalid_grant(
                        "the code_verifier does not match the code_challenge",
                    )));
                }
                if resource.is_some_and(|r| r != grant.resource) {
                    return Ok(Err(OAuthError::new(
                        400,
                        "invalid_target",
                        "resource differs from the one the user authorized",
                    )));
                }
                let connection = Connection {
                    id: connection_id,
                    user_id: grant.user_id,
                    org_id: grant.org_id,
                    client_id: grant.client_id,
                    client_name: grant.client_name,
                    scopes: grant.scopes,
                    resource: grant.resource,
                    created_at: now_text.clone(),
                    last_used_at: Some(now_text.clone()),
                };
                store::oauth::insert_connection(tx, &connection)?;
                store::oauth::use_code(tx, &code_hash, &connection.id)?;
                store::oauth::mark_client_used(tx, &connection.client_id, &now_text)?;
                new_refresh(
                    tx,
                    &refresh_hash,
                    &connection.id,
                    &connection.scopes,
                    &refresh_expires,
                )?;
                Ok(Ok(connection))
            },
        )
        .await??;
    tokens(ctx, &outcome, &outcome.scopes, refresh_token).await
}

async fn refresh(ctx: &Ctx, form: &Form) -> std::result::Result<Value, OAuthError> {
    let old_hash = hash(field(form, "refresh_token")?);
    let client_id = form.get("client_id").cloned();
    let narrowed = match form.get("scope").filter(|s| !s.trim().is_empty()) {
        Some(scope) => Some(ScopeSet::parse(scope).map_err(|unknown| {
            OAuthError::new(
                400,
                "invalid_scope",
                format!("unknown scope {}", unknown.join(" ")),
            )
        })?),
        None => None,
    };
    let now = ctx.clock.now();
    let (now_text, refresh_token) = (time::format(now), oauth::new_secret()?);
    let new_hash = hash(&refresh_token);
    let expires = time::format(now + refresh_lifetime(ctx));
    let outcome = ctx
        .db
        .write(
            move |tx| -> Result<std::result::Result<(Connection, String), OAuthError>> {
                let Some(old) = store::oauth::refresh(tx, &old_hash)? else {
                    return Ok(Err(OAuthError::invalid_grant(
                        "the refresh token is unknown or revoked",
                    )));
                };
                if old.used_at.is_some() {
                    // Presented again: taken to be stolen, so the whole connection ends.
                    store::oauth::delete_connection(tx, &old.connection_id)?;
                    return Ok(Err(OAuthError::invalid_grant(
                        "the refresh token was already used; the connection has been ended",
                    )));
                }
                if old.expires_at <= now_text {
                    return Ok(Err(OAuthError::invalid_grant(
                        "the refresh token has expired",
                    )));
                }
                let Some((connection, _)) = store::oauth::live_connection(tx, &old.connection_id)?
                else {
                    return Ok(Err(OAuthError::invalid_grant("the connection has ended")));
                };
                if client_id.is_some_and(|id| id != connection.client_id) {
                    return Ok(Err(OAuthError::invalid_grant(
                        "the refresh token was issued to another client",
                    )));
                }
                let held = ScopeSet::parse(&old.scopes).unwrap_or_default();
                let scopes = match narrowed {
                    Some(wanted) if !held.covers(&wanted) => {
                        return Ok(Err(OAuthError::new(
                            400,
                            "invalid_scope",
                            "a refresh may narrow the permissions, never widen them",
                        )));
                    }
                    Some(wanted) => wanted.to_string(),
                    None => old.scopes,
                };
                store::oauth::use_refresh(tx, &old_hash, &now_text)?;
                store::oauth::touch_connection(tx, &connection.id, &now_text)?;
                new_refresh(tx, &new_hash, &connection.id, &scopes, &expires)?;
                Ok(Ok((connection, scopes)))
            },
        )
        .await??;
    let (connection, scopes) = outcome;
    tokens(ctx, &connection, &scopes, refresh_token).await
}

fn new_refresh(
    tx: &Tx,
    token_hash: &[u8],
    connection_id: &str,
    scopes: &str,
    expires_at: &str,
) -> Result<()> {
    store::oauth::insert_refresh(
        tx,
        token_hash,
        &RefreshGrant {
            connection_id: connection_id.to_string(),
            scopes: scopes.to_string(),
            expires_at: expires_at.to_string(),
            used_at: None,
        },
    )
}

/// The token response (RFC 6749 §5.1) with a new access token for `connection`.
async fn tokens(
    ctx: &Ctx,
    connection: &Connection,
    scopes: &str,
    refresh_token: String,
) -> std::result::Result<Value, OAuthError> {
    let now = ctx.clock.now().unix_timestamp();
    let ttl = ctx.config.oauth.access_token_ttl_seconds;
    let claims = Claims {
        iss: oauth::issuer(ctx),
        sub: connection.user_id.clone(),
        aud: connection.resource.clone(),
        exp: now.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX)),
        iat: now,
        jti: oauth::new_secret()?,
        client_id: connection.client_id.clone(),
        scope: scopes.to_string(),
        org: connection.org_id.clone(),
        cid: connection.id.clone(),
    };
    let access_token = keys::keys(ctx).await?.sign(&claims)?;
    Ok(json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": ttl,
        "refresh_token": refresh_token,
        "scope": scopes,
    }))
}

/// `POST /oauth/revoke` (RFC 7009): ends the connection of a refresh or access token. Unknown
/// and invalid tokens are answered like revoked ones.
pub async fn revoke(ctx: &Ctx, form: &Form) -> std::result::Result<(), OAuthError> {
    let token = field(form, "token")?;
    let client_id = form.get("client_id").cloned();
    let refresh_hash = hash(token);
    let from_jwt = match access::looks_like_jwt(token) {
        true => keys::keys(ctx)
            .await?
            .verify::<Claims>(token, &access::validation(ctx))
            .map(|claims| claims.cid),
        false => None,
    };
    ctx.db
        .write(move |tx| {
            let connection_id = match from_jwt {
                Some(cid) => Some(cid),
                None => store::oauth::refresh(tx, &refresh_hash)?.map(|r| r.connection_id),
            };
            let Some(connection_id) = connection_id else {
                return Ok(());
            };
            let owner = store::oauth::connection(tx, &connection_id)?.map(|c| c.client_id);
            // A client may only revoke its own tokens; others are left as they are.
            if client_id.is_none() || owner == client_id {
                store::oauth::delete_connection(tx, &connection_id)?;
            }
            Ok(())
        })
        .await?;
    Ok(())
}

fn refresh_lifetime(ctx: &Ctx) -> ::time::Duration {
    let days = i64::try_from(ctx.config.oauth.refresh_token_ttl_days).unwrap_or(i64::MAX / 86_400);
    ::time::Duration::days(days)
}

fn field<'a>(form: &'a Form, name: &str) -> std::result::Result<&'a str, OAuthError> {
    form.get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| OAuthError::invalid_request(format!("{name} is required")))
}
