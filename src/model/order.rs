//! Orders and order channels (SPEC §2 Order, DESIGN §8), and how an order's status follows its
//! shipments.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::validate::Violations;

pub const CHANNEL_TYPES: [&str; 2] = ["manual", "shopify"];
pub const STATUSES: [&str; 6] = [
    "pending",
    "processing",
    "partially_fulfilled",
    "fulfilled",
    "error",
    "cancelled",
];

#[derive(Clone, Debug, PartialEq)]
pub struct OrderChannel {
    pub id: String,
    pub org_id: String,
    pub name: String,
    pub kind: String,
    pub shop_domain: Option<String>,
    /// Shopify signs its webhooks with this secret.
    pub webhook_secret: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OrderLine {
    pub name: String,
    pub quantity: f64,
    pub sku: Option<String>,
    pub unit_price: Option<f64>,
    pub total_price: Option<f64>,
    pub currency: Option<String>,
    pub weight: Option<f64>,
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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ShippingAddress {
    pub name: Option<String>,
    pub address1: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
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

#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    pub id: String,
    pub org_id: String,
    pub order_channel_id: String,
    pub order_number: String,
    pub external_id: Option<String>,
    pub status: String,
    pub shipping_rule_id: Option<String>,
    pub body: OrderBody,
    pub created_at: String,
    pub updated_at: String,
}

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
            errors.length(&format!("orderLines[{i}].name"), &line.name, 1, 500);
            if !(line.quantity.is_finite() && line.quantity > 0.0) {
                errors.add(
                    format!("orderLines[{i}].quantity"),
                    "must be greater than 0",
                );
            }
            if let Some(unit) = &line.weight_unit {
                errors.one_of(
                    &format!("orderLines[{i}].weightUnit"),
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

/// How the shipments of an order stand, for its status (DESIGN §8).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ShipmentTally {
    /// Outbound shipments that are not cancelled.
    pub active: usize,
    pub dispatched: usize,
    pub partly_dispatched: usize,
    pub error: usize,
}

/// The status an order has given its shipments. A cancelled order stays cancelled.
pub fn status_for(current: &str, tally: ShipmentTally) -> &'static str {
    if current == "cancelled" {
        "cancelled"
    } else if tally.active == 0 {
        "pending"
    } else if tally.dispatched == tally.active {
        "fulfilled"
    } else if tally.dispatched + tally.partly_dispatched > 0 {
        "partially_fulfilled"
    } else if tally.error > 0 {
        "error"
    } else {
        "processing"
    }
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
        assert_eq!(status_for("pending", tally(0, 0, 0, 0)), "pending");
        assert_eq!(status_for("pending", tally(1, 0, 0, 0)), "processing");
        assert_eq!(
            status_for("processing", tally(2, 1, 0, 0)),
            "partially_fulfilled"
        );
        assert_eq!(
            status_for("processing", tally(2, 0, 1, 0)),
            "partially_fulfilled"
        );
        assert_eq!(
            status_for("partially_fulfilled", tally(2, 2, 0, 0)),
            "fulfilled"
        );
        assert_eq!(status_for("processing", tally(2, 0, 0, 1)), "error");
        assert_eq!(status_for("cancelled", tally(2, 2, 0, 0)), "cancelled");
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
