//! The JSON forms of an order (SPEC §2 Order) and of a shipment summary inside it.

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::Deserialize;
use serde_json::Value;

use crate::{
    api::shipments::dto::{
        CarrierSettingsDto, DocumentOut, PartyDto, PickupDetailsDto, ShippingRuleSummaryOut,
        TrackingOut,
    },
    model::{
        document::Document,
        order::{OrderBody, OrderLine, ShippingAddress},
        shipment::Shipment,
    },
    service::orders::{NewOrder, OrderShipment, OrderView},
};

/// A line of an order.
#[derive(Object, Deserialize, Clone)]
#[oai(rename = "OrderLine", rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct OrderLineDto {
    pub name: String,
    /// Greater than 0.
    pub quantity: f64,
    pub sku: Option<String>,
    pub unit_price: Option<f64>,
    pub total_price: Option<f64>,
    pub currency: Option<String>,
    /// Weight of one unit.
    pub weight: Option<f64>,
    /// kg, g, lb or oz.
    pub weight_unit: Option<String>,
    pub variant_id: Option<String>,
    pub product_id: Option<String>,
    pub image_url: Option<String>,
    pub hs_code: Option<String>,
    pub country_of_origin: Option<String>,
    pub province_of_origin: Option<String>,
    pub barcode: Option<String>,
    pub requires_shipping: Option<bool>,
    pub taxable: Option<bool>,
    pub gift_card: Option<bool>,
    pub vendor: Option<String>,
}

crate::same_fields!(OrderLineDto => OrderLine {
    name, quantity, sku, unit_price, total_price, currency, weight, weight_unit, variant_id, product_id, image_url,
    hs_code, country_of_origin, province_of_origin, barcode, requires_shipping, taxable, gift_card, vendor
});
crate::same_fields!(OrderLine => OrderLineDto {
    name, quantity, sku, unit_price, total_price, currency, weight, weight_unit, variant_id, product_id, image_url,
    hs_code, country_of_origin, province_of_origin, barcode, requires_shipping, taxable, gift_card, vendor
});

/// Where an order goes.
#[derive(Object, Deserialize, Clone, Default)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase", default)]
pub struct ShippingAddressDto {
    pub name: Option<String>,
    pub address1: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2.
    pub country_code: Option<String>,
    pub attention: Option<String>,
    pub company: Option<String>,
    pub address2: Option<String>,
    pub province: Option<String>,
    pub province_code: Option<String>,
    pub country: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

crate::same_fields!(ShippingAddressDto => ShippingAddress {
    name, address1, city, postal_code, country_code, attention, company, address2, province, province_code, country,
    phone, email
});
crate::same_fields!(ShippingAddress => ShippingAddressDto {
    name, address1, city, postal_code, country_code, attention, company, address2, province, province_code, country,
    phone, email
});

/// A manual order.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct OrderIn {
    /// A channel of type manual.
    pub order_channel_id: String,
    #[oai(validator(min_length = 1))]
    pub order_number: String,
    #[oai(default)]
    #[serde(default)]
    pub order_lines: Vec<OrderLineDto>,
    pub external_id: Option<String>,
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub notes: Option<String>,
    pub currency: Option<String>,
    pub total_amount: Option<f64>,
    pub shipping_address: Option<ShippingAddressDto>,
    pub external_data: Option<Value>,
    pub shipping_rule_id: Option<String>,
}

impl From<OrderIn> for NewOrder {
    fn from(v: OrderIn) -> NewOrder {
        NewOrder {
            order_channel_id: v.order_channel_id,
            order_number: v.order_number,
            external_id: v.external_id,
            shipping_rule_id: v.shipping_rule_id,
            body: OrderBody {
                order_lines: v.order_lines.into_iter().map(Into::into).collect(),
                customer_name: v.customer_name,
                customer_email: v.customer_email,
                notes: v.notes,
                currency: v.currency,
                total_amount: v.total_amount,
                shipping_address: v.shipping_address.map(Into::into),
                external_data: v.external_data,
            },
        }
    }
}

