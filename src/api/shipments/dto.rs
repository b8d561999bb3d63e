//! The JSON forms of a shipment and its parts (SPEC §2), and their conversions.

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::STANDARD};
use poem_openapi::Object;
use serde::Deserialize;
use serde_json::Value;

use crate::{
    api::sender_addresses::SenderAddressOut,
    model::{
        address::SenderAddress,
        document::Document,
        rule::ShippingRule,
        shipment::{
            CarrierSettings, Dimensions, OrderLine, Parcel, Party, PickupDetails, Shipment,
            ShipmentBody, Tracking, TrackingEvent,
        },
    },
    service::shipments::{NewShipment, ShipmentView},
};

/// A party of a shipment.
#[derive(Object, Deserialize, Clone)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct PartyDto {
    /// sender, receiver, pickup, billing, freight_payer, service_point or return.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub address1: String,
    pub postal_code: String,
    pub city: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    #[oai(default)]
    #[serde(default)]
    pub attributes: Vec<Value>,
    pub attention: Option<String>,
    pub address2: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

crate::same_fields!(PartyDto => Party { kind, name, address1, postal_code, city, country_code, attributes, attention, address2, email, phone });

crate::same_fields!(Party => PartyDto { kind, name, address1, postal_code, city, country_code, attributes, attention, address2, email, phone });

/// Carrier, product, services and extra parameters of a shipment.
#[derive(Object, Deserialize, Clone)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct CarrierSettingsDto {
    pub carrier_id: String,
    pub product_id: String,
    #[oai(default)]
    #[serde(default)]
    pub services: Vec<String>,
    #[oai(default)]
    #[serde(default)]
    pub additional_parameters: BTreeMap<String, Value>,
}

impl From<CarrierSettingsDto> for CarrierSettings {
    fn from(c: CarrierSettingsDto) -> CarrierSettings {
        CarrierSettings {
            carrier_id: c.carrier_id,
            product_id: c.product_id,
            services: c.services,
            additional_parameters: c.additional_parameters.into_iter().collect(),
        }
    }
}

impl From<CarrierSettings> for CarrierSettingsDto {
    fn from(c: CarrierSettings) -> CarrierSettingsDto {
        CarrierSettingsDto {
            carrier_id: c.carrier_id,
            product_id: c.product_id,
            services: c.services,
            additional_parameters: c.additional_parameters.into_iter().collect(),
        }
    }
}

/// Outer size in cm.
#[derive(Object, Deserialize, Clone, Copy)]
pub struct DimensionsDto {
    pub length: f64,
    pub width: f64,
    pub height: f64,
}

/// A line of goods in a parcel.
#[derive(Object, Deserialize, Clone)]
#[oai(rename = "ParcelOrderLine", rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct OrderLineDto {
    /// Assigned by the server when absent.
    pub id: Option<String>,
    pub sku: String,
    /// At least 1.
    pub quantity: i64,
    pub description: Option<String>,
    pub unit_price: Option<f64>,
    pub currency: Option<String>,
    pub vat_percent: Option<f64>,
    pub location: Option<String>,
    pub country_of_origin: Option<String>,
    pub tarrif_number: Option<String>,
}

impl From<OrderLineDto> for OrderLine {
    fn from(l: OrderLineDto) -> OrderLine {
        let OrderLineDto {
            id,
            sku,
            quantity,
            description,
            unit_price,
            currency,
            vat_percent,
            location,
            country_of_origin,
            tarrif_number,
        } = l;
        let id = id.unwrap_or_default();
        OrderLine {
            id,
            sku,
            quantity,
            description,
            unit_price,
            currency,
            vat_percent,
            location,
            country_of_origin,
            tarrif_number,
        }
    }
}

impl From<OrderLine> for OrderLineDto {
    fn from(l: OrderLine) -> OrderLineDto {
        let OrderLine {
            id,
            sku,
            quantity,
            description,
            unit_price,
            currency,
            vat_percent,
            location,
            country_of_origin,
            tarrif_number,
        } = l;
        let id = Some(id);
        OrderLineDto {
            id,
            sku,
            quantity,
            description,
            unit_price,
            currency,
            vat_percent,
            location,
            country_of_origin,
            tarrif_number,
        }
    }
}

