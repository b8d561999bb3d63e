//! Carriers: /orgs/{orgId}/carriers and /orgs/{orgId}/available-carriers.

use std::collections::BTreeMap;

use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde::Deserialize;
use serde_json::Value;

use crate::{
    api::{
        ApiTags, Created, Message, body::JsonBody, problem::ApiResult, security::BearerAuth,
        sender_addresses::SenderAddressOut,
    },
    carriers::{CarrierField, CarrierInfo, Offer},
    model::{
        address::SenderAddress,
        carrier::{Carrier, CarrierFields},
    },
    page_of,
    service::{Ctx, carriers},
};

pub struct CarriersApi;

/// A carrier to create, or the full replacement of one.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct CarrierIn {
    #[oai(validator(min_length = 1))]
    pub name: String,
    /// The carrier type: a `slug` of GET /orgs/{orgId}/available-carriers.
    #[oai(validator(min_length = 1))]
    pub carrier_slug: String,
    /// Settings of the carrier type; its `requiredFields` must be present.
    pub config: BTreeMap<String, Value>,
    pub sender_address_id: String,
}

impl From<CarrierIn> for CarrierFields {
    fn from(v: CarrierIn) -> CarrierFields {
        CarrierFields {
            name: v.name,
            carrier_slug: v.carrier_slug,
            config: v.config.into_iter().collect(),
            sender_address_id: v.sender_address_id,
        }
    }
}

/// A configured carrier.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct CarrierOut {
    pub id: String,
    pub name: String,
    pub carrier_slug: String,
    pub config: BTreeMap<String, Value>,
    pub sender_address_id: String,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
    /// The carrier's sender address (absent where a carrier is embedded in a shipping rule).
    #[oai(skip_serializing_if_is_none)]
    pub sender_address: Option<SenderAddressOut>,
}

impl From<Carrier> for CarrierOut {
    fn from(c: Carrier) -> CarrierOut {
        CarrierOut {
            id: c.id,
            name: c.fields.name,
            carrier_slug: c.fields.carrier_slug,
            config: c.fields.config.into_iter().collect(),
            sender_address_id: c.fields.sender_address_id,
            org_id: c.org_id,
            created_at: c.created_at,
            updated_at: c.updated_at,
            sender_address: None,
        }
    }
}

impl From<(Carrier, SenderAddress)> for CarrierOut {
    fn from((carrier, address): (Carrier, SenderAddress)) -> CarrierOut {
        CarrierOut {
            sender_address: Some(address.into()),
            ..carrier.into()
        }
    }
}

page_of!(CarrierPage, CarrierOut);

/// One choice of a select field.
#[derive(Object)]
pub struct CarrierFieldOptionOut {
    pub name: String,
    pub key: String,
    pub value: String,
}

/// A configuration field of a carrier type.
#[derive(Object)]
pub struct CarrierFieldOut {
    pub name: String,
    pub key: String,
    /// `string`, `password` or `select`.
    #[oai(rename = "type")]
    pub kind: String,
    pub description: String,
    pub options: Vec<CarrierFieldOptionOut>,
    pub required: bool,
}

impl From<&CarrierField> for CarrierFieldOut {
    fn from(f: &CarrierField) -> CarrierFieldOut {
        CarrierFieldOut {
            name: f.name.into(),
            key: f.key.into(),
            kind: f.kind.into(),
            description: f.description.into(),
            options: f
                .options
                .iter()
                .map(|o| CarrierFieldOptionOut {
                    name: o.name.into(),
                    key: o.key.into(),
                    value: o.value.into(),
                })
                .collect(),
            required: f.required,
        }
    }
}

/// A product or service a carrier type offers.
#[derive(Object)]
pub struct OfferOut {
    pub id: String,
    pub name: String,
}

impl From<&Offer> for OfferOut {
    fn from(o: &Offer) -> OfferOut {
        OfferOut {
            id: o.id.into(),
            name: o.name.into(),
        }
    }
}

