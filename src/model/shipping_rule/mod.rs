//! Shipping rules (SPEC §2 ShippingRule) and their conditions (DESIGN §11).

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::model::{
    carrier::Carrier, country, sender_address::SenderAddress, shipment::CarrierSettings,
    validate::Violations,
};

pub mod wire;

pub const CONDITION_TYPES: [&str; 5] = ["weight", "priceRange", "price", "quantity", "flatRate"];
pub const OPERATORS: [&str; 5] = ["gt", "gte", "lt", "lte", "eq"];

/// A `{name, val}` carrier parameter; applied to a shipment it becomes
/// `additionalParameters[name] = val`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
pub struct NameVal {
    pub name: String,
    pub val: String,
}

/// When the rule offers a price: `weight` (kg) and `priceRange` (cents) use `min`/`max`;
/// `price` and `quantity` compare with `operator` (gt, gte, lt, lte, eq) against `value`;
/// `flatRate` always matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Condition {
    /// weight, priceRange, price, quantity or flatRate.
    #[serde(rename = "type")]
    #[oai(rename = "type")]
    pub kind: String,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub operator: Option<String>,
    pub value: Option<f64>,
    /// Price of the rate in major units (49.0 is 49.00).
    pub shipping_price: f64,
    pub currency: String,
}

/// The writable fields of a shipping rule: the body of a create or a full replacement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ShippingRuleIn {
    #[oai(validator(min_length = 1))]
    pub name: String,
    pub description: Option<String>,
    pub carrier_id: String,
    pub product_id: String,
    #[serde(default)]
    #[oai(default)]
    pub services: Vec<String>,
    #[serde(default)]
    #[oai(default)]
    pub additional_parameters: Vec<NameVal>,
    pub sender_address_id: String,
    /// ISO alpha-2 codes the rule ships to; empty means everywhere.
    #[serde(default)]
    #[oai(default)]
    pub receiving_countries: Vec<String>,
    #[serde(default)]
    #[oai(default)]
    pub email_notification: bool,
    #[serde(default)]
    #[oai(default)]
    pub phone_notification: bool,
    #[serde(default)]
    #[oai(default)]
    pub conditions: Vec<Condition>,
    #[serde(default)]
    #[oai(default)]
    pub generate_proforma_invoice: bool,
    #[serde(default)]
    #[oai(default)]
    pub generate_commercial_invoice: bool,
    #[serde(default)]
    #[oai(default)]
    pub generate_packing_list: bool,
    #[serde(default)]
    #[oai(default)]
    pub auto_print_labels: bool,
    #[serde(default)]
    #[oai(default)]
    pub auto_print_documents: bool,
    pub label_printer_id: Option<String>,
    pub document_printer_id: Option<String>,
    /// Rule whose carrier settings return shipments use.
    pub return_shipping_rule_id: Option<String>,
    #[serde(default)]
    #[oai(default)]
    pub auto_create_return_shipment: bool,
    /// `cheapest` or `fastest`: applying the rule asks the rule's carriers (`carrierId` and
    /// `selectionCarrierIds`) for rates and takes the cheapest or fastest offer's carrier and
    /// product; when none answers, `carrierId` and `productId` stay. Null: as written.
    pub carrier_selection: Option<String>,
    /// More carriers the selection chooses among, beside `carrierId`.
    #[serde(default)]
    #[oai(default)]
    pub selection_carrier_ids: Vec<String>,
}

/// What `carrierSelection` may be.
pub const CARRIER_SELECTIONS: [&str; 2] = ["cheapest", "fastest"];

/// A shipping rule as stored.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShippingRuleRecord {
    pub id: String,
    pub org_id: String,
    #[oai(flatten)]
    pub fields: ShippingRuleIn,
    pub created_at: String,
    pub updated_at: String,
}

/// `{id, name}` of a referenced object.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct Ref {
    pub id: String,
    pub name: String,
}

/// A shipping rule in its full form, with what it refers to.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShippingRule {
    #[oai(flatten)]
    pub rule: ShippingRuleRecord,
    /// The carrier, without its sender address.
    pub carrier: Carrier,
    pub sender_address: SenderAddress,
    pub label_printer: Option<Ref>,
    pub document_printer: Option<Ref>,
    pub return_shipping_rule: Option<Ref>,
}

