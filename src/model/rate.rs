//! Carrier rates: what the organization's carriers would charge to carry a
//! shipment, asked from their rating APIs in parallel.

use poem_openapi::Object;
use serde::Deserialize;

use crate::model::shipment::{CarrierSettings, Parcel, Party, PickupDetails};

/// A shipment to rate: `shipmentId` of a stored one, or a shipment body as for create (its
/// `reference`, `carrierSettings` and the other fields rates does not need may be left out; they
/// are not used).
#[derive(Clone, Debug, Default, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct RatesIn {
    /// A stored shipment to rate, instead of a shipment body.
    pub shipment_id: Option<String>,
    pub reference: Option<String>,
    pub sender_address_id: Option<String>,
    /// Exactly one receiver; a missing sender is filled from the sender address.
    pub parties: Option<Vec<Party>>,
    /// outbound (default) or inbound.
    #[serde(rename = "type")]
    #[oai(rename = "type")]
    pub kind: Option<String>,
    pub carrier_settings: Option<CarrierSettings>,
    pub parcels: Option<Vec<Parcel>>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetails>,
    pub term_of_trade: Option<String>,
    pub order_id: Option<String>,
    pub language: Option<String>,
}

/// One offer of a carrier: a product and its price.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Rate {
    pub carrier_id: String,
    pub carrier_name: String,
    pub carrier_slug: String,
    /// The carrier's product (what `carrierSettings.productId` takes).
    pub product_id: String,
    pub product_name: String,
    /// The price with two decimals, e.g. "123.45".
    pub price: String,
    /// ISO 4217.
    pub currency: String,
    /// The day the carrier expects to deliver (YYYY-MM-DD), when it says.
    pub estimated_delivery: Option<String>,
    /// Working days on the way, when the carrier says.
    pub transit_days: Option<u32>,
}

/// A carrier that gave no offers, and why.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct RateError {
    pub carrier_id: String,
    pub carrier_name: String,
    pub carrier_slug: String,
    /// `no_rating_api`, `carrier_timeout`, `carrier_rejected`, `carrier_unavailable` or
    /// `invalid_state` (the shipment lacks what the carrier needs to price it).
    pub code: String,
    pub message: String,
}

/// The offers, cheapest first, and the carriers that gave none.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct RatesOut {
    pub data: Vec<Rate>,
    pub errors: Vec<RateError>,
}
