//! Generated values of the models, for the property tests that compare the answers written
//! from stored representations with the models' own serialization.

use poem_openapi::types::Base64;
use proptest::prelude::*;
use serde_json::Value;

use crate::model::{
    carrier::{Carrier, CarrierIn, CarrierRecord},
    document::Document,
    order::{OrderBody, OrderLine, OrderRecord, ShippingAddress},
    sender_address::{SenderAddress, SenderAddressIn},
    shipment::{
        CarrierSettings, Dimensions, Parcel, ParcelOrderLine, Party, PickupDetails, ShipmentBody,
        ShipmentRecord, Tracking, TrackingEvent,
    },
    shipping_rule::{
        Condition, NameVal, Ref, ShippingRuleIn, ShippingRuleRecord, ShippingRuleSummary,
    },
    status::{OrderStatus, ShipmentStatus, TrackingStatus},
};

/// Text with what JSON escapes: quotes, backslashes, control characters, non-ASCII.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![
        "[a-zA-Z0-9 _-]{0,12}",
        ".{0,6}",
        Just("quote \" back \\ tab \t nl \n nul \u{0} del \u{7f}".to_string()),
        Just("Ærøskøbing – Łódź – Θεσσαλονίκη – Київ – 😀".to_string()),
        Just("</script><!--".to_string()),
    ]
    .boxed()
}

pub fn maybe_text() -> BoxedStrategy<Option<String>> {
    prop::option::of(text()).boxed()
}

pub fn number() -> BoxedStrategy<f64> {
    prop_oneof![
        prop::num::f64::NORMAL | prop::num::f64::ZERO | prop::num::f64::SUBNORMAL,
        (0u32..100_000).prop_map(|n| f64::from(n) / 100.0),
    ]
    .boxed()
}

