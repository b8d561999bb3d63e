//! Address checks: POST /orgs/{orgId}/addresses/validate.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::address_check::{AddressCheckIn, AddressCheckOut},
    service::{Ctx, addresses},
};

pub struct AddressesApi;

#[OpenApi(tag = "ApiTags::Carriers")]
impl AddressesApi {
    #[oai(
        path = "/orgs/:orgId/addresses/validate",
        method = "post",
        operation_id = "validate_address"
    )]
    async fn validate(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<AddressCheckIn>,
    ) -> ApiResult<Json<AddressCheckOut>> {
        Ok(Json(
            addresses::check(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }
}
