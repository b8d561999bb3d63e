//! Return shipments.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path};

use crate::{
    api::{ApiTags, Created, problem::ApiResult, security::BearerAuth},
    model::shipment::Shipment,
    service::{
        Ctx,
        shipments::{self},
    },
};

pub struct ShipmentReturnsApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentReturnsApi {
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/create-return",
        method = "post",
        operation_id = "create_return_shipment"
    )]
    async fn create_return(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<Created<Shipment>> {
        Ok(Created::new(
            shipments::create_return(&ctx, &auth.0, &org_id, &shipment_id).await?,
        ))
    }
}