pub fn json() -> BoxedStrategy<Value> {
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

pub fn party() -> BoxedStrategy<Party> {
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

pub fn line() -> BoxedStrategy<ParcelOrderLine> {
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

pub fn parcel() -> BoxedStrategy<Parcel> {
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

pub fn tracking_status() -> BoxedStrategy<TrackingStatus> {
    prop::sample::select(TrackingStatus::ALL.to_vec()).boxed()
}

pub fn tracking() -> BoxedStrategy<Tracking> {
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

pub fn shipment_body() -> BoxedStrategy<ShipmentBody> {
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

pub fn shipment() -> BoxedStrategy<ShipmentRecord> {
    (
        (text(), text(), text(), text(), text(), text()),
        prop::sample::select(ShipmentStatus::ALL.to_vec()),
        (maybe_text(), maybe_text(), maybe_text(), maybe_text()),
        any::<i64>(),
        shipment_body(),
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

pub fn document() -> BoxedStrategy<Document> {
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

pub fn rule_summary() -> BoxedStrategy<ShippingRuleSummary> {
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

pub fn address() -> BoxedStrategy<SenderAddress> {
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

fn maybe_number() -> BoxedStrategy<Option<f64>> {
    prop::option::of(number()).boxed()
}

fn maybe_bool() -> BoxedStrategy<Option<bool>> {
    prop::option::of(any::<bool>()).boxed()
}

pub fn order_line() -> BoxedStrategy<OrderLine> {
    (
        (text(), number(), maybe_text()),
        (maybe_number(), maybe_number(), maybe_text()),
        (maybe_number(), maybe_text(), maybe_text(), maybe_text()),
        (
            maybe_text(),
            maybe_text(),
            maybe_text(),
            maybe_text(),
            maybe_text(),
        ),
        (maybe_bool(), maybe_bool(), maybe_bool(), maybe_text()),
    )
        .prop_map(
            |(
                (name, quantity, sku),
                (unit_price, total_price, currency),
                (weight, weight_unit, variant_id, product_id),
                (image_url, hs_code, country_of_origin, province_of_origin, barcode),
                (requires_shipping, taxable, gift_card, vendor),
            )| OrderLine {
                name,
                quantity,
                sku,
                unit_price,
                total_price,
                currency,
                weight,
                weight_unit,
                variant_id,
                product_id,
                image_url,
                hs_code,
                country_of_origin,
                province_of_origin,
                barcode,
                requires_shipping,
                taxable,
                gift_card,
                vendor,
            },
        )
        .boxed()
}

pub fn shipping_address() -> BoxedStrategy<ShippingAddress> {
    (
        (maybe_text(), maybe_text(), maybe_text(), maybe_text()),
        (maybe_text(), maybe_text(), maybe_text(), maybe_text()),
        (
            maybe_text(),
            maybe_text(),
            maybe_text(),
            maybe_text(),
            maybe_text(),
        ),
    )
        .prop_map(
            |(
                (name, address1, city, postal_code),
                (country_code, attention, company, address2),
                (province, province_code, country, phone, email),
            )| ShippingAddress {
                name,
                address1,
                city,
                postal_code,
                country_code,
                attention,
                company,
                address2,
                province,
                province_code,
                country,
                phone,
                email,
            },
        )
        .boxed()
}

pub fn order_body() -> BoxedStrategy<OrderBody> {
    (
        prop::collection::vec(order_line(), 0..3),
        (maybe_text(), maybe_text(), maybe_text(), maybe_text()),
        maybe_number(),
        prop::option::of(shipping_address()),
        // `Some(null)` reads back as `None` from any JSON: no order has it.
        prop::option::of(json().prop_filter("not null", |v| !v.is_null())),
    )
        .prop_map(
            |(
                order_lines,
                (customer_name, customer_email, notes, currency),
                total_amount,
                shipping_address,
                external_data,
            )| OrderBody {
                order_lines,
                customer_name,
                customer_email,
                notes,
                currency,
                total_amount,
                shipping_address,
                external_data,
            },
        )
        .boxed()
}

pub fn order() -> BoxedStrategy<OrderRecord> {
    (
        (text(), text(), text(), text()),
        (maybe_text(), maybe_text()),
        prop::sample::select(OrderStatus::ALL.to_vec()),
        order_body(),
        (text(), text()),
    )
        .prop_map(
            |(
                (id, org_id, order_channel_id, order_number),
                (external_id, shipping_rule_id),
                status,
                body,
                (created_at, updated_at),
            )| OrderRecord {
                id,
                org_id,
                order_channel_id,
                order_number,
                external_id,
                status,
                shipping_rule_id,
                body,
                created_at,
                updated_at,
            },
        )
        .boxed()
}

pub fn reference() -> BoxedStrategy<Ref> {
    (text(), text())
        .prop_map(|(id, name)| Ref { id, name })
        .boxed()
}

fn condition() -> BoxedStrategy<Condition> {
    (
        text(),
        (maybe_number(), maybe_number(), maybe_text(), maybe_number()),
        (number(), text()),
    )
        .prop_map(
            |(kind, (min, max, operator, value), (shipping_price, currency))| Condition {
                kind,
                min,
                max,
                operator,
                value,
                shipping_price,
                currency,
            },
        )
        .boxed()
}

fn texts() -> BoxedStrategy<Vec<String>> {
    prop::collection::vec(text(), 0..3).boxed()
}

pub fn rule() -> BoxedStrategy<ShippingRuleRecord> {
    let fields = (
        (text(), maybe_text(), text(), text(), texts()),
        (
            prop::collection::vec(
                (text(), text()).prop_map(|(name, val)| NameVal { name, val }),
                0..3,
            ),
            text(),
            texts(),
            prop::collection::vec(condition(), 0..3),
        ),
        prop::array::uniform8(any::<bool>()),
        (maybe_text(), maybe_text(), maybe_text()),
        (maybe_text(), texts()),
    )
        .prop_map(
            |(
                (name, description, carrier_id, product_id, services),
                (additional_parameters, sender_address_id, receiving_countries, conditions),
                flags,
                (label_printer_id, document_printer_id, return_shipping_rule_id),
                (carrier_selection, selection_carrier_ids),
            )| ShippingRuleIn {
                name,
                description,
                carrier_id,
                product_id,
                services,
                additional_parameters,
                sender_address_id,
                receiving_countries,
                email_notification: flags[0],
                phone_notification: flags[1],
                conditions,
                generate_proforma_invoice: flags[2],
                generate_commercial_invoice: flags[3],
                generate_packing_list: flags[4],
                auto_print_labels: flags[5],
                auto_print_documents: flags[6],
                label_printer_id,
                document_printer_id,
                return_shipping_rule_id,
                auto_create_return_shipment: flags[7],
                carrier_selection,
                selection_carrier_ids,
            },
        );
    ((text(), text()), fields, (text(), text()))
        .prop_map(
            |((id, org_id), fields, (created_at, updated_at))| ShippingRuleRecord {
                id,
                org_id,
                fields,
                created_at,
                updated_at,
            },
        )
        .boxed()
}

pub fn carrier() -> BoxedStrategy<Carrier> {
    (
        (text(), text(), text(), text()),
        prop::collection::btree_map(text(), json(), 0..3),
        (text(), text()),
    )
        .prop_map(
            |((id, name, carrier_slug, sender_address_id), config, (created_at, updated_at))| {
                Carrier {
                    carrier: CarrierRecord {
                        id,
                        org_id: "org_1".into(),
                        fields: CarrierIn {
                            name,
                            carrier_slug,
                            config,
                            sender_address_id,
                        },
                        created_at,
                        updated_at,
                    },
                    sender_address: None,
                }
            },
        )
        .boxed()
}
