//! API tokens: /orgs/{orgId}/api-tokens.

use poem::web::Data;
use poem_openapi::{ApiResponse, OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        ApiTags, Message,
        body::JsonBody,
        params::{self, LimitQuery, PageQuery},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::api_token::{ApiToken, ApiTokenCreated, ApiTokenIn, ApiTokenPage, ApiTokenPatchIn},
    service::{
        Ctx,
        api_tokens::{self},
    },
};

pub struct ApiTokensApi;

#[derive(ApiResponse)]
pub enum ApiTokenCreatedAnswer {
    /// The token was created; store its value now.
    #[oai(status = 201)]
    Created(Json<ApiTokenCreated>),
}

#[OpenApi(tag = "ApiTags::ApiTokens")]
impl ApiTokensApi {
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
        page: PageQuery,
        /// Items per page, 1 to 100 (default 20).
        limit: LimitQuery,
    ) -> ApiResult<Json<ApiTokenPage>> {
        let page = params::page(page, limit);
        Ok(Json(api_tokens::list(&ctx, &auth.0, &org_id, page).await?))
    }

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
    ) -> ApiResult<ApiTokenCreatedAnswer> {
        let created = api_tokens::create(&ctx, &auth.0, &org_id, body.0).await?;
        Ok(ApiTokenCreatedAnswer::Created(Json(created)))
    }

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
    ) -> ApiResult<Json<ApiToken>> {
        Ok(Json(
            api_tokens::get(&ctx, &auth.0, &org_id, &token_id).await?,
        ))
    }

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
    ) -> ApiResult<Json<ApiToken>> {
        Ok(Json(
            api_tokens::rename(&ctx, &auth.0, &org_id, &token_id, body.0).await?,
        ))
    }

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
