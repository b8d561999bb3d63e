//! Orders (SPEC §2 Order, DESIGN §8), and how an order's status follows its shipments.

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{
    order_channel::OrderChannelRef,
    shipment::ShipmentSummary,
    shipment::{Party, PickupDetails},
    shipping_rule::ShippingRuleSummary,
    status::OrderStatus,
    validate::Violations,
};

pub mod wire;

/// A line of an order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct OrderLine {
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

/// Where an order goes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct ShippingAddress {
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

/// The parts of an order stored together as JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct OrderBody {
    pub order_lines: Vec<OrderLine>,
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub notes: Option<String>,
    pub currency: Option<String>,
    pub total_amount: Option<f64>,
    pub shipping_address: Option<ShippingAddress>,
    pub external_data: Option<Value>,
}

/// An order as stored.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct OrderRecord {
    pub id: String,
    pub org_id: String,
    pub order_channel_id: String,
    pub order_number: String,
    pub external_id: Option<String>,
    pub status: OrderStatus,
    pub shipping_rule_id: Option<String>,
    #[oai(flatten)]
    pub body: OrderBody,
    pub created_at: String,
    pub updated_at: String,
}

/// A manual order: its channel (`orderChannelId`) and the writable fields of an order.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct OrderIn {
    /// A channel of type manual.
    pub order_channel_id: String,
    #[oai(validator(min_length = 1))]
    pub order_number: String,
    #[serde(default)]
    #[oai(default)]
    pub order_lines: Vec<OrderLine>,
    pub external_id: Option<String>,
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub notes: Option<String>,
    pub currency: Option<String>,
    pub total_amount: Option<f64>,
    pub shipping_address: Option<ShippingAddress>,
    pub external_data: Option<Value>,
    pub shipping_rule_id: Option<String>,
}

impl OrderIn {
    /// The parts stored as JSON.
    pub fn body(&self) -> OrderBody {
        OrderBody {
            order_lines: self.order_lines.clone(),
            customer_name: self.customer_name.clone(),
            customer_email: self.customer_email.clone(),
            notes: self.notes.clone(),
            currency: self.currency.clone(),
            total_amount: self.total_amount,
            shipping_address: self.shipping_address.clone(),
            external_data: self.external_data.clone(),
        }
    }
}

/// An order with its channel, its shipments and its rule.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Order {
    #[oai(flatten)]
    pub order: OrderRecord,
    pub order_channel: OrderChannelRef,
    pub shipments: Vec<ShipmentSummary>,
    pub shipping_rule: Option<ShippingRuleSummary>,
}

crate::page_of!(OrderPage, Order);

impl OrderLine {
    /// The weight of one unit in kilograms (0 when unknown).
    pub fn unit_kg(&self) -> f64 {
        let per_unit = match self.weight_unit.as_deref() {
            Some("g") => 0.001,
            Some("lb") => 0.453_592_37,
            Some("oz") => 0.028_349_523_125,
            _ => 1.0,
        };
        self.weight.unwrap_or(0.0) * per_unit
    }

    pub fn ships(&self) -> bool {
        self.requires_shipping != Some(false) && self.gift_card != Some(true)
    }
}

impl OrderBody {
    pub fn validate(&self, errors: &mut Violations) {
        for (i, line) in self.order_lines.iter().enumerate() {
            errors.length(format!("orderLines[{i}].name"), &line.name, 1, 500);
            if !(line.quantity.is_finite() && line.quantity > 0.0) {
                errors.add(
                    format!("orderLines[{i}].quantity"),
                    "must be greater than 0",
                );
            }
            if let Some(unit) = &line.weight_unit {
                errors.one_of(
                    format!("orderLines[{i}].weightUnit"),
                    unit,
                    &crate::model::shipment::WEIGHT_UNITS,
                );
            }
            if line.weight.is_some_and(|w| !(w.is_finite() && w >= 0.0)) {
                errors.add(
                    format!("orderLines[{i}].weight"),
                    "must be a number of at least 0",
                );
            }
        }
        if let Some(email) = self.customer_email.as_deref().filter(|e| !e.is_empty()) {
            errors.email("customerEmail", email);
        }
        if let Some(currency) = &self.currency
            && !(currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase()))
        {
            errors.add("currency", "must be an ISO 4217 code such as DKK");
        }
    }
}

