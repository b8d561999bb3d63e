//! The public forms of a shipment (SPEC §2): the full form, the list item, and the summary inside
//! an order. REST answers, MCP results, webhook payloads and the CLI all show these.

use poem_openapi::Object;

use crate::model::{
    document::Document,
    sender_address::SenderAddress,
    shipment::{CarrierSettings, ShipmentRecord, Tracking},
    shipping_rule::ShippingRuleSummary,
    status::ShipmentStatus,
};

/// A shipment (full form) with its documents and the rule applied to it.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Shipment {
    #[oai(flatten)]
    pub shipment: ShipmentRecord,
    pub documents: Vec<Document>,
    pub shipping_rule: Option<ShippingRuleSummary>,
}

/// A shipment as the list shows it.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentListItem {
    pub id: String,
    pub reference: String,
    #[oai(rename = "type")]
    pub kind: String,
    pub carrier_settings: CarrierSettings,
    pub status: ShipmentStatus,
    pub sender_address: SenderAddress,
    pub created_at: String,
    pub updated_at: String,
}

impl ShipmentListItem {
    pub fn new(s: ShipmentRecord, sender_address: SenderAddress) -> ShipmentListItem {
        ShipmentListItem {
            id: s.id,
            reference: s.reference,
            kind: s.kind,
            carrier_settings: s.body.carrier_settings,
            status: s.status,
            sender_address,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// A shipment as a table of many shows it (the workbench's list), read from the row's columns
/// rather than its representation.
#[derive(Clone, Debug, PartialEq)]
pub struct ShipmentLine {
    pub id: String,
    pub reference: String,
    pub status: String,
    pub product_id: String,
    pub sender_address_id: String,
    pub created_at: String,
}

/// A shipment as an order shows it.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentSummary {
    pub id: String,
    pub reference: String,
    pub status: ShipmentStatus,
    #[oai(rename = "type")]
    pub kind: String,
    pub carrier_settings: CarrierSettings,
    pub created_at: String,
    pub updated_at: String,
    pub tracking: Option<Tracking>,
    pub shipping_rule_id: Option<String>,
    pub documents: Vec<Document>,
}

impl ShipmentSummary {
    pub fn new(s: ShipmentRecord, documents: Vec<Document>) -> ShipmentSummary {
        ShipmentSummary {
            id: s.id,
            reference: s.reference,
            status: s.status,
            kind: s.kind,
            carrier_settings: s.body.carrier_settings,
            created_at: s.created_at,
            updated_at: s.updated_at,
            tracking: s.body.tracking,
            shipping_rule_id: s.shipping_rule_id,
            documents,
        }
    }
}

crate::page_of!(ShipmentPage, ShipmentListItem);
