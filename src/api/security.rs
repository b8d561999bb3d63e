//! Bearer authentication as a poem-openapi `SecurityScheme`: the checker turns the credential
//! into an `Actor` while the handler's arguments are built. Which organization and scope an
//! operation needs is checked by the service, the one place REST and MCP share.

use poem::Request;
use poem_openapi::{SecurityScheme, auth::Bearer};

use std::cell::Cell;

use crate::{
    api::problem::ApiError,
    service::{
        Actor, Ctx,
        access::{
            auth::{self, Pending},
            rate_limit::Quota,
        },
    },
};

tokio::task_local! {
    /// The rate-limit quota of the request's credential, for the `RateLimit-*` headers the
    /// request middleware adds.
    pub static QUOTA: Cell<Option<Quota>>;
}

/// Authenticates and remembers the credential's quota for the response headers.
async fn authenticate(ctx: &Ctx, credential: &str) -> Result<Actor, ApiError> {
    Ok(authenticate_quoted(ctx, credential).await?)
}

/// Authenticates a bearer credential (REST or MCP) and remembers its quota for the
/// `RateLimit-*` headers of the answer.
pub async fn authenticate_quoted(
    ctx: &Ctx,
    credential: &str,
) -> Result<Actor, crate::error::Error> {
    let actor = auth::authenticate(ctx, credential).await?;
    let _ = QUOTA.try_with(|cell| cell.set(actor.quota));
    Ok(actor)
}

/// The service context the server put on every request.
fn ctx_of(req: &Request) -> poem::Result<&Ctx> {
    req.data::<Ctx>()
        .ok_or_else(|| ApiError::from(crate::error::Error::internal("no context")).into())
}

/// `Authorization: Bearer <credential>`: an API token (`shb_…`) or an OAuth access token.
#[derive(SecurityScheme)]
#[oai(
    ty = "bearer",
    bearer_format = "shb_ API token or OAuth JWT",
    checker = "check"
)]
pub struct BearerAuth(pub Actor);

async fn check(req: &Request, bearer: Bearer) -> poem::Result<Actor> {
    if let Some(Authenticated(actor)) = req.extensions().get::<Authenticated>() {
        return Ok(actor.clone());
    }
    let ctx = ctx_of(req)?;
    authenticate(ctx, &bearer.token).await.map_err(Into::into)
}

/// `BearerAuth` for an operation that confirms a kept API token's credential in the read
/// transaction it answers from (`auth::Pending`): the same scheme in the OpenAPI document.
#[derive(SecurityScheme)]
#[oai(
    rename = "BearerAuth",
    ty = "bearer",
    bearer_format = "shb_ API token or OAuth JWT",
    checker = "check_pending"
)]
pub struct BearerPending(pub Pending);

async fn check_pending(req: &Request, bearer: Bearer) -> poem::Result<Pending> {
    if let Some(Authenticated(actor)) = req.extensions().get::<Authenticated>() {
        return Ok(Pending::confirmed(actor.clone()));
    }
    let ctx = ctx_of(req)?;
    let pending = auth::authenticate_pending(ctx, &bearer.token)
        .await
        .map_err(ApiError::from)?;
    let _ = QUOTA.try_with(|cell| cell.set(pending.quota()));
    Ok(pending)
}

/// The actor behind an optional `Authorization` header (for public operations that do more for
/// callers who identify themselves, such as POST /orgs).
pub async fn optional_actor(req: &Request) -> Result<Actor, ApiError> {
    if let Some(Authenticated(actor)) = req.extensions().get::<Authenticated>() {
        return Ok(actor.clone());
    }
    let Some(header) = req.headers().get(poem::http::header::AUTHORIZATION) else {
        return Ok(Actor::anonymous());
    };
    let credential = header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .ok_or_else(ApiError::unauthenticated)?;
    let ctx = req
        .data::<Ctx>()
        .ok_or_else(|| ApiError::from(crate::error::Error::internal("no context")))?;
    authenticate(ctx, credential).await
}

/// An actor authenticated ahead of the handler, kept on the request so that the handler neither
/// authenticates again nor spends the rate budget twice.
#[derive(Clone)]
struct Authenticated(Actor);

/// Authenticates the request's bearer credential before it reaches its handler (the idempotency
/// edge needs to know whose key it holds) and leaves the actor on the request. None when there
/// is no bearer credential or it does not authenticate: the handler then answers as it would.
pub async fn authenticate_ahead(req: &mut Request, ctx: &Ctx) -> Option<Actor> {
    if let Some(Authenticated(actor)) = req.extensions().get::<Authenticated>() {
        return Some(actor.clone());
    }
    let header = req.headers().get(poem::http::header::AUTHORIZATION)?;
    let value = header.to_str().ok()?;
    let (scheme, credential) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let actor = authenticate(ctx, credential.trim()).await.ok()?;
    req.extensions_mut().insert(Authenticated(actor.clone()));
    Some(actor)
}

/// Makes `req` act as `actor`, authenticated already (the MCP endpoint's in-process calls of
/// REST operations).
pub fn act_as(req: &mut Request, actor: Actor) {
    req.extensions_mut().insert(Authenticated(actor));
}
