//! Access tokens: what they say, and their check on every request — a JWT signed by `keys`
//! (the signature checked once per token), its expiry against the service clock, then the live
//! check of its connection, so that Disconnect, revocation and refresh-token reuse act at once.

use jsonwebtoken::{Algorithm, Validation};
use serde::{Deserialize, Serialize};

use crate::{
    error::{Error, Result},
    model::{oauth::Connection, scope::ScopeSet, time},
    service::{
        Actor, Ctx,
        access::actor::Principal,
        oauth::{self, hash, keys},
    },
    store,
};

/// Seconds an access token is still accepted after it expired (clock skew).
const LEEWAY_SECONDS: i64 = 5;
/// `last_used_at` of a connection is written at most this often.
const TOUCH_EVERY_SECONDS: i64 = 60;

/// What an access token says (RFC 9068 names, plus the organization and connection).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    /// The user the agent acts for.
    pub sub: String,
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    pub jti: String,
    pub client_id: String,
    pub scope: String,
    /// The organization of the connection.
    pub org: String,
    /// The connection, checked on every request.
    pub cid: String,
}

/// Authenticates an agent's access token: signature, issuer, audience and expiry, then the
/// live check of its connection (one indexed read), then the rate budget of the connection.
pub async fn authenticate(ctx: &Ctx, credential: &str) -> Result<Actor> {
    if !looks_like_jwt(credential) {
        return Err(Error::Unauthenticated);
    }
    let claims = match ctx.verified.get(credential) {
        Some(claims) => claims,
        None => {
            let claims: Claims = keys::keys(ctx)
                .await?
                .verify(credential, &validation(ctx))
                .ok_or(Error::Unauthenticated)?;
            ctx.verified
                .insert(credential, &claims, ctx.clock.now().unix_timestamp());
            claims
        }
    };
    if claims.exp + LEEWAY_SECONDS <= ctx.clock.now().unix_timestamp() {
        return Err(Error::Unauthenticated);
    }
    let cid = claims.cid.clone();
    let (connection, role) = ctx
        .db
        .point(|db| store::oauth::live_connection(db, &cid))?
        .filter(|(c, _)| c.org_id == claims.org && c.user_id == claims.sub)
        .ok_or(Error::Unauthenticated)?;
    // What the token says, within what its user's role allows now.
    let scopes = ScopeSet::parse(&claims.scope)
        .map_err(|_| Error::Unauthenticated)?
        .intersect(&role.cap());
    let quota = ctx.rate.check(&connection.id)?;
    touch(ctx, &connection);
    Ok(Actor {
        principal: Principal::Connection {
            connection_id: connection.id.clone(),
            org_id: connection.org_id,
            user_id: connection.user_id.clone(),
        },
        scopes,
        user_id: Some(connection.user_id),
        role: Some(role),
        staff: false,
        via_connection: Some(connection.id),
        quota,
    })
}

/// Access tokens whose signature was checked, by the SHA-256 of the token: a token is used for
/// an hour, and an Ed25519 verification costs more than the rest of a read request. The expiry
/// and the connection are still checked on every request.
#[derive(Default)]
pub struct Verified {
    claims: std::sync::Mutex<std::collections::HashMap<Vec<u8>, Claims>>,
}

/// Entries kept at most; past it, expired ones are swept out, then all if need be.
const VERIFIED_MAX: usize = 10_000;

impl Verified {
    fn get(&self, token: &str) -> Option<Claims> {
        self.lock().get(&hash(token)).cloned()
    }

    fn insert(&self, token: &str, claims: &Claims, now: i64) {
        let mut cache = self.lock();
        if cache.len() >= VERIFIED_MAX {
            cache.retain(|_, c| c.exp + LEEWAY_SECONDS > now);
            if cache.len() >= VERIFIED_MAX {
                cache.clear();
            }
        }
        cache.insert(hash(token), claims.clone());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Vec<u8>, Claims>> {
        self.claims.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Records when the connection was last used, at most once a minute, off the request's path.
fn touch(ctx: &Ctx, connection: &Connection) {
    let now = ctx.clock.now();
    let stale = connection
        .last_used_at
        .as_deref()
        .and_then(time::parse)
        .is_none_or(|used| (now - used).whole_seconds() >= TOUCH_EVERY_SECONDS);
    if !stale {
        return;
    }
    let (db, id, at) = (ctx.db.clone(), connection.id.clone(), time::format(now));
    tokio::spawn(async move {
        if let Err(err) = db
            .write(move |tx| store::oauth::touch_connection(tx, &id, &at))
            .await
        {
            tracing::warn!(error = %err, "could not record when a connection was last used");
        }
    });
}

/// What every access token must satisfy besides its expiry, which is checked against the
/// service's clock (so that tests can move it).
pub(super) fn validation(ctx: &Ctx) -> Validation {
    let mut validation = Validation::new(Algorithm::EdDSA);
    validation.set_issuer(&[oauth::issuer(ctx)]);
    validation.set_audience(&oauth::resources(ctx));
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.validate_exp = false;
    validation
}

pub(super) fn looks_like_jwt(credential: &str) -> bool {
    credential.len() < 4096
        && credential.split('.').count() == 3
        && credential
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(exp: i64) -> Claims {
        Claims {
            iss: "i".into(),
            sub: "s".into(),
            aud: "a".into(),
            exp,
            iat: 0,
            jti: "j".into(),
            client_id: "c".into(),
            scope: "read:all".into(),
            org: "o".into(),
            cid: "con".into(),
        }
    }

    #[test]
    fn verified_tokens_are_remembered_and_the_expired_swept_when_full() {
        let verified = Verified::default();
        assert!(verified.get("t1").is_none());
        verified.insert("t1", &claims(100), 0);
        assert_eq!(verified.get("t1").map(|c| c.exp), Some(100));
        for n in 1..VERIFIED_MAX {
            verified.insert(&format!("old{n}"), &claims(10), 0);
        }
        verified.insert("t2", &claims(100), 50);
        assert_eq!(verified.lock().len(), 2, "the expired ones went");
        assert!(verified.get("t1").is_some() && verified.get("t2").is_some());
    }
}
