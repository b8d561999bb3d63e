//! Tracking events of a shipment.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::shipment::{Shipment, TrackingEventIn},
    service::{
        Ctx,
        shipments::{self},
    },
};

pub struct ShipmentTrackingApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentTrackingApi {
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/tracking-events",
        method = "post",
        operation_id = "add_tracking_event"
    )]
    async fn tracking_event(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<TrackingEventIn>,
    ) -> ApiResult<Json<Shipment>> {
        Ok(Json(
            shipments::add_tracking_event(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }
}
