//! Turns a bearer credential into an `Actor`. API tokens are `shb_` + 43 characters of base64url
//! randomness, stored only as SHA-256 hashes and compared in constant time.

use std::{borrow::Cow, sync::Arc};

use subtle::ConstantTimeEq;

use crate::{
    error::{Error, Result},
    model::{api_token::ApiToken, time},
    service::{
        Ctx,
        access::{
            actor::{Actor, Principal},
            grant::Grant,
            rate_limit::Quota,
            secret,
        },
        operations::Operation,
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
    let actor = admitted(ctx, &found, &hash, |token| ctx.rate.check(&token.id))?;
    note_use(ctx, &found, &hash);
    Ok(actor)
}

/// An actor whose API token's credential came from what this process keeps, under the
/// credential generation it was kept at, without reading the database's number: the operation
/// confirms it (`confirm`) in the one read transaction it reads its answer in. A GET thus opens
/// one read transaction instead of two (each one locks the log index's shared memory: ~20 % of
/// a get's samples apiece, `benches/profile_row.py get`). Only `confirm` hands out the `Actor`,
/// so nothing can act on an unconfirmed credential.
#[derive(Clone)]
pub struct Pending {
    actor: Actor,
    /// The token's hash and the generation its credential was kept at; None once confirmed
    /// (read with the number, or not an API token).
    unconfirmed: Option<(Vec<u8>, i64)>,
}

impl Pending {
    /// An actor authenticated the usual way.
    pub fn confirmed(actor: Actor) -> Pending {
        Pending {
            actor,
            unconfirmed: None,
        }
    }

    /// Where the credential stands with the rate limit after this request.
    pub fn quota(&self) -> Option<Quota> {
        self.actor.quota
    }

    /// The actor as of `db`'s snapshot: the kept one while the credential generation is the one
    /// its credential was kept at, otherwise the credential read again in that snapshot and
    /// checked anew (a revoked token or a member removed answers 401, a demoted one acts within
    /// the new role). The rate budget was taken when the request came in.
    pub fn confirm<'a>(&'a self, ctx: &Ctx, db: &store::Reader) -> Result<Cow<'a, Actor>> {
        let Some((hash, kept_at)) = &self.unconfirmed else {
            return Ok(Cow::Borrowed(&self.actor));
        };
        let generation = store::api_tokens::credential_generation(db)?;
        if generation == *kept_at {
            return Ok(Cow::Borrowed(&self.actor));
        }
        let found = credential_at(ctx, db, hash, generation)?.ok_or(Error::Unauthenticated)?;
        let quota = self.actor.quota;
        admitted(ctx, &found, hash, |_| Ok(quota)).map(Cow::Owned)
    }

    /// Leave for `operation` on `org_id`, for a write that confirms the credential in its own
    /// transaction (`confirm_for`): the kept actor's, or, when the kept actor is refused, the
    /// confirmed one's, so that a refusal is never answered from what was kept.
    pub fn authorize(
        &self,
        ctx: &Ctx,
        org_id: &str,
        operation: &'static Operation,
    ) -> Result<Grant> {
        match self.actor.authorize(org_id, operation) {
            Ok(authorized) => Ok(authorized.into()),
            Err(refused) if self.unconfirmed.is_none() => Err(refused),
            Err(_) => {
                let actor = ctx
                    .db
                    .point(|db| self.confirm(ctx, db).map(Cow::into_owned))?;
                actor.authorize(org_id, operation).map(Grant::from)
            }
        }
    }

    /// What is left to confirm, for the transaction that does (`confirm_for`): None when the
    /// credential was read with its number already.
    pub fn to_confirm(&self) -> Option<Pending> {
        self.unconfirmed.as_ref().map(|_| self.clone())
    }

    /// `confirm` in a write's transaction, with the confirmed actor's leave for `operation` on
    /// `org_id` checked again: the write goes on only if the credential still allows it.
    pub fn confirm_for(
        &self,
        ctx: &Ctx,
        db: &store::Reader,
        org_id: &str,
        operation: &'static Operation,
    ) -> Result<()> {
        self.confirm(ctx, db)?
            .authorize(org_id, operation)
            .map(drop)
    }

    /// `refused`, the answer to what the request sent, once the credential is confirmed; the
    /// credential's own refusal when it no longer authenticates.
    pub fn refusal(&self, ctx: &Ctx, refused: Error) -> Error {
        if self.unconfirmed.is_none() {
            return refused;
        }
        match ctx.db.point(|db| self.confirm(ctx, db).map(drop)) {
            Ok(()) => refused,
            Err(err) => err,
        }
    }
}