/// A parcel and the order lines packed in it.
#[derive(Object, Deserialize, Clone)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ParcelDto {
    /// Assigned by the server when absent.
    pub id: Option<String>,
    /// Greater than 0.
    pub weight: f64,
    /// kg (default), g, lb or oz.
    pub weight_unit: Option<String>,
    pub dimensions: Option<DimensionsDto>,
    #[oai(default)]
    #[serde(default)]
    pub order_lines: Vec<OrderLineDto>,
}

impl From<ParcelDto> for Parcel {
    fn from(p: ParcelDto) -> Parcel {
        Parcel {
            id: p.id.unwrap_or_default(),
            weight: p.weight,
            weight_unit: p.weight_unit.unwrap_or_else(|| "kg".into()),
            dimensions: p.dimensions.map(|d| Dimensions {
                length: d.length,
                width: d.width,
                height: d.height,
            }),
            order_lines: p.order_lines.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<Parcel> for ParcelDto {
    fn from(p: Parcel) -> ParcelDto {
        ParcelDto {
            id: Some(p.id),
            weight: p.weight,
            weight_unit: Some(p.weight_unit),
            dimensions: p.dimensions.map(|d| DimensionsDto {
                length: d.length,
                width: d.width,
                height: d.height,
            }),
            order_lines: p.order_lines.into_iter().map(Into::into).collect(),
        }
    }
}

/// When and how the carrier picks up.
#[derive(Object, Deserialize, Clone)]
pub struct PickupDetailsDto {
    pub date: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub instruction: Option<String>,
}

crate::same_fields!(PickupDetailsDto => PickupDetails { date, from, to, instruction });

crate::same_fields!(PickupDetails => PickupDetailsDto { date, from, to, instruction });

/// One tracking event.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct TrackingEventOut {
    pub status: String,
    pub description: Option<String>,
    pub location: Option<String>,
    pub occurred_at: String,
}

/// Tracking number, link, status and events (newest first).
#[derive(Object)]
pub struct TrackingOut {
    pub url: Option<String>,
    pub number: Option<String>,
    pub status: Option<String>,
    pub events: Vec<TrackingEventOut>,
}

impl From<Tracking> for TrackingOut {
    fn from(t: Tracking) -> TrackingOut {
        TrackingOut {
            url: t.url,
            number: t.number,
            status: t.status,
            events: t
                .events
                .into_iter()
                .map(
                    |TrackingEvent {
                         status,
                         description,
                         location,
                         occurred_at,
                     }| TrackingEventOut {
                        status,
                        description,
                        location,
                        occurred_at,
                    },
                )
                .collect(),
        }
    }
}

/// A document of a shipment; `content` is the file, base64-encoded.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct DocumentOut {
    pub id: String,
    pub shipment_id: String,
    /// `label`.
    pub document_type: String,
    /// `pdf`.
    pub format: String,
    pub content: String,
    /// `A4` or `100X150`.
    pub size: String,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Document> for DocumentOut {
    fn from(d: Document) -> DocumentOut {
        DocumentOut {
            id: d.id,
            shipment_id: d.shipment_id,
            document_type: d.document_type,
            format: d.format,
            content: STANDARD.encode(&d.content),
            size: d.size,
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

/// A shipment to create.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ShipmentIn {
    #[oai(validator(min_length = 1))]
    pub reference: String,
    pub sender_address_id: String,
    /// At least one; exactly one receiver. A missing sender is filled from the sender address.
    #[oai(validator(min_items = 1))]
    pub parties: Vec<PartyDto>,
    /// outbound or inbound.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    pub carrier_settings: CarrierSettingsDto,
    #[oai(validator(min_items = 1))]
    pub parcels: Vec<ParcelDto>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetailsDto>,
    /// Incoterm; default DAP.
    pub term_of_trade: Option<String>,
    /// One of the eight statuses; default pending.
    pub status: Option<String>,
    pub order_id: Option<String>,
}

impl From<ShipmentIn> for NewShipment {
    fn from(v: ShipmentIn) -> NewShipment {
        NewShipment {
            reference: v.reference,
            sender_address_id: v.sender_address_id,
            kind: v.kind,
            status: v.status,
            term_of_trade: v.term_of_trade,
            order_id: v.order_id,
            body: ShipmentBody {
                parties: v.parties.into_iter().map(Into::into).collect(),
                carrier_settings: v.carrier_settings.into(),
                parcels: v.parcels.into_iter().map(Into::into).collect(),
                service_point_id: v.service_point_id,
                pickup_details: v.pickup_details.map(Into::into),
                tracking: None,
            },
        }
    }
}

/// The shipping rule applied to a shipment.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ShippingRuleSummaryOut {
    pub id: String,
    pub name: String,
    pub carrier_id: String,
    pub product_id: String,
    pub services: Vec<String>,
    pub sender_address_id: String,
    pub return_shipping_rule_id: Option<String>,
    pub auto_create_return_shipment: bool,
}

impl From<ShippingRule> for ShippingRuleSummaryOut {
    fn from(r: ShippingRule) -> ShippingRuleSummaryOut {
        ShippingRuleSummaryOut {
            id: r.id,
            name: r.fields.name,
            carrier_id: r.fields.carrier_id,
            product_id: r.fields.settings.product_id,
            services: r.fields.settings.services,
            sender_address_id: r.fields.sender_address_id,
            return_shipping_rule_id: r.fields.return_shipping_rule_id,
            auto_create_return_shipment: r.fields.settings.auto_create_return_shipment,
        }
    }
}

/// A shipment (full form).
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentOut {
    pub id: String,
    pub reference: String,
    pub sender_address_id: String,
    pub parties: Vec<PartyDto>,
    #[oai(rename = "type")]
    pub kind: String,
    pub carrier_settings: CarrierSettingsDto,
    pub parcels: Vec<ParcelDto>,
    pub term_of_trade: String,
    pub status: String,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetailsDto>,
    pub tracking: Option<TrackingOut>,
    pub documents: Vec<DocumentOut>,
    pub order_id: Option<String>,
    pub shipping_rule_id: Option<String>,
    pub shipping_rule: Option<ShippingRuleSummaryOut>,
    /// The shipment this one returns, for return shipments.
    pub return_of: Option<String>,
}

impl From<ShipmentView> for ShipmentOut {
    fn from(v: ShipmentView) -> ShipmentOut {
        let s = v.shipment;
        ShipmentOut {
            id: s.id,
            reference: s.reference,
            sender_address_id: s.sender_address_id,
            parties: s.body.parties.into_iter().map(Into::into).collect(),
            kind: s.kind,
            carrier_settings: s.body.carrier_settings.into(),
            parcels: s.body.parcels.into_iter().map(Into::into).collect(),
            term_of_trade: s.term_of_trade,
            status: s.status,
            org_id: s.org_id,
            created_at: s.created_at,
            updated_at: s.updated_at,
            service_point_id: s.body.service_point_id,
            pickup_details: s.body.pickup_details.map(Into::into),
            tracking: s.body.tracking.map(Into::into),
            documents: v.documents.into_iter().map(Into::into).collect(),
            order_id: s.order_id,
            shipping_rule_id: s.shipping_rule_id,
            shipping_rule: v.rule.map(Into::into),
            return_of: s.return_of,
        }
    }
}

/// A shipment as the list shows it.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentListItem {
    pub id: String,
    pub reference: String,
    #[oai(rename = "type")]
    pub kind: String,
    pub carrier_settings: CarrierSettingsDto,
    pub status: String,
    pub sender_address: SenderAddressOut,
    pub created_at: String,
    pub updated_at: String,
}

impl From<(Shipment, SenderAddress)> for ShipmentListItem {
    fn from((s, address): (Shipment, SenderAddress)) -> ShipmentListItem {
        ShipmentListItem {
            id: s.id,
            reference: s.reference,
            kind: s.kind,
            carrier_settings: s.body.carrier_settings.into(),
            status: s.status,
            sender_address: address.into(),
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}
