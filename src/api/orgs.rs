//! Organizations: POST /orgs, GET and PUT /orgs/{orgId}.

use poem::{Request, web::Data};
use poem_openapi::{ApiResponse, OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        ApiTags,
        body::JsonBody,
        problem::ApiResult,
        security::{BearerAuth, optional_actor},
    },
    model::org::{OrgCreated, OrgIn, OrgPatchIn, Organization},
    service::{
        Ctx,
        orgs::{self},
    },
};

pub struct OrgsApi;

#[derive(ApiResponse)]
pub enum OrgCreatedAnswer {
    /// The organization was created.
    #[oai(status = 201)]
    Created(Json<OrgCreated>),
}

#[OpenApi(tag = "ApiTags::Organizations")]
impl OrgsApi {
    /// Create an organization and its first user (its owner).
    ///
    /// Open to anyone while `signup.open` is true in the configuration; otherwise only to
    /// instance staff. Send a credential to be identified.
    #[oai(path = "/orgs", method = "post", operation_id = "create_organization")]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        req: &Request,
        body: JsonBody<OrgIn>,
    ) -> ApiResult<OrgCreatedAnswer> {
        let actor = optional_actor(req).await?;
        let created = orgs::create(&ctx, &actor, body.0).await?;
        Ok(OrgCreatedAnswer::Created(Json(created)))
    }

    #[oai(
        path = "/orgs/:orgId",
        method = "get",
        operation_id = "get_organization"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<Organization>> {
        Ok(Json(orgs::get(&ctx, &auth.0, &org_id).await?))
    }

    #[oai(
        path = "/orgs/:orgId",
        method = "put",
        operation_id = "update_organization"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<OrgPatchIn>,
    ) -> ApiResult<Json<Organization>> {
        Ok(Json(orgs::update(&ctx, &auth.0, &org_id, body.0).await?))
    }
}
