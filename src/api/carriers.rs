//! Carriers: /orgs/{orgId}/carriers and /orgs/{orgId}/available-carriers.

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
    model::carrier::{AvailableCarrier, Carrier, CarrierIn, CarrierPage},
    service::{Ctx, carriers},
};

pub struct CarriersApi;

#[OpenApi(tag = "ApiTags::Carriers")]
impl CarriersApi {
    #[oai(
        path = "/orgs/:orgId/carriers",
        method = "post",
        operation_id = "create_carrier"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<CarrierIn>,
    ) -> ApiResult<Created<Carrier>> {
        Ok(Created::new(
            carriers::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/carriers",
        method = "get",
        operation_id = "list_carriers"
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
    ) -> ApiResult<Json<CarrierPage>> {
        let page = params::page(page, limit);
        Ok(Json(carriers::list(&ctx, &auth.0, &org_id, page).await?))
    }

    #[oai(
        path = "/orgs/:orgId/carriers/:carrierId",
        method = "get",
        operation_id = "get_carrier"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "carrierId")] carrier_id: Path<String>,
    ) -> ApiResult<Json<Carrier>> {
        Ok(Json(
            carriers::get(&ctx, &auth.0, &org_id, &carrier_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/carriers/:carrierId",
        method = "put",
        operation_id = "update_carrier"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "carrierId")] carrier_id: Path<String>,
        body: JsonBody<CarrierIn>,
    ) -> ApiResult<Json<Carrier>> {
        Ok(Json(
            carriers::update(&ctx, &auth.0, &org_id, &carrier_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/carriers/:carrierId",
        method = "delete",
        operation_id = "delete_carrier"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "carrierId")] carrier_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        carriers::delete(&ctx, &auth.0, &org_id, &carrier_id).await?;
        Ok(Message::new("carrier deleted"))
    }

    /// The answer is a plain array.
    #[oai(
        path = "/orgs/:orgId/available-carriers",
        method = "get",
        operation_id = "list_available_carriers"
    )]
    async fn available(
        &self,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<Vec<AvailableCarrier>>> {
        Ok(Json(carriers::available(&auth.0, &org_id)?))
    }
}
