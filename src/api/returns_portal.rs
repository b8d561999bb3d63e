//! The returns portal's settings: GET and PUT /orgs/{orgId}/returns-portal.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::returns_portal::ReturnsPortal,
    service::{Ctx, returns_portal},
};

pub struct ReturnsPortalApi;

#[OpenApi(tag = "ApiTags::Organizations")]
impl ReturnsPortalApi {
    #[oai(
        path = "/orgs/:orgId/returns-portal",
        method = "get",
        operation_id = "get_returns_portal"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<ReturnsPortal>> {
        Ok(Json(returns_portal::get(&ctx, &auth.0, &org_id).await?))
    }

    /// Replaces the settings. An open portal needs `shippingRuleId`, a rule of the organization.
    #[oai(
        path = "/orgs/:orgId/returns-portal",
        method = "put",
        operation_id = "update_returns_portal"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<ReturnsPortal>,
    ) -> ApiResult<Json<ReturnsPortal>> {
        Ok(Json(
            returns_portal::update(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }
}
