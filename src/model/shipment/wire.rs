//! A shipment's stored representation (the `repr` column) and the answers written from it: the
//! full form and the list item, byte for byte what their models serialize to.

use poem_openapi::types::ToJSON;

use crate::model::{
    document::Document,
    shipment::ShipmentRecord,
    shipping_rule::ShippingRuleSummary,
    wire::{self, Member},
};

/// The one member of a shipment's public JSON its stored representation leaves out: deleting a
/// rule clears it in the row alone (`ON DELETE SET NULL`), so answers take it from the column.
const RULE_ID: &str = "shippingRuleId";

/// The members of a list item taken from the representation; `senderAddress` is added.
const LIST_MEMBERS: [&str; 7] = [
    "carrierSettings",
    "createdAt",
    "id",
    "reference",
    "status",
    "type",
    "updatedAt",
];

/// What the unit of work stores with every write of a shipment: its public JSON (the members of
/// `Shipment` but `documents`, `shippingRule` and `shippingRuleId`).
pub fn repr(s: &ShipmentRecord) -> String {
    let mut json = s.to_json().unwrap_or_default();
    if let Some(object) = json.as_object_mut() {
        object.remove(RULE_ID);
    }
    serde_json::to_string(&json).unwrap_or_default()
}

/// `Shipment` from the representation, the rule id of the row, the documents and the rule.
pub fn full(
    repr: &str,
    shipping_rule_id: Option<&str>,
    documents: &[Document],
    rule: Option<&ShippingRuleSummary>,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let documents: Vec<Vec<u8>> = documents.iter().map(wire::to_vec).collect();
    let mut list = Vec::with_capacity(2 + documents.iter().map(Vec::len).sum::<usize>());
    wire::array(documents.iter().map(Vec::as_slice), &mut list);
    let rule = match rule {
        Some(rule) => wire::to_vec(rule),
        None => b"null".to_vec(),
    };
    let rule_id = serde_json::to_vec(&shipping_rule_id)?;
    let extra: [Member; 3] = [
        ("documents", &list),
        ("shippingRule", &rule),
        (RULE_ID, &rule_id),
    ];
    wire::merge(repr, |_| true, &extra, out)
}

