//! Users: finding or making one by e-mail, passwords, instance staff (the administrator's
//! commands). Memberships are `members`.

use argon2::{Argon2, PasswordHasher, password_hash::SaltString};
use ring::rand::{SecureRandom, SystemRandom};

use crate::{
    error::{Error, Result},
    model::{ids, user::UserRecord},
    service::{Actor, Ctx},
    store::{self, Tx},
};

/// The user with this e-mail, created when there is none.
pub(crate) fn find_or_create(tx: &Tx, email: &str, name: &str, now: &str) -> Result<UserRecord> {
    find_or_create_as(tx, &ids::new(ids::USER), email, name, now)
}

/// The user with this e-mail, created with the id `id` when there is none.
pub(crate) fn find_or_create_as(
    tx: &Tx,
    id: &str,
    email: &str,
    name: &str,
    now: &str,
) -> Result<UserRecord> {
    if let Some(user) = store::users::by_email(tx, email)? {
        return Ok(user);
    }
    let user = UserRecord {
        id: id.to_string(),
        email: email.to_string(),
        name: name.to_string(),
        language: "en".into(),
        staff: false,
        email_verified: false,
        role: None,
        created_at: now.to_string(),
        updated_at: now.to_string(),
    };
    store::users::insert(tx, &user)?;
    Ok(user)
}

/// The user with this e-mail (400 on `email` when there is none).
pub async fn by_email(ctx: &Ctx, email: &str) -> Result<UserRecord> {
    let lookup = email.to_string();
    ctx.db
        .point(move |db| store::users::by_email(db, &lookup))?
        .ok_or_else(|| no_such_user(email))
}

/// Sets a user's password (argon2id). Only the administrator may.
pub async fn set_password(ctx: &Ctx, actor: &Actor, email: &str, password: &str) -> Result<()> {
    require_admin(actor)?;
    if password.chars().count() < 8 {
        return Err(Error::invalid(
            "password",
            "must be at least 8 characters long",
        ));
    }
    let password = password.to_string();
    let hash = crate::blocking::run(move || hash_password(&password)).await?;
    let (email, now) = (email.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let user = store::users::by_email(tx, &email)?.ok_or_else(|| no_such_user(&email))?;
            store::users::set_password_hash(tx, &user.id, &hash, &now)?;
            // Whoever signed in with the old password is signed out.
            store::sessions::delete_of(tx, &user.id)?;
            Ok(())
        })
        .await
}

/// An Argon2id hash of `password` (PHC string) at the crate's default cost, which is OWASP's
/// recommendation: 19 MiB of memory, 2 passes, 1 lane.
pub fn hash_password(password: &str) -> Result<String> {
    let mut salt = [0u8; 16];
    SystemRandom::new()
        .fill(&mut salt)
        .map_err(|_| Error::Internal("no randomness available".into()))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| Error::Internal(format!("salt: {e}")))?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|e| Error::Internal(format!("password hashing failed: {e}")))?
        .to_string())
}

/// Makes a user instance staff. Only the administrator may.
pub async fn grant_staff(ctx: &Ctx, actor: &Actor, email: &str) -> Result<UserRecord> {
    require_admin(actor)?;
    let (email, now) = (email.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let user = store::users::by_email(tx, &email)?.ok_or_else(|| no_such_user(&email))?;
            store::users::set_staff(tx, &user.id, true, &now)?;
            store::users::get(tx, &user.id)?
                .ok_or_else(|| Error::internal("the user vanished while granted staff"))
        })
        .await
}

fn require_admin(actor: &Actor) -> Result<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(Error::InsufficientScope("admin".into()))
    }
}

fn no_such_user(email: &str) -> Error {
    Error::invalid("email", format!("no user with the e-mail {email}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hashed_with_argon2id_at_the_owasp_cost() {
        let hash = hash_password("correct horse battery staple").unwrap_or_default();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert_ne!(
            hash_password("correct horse battery staple").unwrap_or_default(),
            hash,
            "salted"
        );
    }
}
