//! Order channels: /orgs/{orgId}/order-channels.

use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde::Deserialize;

use crate::{
    api::{ApiTags, Created, Message, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::order::OrderChannel,
    page_of,
    service::{
        Ctx,
        order_channels::{self, NewChannel},
    },
};

pub struct OrderChannelsApi;

/// A channel orders come in through.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct OrderChannelIn {
    #[oai(validator(min_length = 1))]
    pub name: String,
    /// `manual` or `shopify`.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    /// The store's host name (required for shopify), e.g. `my-store.myshopify.com`.
    pub shop_domain: Option<String>,
    /// The secret Shopify signs this store's webhooks with; generated when absent.
    pub webhook_secret: Option<String>,
}

impl From<OrderChannelIn> for NewChannel {
    fn from(v: OrderChannelIn) -> NewChannel {
        NewChannel {
            name: v.name,
            kind: v.kind,
            shop_domain: v.shop_domain,
            webhook_secret: v.webhook_secret,
        }
    }
}

/// An order channel.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct OrderChannelOut {
    pub id: String,
    pub name: String,
    #[oai(rename = "type")]
    pub kind: String,
    pub shop_domain: Option<String>,
    /// Where Shopify delivers orders/create and orders/updated (shopify channels).
    pub webhook_url: Option<String>,
    /// The webhook signing secret: present only in the response that creates the channel.
    #[oai(skip_serializing_if_is_none)]
    pub webhook_secret: Option<String>,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
}

impl OrderChannelOut {
    fn new(c: OrderChannel, base_url: &str, with_secret: bool) -> OrderChannelOut {
        OrderChannelOut {
            webhook_url: (c.kind == "shopify")
                .then(|| format!("{base_url}/channels/{}/shopify/orders", c.id)),
            webhook_secret: if with_secret { c.webhook_secret } else { None },
            id: c.id,
            name: c.name,
            kind: c.kind,
            shop_domain: c.shop_domain,
            org_id: c.org_id,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

page_of!(OrderChannelPage, OrderChannelOut);

#[OpenApi(tag = "ApiTags::Orders")]
impl OrderChannelsApi {
    /// Create an order channel; a shopify channel's webhook secret is shown only in this
    /// response. Scope: `write:order_channels`.
    #[oai(
        path = "/orgs/:orgId/order-channels",
        method = "post",
        operation_id = "create_order_channel"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<OrderChannelIn>,
    ) -> ApiResult<Created<OrderChannelOut>> {
        let channel = order_channels::create(&ctx, &auth.0, &org_id, body.into_input()).await?;
        Ok(Created::new(OrderChannelOut::new(
            channel,
            &ctx.config.base_url(),
            true,
        )))
    }

    /// List order channels, newest first. Scope: `read:order_channels`.
    #[oai(
        path = "/orgs/:orgId/order-channels",
        method = "get",
        operation_id = "list_order_channels"
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
    ) -> ApiResult<Json<OrderChannelPage>> {
        let paged = order_channels::list(&ctx, &auth.0, &org_id, page.0, limit.0).await?;
        let base_url = ctx.config.base_url();
        Ok(Json(
            paged
                .map(|c| OrderChannelOut::new(c, &base_url, false))
                .into(),
        ))
    }

    /// Get an order channel. Scope: `read:order_channels`.
    #[oai(
        path = "/orgs/:orgId/order-channels/:channelId",
        method = "get",
        operation_id = "get_order_channel"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "channelId")] channel_id: Path<String>,
    ) -> ApiResult<Json<OrderChannelOut>> {
        let channel = order_channels::get(&ctx, &auth.0, &org_id, &channel_id).await?;
        Ok(Json(OrderChannelOut::new(
            channel,
            &ctx.config.base_url(),
            false,
        )))
    }

    /// Delete an order channel that has no orders (409 otherwise). Scope: `write:order_channels`.
    #[oai(
        path = "/orgs/:orgId/order-channels/:channelId",
        method = "delete",
        operation_id = "delete_order_channel"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "channelId")] channel_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        order_channels::delete(&ctx, &auth.0, &org_id, &channel_id).await?;
        Ok(Message::new("order channel deleted"))
    }
}
