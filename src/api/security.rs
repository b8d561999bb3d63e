//! Bearer authentication as a poem-openapi `SecurityScheme`: the checker turns the credential
//! into an `Actor` while the handler's arguments are built. Which organization and scope an
//! operation needs is checked by the service, the one place REST and MCP share.

use poem::Request;
use poem_openapi::{SecurityScheme, auth::Bearer};

use crate::{
    api::problem::ApiError,
    service::{Actor, Ctx, auth},
};

/// `Authorization: Bearer <credential>`: an API token (`shb_…`) or an OAuth access token.
#[derive(SecurityScheme)]
#[oai(
    ty = "bearer",
    bearer_format = "shb_ API token or OAuth JWT",
    checker = "check"
)]
pub struct BearerAuth(pub Actor);

async fn check(req: &Request, bearer: Bearer) -> poem::Result<Actor> {
    let ctx = req
        .data::<Ctx>()
        .ok_or_else(|| ApiError::from(crate::error::Error::internal("no context")))?;
    auth::authenticate(ctx, &bearer.token)
        .await
        .map_err(|e| ApiError::from(e).into())
}

/// The actor behind an optional `Authorization` header (for public operations that do more for
/// callers who identify themselves, such as POST /orgs).
pub async fn optional_actor(req: &Request) -> Result<Actor, ApiError> {
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
    auth::authenticate(ctx, credential)
        .await
        .map_err(ApiError::from)
}