/// `authenticate`, leaving an API token this process keeps to be confirmed by the operation
/// (`Pending`). A kept credential that does not pass the checks is read again before the
/// request is refused: what was kept may be older than a change that admits it.
pub async fn authenticate_pending(ctx: &Ctx, credential: &str) -> Result<Pending> {
    if looks_like_api_token(credential) {
        let hash = secret::hash(credential);
        if let Some((kept_at, found)) = ctx.known_tokens.latest(&hash) {
            match admitted(ctx, &found, &hash, |token| ctx.rate.check(&token.id)) {
                Ok(actor) => {
                    note_use(ctx, &found, &hash);
                    return Ok(Pending {
                        actor,
                        unconfirmed: Some((hash, kept_at)),
                    });
                }
                Err(Error::Unauthenticated) => {}
                Err(other) => return Err(other),
            }
        }
    }
    authenticate(ctx, credential).await.map(Pending::confirmed)
}

/// The actor of a stored credential that passes every check (the hash compared in constant
/// time, the creator's standing and role cap, the expiry), with the quota `quota` gives it.
fn admitted(
    ctx: &Ctx,
    found: &store::api_tokens::Credential,
    hash: &[u8],
    quota: impl FnOnce(&ApiToken) -> Result<Option<Quota>>,
) -> Result<Actor> {
    let store::api_tokens::Credential {
        token,
        stored_hash,
        staff,
        made,
        standing,
    } = found;
    if !bool::from(stored_hash.ct_eq(hash)) {
        return Err(Error::Unauthenticated);
    }
    // A token lives only as long as its creator's membership, within what their role allows;
    // a member limited to a brand hands nothing on.
    let standing = standing.as_ref().ok_or(Error::Unauthenticated)?;
    let cap = standing.cap_handed_on().ok_or(Error::Unauthenticated)?;
    if token
        .expires_at
        .as_deref()
        .and_then(time::parse)
        .is_some_and(|expires| expires <= ctx.clock.now())
    {
        return Err(Error::Unauthenticated);
    }
    Ok(Actor {
        quota: quota(token)?,
        principal: Principal::ApiToken {
            token_id: token.id.clone(),
            org_id: token.org_id.clone(),
        },
        scopes: token.scopes.intersect(&cap),
        user_id: Some(token.created_by.id.clone()),
        role: Some(standing.role),
        staff: *staff && made.origin.carries_staff(),
        via_connection: made.connection_id.clone(),
    })
}

/// Records the token's use (`lastUsedAt`) when the last one recorded is a minute old, off the
/// request's path.
fn note_use(ctx: &Ctx, found: &store::api_tokens::Credential, hash: &[u8]) {
    let token = &found.token;
    let now = ctx.clock.now();
    let stored_use = token.last_used_at.as_deref().and_then(time::parse);
    if !ctx
        .known_tokens
        .use_due(hash, stored_use, now, TOUCH_EVERY_SECONDS)
    {
        return;
    }
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

/// The stored credential of the token with `hash`: kept by this process while the credential
/// generation has not moved (`KnownTokens`), read otherwise. The number is read first, so a
/// credential is never kept under a number newer than what it was read after.
fn credential_of(ctx: &Ctx, hash: &[u8]) -> Result<Option<Arc<store::api_tokens::Credential>>> {
    ctx.db.point(|db| {
        let generation = store::api_tokens::credential_generation(db)?;
        credential_at(ctx, db, hash, generation)
    })
}

/// The credential of `hash` at `generation`, the number `db` read: the one kept under it, or
/// read from `db` and kept.
fn credential_at(
    ctx: &Ctx,
    db: &store::Reader,
    hash: &[u8],
    generation: i64,
) -> Result<Option<Arc<store::api_tokens::Credential>>> {
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
