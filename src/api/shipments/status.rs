//! The status machine of a shipment, and applying a shipping rule.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::shipment::{ApplyRuleIn, Shipment, StatusIn},
    service::{
        Ctx,
        shipments::{self},
    },
};

pub struct ShipmentStatusApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentStatusApi {
    /// Any other move is refused (`invalid_state`).
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/status",
        method = "post",
        operation_id = "set_shipment_status"
    )]
    async fn status(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<StatusIn>,
    ) -> ApiResult<Json<Shipment>> {
        Ok(Json(
            shipments::set_status(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/apply-shipping-rule",
        method = "post",
        operation_id = "apply_shipping_rule"
    )]
    async fn apply_rule(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<ApplyRuleIn>,
    ) -> ApiResult<Json<Shipment>> {
        Ok(Json(
            shipments::apply_shipping_rule(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }
}
