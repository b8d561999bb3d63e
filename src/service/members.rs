//! Members of an organization and their roles (DESIGN §19). All four operations need
//! `write:orgs` (members are managed, not browsed) and stay within what the caller's own role
//! may manage: owners anyone, admins members and admins. An organization always keeps an owner.
//! Leaving, or being limited to a brand, ends the person's agent connections and API tokens in
//! the organization at once.

use crate::model::member::{MemberIn, MemberPatchIn};
use poem_openapi::types::MaybeUndefined;

use crate::{
    error::{Error, Result},
    model::{
        member::{Member, MemberPage},
        role::Role,
        usage::Limit,
        validate::Violations,
    },
    service::{Actor, Ctx, Input, PageParams, billing, operations as ops, page_query, users},
    store::{self, Tx},
};

pub async fn list(ctx: &Ctx, actor: &Actor, org_id: &str, page: PageParams) -> Result<MemberPage> {
    actor.authorize(org_id, &ops::LIST_MEMBERS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::members::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn add(ctx: &Ctx, actor: &Actor, org_id: &str, input: Input<MemberIn>) -> Result<Member> {
    let grant = actor.authorize(org_id, &ops::ADD_MEMBER)?;
    let new = input.get()?;
    let mut errors = Violations::new();
    errors.email("email", &new.email);
    errors.length("name", &new.name, 1, 200);
    check_brand(&mut errors, new.role, new.brand.as_deref());
    errors.finish()?;
    let mine = actor.role()?;
    if !mine.may_manage(new.role) {
        return Err(cannot(mine, "add", new.role));
    }
    let (org_id, now) = (org_id.to_string(), ctx.now());
    let email = new.email.trim().to_string();
    let existing = {
        let email = email.clone();
        ctx.db.point(move |db| store::users::by_email(db, &email))?
    };
    let user_id = existing
        .map(|u| u.id)
        .unwrap_or_else(|| crate::model::ids::new(crate::model::ids::USER));
    ctx.commit(grant.on(&user_id), move |tx| {
        store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)?;
        let user = users::find_or_create_as(tx, &user_id, &email, &new.name, &now)?;
        if store::members::get(tx, &org_id, &user.id)?.is_some() {
            return Err(Error::Conflict(format!(
                "{email} is already a member of this organization"
            )));
        }
        billing::admit(tx, &org_id, Limit::TeamMembers)?;
        store::orgs::add_member(
            tx,
            &org_id,
            &user.id,
            new.role.as_str(),
            new.brand.as_deref(),
            &now,
        )?;
        member(tx, &org_id, &user.id)
    })
    .await
}

pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    user_id: &str,
    input: Input<MemberPatchIn>,
) -> Result<Member> {
    let grant = actor.authorize(org_id, &ops::UPDATE_MEMBER)?.on(user_id);
    let patch = input.get()?;
    let mine = actor.role()?;
    let (org_id, user_id) = (org_id.to_string(), user_id.to_string());
    ctx.write(grant, move |tx| {
        let before = member(tx, &org_id, &user_id)?;
        let role = patch.role.unwrap_or(before.role);
        let brand = match patch.brand {
            MaybeUndefined::Undefined => before.brand.clone(),
            MaybeUndefined::Null => None,
            MaybeUndefined::Value(brand) => Some(brand),
        };
        let mut errors = Violations::new();
        check_brand(&mut errors, role, brand.as_deref());
        errors.finish()?;
        if !mine.may_manage(before.role) {
            return Err(cannot(mine, "change", before.role));
        }
        if !mine.may_manage(role) {
            return Err(cannot(mine, "make anyone", role));
        }
        if before.role == Role::Owner && role != Role::Owner {
            keep_an_owner(tx, &org_id)?;
        }
        store::members::set(tx, &org_id, &user_id, role, brand.as_deref())?;
        if brand.is_some() && before.brand.is_none() {
            // A member limited to a brand hands nothing on (SPEC §5).
            end_credentials(tx, &org_id, &user_id)?;
        }
        member(tx, &org_id, &user_id)
    })
    .await
}

pub async fn remove(ctx: &Ctx, actor: &Actor, org_id: &str, user_id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::REMOVE_MEMBER)?.on(user_id);
    let mine = actor.role()?;
    let (org_id, user_id) = (org_id.to_string(), user_id.to_string());
    ctx.write(grant, move |tx| {
        let before = member(tx, &org_id, &user_id)?;
        if !mine.may_manage(before.role) {
            return Err(cannot(mine, "remove", before.role));
        }
        if before.role == Role::Owner {
            keep_an_owner(tx, &org_id)?;
        }
        end_credentials(tx, &org_id, &user_id)?;
        store::members::delete(tx, &org_id, &user_id)?;
        Ok(())
    })
    .await
}

/// A member of the organization (404 when the user is not one).
fn member(db: &store::Reader, org_id: &str, user_id: &str) -> Result<Member> {
    store::members::get(db, org_id, user_id)?.ok_or(Error::NotFound)
}

/// 409 when the organization's only owner would stop being one.
fn keep_an_owner(tx: &Tx, org_id: &str) -> Result<()> {
    if store::members::owners(tx, org_id)? <= 1 {
        return Err(Error::InvalidState(
            "an organization needs an owner: make someone else owner first".into(),
        ));
    }
    Ok(())
}

/// Ends what the person handed on in the organization: agent connections (and the tokens they
/// made) and API tokens.
fn end_credentials(tx: &Tx, org_id: &str, user_id: &str) -> Result<()> {
    store::oauth::delete_connections_of(tx, org_id, user_id)?;
    store::api_tokens::delete_made_by(tx, org_id, user_id)?;
    Ok(())
}

fn check_brand(errors: &mut Violations, role: Role, brand: Option<&str>) {
    if let Some(brand) = brand {
        errors.length("brand", brand, 1, 100);
        if role != Role::Member {
            errors.add(
                "brand",
                "only a member (not an owner or admin) can be limited to a brand",
            );
        }
    }
}

fn cannot(mine: Role, what: &str, theirs: Role) -> Error {
    Error::Forbidden(format!(
        "an {} cannot {what} {} (only an owner can)",
        mine.as_str(),
        plural(theirs)
    ))
}

fn plural(role: Role) -> &'static str {
    match role {
        Role::Owner => "owners",
        Role::Admin => "admins",
        Role::Member => "members",
    }
}
