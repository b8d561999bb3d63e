//! Billing: /orgs/{orgId}/billing/usage.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, problem::ApiResult, security::BearerAuth},
    model::usage::Usage,
    service::{Ctx, billing},
};

pub struct BillingApi;

#[OpenApi(tag = "ApiTags::Billing")]
impl BillingApi {
    #[oai(
        path = "/orgs/:orgId/billing/usage",
        method = "get",
        operation_id = "get_billing_usage"
    )]
    async fn usage(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<Usage>> {
        Ok(Json(billing::usage(&ctx, &auth.0, &org_id).await?))
    }
}