/// How the shipments of an order stand, for its status.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ShipmentTally {
    /// Outbound shipments that are not cancelled.
    pub active: usize,
    pub dispatched: usize,
    pub partly_dispatched: usize,
    pub error: usize,
}

/// The status an order has given its shipments. A cancelled order stays cancelled.
pub fn status_for(current: OrderStatus, tally: ShipmentTally) -> OrderStatus {
    if current == OrderStatus::Cancelled {
        OrderStatus::Cancelled
    } else if tally.active == 0 {
        OrderStatus::Pending
    } else if tally.dispatched == tally.active {
        OrderStatus::Fulfilled
    } else if tally.dispatched + tally.partly_dispatched > 0 {
        OrderStatus::PartiallyFulfilled
    } else if tally.error > 0 {
        OrderStatus::Error
    } else {
        OrderStatus::Processing
    }
}

impl OrderRecord {
    /// The receiver party from the shipping address and the customer; None when the address
    /// is not complete.
    pub fn receiver_party(&self) -> Option<crate::model::shipment::Party> {
        let a = self.body.shipping_address.clone()?;
        Some(crate::model::shipment::Party {
            kind: "receiver".into(),
            name: a.name.or_else(|| self.body.customer_name.clone())?,
            address1: a.address1?,
            postal_code: a.postal_code?,
            city: a.city?,
            country_code: a.country_code?,
            attributes: Vec::new(),
            attention: a.attention.or(a.company),
            address2: a.address2,
            email: a.email.or_else(|| self.body.customer_email.clone()),
            phone: a.phone,
        })
    }

    /// Whether shipments may still be added (a cancelled order takes none).
    pub fn accepts_shipments(&self) -> bool {
        self.status != OrderStatus::Cancelled
    }

    /// Whether `cancel` may act (not once cancelled or fulfilled).
    pub fn can_be_cancelled(&self) -> bool {
        !matches!(self.status, OrderStatus::Cancelled | OrderStatus::Fulfilled)
    }
}

/// A shipment for an order; parties default to the order's shipping address.
#[derive(Deserialize, poem_openapi::Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct OrderShipmentIn {
    pub sender_address_id: String,
    pub carrier_id: String,
    pub product_id: String,
    #[serde(default)]
    #[oai(default)]
    pub services: Vec<String>,
    #[serde(default)]
    #[oai(default)]
    pub additional_parameters: BTreeMap<String, Value>,
    /// Default: the order number.
    pub reference: Option<String>,
    pub parties: Option<Vec<Party>>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetails>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(
        active: usize,
        dispatched: usize,
        partly_dispatched: usize,
        error: usize,
    ) -> ShipmentTally {
        ShipmentTally {
            active,
            dispatched,
            partly_dispatched,
            error,
        }
    }

    #[test]
    fn status_follows_shipments() {
        use OrderStatus::*;
        let cases = [
            (Pending, tally(0, 0, 0, 0), Pending),
            (Pending, tally(1, 0, 0, 0), Processing),
            (Processing, tally(2, 1, 0, 0), PartiallyFulfilled),
            (Processing, tally(2, 0, 1, 0), PartiallyFulfilled),
            (PartiallyFulfilled, tally(2, 2, 0, 0), Fulfilled),
            (Processing, tally(2, 0, 0, 1), Error),
            (Cancelled, tally(2, 2, 0, 0), Cancelled),
        ];
        for (current, t, expected) in cases {
            assert_eq!(status_for(current, t), expected, "{current} {t:?}");
        }
    }

    #[test]
    fn gift_cards_and_digital_goods_do_not_ship() {
        let line = OrderLine {
            name: "x".into(),
            quantity: 1.0,
            ..OrderLine::default()
        };
        assert!(line.ships());
        assert!(
            !OrderLine {
                requires_shipping: Some(false),
                ..line.clone()
            }
            .ships()
        );
        assert!(
            !OrderLine {
                gift_card: Some(true),
                ..line
            }
            .ships()
        );
    }
}