/// A carrier type this server can book with.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct AvailableCarrierOut {
    pub name: String,
    pub slug: String,
    pub group: String,
    pub description: String,
    pub logo: Option<String>,
    pub learn_more_url: Option<String>,
    pub required_fields: Vec<CarrierFieldOut>,
    pub optional_fields: Vec<CarrierFieldOut>,
    pub products: Vec<OfferOut>,
    pub services: Vec<OfferOut>,
}

impl From<CarrierInfo> for AvailableCarrierOut {
    fn from(info: CarrierInfo) -> AvailableCarrierOut {
        let (required, optional): (Vec<_>, Vec<_>) = info.fields.iter().partition(|f| f.required);
        AvailableCarrierOut {
            name: info.name.into(),
            slug: info.slug.into(),
            group: info.group.into(),
            description: info.description.into(),
            logo: None,
            learn_more_url: None,
            required_fields: required.into_iter().map(Into::into).collect(),
            optional_fields: optional.into_iter().map(Into::into).collect(),
            products: info.products.iter().map(Into::into).collect(),
            services: info.services.iter().map(Into::into).collect(),
        }
    }
}

#[OpenApi(tag = "ApiTags::Carriers")]
impl CarriersApi {
    /// Create a carrier. Scope: `write:carriers`.
    #[oai(
        path = "/orgs/:orgId/carriers",
        method = "post",
        operation_id = "create_carrier"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<CarrierIn>,
    ) -> ApiResult<Created<CarrierOut>> {
        Ok(Created::new(
            carriers::create(&ctx, &auth.0, &org_id, body.into_input()).await?,
        ))
    }

    /// List carriers, newest first, each with its sender address. Scope: `read:carriers`.
    #[oai(
        path = "/orgs/:orgId/carriers",
        method = "get",
        operation_id = "list_carriers"
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
    ) -> ApiResult<Json<CarrierPage>> {
        Ok(Json(
            carriers::list(&ctx, &auth.0, &org_id, page.0, limit.0)
                .await?
                .into(),
        ))
    }

    /// Get a carrier. Scope: `read:carriers`.
    #[oai(
        path = "/orgs/:orgId/carriers/:carrierId",
        method = "get",
        operation_id = "get_carrier"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "carrierId")] carrier_id: Path<String>,
    ) -> ApiResult<Json<CarrierOut>> {
        Ok(Json(
            carriers::get(&ctx, &auth.0, &org_id, &carrier_id)
                .await?
                .into(),
        ))
    }

    /// Replace a carrier. Scope: `write:carriers`.
    #[oai(
        path = "/orgs/:orgId/carriers/:carrierId",
        method = "put",
        operation_id = "update_carrier"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "carrierId")] carrier_id: Path<String>,
        body: JsonBody<CarrierIn>,
    ) -> ApiResult<Json<CarrierOut>> {
        Ok(Json(
            carriers::update(&ctx, &auth.0, &org_id, &carrier_id, body.into_input())
                .await?
                .into(),
        ))
    }

    /// Delete a carrier; 409 while a shipping rule uses it. Scope: `write:carriers`.
    #[oai(
        path = "/orgs/:orgId/carriers/:carrierId",
        method = "delete",
        operation_id = "delete_carrier"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "carrierId")] carrier_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        carriers::delete(&ctx, &auth.0, &org_id, &carrier_id).await?;
        Ok(Message::new("carrier deleted"))
    }

    /// The carrier types this server can book with (a plain array). Scope: `read:carriers`.
    #[oai(
        path = "/orgs/:orgId/available-carriers",
        method = "get",
        operation_id = "list_available_carriers"
    )]
    async fn available(
        &self,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<Vec<AvailableCarrierOut>>> {
        Ok(Json(
            carriers::available(&auth.0, &org_id)?
                .into_iter()
                .map(Into::into)
                .collect(),
        ))
    }
}
