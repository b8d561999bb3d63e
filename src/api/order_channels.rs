//! Order channels: /orgs/{orgId}/order-channels.

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
    model::order_channel::{OrderChannel, OrderChannelIn, OrderChannelPage},
    service::{
        Ctx,
        order_channels::{self},
    },
};

pub struct OrderChannelsApi;

#[OpenApi(tag = "ApiTags::Orders")]
impl OrderChannelsApi {
    /// A shopify channel's webhook secret is shown only in this answer.
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
    ) -> ApiResult<Created<OrderChannel>> {
        Ok(Created::new(
            order_channels::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

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
        page: PageQuery,
        /// Items per page, 1 to 100 (default 20).
        limit: LimitQuery,
    ) -> ApiResult<Json<OrderChannelPage>> {
        let page = params::page(page, limit);
        Ok(Json(
            order_channels::list(&ctx, &auth.0, &org_id, page).await?,
        ))
    }

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
    ) -> ApiResult<Json<OrderChannel>> {
        Ok(Json(
            order_channels::get(&ctx, &auth.0, &org_id, &channel_id).await?,
        ))
    }

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
