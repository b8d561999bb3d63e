//! Sender addresses: /orgs/{orgId}/sender-addresses.

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
    model::sender_address::{SenderAddress, SenderAddressIn, SenderAddressPage},
    service::{Ctx, sender_addresses},
};

pub struct SenderAddressesApi;

#[OpenApi(tag = "ApiTags::SenderAddresses")]
impl SenderAddressesApi {
    #[oai(
        path = "/orgs/:orgId/sender-addresses",
        method = "post",
        operation_id = "create_sender_address"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<SenderAddressIn>,
    ) -> ApiResult<Created<SenderAddress>> {
        Ok(Created::new(
            sender_addresses::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/sender-addresses",
        method = "get",
        operation_id = "list_sender_addresses"
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
    ) -> ApiResult<Json<SenderAddressPage>> {
        let page = params::page(page, limit);
        Ok(Json(
            sender_addresses::list(&ctx, &auth.0, &org_id, page).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/sender-addresses/:addressId",
        method = "get",
        operation_id = "get_sender_address"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "addressId")] address_id: Path<String>,
    ) -> ApiResult<Json<SenderAddress>> {
        Ok(Json(
            sender_addresses::get(&ctx, &auth.0, &org_id, &address_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/sender-addresses/:addressId",
        method = "put",
        operation_id = "update_sender_address"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "addressId")] address_id: Path<String>,
        body: JsonBody<SenderAddressIn>,
    ) -> ApiResult<Json<SenderAddress>> {
        Ok(Json(
            sender_addresses::update(&ctx, &auth.0, &org_id, &address_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/sender-addresses/:addressId",
        method = "delete",
        operation_id = "delete_sender_address"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "addressId")] address_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        sender_addresses::delete(&ctx, &auth.0, &org_id, &address_id).await?;
        Ok(Message::new("sender address deleted"))
    }
}
