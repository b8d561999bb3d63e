//! Sender addresses: /orgs/{orgId}/sender-addresses.

use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde::Deserialize;

use crate::{
    api::{ApiTags, Created, Message, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::address::{AddressFields, Customs, SenderAddress},
    page_of,
    service::{Ctx, sender_addresses},
};

pub struct SenderAddressesApi;

/// Customs identifiers of the sender.
#[derive(Object, Deserialize, Default, Clone)]
#[serde(default)]
pub struct CustomsDto {
    pub voec: Option<String>,
    pub eori: Option<String>,
    pub sprn: Option<String>,
    pub ioss: Option<String>,
    pub fda: Option<String>,
    pub duns: Option<String>,
}

crate::same_fields!(CustomsDto => Customs { voec, eori, sprn, ioss, fda, duns });

crate::same_fields!(Customs => CustomsDto { voec, eori, sprn, ioss, fda, duns });

/// A sender address to create, or the full replacement of one.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct SenderAddressIn {
    /// Label of the address.
    #[oai(validator(min_length = 1))]
    pub name: String,
    /// Attention contact.
    #[oai(validator(min_length = 1))]
    pub att_contact: String,
    #[oai(validator(min_length = 1))]
    pub address1: String,
    pub address2: Option<String>,
    #[oai(validator(min_length = 1))]
    pub zipcode: String,
    #[oai(validator(min_length = 1))]
    pub city: String,
    #[oai(validator(min_length = 1))]
    pub phone: String,
    /// ISO 3166-1 alpha-2 or alpha-3.
    #[oai(validator(min_length = 2, max_length = 3))]
    pub country_code: String,
    #[oai(validator(min_length = 1))]
    pub state: String,
    pub email: String,
    pub customs: Option<CustomsDto>,
}

impl From<SenderAddressIn> for AddressFields {
    fn from(v: SenderAddressIn) -> AddressFields {
        AddressFields {
            name: v.name,
            att_contact: v.att_contact,
            address1: v.address1,
            address2: v.address2,
            zipcode: v.zipcode,
            city: v.city,
            phone: v.phone,
            country_code: v.country_code,
            state: v.state,
            email: v.email,
            customs: v.customs.map(Into::into),
        }
    }
}

/// A sender address.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct SenderAddressOut {
    pub id: String,
    pub name: String,
    pub att_contact: String,
    pub address1: String,
    pub address2: Option<String>,
    pub zipcode: String,
    pub city: String,
    pub phone: String,
    pub country_code: String,
    pub state: String,
    pub email: String,
    pub customs: Option<CustomsDto>,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
}

impl From<SenderAddress> for SenderAddressOut {
    fn from(a: SenderAddress) -> SenderAddressOut {
        let f = a.fields;
        SenderAddressOut {
            id: a.id,
            name: f.name,
            att_contact: f.att_contact,
            address1: f.address1,
            address2: f.address2,
            zipcode: f.zipcode,
            city: f.city,
            phone: f.phone,
            country_code: f.country_code,
            state: f.state,
            email: f.email,
            customs: f.customs.map(Into::into),
            org_id: a.org_id,
            created_at: a.created_at,
            updated_at: a.updated_at,
        }
    }
}

page_of!(SenderAddressPage, SenderAddressOut);

#[OpenApi(tag = "ApiTags::SenderAddresses")]
impl SenderAddressesApi {
    /// Create a sender address. Scope: `write:sender_addresses`.
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
    ) -> ApiResult<Created<SenderAddressOut>> {
        Ok(Created::new(
            sender_addresses::create(&ctx, &auth.0, &org_id, body.into_input()).await?,
        ))
    }

    /// List sender addresses, newest first. Scope: `read:sender_addresses`.
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
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Items per page, 1 to 100 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "100")))]
        limit: Query<Option<i64>>,
    ) -> ApiResult<Json<SenderAddressPage>> {
        Ok(Json(
            sender_addresses::list(&ctx, &auth.0, &org_id, page.0, limit.0)
                .await?
                .into(),
        ))
    }

    /// Get a sender address. Scope: `read:sender_addresses`.
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
    ) -> ApiResult<Json<SenderAddressOut>> {
        Ok(Json(
            sender_addresses::get(&ctx, &auth.0, &org_id, &address_id)
                .await?
                .into(),
        ))
    }

    /// Replace a sender address. Scope: `write:sender_addresses`.
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
    ) -> ApiResult<Json<SenderAddressOut>> {
        Ok(Json(
            sender_addresses::update(&ctx, &auth.0, &org_id, &address_id, body.into_input())
                .await?
                .into(),
        ))
    }

    /// Delete a sender address; 409 while a carrier, rule or shipment uses it.
    /// Scope: `write:sender_addresses`.
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