crate::page_of!(ShippingRulePage, ShippingRule);

/// The shipping rule applied to a shipment or an order.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShippingRuleSummary {
    pub id: String,
    pub name: String,
    pub carrier_id: String,
    pub product_id: String,
    pub services: Vec<String>,
    pub sender_address_id: String,
    pub return_shipping_rule_id: Option<String>,
    pub auto_create_return_shipment: bool,
}

impl From<&ShippingRuleRecord> for ShippingRuleSummary {
    fn from(r: &ShippingRuleRecord) -> ShippingRuleSummary {
        let f = &r.fields;
        ShippingRuleSummary {
            id: r.id.clone(),
            name: f.name.clone(),
            carrier_id: f.carrier_id.clone(),
            product_id: f.product_id.clone(),
            services: f.services.clone(),
            sender_address_id: f.sender_address_id.clone(),
            return_shipping_rule_id: f.return_shipping_rule_id.clone(),
            auto_create_return_shipment: f.auto_create_return_shipment,
        }
    }
}

impl ShippingRuleIn {
    /// Shape rules; references are checked against the organization's data by the service.
    pub fn validate(&self, errors: &mut Violations) {
        errors.length("name", &self.name, 1, 200);
        errors.length("carrierId", &self.carrier_id, 1, 100);
        errors.length("senderAddressId", &self.sender_address_id, 1, 100);
        if let Some(d) = &self.description {
            errors.length("description", d, 0, 2000);
        }
        errors.length("productId", &self.product_id, 1, 100);
        for (i, service) in self.services.iter().enumerate() {
            errors.length(format!("services[{i}]"), service, 1, 100);
        }
        for (i, p) in self.additional_parameters.iter().enumerate() {
            errors.length(format!("additionalParameters[{i}].name"), &p.name, 1, 100);
        }
        for (i, code) in self.receiving_countries.iter().enumerate() {
            if !country::is_alpha2(code) {
                errors.add(
                    format!("receivingCountries[{i}]"),
                    "must be an ISO 3166-1 alpha-2 code such as DK",
                );
            }
        }
        for (i, c) in self.conditions.iter().enumerate() {
            c.validate(errors, &format!("conditions[{i}]"));
        }
        for (i, id) in self.selection_carrier_ids.iter().enumerate() {
            errors.length(format!("selectionCarrierIds[{i}]"), id, 1, 100);
        }
        if let Some(selection) = &self.carrier_selection {
            errors.one_of("carrierSelection", selection, &CARRIER_SELECTIONS);
        }
        if self.carrier_selection.is_none() && !self.selection_carrier_ids.is_empty() {
            errors.add(
                "selectionCarrierIds",
                "is used only with carrierSelection (cheapest or fastest)",
            );
        }
        if self.auto_print_labels && self.label_printer_id.is_none() {
            errors.add("labelPrinterId", "is needed when autoPrintLabels is true");
        }
        if self.auto_print_documents && self.document_printer_id.is_none() {
            errors.add(
                "documentPrinterId",
                "is needed when autoPrintDocuments is true",
            );
        }
    }

    /// Whether the rule ships to `country` (an empty list means everywhere).
    pub fn ships_to(&self, country: &str) -> bool {
        self.receiving_countries.is_empty() || self.receiving_countries.iter().any(|c| c == country)
    }
}

impl ShippingRuleRecord {
    /// The carrier settings a shipment takes from this rule (DESIGN §7, §16): its
    /// `[{name, val}]` parameters become the object `{name: val}`.
    pub fn carrier_settings(&self) -> CarrierSettings {
        let f = &self.fields;
        CarrierSettings {
            carrier_id: f.carrier_id.clone(),
            product_id: f.product_id.clone(),
            services: f.services.clone(),
            additional_parameters: f
                .additional_parameters
                .iter()
                .map(|p| (p.name.clone(), serde_json::Value::String(p.val.clone())))
                .collect(),
        }
    }
}

/// What a quote is asked for: weight in kg, subtotal in cents, number of items.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Basket {
    pub kg: f64,
    pub subtotal_cents: f64,
    pub quantity: f64,
}

