//! The bodies and answers of the operations on one shipment: edit, book, status, rules,
//! split and batch split, tracking events.

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::Deserialize;
use serde_json::Value;

use crate::model::{
    shipment::{Parcel, Party, PickupDetails, Shipment},
    status::{ShipmentStatus, TrackingStatus},
};

/// The fields a patch may change (all optional; `null` clears an optional field). Arrays are
/// replaced whole; `carrierSettings` merges field by field.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentPatch {
    pub reference: Option<String>,
    pub sender_address_id: Option<String>,
    pub parties: Option<Vec<Party>>,
    /// outbound or inbound.
    #[oai(rename = "type")]
    pub kind: Option<String>,
    /// The carrier settings to change: carrierId, productId, services, additionalParameters.
    pub carrier_settings: Option<BTreeMap<String, Value>>,
    pub parcels: Option<Vec<Parcel>>,
    pub term_of_trade: Option<String>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetails>,
    pub order_id: Option<String>,
    /// en, da, sv, nb, fi or de; null lets the reader's browser or the receiver's country decide.
    pub language: Option<String>,
}

/// The optional body of a booking.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Object)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct BookIn {
    /// Documents to make besides the labels: `commercial_invoice`, `proforma_invoice`,
    /// `packing_list`. Without it the shipment's shipping rule decides (its
    /// `generateCommercialInvoice`, `generateProformaInvoice` and `generatePackingList`).
    pub documents: Option<Vec<String>>,
    /// When an earlier booking of the shipment ended without knowing whether the carrier booked
    /// it (the error `booking_outcome_unknown`): `book_again` gives that attempt up and books anew.
    pub after_unknown_outcome: Option<crate::model::booking::AfterUnknownOutcome>,
}

/// Moves order lines (or, without `orderLineIds`, the whole parcel) into one new shipment
///.
#[derive(Debug, Deserialize, Object, Default)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct SplitIn {
    /// Whole order lines to move; absent or empty moves the whole parcel.
    pub order_line_ids: Option<Vec<String>>,
    pub carrier_id: Option<String>,
    pub product_id: Option<String>,
    pub services: Option<Vec<String>>,
    pub additional_parameters: Option<BTreeMap<String, Value>>,
    /// Default `<original reference>-<n>`.
    pub reference: Option<String>,
}

/// Units of one order line.
#[derive(Debug, Deserialize, Object)]
pub struct LineQuantityIn {
    pub id: String,
    /// At least 1, at most what the parcel holds (over all new shipments together).
    pub quantity: i64,
}

/// One new shipment of a batch split.
#[derive(Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct BatchItemIn {
    #[oai(validator(min_items = 1))]
    pub order_lines: Vec<LineQuantityIn>,
    /// Default `<original reference>-<n>`.
    pub reference: Option<String>,
}

/// Moves quantities of order lines into several new shipments, all or nothing.
#[derive(Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct BatchSplitIn {
    #[oai(validator(min_items = 1))]
    pub shipments: Vec<BatchItemIn>,
    pub carrier_id: Option<String>,
    pub product_id: Option<String>,
    pub services: Option<Vec<String>>,
    pub additional_parameters: Option<BTreeMap<String, Value>>,
}

/// The original shipment after a batch split and the new ones.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct BatchSplitOut {
    pub original_shipment: Shipment,
    pub new_shipments: Vec<Shipment>,
}

/// The original shipment after a split and the new one.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct SplitOut {
    pub original_shipment: Shipment,
    pub new_shipment: Shipment,
}

/// A tracking event to record.
#[derive(Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct TrackingEventIn {
    pub status: TrackingStatus,
    pub description: Option<String>,
    pub location: Option<String>,
    /// RFC 3339; now when absent.
    pub occurred_at: Option<String>,
}

/// The status to move to.
#[derive(Debug, Deserialize, Object)]
pub struct StatusIn {
    pub status: ShipmentStatus,
}

/// The rule to apply.
#[derive(Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ApplyRuleIn {
    pub shipping_rule_id: String,
}
