//! Signing in to the pages: a password checked with Argon2id (off the async workers, a few at a
//! time, with the same work for unknown e-mails), the login throttle, and sessions kept
//! server-side by the SHA-256 of a random cookie value, so that signing out ends them.

use std::{net::IpAddr, sync::OnceLock};

use argon2::{Argon2, PasswordHash, PasswordVerifier};

use crate::{
    error::Result,
    model::{member::Membership, role::Role, time, user::UserRecord},
    service::{
        Actor, Ctx,
        access::login_throttle::{self, Attempt},
        oauth::{self, hash},
    },
    store,
};

/// How long a session lasts.
pub const SESSION_DAYS: i64 = 7;

/// What came of a sign-in.
#[derive(Debug)]
pub enum SignIn {
    /// Signed in: the cookie value of the new session.
    Session { token: String, user: UserRecord },
    /// Wrong e-mail or password (never which).
    Refused,
    /// Too many failures: try again after this many seconds.
    Throttled { retry_after: i64 },
}

/// Checks `password` for `email` and opens a session.
pub async fn sign_in(
    ctx: &Ctx,
    email: &str,
    password: &str,
    address: Option<IpAddr>,
) -> Result<SignIn> {
    let email = email.trim().to_lowercase();
    let slots = match login_throttle::take(ctx, &email, address).await? {
        Attempt::Go(slots) => slots,
        Attempt::Wait(retry_after) => return Ok(SignIn::Throttled { retry_after }),
    };
    let lookup = email.clone();
    let found = ctx
        .db
        .point(|db| store::users::with_password(db, &lookup))?;
    let (user, stored) = match found {
        Some((user, hash)) => (Some(user), hash),
        None => (None, None),
    };
    let matches = check_password(ctx, stored, password).await?;
    let user = match (user, matches) {
        (Some(user), true) => user,
        _ => return Ok(SignIn::Refused),
    };
    login_throttle::give_back(ctx, slots).await?;
    let now = ctx.clock.now();
    let token = oauth::new_secret()?;
    let (token_hash, user_id) = (hash(&token), user.id.clone());
    let (created, expires) = (
        time::format(now),
        time::format(now + ::time::Duration::days(SESSION_DAYS)),
    );
    ctx.db
        .write(move |tx| store::sessions::insert(tx, &token_hash, &user_id, &created, &expires))
        .await?;
    Ok(SignIn::Session { token, user })
}

/// Whether `password` matches `stored`, checked on the blocking pool while holding one of the
/// few permits Argon2 may run under at once (each check takes tens of milliseconds and 19 MiB).
pub(crate) async fn check_password(
    ctx: &Ctx,
    stored: Option<String>,
    password: &str,
) -> Result<bool> {
    let _permit = ctx
        .passwords
        .acquire()
        .await
        .map_err(|_| crate::error::Error::internal("the password checker is closed"))?;
    let password = password.to_string();
    crate::blocking::run(move || Ok(verify(stored.as_deref(), &password))).await
}

/// Whether `password` matches the stored Argon2 hash. Without a hash (unknown user, no
/// password set) a dummy hash is checked, so the answer takes as long either way.
fn verify(stored: Option<&str>, password: &str) -> bool {
    static DUMMY: OnceLock<String> = OnceLock::new();
    let dummy = DUMMY.get_or_init(|| {
        crate::service::users::hash_password("not the password of anyone").unwrap_or_default()
    });
    let hash = stored.unwrap_or(dummy);
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    let ok = Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok();
    ok && stored.is_some()
}

/// The signed-in user of a session cookie, as an actor of the pages.
pub async fn actor(ctx: &Ctx, token: &str) -> Result<Option<(Actor, UserRecord)>> {
    let (token_hash, now) = (hash(token), ctx.now());
    ctx.db.point(|db| {
        let Some(user_id) = store::sessions::user_of(db, &token_hash, &now)? else {
            return Ok(None);
        };
        Ok(store::users::get(db, &user_id)?.map(|user| (Actor::user(user.id.clone()), user)))
    })
}

/// The organizations a signed-in user belongs to, by name.
pub async fn memberships(ctx: &Ctx, user_id: &str) -> Result<Vec<Membership>> {
    ctx.db.point(|db| store::users::memberships(db, user_id))
}

/// The signed-in `user` working in `org_id` (the workbench, DESIGN §20): an actor with their
/// role's scopes, and their membership; None when they are not a member (or their role is not
/// one Shipbase knows).
pub async fn in_org(
    ctx: &Ctx,
    user: &UserRecord,
    org_id: &str,
) -> Result<Option<(Actor, Membership)>> {
    let found = memberships(ctx, &user.id)
        .await?
        .into_iter()
        .find(|m| m.org_id == org_id);
    Ok(found.and_then(|m| {
        let role = Role::parse(&m.role)?;
        Some((
            Actor::session(user.id.clone(), m.org_id.clone(), role, user.staff),
            m,
        ))
    }))
}

/// Ends the session of a cookie.
pub async fn sign_out(ctx: &Ctx, token: &str) -> Result<()> {
    let token_hash = hash(token);
    ctx.db
        .write(move |tx| store::sessions::delete(tx, &token_hash))
        .await
}
