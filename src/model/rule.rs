//! Shipping rules (SPEC §2 ShippingRule) and their conditions (DESIGN §11).

use serde::{Deserialize, Serialize};

use crate::model::{country, validate::Violations};

pub const CONDITION_TYPES: [&str; 5] = ["weight", "priceRange", "price", "quantity", "flatRate"];
pub const OPERATORS: [&str; 5] = ["gt", "gte", "lt", "lte", "eq"];

/// A `{name, val}` pair; applied to a shipment it becomes `additionalParameters[name] = val`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NameVal {
    pub name: String,
    pub val: String,
}

/// When a rule offers a price (DESIGN §11).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub kind: String,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub operator: Option<String>,
    pub value: Option<f64>,
    pub shipping_price: f64,
    pub currency: String,
}

/// Everything of a rule besides its name and references; stored as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct RuleSettings {
    pub description: Option<String>,
    pub product_id: String,
    pub services: Vec<String>,
    pub additional_parameters: Vec<NameVal>,
    pub receiving_countries: Vec<String>,
    pub email_notification: bool,
    pub phone_notification: bool,
    pub conditions: Vec<Condition>,
    pub generate_proforma_invoice: bool,
    pub generate_commercial_invoice: bool,
    pub generate_packing_list: bool,
    pub auto_print_labels: bool,
    pub auto_print_documents: bool,
    pub label_printer_id: Option<String>,
    pub document_printer_id: Option<String>,
    pub auto_create_return_shipment: bool,
}

/// The writable fields of a rule.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleFields {
    pub name: String,
    pub carrier_id: String,
    pub sender_address_id: String,
    pub return_shipping_rule_id: Option<String>,
    pub settings: RuleSettings,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ShippingRule {
    pub id: String,
    pub org_id: String,
    pub fields: RuleFields,
    pub created_at: String,
    pub updated_at: String,
}

impl RuleFields {
    /// Shape rules; references are checked against the organization's data by the service.
    pub fn validate(&self, errors: &mut Violations) {
        errors.length("name", &self.name, 1, 200);
        errors.length("carrierId", &self.carrier_id, 1, 100);
        errors.length("senderAddressId", &self.sender_address_id, 1, 100);
        let s = &self.settings;
        if let Some(d) = &s.description {
            errors.length("description", d, 0, 2000);
        }
        errors.length("productId", &s.product_id, 1, 100);
        for (i, service) in s.services.iter().enumerate() {
            errors.length(&format!("services[{i}]"), service, 1, 100);
        }
        for (i, p) in s.additional_parameters.iter().enumerate() {
            errors.length(&format!("additionalParameters[{i}].name"), &p.name, 1, 100);
        }
        for (i, code) in s.receiving_countries.iter().enumerate() {
            if !country::is_alpha2(code) {
                errors.add(
                    format!("receivingCountries[{i}]"),
                    "must be an ISO 3166-1 alpha-2 code such as DK",
                );
            }
        }
        for (i, c) in s.conditions.iter().enumerate() {
            c.validate(errors, &format!("conditions[{i}]"));
        }
    }
}

impl Condition {
    fn validate(&self, errors: &mut Violations, at: &str) {
        errors.one_of(&format!("{at}.type"), &self.kind, &CONDITION_TYPES);
        if !(self.shipping_price.is_finite() && self.shipping_price >= 0.0) {
            errors.add(
                format!("{at}.shippingPrice"),
                "must be a number of at least 0",
            );
        }
        if !(self.currency.len() == 3 && self.currency.bytes().all(|b| b.is_ascii_uppercase())) {
            errors.add(
                format!("{at}.currency"),
                "must be an ISO 4217 code such as DKK",
            );
        }
        for (field, bound) in [("min", self.min), ("max", self.max), ("value", self.value)] {
            if bound.is_some_and(|b| !b.is_finite()) {
                errors.add(format!("{at}.{field}"), "must be a finite number");
            }
        }
        if let (Some(min), Some(max)) = (self.min, self.max)
            && min > max
        {
            errors.add(format!("{at}.max"), "must not be less than min");
        }
        if matches!(self.kind.as_str(), "price" | "quantity") {
            match &self.operator {
                Some(op) => errors.one_of(&format!("{at}.operator"), op, &OPERATORS),
                None => errors.add(
                    format!("{at}.operator"),
                    "is required for this condition type",
                ),
            }
            if self.value.is_none() {
                errors.add(format!("{at}.value"), "is required for this condition type");
            }
        }
    }
}
