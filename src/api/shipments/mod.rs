//! Shipments: /orgs/{orgId}/shipments.

use poem::web::Data;
use poem_openapi::{
    OpenApi,
    param::{Path, Query},
    payload::Json,
};

use crate::{
    api::{ApiTags, Created, body::JsonBody, problem::ApiResult, security::BearerAuth},
    page_of,
    service::{
        Ctx,
        shipments::{self, ListQuery},
    },
};

pub mod dto;
pub mod ops;

use dto::{ShipmentIn, ShipmentListItem, ShipmentOut};

page_of!(ShipmentPage, ShipmentListItem);

pub struct ShipmentsApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentsApi {
    /// Create a shipment (status pending and termOfTrade DAP unless given). Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments",
        method = "post",
        operation_id = "create_shipment"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<ShipmentIn>,
    ) -> ApiResult<Created<ShipmentOut>> {
        Ok(Created::new(
            shipments::create(&ctx, &auth.0, &org_id, body.into_input()).await?,
        ))
    }

    /// List shipments, newest first, with optional filters. Scope: `read:shipments`.
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
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Items per page, 1 to 100 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "100")))]
        limit: Query<Option<i64>>,
        /// Only shipments in this status.
        status: Query<Option<String>>,
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
    ) -> ApiResult<Json<ShipmentPage>> {
        let query = ListQuery {
            page: page.0,
            limit: limit.0,
            status: status.0,
            reference: reference.0,
            order_id: order_id.0,
            created_from: created_from.0,
            created_to: created_to.0,
        };
        Ok(Json(
            shipments::list(&ctx, &auth.0, &org_id, query).await?.into(),
        ))
    }

    /// Get a shipment. Scope: `read:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId",
        method = "get",
        operation_id = "get_shipment"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<Json<ShipmentOut>> {
        Ok(Json(
            shipments::get(&ctx, &auth.0, &org_id, &shipment_id)
                .await?
                .into(),
        ))
    }
}
