//! Carrier rates: POST /orgs/{orgId}/rates.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::rate::{RatesIn, RatesOut},
    service::{Ctx, shipments::rates},
};

pub struct RatesApi;

#[OpenApi(tag = "ApiTags::Carriers")]
impl RatesApi {
    #[oai(
        path = "/orgs/:orgId/rates",
        method = "post",
        operation_id = "compare_carrier_rates"
    )]
    async fn compare(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<RatesIn>,
    ) -> ApiResult<Json<RatesOut>> {
        Ok(Json(rates::compare(&ctx, &auth.0, &org_id, body.0).await?))
    }
}
