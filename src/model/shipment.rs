//! Shipments (SPEC §2 Shipment, DESIGN §7): parties, carrier settings, parcels and their rules.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{country, validate::Violations};

pub const STATUSES: [&str; 8] = [
    "draft",
    "pending",
    "processing",
    "dispatched",
    "partly_dispatched",
    "error",
    "cancelled",
    "on_hold",
];
pub const TYPES: [&str; 2] = ["outbound", "inbound"];
pub const PARTY_TYPES: [&str; 7] = [
    "sender",
    "receiver",
    "pickup",
    "billing",
    "freight_payer",
    "service_point",
    "return",
];
pub const WEIGHT_UNITS: [&str; 4] = ["kg", "g", "lb", "oz"];
/// Incoterms 2020, plus DAT and DDU which carriers still accept.
pub const TERMS_OF_TRADE: [&str; 13] = [
    "EXW", "FCA", "FAS", "FOB", "CFR", "CIF", "CPT", "CIP", "DAP", "DPU", "DDP", "DAT", "DDU",
];
pub const DEFAULT_TERM_OF_TRADE: &str = "DAP";
/// Tracking statuses (DESIGN §7).
pub const TRACKING_STATUSES: [&str; 9] = [
    "created",
    "awaiting_pickup",
    "picked_up",
    "in_transit",
    "out_for_delivery",
    "ready_for_pickup",
    "delivered",
    "returned",
    "exception",
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Party {
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub address1: String,
    pub postal_code: String,
    pub city: String,
    pub country_code: String,
    #[serde(default)]
    pub attributes: Vec<Value>,
    pub attention: Option<String>,
    pub address2: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CarrierSettings {
    pub carrier_id: String,
    pub product_id: String,
    #[serde(default)]
    pub services: Vec<String>,
    #[serde(default)]
    pub additional_parameters: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dimensions {
    pub length: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    pub id: String,
    pub sku: String,
    pub quantity: i64,
    pub description: Option<String>,
    pub unit_price: Option<f64>,
    pub currency: Option<String>,
    pub vat_percent: Option<f64>,
    pub location: Option<String>,
    pub country_of_origin: Option<String>,
    /// Spelled as SPEC §2 spells it.
    pub tarrif_number: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Parcel {
    pub id: String,
    pub weight: f64,
    pub weight_unit: String,
    pub dimensions: Option<Dimensions>,
    #[serde(default)]
    pub order_lines: Vec<OrderLine>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct PickupDetails {
    pub date: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub instruction: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrackingEvent {
    pub status: String,
    pub description: Option<String>,
    pub location: Option<String>,
    pub occurred_at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Tracking {
    pub url: Option<String>,
    pub number: Option<String>,
    pub status: Option<String>,
    #[serde(default)]
    pub events: Vec<TrackingEvent>,
}

/// The nested parts of a shipment, stored together as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShipmentBody {
    pub parties: Vec<Party>,
    pub carrier_settings: CarrierSettings,
    pub parcels: Vec<Parcel>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetails>,
    pub tracking: Option<Tracking>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shipment {
    pub id: String,
    pub org_id: String,
    pub reference: String,
    pub sender_address_id: String,
    pub kind: String,
    pub status: String,
    pub term_of_trade: String,
    pub order_id: Option<String>,
    pub shipping_rule_id: Option<String>,
    pub return_of: Option<String>,
    /// The shipment this one was split from.
    pub split_from: Option<String>,
    /// How many shipments were split from this one so far.
    pub splits_made: i64,
    pub body: ShipmentBody,
    pub created_at: String,
    pub updated_at: String,
}

impl Party {
    pub fn validate(&self, errors: &mut Violations, at: &str) {
        errors.one_of(&format!("{at}.type"), &self.kind, &PARTY_TYPES);
        errors.length(&format!("{at}.name"), &self.name, 1, 200);
        errors.length(&format!("{at}.address1"), &self.address1, 1, 200);
        errors.length(&format!("{at}.postalCode"), &self.postal_code, 1, 20);
        errors.length(&format!("{at}.city"), &self.city, 1, 100);
        if !country::is_alpha2(&self.country_code) {
            errors.add(
                format!("{at}.countryCode"),
                "must be an ISO 3166-1 alpha-2 code such as DK",
            );
        }
        if let Some(email) = self.email.as_deref().filter(|e| !e.is_empty()) {
            errors.email(&format!("{at}.email"), email);
        }
    }
}

impl Parcel {
    pub fn validate(&self, errors: &mut Violations, at: &str) {
        if !(self.weight.is_finite() && self.weight > 0.0) {
            errors.add(format!("{at}.weight"), "must be greater than 0");
        }
        errors.one_of(
            &format!("{at}.weightUnit"),
            &self.weight_unit,
            &WEIGHT_UNITS,
        );
        if let Some(d) = self.dimensions
            && [d.length, d.width, d.height]
                .iter()
                .any(|v| !(v.is_finite() && *v > 0.0))
        {
            errors.add(
                format!("{at}.dimensions"),
                "length, width and height must be greater than 0 (cm)",
            );
        }
        for (i, line) in self.order_lines.iter().enumerate() {
            let at = format!("{at}.orderLines[{i}]");
            errors.length(&format!("{at}.sku"), &line.sku, 1, 100);
            if line.quantity < 1 {
                errors.add(format!("{at}.quantity"), "must be at least 1");
            }
        }
    }

    /// The weight in kilograms, whatever unit it was given in.
    pub fn weight_kg(&self) -> f64 {
        let per_unit = match self.weight_unit.as_str() {
            "g" => 0.001,
            "lb" => 0.453_592_37,
            "oz" => 0.028_349_523_125,
            _ => 1.0,
        };
        self.weight * per_unit
    }

    /// Number of units in the parcel.
    pub fn units(&self) -> i64 {
        self.order_lines.iter().map(|l| l.quantity).sum()
    }
}

impl ShipmentBody {
    /// Shape rules of DESIGN §7 for a new shipment: parties, one receiver, parcels.
    pub fn validate(&self, errors: &mut Violations) {
        if self.parties.is_empty() {
            errors.add("parties", "must contain at least 1 item");
        }
        for (i, party) in self.parties.iter().enumerate() {
            party.validate(errors, &format!("parties[{i}]"));
        }
        let receivers = self.parties.iter().filter(|p| p.kind == "receiver").count();
        if !self.parties.is_empty() && receivers != 1 {
            errors.add(
                "parties",
                format!("must contain exactly one receiver (found {receivers})"),
            );
        }
        let senders = self.parties.iter().filter(|p| p.kind == "sender").count();
        if senders > 1 {
            errors.add("parties", "must contain at most one sender");
        }
        errors.length(
            "carrierSettings.carrierId",
            &self.carrier_settings.carrier_id,
            1,
            100,
        );
        errors.length(
            "carrierSettings.productId",
            &self.carrier_settings.product_id,
            1,
            100,
        );
        if self.parcels.is_empty() {
            errors.add("parcels", "must contain at least 1 item");
        }
        for (i, parcel) in self.parcels.iter().enumerate() {
            parcel.validate(errors, &format!("parcels[{i}]"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn party(kind: &str) -> Party {
        Party {
            kind: kind.into(),
            name: "Jane".into(),
            address1: "Street 1".into(),
            postal_code: "8000".into(),
            city: "Aarhus".into(),
            country_code: "DK".into(),
            attributes: vec![],
            attention: None,
            address2: None,
            email: None,
            phone: None,
        }
    }

    fn body(parties: Vec<Party>) -> ShipmentBody {
        ShipmentBody {
            parties,
            carrier_settings: CarrierSettings {
                carrier_id: "car_1".into(),
                product_id: "std".into(),
                ..Default::default()
            },
            parcels: vec![Parcel {
                id: "p".into(),
                weight: 1.0,
                weight_unit: "kg".into(),
                dimensions: None,
                order_lines: vec![],
            }],
            service_point_id: None,
            pickup_details: None,
            tracking: None,
        }
    }

    fn fields(b: &ShipmentBody) -> Vec<String> {
        let mut v = Violations::new();
        b.validate(&mut v);
        match v.finish() {
            Ok(()) => vec![],
            Err(crate::error::Error::Validation(e)) => e.into_iter().map(|e| e.field).collect(),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn exactly_one_receiver_is_required() {
        assert!(fields(&body(vec![party("receiver")])).is_empty());
        assert_eq!(fields(&body(vec![party("sender")])), ["parties"]);
        assert_eq!(
            fields(&body(vec![party("receiver"), party("receiver")])),
            ["parties"]
        );
    }

    #[test]
    fn bad_parcels_and_lines_name_their_path() {
        let mut b = body(vec![party("receiver")]);
        b.parcels[0].weight = 0.0;
        b.parcels[0].weight_unit = "stone".into();
        b.parcels[0].order_lines.push(OrderLine {
            id: "l".into(),
            sku: String::new(),
            quantity: 0,
            description: None,
            unit_price: None,
            currency: None,
            vat_percent: None,
            location: None,
            country_of_origin: None,
            tarrif_number: None,
        });
        assert_eq!(
            fields(&b),
            [
                "parcels[0].weight",
                "parcels[0].weightUnit",
                "parcels[0].orderLines[0].sku",
                "parcels[0].orderLines[0].quantity"
            ]
        );
    }
}
