//! Users and memberships: adding team members, passwords, instance staff.

use argon2::{Argon2, PasswordHasher, password_hash::SaltString};
use ring::rand::{SecureRandom, SystemRandom};

use crate::{
    error::{Error, Result},
    model::{
        ids,
        org::{self, User},
        usage::Limit,
        validate::Violations,
    },
    service::{Actor, Ctx, Input, billing},
    store::{self, Tx},
};

/// The user with this e-mail, created when there is none.
pub(crate) fn find_or_create(tx: &Tx, email: &str, name: &str, now: &str) -> Result<User> {
    if let Some(user) = store::users::by_email(tx, email)? {
        return Ok(user);
    }
    let user = User {
        id: ids::new(ids::USER),
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

/// `shipbase user add`: a team member of an organization (an administrator's operation).
pub struct NewMember {
    pub email: String,
    pub name: String,
    pub role: String,
    /// Limits the member to one brand; such members cannot connect agents.
    pub brand: Option<String>,
}

pub async fn add(ctx: &Ctx, actor: &Actor, org_id: &str, input: Input<NewMember>) -> Result<User> {
    require_admin(actor)?;
    let input = input.get()?;
    let mut errors = Violations::new();
    errors.email("email", &input.email);
    errors.length("name", &input.name, 1, 200);
    errors.one_of("role", &input.role, &org::ROLES);
    if let Some(brand) = &input.brand {
        errors.length("brand", brand, 1, 100);
    }
    errors.finish()?;
    let (org_id, now) = (org_id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)?;
            let user = find_or_create(tx, &input.email, &input.name, &now)?;
            if store::users::in_org(tx, &org_id, &user.id)?.is_some() {
                return Err(Error::Conflict(format!(
                    "{} is already a member of this organization",
                    input.email
                )));
            }
            billing::admit(tx, &org_id, Limit::TeamMembers)?;
            store::orgs::add_member(
                tx,
                &org_id,
                &user.id,
                &input.role,
                input.brand.as_deref(),
                &now,
            )?;
            store::users::in_org(tx, &org_id, &user.id)?
                .ok_or_else(|| Error::internal("the new member is not a member"))
        })
        .await
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
            store::users::set_password_hash(tx, &user.id, &hash, &now)
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
pub async fn grant_staff(ctx: &Ctx, actor: &Actor, email: &str) -> Result<User> {
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
