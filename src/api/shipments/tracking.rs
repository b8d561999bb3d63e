//! Tracking events of a shipment, and the e-mails its receiver was sent about them.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        ApiTags,
        body::JsonBody,
        params::{self, LimitQuery, PageQuery},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::{
        notification::NotificationPage,
        shipment::{Shipment, TrackingEventIn},
    },
    service::{
        Ctx, mail,
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

    /// The receiver's e-mails about the shipment (booked, out for delivery, delivered,
    /// exception), newest first: queued, sent, or failed with the reason.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/notifications",
        method = "get",
        operation_id = "list_shipment_notifications"
    )]
    async fn notifications(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        /// Page number, from 1.
        page: PageQuery,
        /// Items per page, 1 to 100 (default 20).
        limit: LimitQuery,
    ) -> ApiResult<Json<NotificationPage>> {
        let page = params::page(page, limit);
        Ok(Json(
            mail::list(&ctx, &auth.0, &org_id, &shipment_id, page).await?,
        ))
    }
}
