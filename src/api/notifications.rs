//! Receivers' e-mail settings: GET and PUT /orgs/{orgId}/notification-settings, and POST
//! /orgs/{orgId}/notification-settings/preview.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::notification::{NotificationPreview, NotificationPreviewIn, NotificationSettings},
    service::{Ctx, notifications},
};

pub struct NotificationsApi;

#[OpenApi(tag = "ApiTags::Organizations")]
impl NotificationsApi {
    #[oai(
        path = "/orgs/:orgId/notification-settings",
        method = "get",
        operation_id = "get_notification_settings"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<NotificationSettings>> {
        Ok(Json(notifications::get(&ctx, &auth.0, &org_id).await?))
    }

    /// Replaces the settings: an event left out is off with the built-in words. A template
    /// that does not compile is refused naming its field (`booked.subject`).
    #[oai(
        path = "/orgs/:orgId/notification-settings",
        method = "put",
        operation_id = "update_notification_settings"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<NotificationSettings>,
    ) -> ApiResult<Json<NotificationSettings>> {
        Ok(Json(
            notifications::update(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/notification-settings/preview",
        method = "post",
        operation_id = "preview_notification"
    )]
    async fn preview(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<NotificationPreviewIn>,
    ) -> ApiResult<Json<NotificationPreview>> {
        Ok(Json(
            notifications::preview(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }
}