/// `ShipmentListItem` from the representation and the JSON of the sender address.
pub fn list_item(repr: &str, sender_address: &[u8], out: &mut Vec<u8>) -> serde_json::Result<()> {
    wire::merge(
        repr,
        |key| LIST_MEMBERS.contains(&key),
        &[("senderAddress", sender_address)],
        out,
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use poem_openapi::types::Base64;
    use proptest::{prelude::*, strategy::ValueTree};
    use serde_json::Value;

    use super::*;
    use crate::model::{
        sender_address::{SenderAddress, SenderAddressIn},
        shipment::{
            CarrierSettings, Dimensions, Parcel, ParcelOrderLine, Party, PickupDetails, Shipment,
            ShipmentBody, ShipmentListItem, Tracking, TrackingEvent,
        },
        status::{ShipmentStatus, TrackingStatus},
    };

    /// Text with what JSON escapes: quotes, backslashes, control characters, non-ASCII.
    fn text() -> BoxedStrategy<String> {
        prop_oneof![
            "[a-zA-Z0-9 _-]{0,12}",
            ".{0,6}",
            Just("quote \" back \\ tab \t nl \n nul \u{0} del \u{7f}".to_string()),
            Just("Ærøskøbing – Łódź – Θεσσαλονίκη – Київ – 😀".to_string()),
            Just("</script><!--".to_string()),
        ]
        .boxed()
    }

    fn maybe_text() -> BoxedStrategy<Option<String>> {
        prop::option::of(text()).boxed()
    }

    fn number() -> BoxedStrategy<f64> {
        prop_oneof![
            prop::num::f64::NORMAL | prop::num::f64::ZERO | prop::num::f64::SUBNORMAL,
            (0u32..100_000).prop_map(|n| f64::from(n) / 100.0),
        ]
        .boxed()
    }

    fn json() -> BoxedStrategy<Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            number().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(text(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
        .boxed()
    }

    fn party() -> BoxedStrategy<Party> {
        (
            (text(), text(), text(), text(), text(), text()),
            prop::collection::vec(json(), 0..3),
            (maybe_text(), maybe_text(), maybe_text(), maybe_text()),
        )
            .prop_map(
                |(
                    (kind, name, address1, postal_code, city, country_code),
                    attributes,
                    (attention, address2, email, phone),
                )| Party {
                    kind,
                    name,
                    address1,
                    postal_code,
                    city,
                    country_code,
                    attributes,
                    attention,
                    address2,
                    email,
                    phone,
                },
            )
            .boxed()
    }

    fn line() -> BoxedStrategy<ParcelOrderLine> {
        (
            (text(), text(), any::<i64>()),
            (maybe_text(), prop::option::of(number()), maybe_text()),
            (
                prop::option::of(number()),
                maybe_text(),
                maybe_text(),
                maybe_text(),
            ),
        )
            .prop_map(
                |(
                    (id, sku, quantity),
                    (description, unit_price, currency),
                    (vat_percent, location, country_of_origin, tarrif_number),
                )| ParcelOrderLine {
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
                },
            )
            .boxed()
    }

    fn parcel() -> BoxedStrategy<Parcel> {
        (
            (text(), number(), text()),
            prop::option::of((number(), number(), number())),
            prop::collection::vec(line(), 0..3),
            maybe_text(),
        )
            .prop_map(
                |((id, weight, weight_unit), dimensions, order_lines, tracking_number)| Parcel {
                    id,
                    weight,
                    weight_unit,
                    dimensions: dimensions.map(|(length, width, height)| Dimensions {
                        length,
                        width,
                        height,
                    }),
                    order_lines,
                    tracking_number,
                },
            )
            .boxed()
    }

    fn tracking_status() -> BoxedStrategy<TrackingStatus> {
        prop::sample::select(TrackingStatus::ALL.to_vec()).boxed()
    }

    fn tracking() -> BoxedStrategy<Tracking> {
        let event = (tracking_status(), maybe_text(), maybe_text(), text()).prop_map(
            |(status, description, location, occurred_at)| TrackingEvent {
                status,
                description,
                location,
                occurred_at,
            },
        );
        (
            maybe_text(),
            maybe_text(),
            prop::option::of(tracking_status()),
            prop::collection::vec(event, 0..3),
        )
            .prop_map(|(url, number, status, events)| Tracking {
                url,
                number,
                status,
                events,
            })
            .boxed()
    }

    fn body() -> BoxedStrategy<ShipmentBody> {
        let settings = (
            text(),
            text(),
            prop::collection::vec(text(), 0..3),
            prop::collection::btree_map(text(), json(), 0..3),
        )
            .prop_map(
                |(carrier_id, product_id, services, additional_parameters)| CarrierSettings {
                    carrier_id,
                    product_id,
                    services,
                    additional_parameters: additional_parameters.into_iter().collect(),
                },
            );
        let pickup = (maybe_text(), maybe_text(), maybe_text(), maybe_text()).prop_map(
            |(date, from, to, instruction)| PickupDetails {
                date,
                from,
                to,
                instruction,
            },
        );
        (
            prop::collection::vec(party(), 0..3),
            settings,
            prop::collection::vec(parcel(), 0..3),
            (maybe_text(), prop::option::of(pickup)),
            prop::option::of(tracking()),
            (maybe_text(), maybe_text()),
        )
            .prop_map(
                |(
                    parties,
                    carrier_settings,
                    parcels,
                    (service_point_id, pickup_details),
                    tracking,
                    (language, tracking_url),
                )| ShipmentBody {
                    parties,
                    carrier_settings,
                    parcels,
                    service_point_id,
                    pickup_details,
                    tracking,
                    language,
                    tracking_url,
                },
            )
            .boxed()
    }

    fn record() -> BoxedStrategy<ShipmentRecord> {
        (
            (text(), text(), text(), text(), text(), text()),
            prop::sample::select(ShipmentStatus::ALL.to_vec()),
            (maybe_text(), maybe_text(), maybe_text(), maybe_text()),
            any::<i64>(),
            body(),
            (text(), text()),
        )
            .prop_map(
                |(
                    (id, org_id, reference, sender_address_id, kind, term_of_trade),
                    status,
                    (order_id, shipping_rule_id, return_of, split_from),
                    splits_made,
                    body,
                    (created_at, updated_at),
                )| ShipmentRecord {
                    id,
                    org_id,
                    reference,
                    sender_address_id,
                    kind,
                    status,
                    term_of_trade,
                    order_id,
                    shipping_rule_id,
                    return_of,
                    split_from,
                    splits_made,
                    body,
                    created_at,
                    updated_at,
                },
            )
            .boxed()
    }

    fn document() -> BoxedStrategy<Document> {
        (
            (text(), text(), text(), text(), text(), text()),
            prop::collection::vec(any::<u8>(), 0..64),
            (text(), text()),
        )
            .prop_map(
                |(
                    (id, org_id, shipment_id, document_type, format, size),
                    content,
                    (created_at, updated_at),
                )| Document {
                    id,
                    org_id,
                    shipment_id,
                    document_type,
                    format,
                    size,
                    content: Base64(content),
                    created_at,
                    updated_at,
                },
            )
            .boxed()
    }

    fn rule() -> BoxedStrategy<ShippingRuleSummary> {
        (
            (text(), text(), text(), text()),
            prop::collection::vec(text(), 0..3),
            (text(), maybe_text(), any::<bool>()),
        )
            .prop_map(
                |(
                    (id, name, carrier_id, product_id),
                    services,
                    (sender_address_id, return_shipping_rule_id, auto_create_return_shipment),
                )| ShippingRuleSummary {
                    id,
                    name,
                    carrier_id,
                    product_id,
                    services,
                    sender_address_id,
                    return_shipping_rule_id,
                    auto_create_return_shipment,
                },
            )
            .boxed()
    }

    fn address() -> BoxedStrategy<SenderAddress> {
        (
            (text(), text(), text(), maybe_text()),
            (text(), text(), text(), text()),
            prop::option::of(prop::collection::btree_map(text(), json(), 0..3)),
        )
            .prop_map(
                |((id, name, address1, address2), (city, country_code, email, at), customs)| {
                    SenderAddress {
                        id,
                        fields: SenderAddressIn {
                            name,
                            att_contact: "Mette".into(),
                            address1,
                            address2,
                            zipcode: "8000".into(),
                            city,
                            phone: "+4512345678".into(),
                            country_code,
                            state: "Midtjylland".into(),
                            email,
                            customs,
                        },
                        org_id: "org_1".into(),
                        created_at: at.clone(),
                        updated_at: at,
                    }
                },
            )
            .boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn the_full_form_is_the_models(
            shipment in record(),
            documents in prop::collection::vec(document(), 0..3),
            rule in prop::option::of(rule()),
        ) {
            let model = Shipment {
                shipment: shipment.clone(),
                documents: documents.clone(),
                shipping_rule: rule.clone(),
            };
            let mut out = Vec::new();
            full(
                &repr(&shipment),
                shipment.shipping_rule_id.as_deref(),
                &documents,
                rule.as_ref(),
                &mut out,
            )
            .expect("merges");
            prop_assert_eq!(String::from_utf8(out).expect("utf-8"), String::from_utf8(wire::to_vec(&model)).expect("utf-8"));
        }

        #[test]
        fn the_model_reads_its_parts_from_the_representation(shipment in record()) {
            let body: ShipmentBody = serde_json::from_str(&repr(&shipment)).expect("reads");
            prop_assert_eq!(body, shipment.body);
        }

        #[test]
        fn the_list_item_is_the_models(shipment in record(), address in address()) {
            let mut out = Vec::new();
            list_item(&repr(&shipment), &wire::to_vec(&address), &mut out).expect("merges");
            let model = ShipmentListItem::new(shipment, address);
            prop_assert_eq!(String::from_utf8(out).expect("utf-8"), String::from_utf8(wire::to_vec(&model)).expect("utf-8"));
        }
    }

    #[test]
    fn the_representation_leaves_the_rule_id_to_the_row() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut shipment = record().new_tree(&mut runner).expect("generates").current();
        shipment.shipping_rule_id = Some("rul_1".into());
        let stored: BTreeMap<String, Value> =
            serde_json::from_str(&repr(&shipment)).expect("an object");
        assert!(!stored.contains_key(RULE_ID));
        assert_eq!(stored["id"], Value::String(shipment.id.clone()));
        let mut out = Vec::new();
        full(&repr(&shipment), None, &[], None, &mut out).expect("merges");
        let answer: BTreeMap<String, Value> = serde_json::from_slice(&out).expect("an object");
        assert_eq!(answer[RULE_ID], Value::Null);
        assert_eq!(answer["documents"], Value::Array(Vec::new()));
    }
}
