//! Shipments: /orgs/{orgId}/shipments and /orgs/{orgId}/shipments/{shipmentId}; what is done to
//! one shipment is in the files named as in `service::shipments` (booking, status, split,
//! returns, tracking).

use poem::web::Data;
use poem_openapi::{
    OpenApi,
    param::{Path, Query},
    payload::Json,
};

use crate::{
    api::{
        ApiTags, Message,
        body::JsonBody,
        params::{self, EnumQuery, LimitQuery, PageQuery},
        problem::ApiResult,
        raw::{CreatedRaw, RawJson},
        security::{BearerAuth, BearerPending},
    },
    model::{
        shipment::{Shipment, ShipmentIn, ShipmentPage, ShipmentPatch},
        status::ShipmentStatus,
    },
    service::{
        Ctx,
        input::merge_patch::MergePatch,
        shipments::{self, ListQuery},
    },
};

mod booking;
mod returns;
mod split;
mod status;
mod tracking;

pub use booking::ShipmentBookingApi;
pub use returns::ShipmentReturnsApi;
pub use split::ShipmentSplitApi;
pub use status::ShipmentStatusApi;
pub use tracking::ShipmentTrackingApi;

pub struct ShipmentsApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentsApi {
    #[oai(
        path = "/orgs/:orgId/shipments",
        method = "post",
        operation_id = "create_shipment"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerPending,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<ShipmentIn>,
    ) -> ApiResult<CreatedRaw<Shipment>> {
        Ok(CreatedRaw::Created(RawJson::new(
            shipments::create_json(&ctx, &auth.0, &org_id, body.0).await?,
        )))
    }

    #[allow(clippy::too_many_arguments)]
    #[oai(
        path = "/orgs/:orgId/shipments",
        method = "get",
        operation_id = "list_shipments"
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
        /// Only shipments in this status.
        status: EnumQuery<ShipmentStatus>,
        /// Only shipments with exactly this reference.
        reference: Query<Option<String>>,
        /// Only shipments of this order.
        #[oai(name = "orderId")]
        order_id: Query<Option<String>>,
        /// Created at or after this RFC 3339 time.
        #[oai(name = "createdFrom")]
        created_from: Query<Option<String>>,
        /// Created at or before this RFC 3339 time.
        #[oai(name = "createdTo")]
        created_to: Query<Option<String>>,
        /// Shipments whose reference is this text, or whose receiver (name, e-mail, postal
        /// code) or tracking number begins with each of its words, case-insensitively.
        search: Query<Option<String>>,
        /// Only shipments booked or to be booked with this carrier.
        #[oai(name = "carrierId")]
        carrier_id: Query<Option<String>>,
    ) -> ApiResult<RawJson<ShipmentPage>> {
        let query = ListQuery {
            page: params::page(page, limit),
            status: params::text(status),
            reference: reference.0,
            order_id: order_id.0,
            created_from: created_from.0,
            created_to: created_to.0,
            search: search.0,
            carrier_id: carrier_id.0,
        };
        Ok(RawJson::new(
            shipments::list_json(&ctx, &auth.0, &org_id, query).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId",
        method = "get",
        operation_id = "get_shipment"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerPending,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<RawJson<Shipment>> {
        Ok(RawJson::new(
            shipments::get_json(&ctx, &auth.0, &org_id, &shipment_id).await?,
        ))
    }

    /// Send `application/merge-patch+json` (or `application/json`): fields given replace the
    /// shipment's, `null` clears an optional one, arrays are replaced whole. Status moves go
    /// through `.../status`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId",
        method = "patch",
        operation_id = "update_shipment"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<MergePatch<ShipmentPatch>>,
    ) -> ApiResult<Json<Shipment>> {
        Ok(Json(
            shipments::update(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId",
        method = "delete",
        operation_id = "delete_shipment"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        shipments::delete(&ctx, &auth.0, &org_id, &shipment_id).await?;
        Ok(Message::new("shipment deleted"))
    }
}
