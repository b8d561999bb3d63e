//! Shipping quotes (DESIGN §11): what a web shop asks at checkout, and the rates it gets.

use poem_openapi::Object;
use serde::Deserialize;

/// Where the goods go; `country` (ISO alpha-2) is required.
#[derive(Deserialize, Object, Default)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct DestinationIn {
    pub country: Option<String>,
    pub postal_code: Option<String>,
    pub province: Option<String>,
    pub city: Option<String>,
    pub address1: Option<String>,
    pub address2: Option<String>,
}

/// One item of the basket.
#[derive(Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
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
#[derive(Deserialize, Object)]
pub struct QuoteIn {
    pub destination: DestinationIn,
    #[oai(validator(min_items = 1))]
    pub items: Vec<QuoteItemIn>,
    pub currency: Option<String>,
}

/// One offer; `totalPrice` is in cents, as a string of digits.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShippingRate {
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

/// The rates, cheapest first.
#[derive(Object)]
pub struct QuoteOut {
    pub rates: Vec<ShippingRate>,
}
