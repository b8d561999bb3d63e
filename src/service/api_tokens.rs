//! API tokens of an organization: create (the value is returned once), list, rename, revoke.

use crate::{
    error::{Error, Result},
    model::{
        ids,
        org::{ApiToken, UserRef},
        scope::{Resource, Scope, ScopeSet},
        time,
        validate::Violations,
    },
    service::{Actor, Ctx, Input, auth, page_query},
    store::{self, Paged},
};

/// What a client sends to create a token.
pub struct NewToken {
    pub name: String,
    pub scopes: Vec<String>,
    /// RFC 3339; must lie in the future.
    pub expires_at: Option<String>,
}

/// A new token: `token` is the full value, shown this once.
pub struct CreatedToken {
    pub token: String,
    pub record: ApiToken,
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<NewToken>,
) -> Result<CreatedToken> {
    actor.authorize(org_id, Scope::write(Resource::ApiTokens))?;
    let input = input.get()?;
    let mut errors = Violations::new();
    errors.length("name", &input.name, 1, 100);
    let scopes = match ScopeSet::parse_all(input.scopes.iter().map(String::as_str)) {
        Ok(scopes) if scopes.is_empty() => {
            errors.add("scopes", "must contain at least 1 item");
            ScopeSet::default()
        }
        Ok(scopes) => scopes,
        Err(unknown) => {
            errors.add("scopes", format!("unknown scopes: {}", unknown.join(", ")));
            ScopeSet::default()
        }
    };
    let now = ctx.clock.now();
    let expires_at = match input.expires_at.as_deref().map(|t| (t, time::parse(t))) {
        None => None,
        Some((_, Some(at))) if at > now => Some(time::format(at)),
        Some((_, Some(_))) => {
            errors.add("expiresAt", "must lie in the future");
            None
        }
        Some((text, None)) => {
            errors.add(
                "expiresAt",
                format!("{text:?} is not an RFC 3339 timestamp"),
            );
            None
        }
    };
    errors.finish()?;
    if !actor.scopes.covers(&scopes) {
        return Err(Error::InsufficientScope(scopes.to_string()));
    }
    let token = auth::generate_token()?;
    let hash = auth::hash_token(&token);
    let token_prefix: String = token.chars().take(12).collect();
    let (org_id, creator, name) = (org_id.to_string(), actor.user_id.clone(), input.name);
    let now = time::format(now);
    let record = ctx
        .db
        .write(move |tx| {
            store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)?;
            let creator = match creator {
                Some(id) => Some(id),
                None => store::orgs::first_owner(tx, &org_id)?,
            }
            .ok_or_else(|| {
                Error::InvalidState(
                    "the organization has no owner to attribute the token to".into(),
                )
            })?;
            let user = store::users::get(tx, &creator)?.ok_or(Error::NotFound)?;
            let record = ApiToken {
                id: ids::new(ids::API_TOKEN),
                org_id,
                name,
                token_prefix,
                scopes,
                created_by: UserRef {
                    id: user.id,
                    name: user.name,
                    email: user.email,
                },
                expires_at,
                last_used_at: None,
                created_at: now,
            };
            store::api_tokens::insert(tx, &record, &hash)?;
            Ok(record)
        })
        .await?;
    Ok(CreatedToken { token, record })
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: Option<i64>,
    limit: Option<i64>,
) -> Result<Paged<ApiToken>> {
    actor.authorize(org_id, Scope::read(Resource::ApiTokens))?;
    let page = page_query(page, limit)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |c| store::api_tokens::list(c, &org_id, page))
        .await
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, token_id: &str) -> Result<ApiToken> {
    actor.authorize(org_id, Scope::read(Resource::ApiTokens))?;
    let (org_id, token_id) = (org_id.to_string(), token_id.to_string());
    ctx.db
        .read(move |c| store::api_tokens::get(c, &org_id, &token_id)?.ok_or(Error::NotFound))
        .await
}

/// The new name of a token.
pub struct Rename {
    pub name: String,
}

pub async fn rename(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    token_id: &str,
    input: Input<Rename>,
) -> Result<ApiToken> {
    actor.authorize(org_id, Scope::write(Resource::ApiTokens))?;
    let input = input.get()?;
    let mut errors = Violations::new();
    errors.length("name", &input.name, 1, 100);
    errors.finish()?;
    let (org_id, token_id) = (org_id.to_string(), token_id.to_string());
    ctx.db
        .write(move |tx| {
            store::api_tokens::rename(tx, &org_id, &token_id, &input.name)?;
            store::api_tokens::get(tx, &org_id, &token_id)?.ok_or(Error::NotFound)
        })
        .await
}

/// Revokes a token at once: its next request gets 401.
pub async fn revoke(ctx: &Ctx, actor: &Actor, org_id: &str, token_id: &str) -> Result<()> {
    actor.authorize(org_id, Scope::write(Resource::ApiTokens))?;
    let (org_id, token_id) = (org_id.to_string(), token_id.to_string());
    ctx.db
        .write(move |tx| store::api_tokens::delete(tx, &org_id, &token_id))
        .await
}

/// Revokes a token named only by its id (the CLI's `token revoke`).
pub async fn revoke_by_id(ctx: &Ctx, actor: &Actor, token_id: &str) -> Result<()> {
    let id = token_id.to_string();
    let org_id = ctx
        .db
        .read(move |c| store::api_tokens::org_of(c, &id))
        .await?
        .ok_or(Error::NotFound)?;
    revoke(ctx, actor, &org_id, token_id).await
}
