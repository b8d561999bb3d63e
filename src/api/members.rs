//! Members and the audit log: /orgs/{orgId}/members and /orgs/{orgId}/audit (DESIGN §19).

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        ApiTags, Created, Message,
        body::JsonBody,
        params::{self, LimitQuery, PageQuery},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::{
        audit::AuditPage,
        member::{Member, MemberIn, MemberPage, MemberPatchIn},
    },
    service::{
        Ctx, audit,
        members::{self},
    },
};

pub struct MembersApi;

#[OpenApi(tag = "ApiTags::Members")]
impl MembersApi {
    #[oai(
        path = "/orgs/:orgId/members",
        method = "get",
        operation_id = "list_members"
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
    ) -> ApiResult<Json<MemberPage>> {
        let page = params::page(page, limit);
        Ok(Json(members::list(&ctx, &auth.0, &org_id, page).await?))
    }

    #[oai(
        path = "/orgs/:orgId/members",
        method = "post",
        operation_id = "add_member"
    )]
    async fn add(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<MemberIn>,
    ) -> ApiResult<Created<Member>> {
        Ok(Created::new(
            members::add(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/members/:userId",
        method = "patch",
        operation_id = "update_member"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "userId")] user_id: Path<String>,
        body: JsonBody<MemberPatchIn>,
    ) -> ApiResult<Json<Member>> {
        Ok(Json(
            members::update(&ctx, &auth.0, &org_id, &user_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/members/:userId",
        method = "delete",
        operation_id = "remove_member"
    )]
    async fn remove(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "userId")] user_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        members::remove(&ctx, &auth.0, &org_id, &user_id).await?;
        Ok(Message::new("member removed"))
    }

    #[oai(
        path = "/orgs/:orgId/audit",
        method = "get",
        operation_id = "list_audit_log"
    )]
    async fn audit(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        /// Page number, from 1.
        page: PageQuery,
        /// Items per page, 1 to 100 (default 20).
        limit: LimitQuery,
    ) -> ApiResult<Json<AuditPage>> {
        let page = params::page(page, limit);
        Ok(Json(audit::list(&ctx, &auth.0, &org_id, page).await?))
    }
}
