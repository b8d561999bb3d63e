//! The parts of a shipment (SPEC §2): parties, carrier settings, parcels and their order lines,
//! pickup details and tracking. One type each, for request bodies (serde), the JSON column
//! (serde) and responses (poem-openapi), so their field lists are written once.

use std::{collections::BTreeMap, fmt::Display};

use poem_openapi::Object;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{
    country, postcode,
    shipment::{PARTY_TYPES, WEIGHT_UNITS},
    status::TrackingStatus,
    validate::Violations,
};

/// A party of a shipment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Party {
    /// sender, receiver, pickup, billing, freight_payer, service_point or return.
    #[serde(rename = "type")]
    #[oai(rename = "type")]
    pub kind: String,
    pub name: String,
    pub address1: String,
    pub postal_code: String,
    pub city: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    #[serde(default)]
    #[oai(default)]
    pub attributes: Vec<Value>,
    pub attention: Option<String>,
    pub address2: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// Carrier, product, services and extra parameters of a shipment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct CarrierSettings {
    pub carrier_id: String,
    pub product_id: String,
    #[serde(default)]
    #[oai(default)]
    pub services: Vec<String>,
    /// Free-form parameters for the carrier.
    #[serde(default)]
    #[oai(default)]
    pub additional_parameters: BTreeMap<String, Value>,
}

/// Outer size in cm.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Object)]
pub struct Dimensions {
    pub length: f64,
    pub width: f64,
    pub height: f64,
}

/// A line of goods in a parcel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ParcelOrderLine {
    /// Assigned by the server when absent.
    #[serde(default)]
    #[oai(default)]
    pub id: String,
    pub sku: String,
    /// At least 1.
    pub quantity: i64,
    pub description: Option<String>,
    pub unit_price: Option<f64>,
    pub currency: Option<String>,
    pub vat_percent: Option<f64>,
    pub location: Option<String>,
    pub country_of_origin: Option<String>,
    /// The goods' tariff (HS) number; the field's name is spelled so for compatibility.
    pub tarrif_number: Option<String>,
}

fn kg() -> String {
    "kg".into()
}

/// A parcel and the order lines packed in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Parcel {
    /// Assigned by the server when absent.
    #[serde(default)]
    #[oai(default)]
    pub id: String,
    /// Greater than 0.
    pub weight: f64,
    /// kg (default), g, lb or oz.
    #[serde(default = "kg")]
    #[oai(default = "kg")]
    pub weight_unit: String,
    pub dimensions: Option<Dimensions>,
    #[serde(default)]
    #[oai(default)]
    pub order_lines: Vec<ParcelOrderLine>,
    /// The carrier's tracking number of this parcel, set at booking; whatever a
    /// client sends here is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[oai(read_only)]
    pub tracking_number: Option<String>,
}

/// When and how the carrier picks up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default, Object)]
pub struct PickupDetails {
    pub date: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub instruction: Option<String>,
}

/// One tracking event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct TrackingEvent {
    pub status: TrackingStatus,
    pub description: Option<String>,
    pub location: Option<String>,
    pub occurred_at: String,
}

/// Tracking number, link, status and events (newest first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default, Object)]
pub struct Tracking {
    pub url: Option<String>,
    pub number: Option<String>,
    pub status: Option<TrackingStatus>,
    #[serde(default)]
    pub events: Vec<TrackingEvent>,
}

impl Party {
    pub fn validate(&self, errors: &mut Violations, at: impl Display + Copy) {
        errors.one_of(format_args!("{at}.type"), &self.kind, &PARTY_TYPES);
        errors.length(format_args!("{at}.name"), &self.name, 1, 200);
        errors.length(format_args!("{at}.address1"), &self.address1, 1, 200);
        errors.length(format_args!("{at}.postalCode"), &self.postal_code, 1, 20);
        errors.length(format_args!("{at}.city"), &self.city, 1, 100);
        if !country::is_alpha2(&self.country_code) {
            errors.add(
                format!("{at}.countryCode"),
                "must be an ISO 3166-1 alpha-2 code such as DK",
            );
        } else if self.kind == "receiver"
            && !self.postal_code.is_empty()
            && let Err(message) = postcode::check(&self.country_code, &self.postal_code)
        {
            errors.add(format!("{at}.postalCode"), message);
        }
        if let Some(email) = self.email.as_deref().filter(|e| !e.is_empty()) {
            errors.email(format_args!("{at}.email"), email);
        }
    }
}

impl Parcel {
    pub fn validate(&self, errors: &mut Violations, at: impl Display + Copy) {
        if !(self.weight.is_finite() && self.weight > 0.0) {
            errors.add(format!("{at}.weight"), "must be greater than 0");
        }
        errors.one_of(
            format_args!("{at}.weightUnit"),
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
            errors.length(format_args!("{at}.orderLines[{i}].sku"), &line.sku, 1, 100);
            if line.quantity < 1 {
                errors.add(
                    format!("{at}.orderLines[{i}].quantity"),
                    "must be at least 1",
                );
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
