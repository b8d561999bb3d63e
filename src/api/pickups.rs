//! Pickups: /orgs/{orgId}/pickups.

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
    model::pickup::{Pickup, PickupIn, PickupPage},
    service::{Ctx, pickups},
};

pub struct PickupsApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl PickupsApi {
    /// The pickup is written before the carrier is asked and its id is the carrier's
    /// reference: a carrier that refuses leaves nothing; one that does not answer in time
    /// leaves the pickup `unknown`, to be looked up with the carrier and cancelled here.
    #[oai(
        path = "/orgs/:orgId/pickups",
        method = "post",
        operation_id = "create_pickup"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<PickupIn>,
    ) -> ApiResult<Created<Pickup>> {
        Ok(Created::new(
            pickups::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/pickups",
        method = "get",
        operation_id = "list_pickups"
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
    ) -> ApiResult<Json<PickupPage>> {
        let page = params::page(page, limit);
        Ok(Json(pickups::list(&ctx, &auth.0, &org_id, page).await?))
    }

    #[oai(
        path = "/orgs/:orgId/pickups/:pickupId",
        method = "get",
        operation_id = "get_pickup"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "pickupId")] pickup_id: Path<String>,
    ) -> ApiResult<Json<Pickup>> {
        Ok(Json(
            pickups::get(&ctx, &auth.0, &org_id, &pickup_id).await?,
        ))
    }

    /// Cancels with the carrier when it booked the pickup; the pickup stays, `cancelled`.
    #[oai(
        path = "/orgs/:orgId/pickups/:pickupId",
        method = "delete",
        operation_id = "cancel_pickup"
    )]
    async fn cancel(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "pickupId")] pickup_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        let message = pickups::cancel(&ctx, &auth.0, &org_id, &pickup_id).await?;
        Ok(Message::new(message))
    }
}