/// `{id, name, type}` of an order's channel.
#[derive(Object)]
pub struct OrderChannelRefOut {
    pub id: String,
    pub name: String,
    #[oai(rename = "type")]
    pub kind: String,
}

/// A shipment as an order shows it.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentSummaryOut {
    pub id: String,
    pub reference: String,
    pub status: String,
    #[oai(rename = "type")]
    pub kind: String,
    pub carrier_settings: CarrierSettingsDto,
    pub created_at: String,
    pub updated_at: String,
    pub tracking: Option<TrackingOut>,
    pub shipping_rule_id: Option<String>,
    pub documents: Vec<DocumentOut>,
}

impl From<(Shipment, Vec<Document>)> for ShipmentSummaryOut {
    fn from((s, documents): (Shipment, Vec<Document>)) -> ShipmentSummaryOut {
        ShipmentSummaryOut {
            id: s.id,
            reference: s.reference,
            status: s.status,
            kind: s.kind,
            carrier_settings: s.body.carrier_settings.into(),
            created_at: s.created_at,
            updated_at: s.updated_at,
            tracking: s.body.tracking.map(Into::into),
            shipping_rule_id: s.shipping_rule_id,
            documents: documents.into_iter().map(Into::into).collect(),
        }
    }
}

/// An order.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct OrderOut {
    pub id: String,
    pub order_number: String,
    pub order_lines: Vec<OrderLineDto>,
    /// pending, processing, partially_fulfilled, fulfilled, error or cancelled.
    pub status: String,
    pub order_channel_id: String,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
    pub order_channel: OrderChannelRefOut,
    pub shipments: Vec<ShipmentSummaryOut>,
    pub external_id: Option<String>,
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub notes: Option<String>,
    pub currency: Option<String>,
    pub shipping_rule_id: Option<String>,
    pub total_amount: Option<f64>,
    pub shipping_address: Option<ShippingAddressDto>,
    pub external_data: Option<Value>,
    pub shipping_rule: Option<ShippingRuleSummaryOut>,
}

impl From<OrderView> for OrderOut {
    fn from(v: OrderView) -> OrderOut {
        let o = v.order;
        OrderOut {
            id: o.id,
            order_number: o.order_number,
            order_lines: o.body.order_lines.into_iter().map(Into::into).collect(),
            status: o.status,
            order_channel_id: o.order_channel_id,
            org_id: o.org_id,
            created_at: o.created_at,
            updated_at: o.updated_at,
            order_channel: OrderChannelRefOut {
                id: v.channel.id,
                name: v.channel.name,
                kind: v.channel.kind,
            },
            shipments: v.shipments.into_iter().map(Into::into).collect(),
            external_id: o.external_id,
            customer_name: o.body.customer_name,
            customer_email: o.body.customer_email,
            notes: o.body.notes,
            currency: o.body.currency,
            shipping_rule_id: o.shipping_rule_id,
            total_amount: o.body.total_amount,
            shipping_address: o.body.shipping_address.map(Into::into),
            external_data: o.body.external_data,
            shipping_rule: v.rule.map(Into::into),
        }
    }
}

/// A shipment for an order; parties default to the order's shipping address.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct OrderShipmentIn {
    pub sender_address_id: String,
    pub carrier_id: String,
    pub product_id: String,
    #[oai(default)]
    #[serde(default)]
    pub services: Vec<String>,
    #[oai(default)]
    #[serde(default)]
    pub additional_parameters: BTreeMap<String, Value>,
    /// Default: the order number.
    pub reference: Option<String>,
    pub parties: Option<Vec<PartyDto>>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetailsDto>,
}

impl From<OrderShipmentIn> for OrderShipment {
    fn from(v: OrderShipmentIn) -> OrderShipment {
        OrderShipment {
            sender_address_id: v.sender_address_id,
            carrier_id: v.carrier_id,
            product_id: v.product_id,
            services: v.services,
            additional_parameters: v.additional_parameters.into_iter().collect(),
            reference: v.reference,
            parties: v.parties.map(|p| p.into_iter().map(Into::into).collect()),
            service_point_id: v.service_point_id,
            pickup_details: v.pickup_details.map(Into::into),
        }
    }
}
