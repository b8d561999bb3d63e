//! API tokens: /orgs/{orgId}/api-tokens.

use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde::Deserialize;

use crate::{
    api::{ApiTags, Message, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::org::ApiToken,
    page_of,
    service::{
        Ctx,
        api_tokens::{self, CreatedToken, NewToken, Rename},
    },
};

pub struct ApiTokensApi;

/// Who created a token.
#[derive(Object)]
pub struct CreatedByOut {
    pub id: String,
    pub name: String,
    pub email: String,
}

/// An API token. Its full value is never part of this record.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiTokenOut {
    pub id: String,
    pub name: String,
    /// The first 12 characters of the token, to recognise it by.
    pub token_prefix: String,
    pub scopes: Vec<String>,
    pub last_used_at: Option<String>,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub created_by: CreatedByOut,
}

impl From<ApiToken> for ApiTokenOut {
    fn from(t: ApiToken) -> ApiTokenOut {
        ApiTokenOut {
            scopes: t.scopes.to_strings(),
            id: t.id,
            name: t.name,
            token_prefix: t.token_prefix,
            last_used_at: t.last_used_at,
            expires_at: t.expires_at,
            created_at: t.created_at,
            created_by: CreatedByOut {
                id: t.created_by.id,
                name: t.created_by.name,
                email: t.created_by.email,
            },
        }
    }
}

page_of!(ApiTokenPage, ApiTokenOut);

/// A new token. It may not hold scopes the calling credential lacks.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ApiTokenIn {
    #[oai(validator(min_length = 1, max_length = 100))]
    pub name: String,
    /// For example `["read:shipments", "write:orders"]`, or `["read:all", "write:all"]`.
    #[oai(validator(min_items = 1))]
    pub scopes: Vec<String>,
    /// RFC 3339; omit for a token that does not expire.
    pub expires_at: Option<String>,
}

impl From<ApiTokenIn> for NewToken {
    fn from(v: ApiTokenIn) -> NewToken {
        NewToken {
            name: v.name,
            scopes: v.scopes,
            expires_at: v.expires_at,
        }
    }
}

/// The new token: `token` is its full value, shown only this once.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiTokenCreatedOut {
    pub token: String,
    pub api_token: ApiTokenOut,
}

impl From<CreatedToken> for ApiTokenCreatedOut {
    fn from(c: CreatedToken) -> ApiTokenCreatedOut {
        ApiTokenCreatedOut {
            token: c.token,
            api_token: c.record.into(),
        }
    }
}

#[derive(ApiResponse)]
pub enum ApiTokenCreated {
    /// The token was created; store its value now.
    #[oai(status = 201)]
    Created(Json<ApiTokenCreatedOut>),
}

/// A new name for a token.
#[derive(Object, Deserialize)]
pub struct ApiTokenPatchIn {
    #[oai(validator(min_length = 1, max_length = 100))]
    pub name: String,
}

impl From<ApiTokenPatchIn> for Rename {
    fn from(v: ApiTokenPatchIn) -> Rename {
        Rename { name: v.name }
    }
}

#[OpenApi(tag = "ApiTags::ApiTokens")]
impl ApiTokensApi {
    /// List API tokens, newest first. Scope: `read:api_tokens`.
    #[oai(
        path = "/orgs/:orgId/api-tokens",
        method = "get",
        operation_id = "list_api_tokens"
    )]
    async fn list(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        /// Page number, from 1.
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Items per page, 1 to 100 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "100")))]
        limit: Query<Option<i64>>,
    ) -> ApiResult<Json<ApiTokenPage>> {
        Ok(Json(
            api_tokens::list(&ctx, &auth.0, &org_id, page.0, limit.0)
                .await?
                .into(),
        ))
    }

    /// Create an API token; the response holds its value, shown only once.
    /// Scope: `write:api_tokens`.
    #[oai(
        path = "/orgs/:orgId/api-tokens",
        method = "post",
        operation_id = "create_api_token"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<ApiTokenIn>,
    ) -> ApiResult<ApiTokenCreated> {
        let created = api_tokens::create(&ctx, &auth.0, &org_id, body.into_input()).await?;
        Ok(ApiTokenCreated::Created(Json(created.into())))
    }

    /// Get one API token. Scope: `read:api_tokens`.
    #[oai(
        path = "/orgs/:orgId/api-tokens/:tokenId",
        method = "get",
        operation_id = "get_api_token"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "tokenId")] token_id: Path<String>,
    ) -> ApiResult<Json<ApiTokenOut>> {
        Ok(Json(
            api_tokens::get(&ctx, &auth.0, &org_id, &token_id)
                .await?
                .into(),
        ))
    }

    /// Rename an API token. Scope: `write:api_tokens`.
    #[oai(
        path = "/orgs/:orgId/api-tokens/:tokenId",
        method = "patch",
        operation_id = "rename_api_token"
    )]
    async fn rename(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "tokenId")] token_id: Path<String>,
        body: JsonBody<ApiTokenPatchIn>,
    ) -> ApiResult<Json<ApiTokenOut>> {
        Ok(Json(
            api_tokens::rename(&ctx, &auth.0, &org_id, &token_id, body.into_input())
                .await?
                .into(),
        ))
    }

    /// Revoke an API token; its next request gets 401. Scope: `write:api_tokens`.
    #[oai(
        path = "/orgs/:orgId/api-tokens/:tokenId",
        method = "delete",
        operation_id = "revoke_api_token"
    )]
    async fn revoke(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "tokenId")] token_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        api_tokens::revoke(&ctx, &auth.0, &org_id, &token_id).await?;
        Ok(Message::new("API token revoked"))
    }
}
