//! The one-pass reading (`one_pass`) takes no body the schema check (`decode::checked`) refuses,
//! and reads what it takes into the same value: for every request body type, a body with every
//! field filled and each of its variants with one thing wrong (a field left out, null, of
//! another type, an array for an object, an unknown field), at every depth.

use std::fmt::Debug;

use poem_openapi::{registry::MetaSchemaRef, types::Type};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::{
    decode,
    merge_patch::MergePatch,
    one_pass,
    strict::{self, Compiled},
};
use crate::model::{
    address_check::AddressCheckIn,
    api_token::{ApiTokenIn, ApiTokenPatchIn},
    branding::BrandingIn,
    carrier::CarrierIn,
    manifest::{ManifestIn, ManifestPrintIn},
    member::{MemberIn, MemberPatchIn},
    notification::{NotificationPreviewIn, NotificationSettings},
    order::{OrderIn, OrderShipmentIn},
    order_channel::OrderChannelIn,
    org::{OrgIn, OrgPatchIn},
    pdf_merge::DocumentMergeIn,
    pickup::PickupIn,
    printer::{PrintIn, PrinterIn},
    quote::QuoteIn,
    rate::RatesIn,
    returns_portal::ReturnsPortal,
    sender_address::SenderAddressIn,
    shipment::{
        ApplyRuleIn, BatchSplitIn, BookIn, ShipmentIn, ShipmentPatch, SplitIn, StatusIn,
        TrackingEventIn,
    },
    shipping_rule::ShippingRuleIn,
    webhook::{WebhookIn, WebhookPatchIn},
};

/// A value of `schema` with every field present, filled with plausible values.
fn example(compiled: &Compiled, schema: &MetaSchemaRef, depth: usize) -> Value {
    let Some(schema) = strict::resolve_through(compiled, schema) else {
        return json!({});
    };
    if let Some(first) = schema.any_of.first().or(schema.one_of.first()) {
        return example(compiled, first, depth);
    }
    if depth > 8 {
        return Value::Null;
    }
    match schema.ty {
        "object" => Value::Object(
            schema
                .properties
                .iter()
                .map(|(name, property)| {
                    ((*name).to_string(), example(compiled, property, depth + 1))
                })
                .collect(),
        ),
        "array" => match &schema.items {
            Some(item) => json!([example(compiled, item, depth + 1)]),
            None => json!([]),
        },
        "string" => match (schema.enum_items.first(), schema.format) {
            (Some(first), _) => first.clone(),
            (None, Some("date-time")) => json!("2026-11-27T10:00:00Z"),
            (None, Some("date")) => json!("2026-11-27"),
            (None, Some("email")) => json!("anna@example.com"),
            (None, Some("uri" | "url")) => json!("https://example.com/hook"),
            _ => json!("DE"),
        },
        "integer" => json!(1),
        "number" => json!(1.5),
        "boolean" => json!(true),
        _ => json!({}),
    }
}

/// `value` with one thing wrong in each of them.
fn variants(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match value {
        Value::Object(object) => {
            let mut unknown = object.clone();
            unknown.insert("zzUnknown".into(), json!(1));
            out.push(Value::Object(unknown));
            out.push(Value::Array(object.values().cloned().collect()));
            for (key, child) in object {
                let with = |v: Option<Value>| {
                    let mut changed: Map<String, Value> = object.clone();
                    match v {
                        Some(v) => changed.insert(key.clone(), v),
                        None => changed.remove(key),
                    };
                    Value::Object(changed)
                };
                out.push(with(None));
                out.push(with(Some(Value::Null)));
                out.extend(variants(child).into_iter().map(|v| with(Some(v))));
            }
        }
        Value::Array(items) => {
            out.push(json!([]));
            if let Some(first) = items.first() {
                out.extend(variants(first).into_iter().map(|v| json!([v])));
            }
        }
        Value::String(_) => out.extend([json!(7), json!("")]),
        Value::Number(_) => out.extend([json!("1"), json!(2.5), json!(-1)]),
        Value::Bool(_) => out.push(json!("true")),
        Value::Null => out.push(json!({})),
    }
    out
}

/// Checks `T`'s example and its variants; the number of bodies both paths took.
fn agree<T>() -> usize
where
    T: DeserializeOwned + Type + Debug + 'static,
{
    agree_as::<T>(|body| format!("{body:?}"))
}

/// `agree` for a type that does not print itself (it may hold a secret): the verdicts only.
fn agree_verdicts<T: DeserializeOwned + Type + 'static>() -> usize {
    agree_as::<T>(|_| String::new())
}

fn agree_as<T>(show: impl Fn(&T) -> String) -> usize
where
    T: DeserializeOwned + Type + 'static,
{
    let compiled = strict::compiled::<T>();
    let base = example(&compiled, &compiled.root, 0);
    let mut taken = 0;
    for body in std::iter::once(base.clone()).chain(variants(&base)) {
        let text = serde_json::to_vec(&body).expect("serializes");
        let fast = one_pass::decode::<T>(&text);
        let from_value = one_pass::decode_value::<T>(&body);
        let slow = decode::checked::<T>(body.clone());
        assert_eq!(
            fast.as_ref().map(&show),
            from_value.as_ref().map(&show),
            "{} {body}",
            T::name()
        );
        match (fast, slow) {
            (Some(fast), Ok(slow)) => {
                assert_eq!(show(&fast), show(&slow), "{body}");
                taken += 1;
            }
            (Some(_), Err(e)) => panic!(
                "{}: one pass took {body}, the check refused it: {e:?}",
                T::name()
            ),
            (None, _) => {}
        }
    }
    taken
}

#[test]
fn one_pass_takes_no_body_the_schema_check_refuses() {
    let taken = [
        agree::<AddressCheckIn>(),
        agree_verdicts::<ApiTokenIn>(),
        agree_verdicts::<ApiTokenPatchIn>(),
        agree::<ApplyRuleIn>(),
        agree::<BatchSplitIn>(),
        agree::<BookIn>(),
        agree::<BrandingIn>(),
        agree::<CarrierIn>(),
        agree::<DocumentMergeIn>(),
        agree::<ManifestIn>(),
        agree::<ManifestPrintIn>(),
        agree::<MemberIn>(),
        agree::<MemberPatchIn>(),
        agree::<NotificationPreviewIn>(),
        agree::<NotificationSettings>(),
        agree_verdicts::<OrderChannelIn>(),
        agree::<OrderIn>(),
        agree_verdicts::<OrderShipmentIn>(),
        agree_verdicts::<OrgIn>(),
        agree_verdicts::<OrgPatchIn>(),
        agree::<PickupIn>(),
        agree::<PrintIn>(),
        agree::<PrinterIn>(),
        agree_verdicts::<QuoteIn>(),
        agree::<RatesIn>(),
        agree::<ReturnsPortal>(),
        agree::<SenderAddressIn>(),
        agree::<ShipmentIn>(),
        agree_verdicts::<MergePatch<ShipmentPatch>>(),
        agree::<ShippingRuleIn>(),
        agree::<SplitIn>(),
        agree::<StatusIn>(),
        agree::<TrackingEventIn>(),
        agree::<WebhookIn>(),
        agree::<WebhookPatchIn>(),
    ];
    // Each type's full example is valid, so the fast path is taken for real bodies; a merge
    // patch reads itself as a map and is always checked by the schema.
    let patch = 28;
    assert_eq!(taken[patch], 0);
    assert!(
        (taken.iter().enumerate()).all(|(i, &n)| i == patch || n > 0),
        "{taken:?}"
    );
}
