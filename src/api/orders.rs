//! Orders: /orgs/{orgId}/orders, and the Shopify receiver /channels/{channelId}/shopify/orders.

use poem::web::Data;
use poem_openapi::{
    OpenApi,
    param::{Header, Path, Query},
    payload::Json,
};

use crate::{
    api::{
        ApiTags, Created, Message,
        body::{JsonBody, RawJsonBody},
        params::{self, EnumQuery, LimitQuery, PageQuery},
        problem::ApiResult,
        raw::RawJson,
        security::{BearerAuth, BearerPending},
    },
    model::{
        order::{Order, OrderIn, OrderPage, OrderShipmentIn},
        shipment::Shipment,
        status::OrderStatus,
    },
    service::{
        Ctx,
        orders::{
            self, ListQuery,
            shopify::{self, Delivery, Outcome},
        },
    },
};

pub struct OrdersApi;

#[OpenApi(tag = "ApiTags::Orders")]
impl OrdersApi {
    #[oai(
        path = "/orgs/:orgId/orders",
        method = "post",
        operation_id = "create_order"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<OrderIn>,
    ) -> ApiResult<Created<Order>> {
        Ok(Created::new(
            orders::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[allow(clippy::too_many_arguments)]
    #[oai(
        path = "/orgs/:orgId/orders",
        method = "get",
        operation_id = "list_orders"
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
        /// Only orders in this status.
        status: EnumQuery<OrderStatus>,
        /// Only orders of this channel.
        #[oai(name = "orderChannelId")]
        order_channel_id: Query<Option<String>>,
        /// Only orders with exactly this number.
        #[oai(name = "orderNumber")]
        order_number: Query<Option<String>>,
    ) -> ApiResult<RawJson<OrderPage>> {
        let query = ListQuery {
            page: params::page(page, limit),
            status: params::text(status),
            order_channel_id: order_channel_id.0,
            order_number: order_number.0,
        };
        Ok(RawJson::new(
            orders::list_json(&ctx, &auth.0, &org_id, query).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/orders/:orderId",
        method = "get",
        operation_id = "get_order"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerPending,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "orderId")] order_id: Path<String>,
    ) -> ApiResult<RawJson<Order>> {
        Ok(RawJson::new(
            orders::get_json(&ctx, &auth.0, &org_id, &order_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/orders/:orderId",
        method = "delete",
        operation_id = "delete_order"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "orderId")] order_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        orders::delete(&ctx, &auth.0, &org_id, &order_id).await?;
        Ok(Message::new("order deleted"))
    }

    #[oai(
        path = "/orgs/:orgId/orders/:orderId/cancel",
        method = "post",
        operation_id = "cancel_order"
    )]
    async fn cancel(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "orderId")] order_id: Path<String>,
    ) -> ApiResult<Json<Order>> {
        Ok(Json(
            orders::cancel(&ctx, &auth.0, &org_id, &order_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/orders/:orderId/shipments",
        method = "post",
        operation_id = "create_order_shipment"
    )]
    async fn create_shipment(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "orderId")] order_id: Path<String>,
        body: JsonBody<OrderShipmentIn>,
    ) -> ApiResult<Created<Shipment>> {
        Ok(Created::new(
            orders::create_shipment(&ctx, &auth.0, &org_id, &order_id, body.0).await?,
        ))
    }

    /// Shopify webhook receiver for orders/create and orders/updated. Public: authenticated by
    /// `X-Shopify-Hmac-Sha256` with the channel's webhook secret (401 when wrong). Idempotent per
    /// Shopify order; a repeated `X-Shopify-Webhook-Id` is acknowledged and ignored.
    #[oai(
        path = "/channels/:channelId/shopify/orders",
        method = "post",
        operation_id = "receive_shopify_order"
    )]
    async fn shopify(
        &self,
        ctx: Data<&Ctx>,
        #[oai(name = "channelId")] channel_id: Path<String>,
        #[oai(name = "X-Shopify-Hmac-Sha256")] hmac: Header<Option<String>>,
        #[oai(name = "X-Shopify-Webhook-Id")] webhook_id: Header<Option<String>>,
        #[oai(name = "X-Shopify-Topic")] topic: Header<Option<String>>,
        body: RawJsonBody,
    ) -> ApiResult<Json<Message>> {
        let delivery = Delivery {
            channel_id: channel_id.0,
            hmac: hmac.0,
            webhook_id: webhook_id.0,
            topic: topic.0,
            body: body.0,
        };
        let received = shopify::receive(&ctx, delivery).await.map_err(|err| match err {
            crate::error::Error::Unauthenticated => crate::api::problem::ApiError::bad_signature(
                "X-Shopify-Hmac-Sha256 is missing or does not sign this body with the channel's \
                 secret",
            ),
            other => crate::api::problem::ApiError::from(other),
        })?;
        let message = match received {
            Outcome::Created(id) => format!("order {id} created"),
            Outcome::Updated(id) => format!("order {id} updated"),
            Outcome::Ignored => "delivery acknowledged; nothing to do".into(),
        };
        Ok(Message::new(message))
    }
}
