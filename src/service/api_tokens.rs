//! API tokens of an organization: create (the value is returned once), list, rename, revoke.

use crate::model::api_token::{ApiTokenCreated, ApiTokenIn, ApiTokenPatchIn};

use crate::{
    error::{Error, Result},
    model::{
        api_token::{ApiToken, ApiTokenPage, Origin},
        ids,
        scope::ScopeSet,
        time,
        usage::Limit,
        user::CreatedBy,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, PageParams,
        access::{actor::Principal, auth},
        billing, operations as ops, page_query,
    },
    store,
};

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ApiTokenIn>,
) -> Result<ApiTokenCreated> {
    let grant = actor.authorize(org_id, &ops::CREATE_API_TOKEN)?;
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
            errors.add("scopes", crate::model::scope::unknown_scopes(&unknown));
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
    let hash = crate::service::access::secret::hash(&token);
    let token_prefix: String = token.chars().take(12).collect();
    let id = ids::new(ids::API_TOKEN);
    let origin = origin(actor);
    let (org_id, creator, name) = (org_id.to_string(), actor.user_id.clone(), input.name);
    let connection = actor.via_connection.clone();
    let now = time::format(now);
    ctx.commit(grant.on(&id), move |tx| {
        store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)?;
        billing::admit(tx, &org_id, Limit::ApiTokens)?;
        let creator = match creator {
            Some(id) => Some(id),
            None => store::orgs::first_owner(tx, &org_id)?,
        }
        .ok_or_else(|| {
            Error::InvalidState("the organization has no owner to attribute the token to".into())
        })?;
        let user = store::users::get(tx, &creator)?
            .ok_or_else(|| Error::internal(format!("the token's creator {creator} is missing")))?;
        let record = ApiToken {
            id,
            org_id,
            name,
            token_prefix,
            scopes,
            created_by: CreatedBy {
                id: user.id,
                name: user.name,
                email: user.email,
            },
            expires_at,
            last_used_at: None,
            created_at: now,
        };
        store::api_tokens::insert(
            tx,
            &record,
            &hash,
            &store::api_tokens::Provenance {
                origin,
                connection_id: connection,
            },
        )?;
        Ok(ApiTokenCreated {
            token,
            api_token: record,
        })
    })
    .await
}

/// How a token is being made: by the command line, in the pages, with another token, or by
/// an agent (directly, or with a token an agent made).
fn origin(actor: &Actor) -> Origin {
    match (&actor.principal, &actor.via_connection) {
        (_, Some(_)) | (Principal::Connection { .. }, _) => Origin::Agent,
        (Principal::Admin, None) => Origin::Cli,
        (Principal::User { .. } | Principal::Session { .. }, None) => Origin::Session,
        (Principal::ApiToken { .. } | Principal::Anonymous, None) => Origin::Api,
    }
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: PageParams,
) -> Result<ApiTokenPage> {
    actor.authorize(org_id, &ops::LIST_API_TOKENS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::api_tokens::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, token_id: &str) -> Result<ApiToken> {
    actor.authorize(org_id, &ops::GET_API_TOKEN)?;
    let (org_id, token_id) = (org_id.to_string(), token_id.to_string());
    ctx.db
        .point(|db| store::api_tokens::get(db, &org_id, &token_id)?.ok_or(Error::NotFound))
}

pub async fn rename(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    token_id: &str,
    input: Input<ApiTokenPatchIn>,
) -> Result<ApiToken> {
    let grant = actor
        .authorize(org_id, &ops::RENAME_API_TOKEN)?
        .on(token_id);
    let input = input.get()?;
    let mut errors = Violations::new();
    errors.length("name", &input.name, 1, 100);
    errors.finish()?;
    let (org_id, token_id) = (org_id.to_string(), token_id.to_string());
    ctx.write(grant, move |tx| {
        if !store::api_tokens::rename(tx, &org_id, &token_id, &input.name)? {
            return Err(Error::NotFound);
        }
        store::api_tokens::get(tx, &org_id, &token_id)?
            .ok_or_else(|| Error::internal("a renamed token vanished"))
    })
    .await
}

/// Revokes a token at once: its next request gets 401.
pub async fn revoke(ctx: &Ctx, actor: &Actor, org_id: &str, token_id: &str) -> Result<()> {
    let grant = actor
        .authorize(org_id, &ops::REVOKE_API_TOKEN)?
        .on(token_id);
    let (org_id, token_id) = (org_id.to_string(), token_id.to_string());
    ctx.write(grant, move |tx| {
        match store::api_tokens::delete(tx, &org_id, &token_id)? {
            true => Ok(()),
            false => Err(Error::NotFound),
        }
    })
    .await
}

/// Revokes a token named only by its id (the CLI's `token revoke`).
pub async fn revoke_by_id(ctx: &Ctx, actor: &Actor, token_id: &str) -> Result<()> {
    let id = token_id.to_string();
    let org_id = ctx
        .db
        .point(|db| store::api_tokens::org_of(db, &id))?
        .ok_or(Error::NotFound)?;
    revoke(ctx, actor, &org_id, token_id).await
}
