//! Shipping quotes: POST /orgs/{orgId}/shipping-quote (Shopify carrier-service conventions).

use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Path, payload::Json};
use serde::Deserialize;

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    service::{
        Ctx,
        quotes::{self, QuoteItem, QuoteRequest, Rate},
    },
};

pub struct QuotesApi;

/// Where the goods go; `country` (ISO alpha-2) is required.
#[derive(Object, Deserialize, Default)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase", default)]
pub struct DestinationIn {
    pub country: Option<String>,
    pub postal_code: Option<String>,
    pub province: Option<String>,
    pub city: Option<String>,
    pub address1: Option<String>,
    pub address2: Option<String>,
}

/// One item of the basket.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct QuoteItemIn {
    pub name: Option<String>,
    pub quantity: i64,
    /// Weight of one unit in grams.
    pub grams: f64,
    /// Price of one unit in cents.
    pub price: f64,
    pub sku: Option<String>,
    pub product_id: Option<String>,
    pub variant_id: Option<String>,
}

/// A basket to price.
#[derive(Object, Deserialize)]
pub struct QuoteIn {
    pub destination: DestinationIn,
    #[oai(validator(min_items = 1))]
    pub items: Vec<QuoteItemIn>,
    pub currency: Option<String>,
}

impl From<QuoteIn> for QuoteRequest {
    fn from(v: QuoteIn) -> QuoteRequest {
        QuoteRequest {
            country: v.destination.country,
            items: v
                .items
                .into_iter()
                .map(|i| QuoteItem {
                    quantity: i.quantity,
                    grams: i.grams,
                    price: i.price,
                })
                .collect(),
        }
    }
}

/// One offer; `totalPrice` is in cents, as a string of digits.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct RateOut {
    pub service_name: String,
    pub service_code: String,
    pub total_price: String,
    pub currency: String,
    pub shipping_rule_id: String,
    pub description: Option<String>,
    pub min_delivery_date: Option<String>,
    pub max_delivery_date: Option<String>,
    pub carrier_name: String,
    pub carrier_slug: String,
    pub product_id: String,
}

impl From<Rate> for RateOut {
    fn from(r: Rate) -> RateOut {
        RateOut {
            service_name: r.service_name,
            service_code: r.service_code,
            total_price: r.total_price.to_string(),
            currency: r.currency,
            shipping_rule_id: r.shipping_rule_id,
            description: r.description,
            min_delivery_date: None,
            max_delivery_date: None,
            carrier_name: r.carrier_name,
            carrier_slug: r.carrier_slug,
            product_id: r.product_id,
        }
    }
}

/// The rates, cheapest first.
#[derive(Object)]
pub struct QuoteOut {
    pub rates: Vec<RateOut>,
}

#[OpenApi(tag = "ApiTags::ShippingRules")]
impl QuotesApi {
    /// Quote rates from the shipping rules: one per matching rule condition, cheapest first.
    /// Scope: `read:shipping_rules`.
    #[oai(
        path = "/orgs/:orgId/shipping-quote",
        method = "post",
        operation_id = "quote_shipping_rates"
    )]
    async fn quote(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<QuoteIn>,
    ) -> ApiResult<Json<QuoteOut>> {
        let rates = quotes::quote(&ctx, &auth.0, &org_id, body.into_input()).await?;
        Ok(Json(QuoteOut {
            rates: rates.into_iter().map(Into::into).collect(),
        }))
    }
}
