//! Webhooks: /orgs/{orgId}/webhooks.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        Accepted, ApiTags, Created, Message,
        body::JsonBody,
        params::{self, LimitQuery, PageQuery},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::webhook::{
        DeliveryPage, Webhook, WebhookDelivery, WebhookIn, WebhookPage, WebhookPatchIn,
        WebhookReplay,
    },
    service::{Ctx, webhooks},
};

pub struct WebhooksApi;

#[OpenApi(tag = "ApiTags::Webhooks")]
impl WebhooksApi {
    #[oai(
        path = "/orgs/:orgId/webhooks",
        method = "post",
        operation_id = "create_webhook"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<WebhookIn>,
    ) -> ApiResult<Created<Webhook>> {
        Ok(Created::new(
            webhooks::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/webhooks",
        method = "get",
        operation_id = "list_webhooks"
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
    ) -> ApiResult<Json<WebhookPage>> {
        let page = params::page(page, limit);
        Ok(Json(webhooks::list(&ctx, &auth.0, &org_id, page).await?))
    }

    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId",
        method = "get",
        operation_id = "get_webhook"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> ApiResult<Json<Webhook>> {
        Ok(Json(
            webhooks::get(&ctx, &auth.0, &org_id, &webhook_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId",
        method = "put",
        operation_id = "update_webhook"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
        body: JsonBody<WebhookIn>,
    ) -> ApiResult<Json<Webhook>> {
        Ok(Json(
            webhooks::update(&ctx, &auth.0, &org_id, &webhook_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId",
        method = "patch",
        operation_id = "patch_webhook"
    )]
    async fn patch(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
        body: JsonBody<WebhookPatchIn>,
    ) -> ApiResult<Json<Webhook>> {
        Ok(Json(
            webhooks::patch(&ctx, &auth.0, &org_id, &webhook_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId",
        method = "delete",
        operation_id = "delete_webhook"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        webhooks::delete(&ctx, &auth.0, &org_id, &webhook_id).await?;
        Ok(Message::new("webhook deleted"))
    }

    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId/rotate-secret",
        method = "post",
        operation_id = "rotate_webhook_secret"
    )]
    async fn rotate_secret(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> ApiResult<Json<Webhook>> {
        Ok(Json(
            webhooks::rotate_secret(&ctx, &auth.0, &org_id, &webhook_id).await?,
        ))
    }

    /// The request waits for the endpoint's answer (at most 10 s).
    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId/test",
        method = "post",
        operation_id = "test_webhook"
    )]
    async fn test(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> ApiResult<Json<WebhookDelivery>> {
        Ok(Json(
            webhooks::test(&ctx, &auth.0, &org_id, &webhook_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId/deliveries",
        method = "get",
        operation_id = "list_webhook_deliveries"
    )]
    async fn deliveries(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
        /// Page number, from 1.
        page: PageQuery,
        /// Items per page, 1 to 100 (default 20).
        limit: LimitQuery,
    ) -> ApiResult<Json<DeliveryPage>> {
        let page = params::page(page, limit);
        Ok(Json(
            webhooks::deliveries(&ctx, &auth.0, &org_id, &webhook_id, page).await?,
        ))
    }

    /// `deliveryId` is the id of an attempt in the delivery log. The event goes out after the
    /// answer, through the delivery queue; its attempts appear in the log.
    #[oai(
        path = "/orgs/:orgId/webhooks/:webhookId/deliveries/:deliveryId/replay",
        method = "post",
        operation_id = "replay_webhook_delivery"
    )]
    async fn replay(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
        #[oai(name = "deliveryId")] delivery_id: Path<String>,
    ) -> ApiResult<Accepted<WebhookReplay>> {
        Ok(Accepted::new(
            webhooks::replay(&ctx, &auth.0, &org_id, &webhook_id, &delivery_id).await?,
        ))
    }
}
