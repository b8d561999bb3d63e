//! Formats and examples in the OpenAPI document: every timestamp (a property named `…At`, and the
//! `createdFrom`/`createdTo` filters) is a `date-time`, a pickup date a `date`, and the fields a
//! caller fills in by hand carry an example of a value the API takes. SDK generators and Swagger
//! UI show them, and the MCP tools' input schemas (built from this document) give them to models
//! as JSON Schema `examples`.

use serde_json::{Value, json};

/// `(schema, property, example)`: a value the property takes.
fn examples() -> Vec<(&'static str, &'static str, Value)> {
    let party = [
        ("name", json!("Jane Doe")),
        ("address1", json!("Storgatan 1")),
        ("postalCode", json!("11122")),
        ("city", json!("Stockholm")),
        ("countryCode", json!("SE")),
        ("email", json!("jane@example.com")),
        ("phone", json!("+46701234567")),
    ];
    let mut all: Vec<(&str, &str, Value)> = party
        .iter()
        .map(|(property, example)| ("Party", *property, example.clone()))
        .collect();
    all.extend([
        ("SenderAddressIn", "name", json!("Main warehouse")),
        ("SenderAddressIn", "attContact", json!("Alice Andersen")),
        ("SenderAddressIn", "address1", json!("Industrivej 1")),
        ("SenderAddressIn", "zipcode", json!("8000")),
        ("SenderAddressIn", "city", json!("Aarhus")),
        ("SenderAddressIn", "countryCode", json!("DK")),
        ("SenderAddressIn", "phone", json!("+4570000000")),
        ("SenderAddressIn", "email", json!("warehouse@example.com")),
        ("SenderAddressIn", "state", json!("Central Jutland")),
        ("ShipmentIn", "reference", json!("ORDER-1001")),
        ("ShipmentPatch", "reference", json!("ORDER-1001")),
        ("Parcel", "weight", json!(1.5)),
        ("Dimensions", "length", json!(30)),
        ("Dimensions", "width", json!(20)),
        ("Dimensions", "height", json!(10)),
        ("CarrierSettings", "productId", json!("standard")),
        ("CarrierSettings", "services", json!(["signature"])),
        ("CarrierIn", "name", json!("PostNord DK")),
        ("CarrierIn", "carrierSlug", json!("sandbox")),
        ("ShippingRuleIn", "name", json!("Standard DK")),
        ("ShippingRuleIn", "productId", json!("standard")),
        ("ShippingRuleIn", "receivingCountries", json!(["DK", "SE"])),
        ("PickupDetails", "date", json!("2026-11-25")),
        ("PickupDetails", "from", json!("09:00")),
        ("PickupDetails", "to", json!("12:00")),
        (
            "TrackingEventIn",
            "occurredAt",
            json!("2026-11-24T10:15:30.000Z"),
        ),
        (
            "TrackingEventIn",
            "description",
            json!("Arrived at the sorting centre"),
        ),
        ("TrackingEventIn", "location", json!("Copenhagen")),
        ("PrinterIn", "name", json!("Packing desk")),
        ("PrinterIn", "address", json!("192.168.1.50:9100")),
        ("WebhookIn", "name", json!("ERP")),
        (
            "WebhookIn",
            "url",
            json!("https://erp.example.com/hooks/shipbase"),
        ),
        (
            "WebhookIn",
            "events",
            json!(["shipment.created", "shipment.dispatched"]),
        ),
        (
            "WebhookPatchIn",
            "url",
            json!("https://erp.example.com/hooks/shipbase"),
        ),
        ("ApiTokenIn", "name", json!("Warehouse scanner")),
        (
            "ApiTokenIn",
            "scopes",
            json!(["read:shipments", "write:shipments"]),
        ),
        ("ApiTokenIn", "expiresAt", json!("2027-01-31T00:00:00.000Z")),
        ("OrderIn", "orderNumber", json!("#1001")),
        ("OrderChannelIn", "name", json!("Web shop")),
        (
            "OrderChannelIn",
            "shopDomain",
            json!("my-store.myshopify.com"),
        ),
        ("QuoteItemIn", "quantity", json!(2)),
        ("QuoteItemIn", "grams", json!(600)),
        ("QuoteItemIn", "price", json!(19900)),
        ("DestinationIn", "country", json!("SE")),
        ("DestinationIn", "postalCode", json!("11122")),
        ("BrandingIn", "color", json!("#0b5fff")),
        ("MemberIn", "email", json!("ann@example.com")),
        ("MemberIn", "name", json!("Ann Packer")),
    ]);
    all
}

/// Writes the formats and examples into `document`.
pub fn apply(document: &mut Value) {
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for schema in schemas.values_mut() {
            let properties = schema.get_mut("properties").and_then(Value::as_object_mut);
            for (name, property) in properties.into_iter().flatten() {
                if name.ends_with("At") && property["type"] == "string" {
                    property["format"] = "date-time".into();
                }
            }
        }
    }
    if let Some(date) = document.pointer_mut("/components/schemas/PickupDetails/properties/date") {
        date["format"] = "date".into();
    }
    let paths = document
        .get_mut("paths")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut());
    for operation in paths.flat_map(|item| item.as_object_mut().into_iter().flatten()) {
        let parameters = operation
            .1
            .get_mut("parameters")
            .and_then(Value::as_array_mut);
        for parameter in parameters.into_iter().flatten() {
            let name = parameter["name"].as_str().unwrap_or_default();
            if matches!(name, "createdFrom" | "createdTo") {
                parameter["schema"]["format"] = "date-time".into();
            }
        }
    }
    for (schema, property, example) in examples() {
        let pointer = format!("/components/schemas/{schema}/properties/{property}");
        if let Some(target) = document.pointer_mut(&pointer) {
            target["example"] = example;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_names_a_property_and_fits_it() {
        let document = crate::api::openapi::document();
        for (schema, property, example) in examples() {
            let pointer = format!("/components/schemas/{schema}/properties/{property}");
            let target = document
                .pointer(&pointer)
                .unwrap_or_else(|| panic!("no property {pointer}"));
            assert_eq!(target["example"], example, "{pointer}");
            let kind = match &example {
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Number(n) if n.is_i64() => "integer",
                _ => "number",
            };
            let declared = target["type"].as_str().unwrap_or_default();
            assert!(
                declared == kind || (declared == "number" && kind == "integer"),
                "{pointer}: {declared} vs {example}"
            );
            let items = |v: &Value| v.as_array().cloned().unwrap_or_else(|| vec![v.clone()]);
            let allowed = target["enum"]
                .as_array()
                .or_else(|| target["items"]["enum"].as_array());
            if let Some(allowed) = allowed {
                for value in items(&example) {
                    assert!(
                        allowed.contains(&value),
                        "{pointer}: {value} not in {allowed:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn timestamps_are_date_times() {
        let document = crate::api::openapi::document();
        let created = &document["components"]["schemas"]["Shipment"]["properties"]["createdAt"];
        assert_eq!(created["format"], "date-time");
        let event = &document["components"]["schemas"]["TrackingEventIn"]["properties"];
        assert_eq!(event["occurredAt"]["format"], "date-time");
    }
}
