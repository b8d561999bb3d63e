//! Branding: GET and PUT /orgs/{orgId}/branding.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::branding::{Branding, BrandingIn},
    service::{Ctx, branding},
};

pub struct BrandingApi;

#[OpenApi(tag = "ApiTags::Organizations")]
impl BrandingApi {
    #[oai(
        path = "/orgs/:orgId/branding",
        method = "get",
        operation_id = "get_branding"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<Branding>> {
        Ok(Json(branding::get(&ctx, &auth.0, &org_id).await?))
    }

    /// Fields left out keep their value; `null` puts one back to its default. A logo that is
    /// no PNG or SVG, or larger than 256 KB decoded, is refused naming `logo`.
    #[oai(
        path = "/orgs/:orgId/branding",
        method = "put",
        operation_id = "update_branding"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<BrandingIn>,
    ) -> ApiResult<Json<Branding>> {
        Ok(Json(
            branding::update(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }
}