impl Condition {
    /// Whether the condition offers its price for `basket`.
    pub fn matches(&self, basket: Basket) -> bool {
        let within =
            |x: f64| self.min.is_none_or(|min| min <= x) && self.max.is_none_or(|max| x <= max);
        let compare = |x: f64| match (self.operator.as_deref(), self.value) {
            (Some("gt"), Some(v)) => x > v,
            (Some("gte"), Some(v)) => x >= v,
            (Some("lt"), Some(v)) => x < v,
            (Some("lte"), Some(v)) => x <= v,
            (Some("eq"), Some(v)) => (x - v).abs() < 1e-9,
            _ => false,
        };
        match self.kind.as_str() {
            "weight" => within(basket.kg),
            "priceRange" => within(basket.subtotal_cents),
            "price" => compare(basket.subtotal_cents),
            "quantity" => compare(basket.quantity),
            "flatRate" => true,
            _ => false,
        }
    }

    /// The price in minor units (cents), as Shopify's carrier service expects.
    pub fn price_cents(&self) -> u64 {
        (self.shipping_price * 100.0).round().max(0.0) as u64
    }

    fn validate(&self, errors: &mut Violations, at: &str) {
        errors.one_of(format!("{at}.type"), &self.kind, &CONDITION_TYPES);
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
                Some(op) => errors.one_of(format!("{at}.operator"), op, &OPERATORS),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(
        kind: &str,
        min: Option<f64>,
        max: Option<f64>,
        op: Option<&str>,
        value: Option<f64>,
    ) -> Condition {
        Condition {
            kind: kind.into(),
            min,
            max,
            operator: op.map(Into::into),
            value,
            shipping_price: 49.0,
            currency: "DKK".into(),
        }
    }

    fn basket(kg: f64, subtotal_cents: f64, quantity: f64) -> Basket {
        Basket {
            kg,
            subtotal_cents,
            quantity,
        }
    }

    #[test]
    fn weight_windows_include_both_bounds_and_open_ends() {
        let c = condition("weight", Some(5.0), Some(20.0), None, None);
        assert!(c.matches(basket(5.0, 0.0, 1.0)));
        assert!(c.matches(basket(20.0, 0.0, 1.0)));
        assert!(!c.matches(basket(4.999, 0.0, 1.0)));
        assert!(!c.matches(basket(20.001, 0.0, 1.0)));
        assert!(condition("weight", Some(0.0), None, None, None).matches(basket(1e6, 0.0, 1.0)));
    }

    #[test]
    fn price_ranges_use_cents() {
        let c = condition("priceRange", Some(10_000.0), Some(50_000.0), None, None);
        assert!(c.matches(basket(1.0, 10_000.0, 1.0)));
        assert!(!c.matches(basket(1.0, 9_999.0, 1.0)));
    }

    #[test]
    fn every_operator_compares_price_and_quantity() {
        let cases = [
            ("gt", 3.0, false),
            ("gte", 3.0, true),
            ("lt", 4.0, true),
            ("lte", 3.0, true),
            ("eq", 3.0, true),
            ("eq", 2.0, false),
        ];
        for (op, value, expected) in cases {
            assert_eq!(
                condition("quantity", None, None, Some(op), Some(value))
                    .matches(basket(1.0, 0.0, 3.0)),
                expected,
                "{op} {value}"
            );
            assert_eq!(
                condition("price", None, None, Some(op), Some(value))
                    .matches(basket(1.0, 3.0, 0.0)),
                expected,
                "{op} {value}"
            );
        }
        assert!(
            !condition("price", None, None, Some("about"), Some(3.0))
                .matches(basket(1.0, 3.0, 0.0))
        );
    }

    #[test]
    fn flat_rates_always_match_and_prices_are_cents() {
        let c = condition("flatRate", None, None, None, None);
        assert!(c.matches(basket(0.0, 0.0, 0.0)));
        assert_eq!(c.price_cents(), 4900);
        assert_eq!(
            Condition {
                shipping_price: 0.295,
                ..c
            }
            .price_cents(),
            30
        );
    }
}
