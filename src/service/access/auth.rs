//! Turns a bearer credential into an `Actor`. API tokens are `shb_` + 43 characters of base64url
//! randomness, stored only as SHA-256 hashes and compared in constant time.

use std::sync::Arc;

use subtle::ConstantTimeEq;

use crate::{
    error::{Error, Result},
    model::time,
    service::{
        Ctx,
        access::{
            actor::{Actor, Principal},
            secret,
        },
    },
    store,
};

pub const TOKEN_PREFIX: &str = "shb_";
const TOKEN_BODY_LEN: usize = 43;
/// `lastUsedAt` is written at most this often per token.
const TOUCH_EVERY_SECONDS: i64 = 60;

/// A new API token value.
pub fn generate_token() -> Result<String> {
    Ok(format!("{TOKEN_PREFIX}{}", secret::random_urlsafe(32)?))
}

fn looks_like_api_token(credential: &str) -> bool {
    credential.strip_prefix(TOKEN_PREFIX).is_some_and(|body| {
        body.len() == TOKEN_BODY_LEN
            && body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

/// Authenticates a bearer credential (an API token or an agent's OAuth access token) and takes
/// one request from its rate budget.
pub async fn authenticate(ctx: &Ctx, credential: &str) -> Result<Actor> {
    if !looks_like_api_token(credential) {
        return crate::service::oauth::access::authenticate(ctx, credential).await;
    }
    let hash = secret::hash(credential);
    let Some(found) = credential_of(ctx, &hash)? else {
        return Err(Error::Unauthenticated);
    };
    let store::api_tokens::Credential {
        token,
        stored_hash,
        staff,
        made,
        standing,
    } = &*found;
    if !bool::from(stored_hash.ct_eq(&hash)) {
        return Err(Error::Unauthenticated);
    }
    // A token lives only as long as its creator's membership, within what their role allows;
    // a member limited to a brand hands nothing on.
    let standing = standing.as_ref().ok_or(Error::Unauthenticated)?;
    let cap = standing.cap_handed_on().ok_or(Error::Unauthenticated)?;
    let now = ctx.clock.now();
    if token
        .expires_at
        .as_deref()
        .and_then(time::parse)
        .is_some_and(|expires| expires <= now)
    {
        return Err(Error::Unauthenticated);
    }
    let quota = ctx.rate.check(&token.id)?;
    let stored_use = token.last_used_at.as_deref().and_then(time::parse);
    if ctx
        .known_tokens
        .use_due(&hash, stored_use, now, TOUCH_EVERY_SECONDS)
    {
        let (db, org_id, token_id, at) = (
            ctx.db.clone(),
            token.org_id.clone(),
            token.id.clone(),
            time::format(now),
        );
        tokio::spawn(async move {
            if let Err(err) = db
                .write(move |tx| store::api_tokens::touch(tx, &org_id, &token_id, &at))
                .await
            {
                tracing::warn!(error = %err, "could not record lastUsedAt");
            }
        });
    }
    Ok(Actor {
        principal: Principal::ApiToken {
            token_id: token.id.clone(),
            org_id: token.org_id.clone(),
        },
        scopes: token.scopes.intersect(&cap),
        user_id: Some(token.created_by.id.clone()),
        role: Some(standing.role),
        staff: *staff && made.origin.carries_staff(),
        via_connection: made.connection_id.clone(),
        quota,
    })
}

/// The stored credential of the token with `hash`: kept by this process while the credential
/// generation has not moved (`KnownTokens`), read otherwise. The number is read first, so a
/// credential is never kept under a number newer than what it was read after.
fn credential_of(ctx: &Ctx, hash: &[u8]) -> Result<Option<Arc<store::api_tokens::Credential>>> {
    ctx.db.point(|db| {
        let generation = store::api_tokens::credential_generation(db)?;
        if let Some(known) = ctx.known_tokens.get(hash, generation) {
            return Ok(Some(known));
        }
        let Some(found) = store::api_tokens::by_hash(db, hash)? else {
            return Ok(None);
        };
        let found = Arc::new(found);
        ctx.known_tokens
            .insert(hash.to_vec(), generation, found.clone());
        Ok(Some(found))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_have_the_documented_shape() {
        let token = generate_token().unwrap_or_default();
        assert!(looks_like_api_token(&token), "{token}");
        assert_eq!(token.len(), 47);
        assert_ne!(generate_token().unwrap_or_default(), token);
    }

    #[test]
    fn only_well_formed_credentials_reach_the_database() {
        assert!(!looks_like_api_token("shb_short"));
        assert!(!looks_like_api_token(&format!(
            "shb_{}",
            "A".repeat(42) + "!"
        )));
        assert!(!looks_like_api_token("eyJhbGciOiJFZERTQSJ9.e30.c2ln"));
        assert!(looks_like_api_token(&format!("shb_{}", "A".repeat(43))));
    }
}
