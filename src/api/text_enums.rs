//! Fields kept as text in the code whose values are fixed get their `enum` in the OpenAPI
//! document, from the same lists the operations check them against, so that SDK generators,
//! Swagger UI and the MCP tools (built from this document) offer the values instead of prose.

use serde_json::Value;

use crate::model::{
    locale::LANGUAGES,
    order_channel::CHANNEL_TYPES,
    org::CURRENCIES,
    pdf_merge::DOCUMENT_TYPES,
    printer::{FORMATS, KINDS},
    scope::Scope,
    shipment::{PARTY_TYPES, TERMS_OF_TRADE, TYPES, WEIGHT_UNITS},
    shipping_rule::{CONDITION_TYPES, OPERATORS},
};

/// `(schema, property, values)`: the property of the component schema takes one of the values.
const FIXED: &[(&str, &str, &[&str])] = &[
    ("ShipmentIn", "type", &TYPES),
    ("ShipmentPatch", "type", &TYPES),
    ("Shipment", "type", &TYPES),
    ("ShipmentListItem", "type", &TYPES),
    ("ShipmentSummary", "type", &TYPES),
    ("ShipmentIn", "termOfTrade", &TERMS_OF_TRADE),
    ("ShipmentPatch", "termOfTrade", &TERMS_OF_TRADE),
    ("Shipment", "termOfTrade", &TERMS_OF_TRADE),
    ("Party", "type", &PARTY_TYPES),
    ("ShipmentIn", "language", &LANGUAGES),
    ("ShipmentPatch", "language", &LANGUAGES),
    ("Shipment", "language", &LANGUAGES),
    ("Parcel", "weightUnit", &WEIGHT_UNITS),
    ("OrderLine", "weightUnit", &WEIGHT_UNITS),
    ("Printer", "kind", &KINDS),
    ("PrinterIn", "kind", &KINDS),
    ("Printer", "format", &FORMATS),
    ("PrinterIn", "format", &FORMATS),
    ("Document", "format", &FORMATS),
    ("Document", "documentType", &DOCUMENT_TYPES),
    ("DocumentMergeIn", "documentType", &DOCUMENT_TYPES),
    ("PrintIn", "documentType", &DOCUMENT_TYPES),
    ("OrderChannel", "type", &CHANNEL_TYPES),
    ("OrderChannelIn", "type", &CHANNEL_TYPES),
    ("OrderChannelRef", "type", &CHANNEL_TYPES),
    ("Condition", "type", &CONDITION_TYPES),
    ("Condition", "operator", &OPERATORS),
    ("Organization", "currency", &CURRENCIES),
    ("OrgPatchIn", "currency", &CURRENCIES),
];

/// Writes the enums of `FIXED`, and the scopes a token may be made with, into `document`. An
/// optional (nullable) property also takes `null`.
pub fn apply(document: &mut Value) {
    for (schema, property, values) in FIXED {
        let pointer = format!("/components/schemas/{schema}/properties/{property}");
        if let Some(target) = document.pointer_mut(&pointer) {
            set(target, values.iter().map(|v| Value::from(*v)).collect());
        }
    }
    let scopes: Vec<Value> = Scope::catalogue()
        .iter()
        .map(|s| Value::from(s.to_string()))
        .collect();
    if let Some(items) =
        document.pointer_mut("/components/schemas/ApiTokenIn/properties/scopes/items")
    {
        set(items, scopes);
    }
}

fn set(target: &mut Value, mut values: Vec<Value>) {
    let Some(object) = target.as_object_mut() else {
        return;
    };
    if object.get("nullable") == Some(&Value::Bool(true)) {
        values.push(Value::Null);
    }
    object.insert("enum".into(), Value::Array(values));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_property_is_in_the_document_and_gets_its_values() {
        let document = crate::api::openapi::document();
        for (schema, property, values) in FIXED {
            let pointer = format!("/components/schemas/{schema}/properties/{property}/enum");
            let found = document
                .pointer(&pointer)
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("{schema}.{property} has no enum"));
            assert_eq!(found[0], values[0], "{schema}.{property}");
        }
        let party = document
            .pointer("/components/schemas/ShipmentIn/properties/termOfTrade/enum")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        assert_eq!(party.last(), Some(&Value::Null), "optional: null allowed");
    }
}
