//! Property tests of the strict body decoder (DESIGN §5) every request body and MCP argument
//! object goes through: whatever bytes or JSON arrive, it answers Ok, `invalid_json` or
//! `validation_failed` naming fields — never a panic, never an internal error; an unknown field
//! is named; a missing required field is named.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use shipbase::{
    error::Error,
    model::{
        member::MemberIn, org::OrgIn, sender_address::SenderAddressIn, shipment::ShipmentIn,
        shipping_rule::ShippingRuleIn, webhook::WebhookIn,
    },
    service::{decode_json, decode_value},
};

/// Field names the bodies know, so that generated objects reach past the first level.
const NAMES: &[&str] = &[
    "parties",
    "parcels",
    "orderLines",
    "carrierSettings",
    "carrierId",
    "productId",
    "services",
    "additionalParameters",
    "type",
    "name",
    "address1",
    "postalCode",
    "city",
    "countryCode",
    "weight",
    "sku",
    "quantity",
    "reference",
    "senderAddressId",
    "conditions",
    "role",
    "brand",
    "email",
    "url",
    "events",
    "isActive",
    "slug",
    "creatorEmail",
    "existingUser",
    "customs",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "owner", "admin", "member", "attach", "outbound", "receiver"
        ])
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(NAMES.to_vec()).prop_map(str::to_string),
                        "[a-zA-Z]{1,8}"
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// The decoder's answer is one a client can be given.
fn answered_plainly<T>(outcome: Result<T, Error>) -> Result<(), TestCaseError> {
    match outcome {
        Ok(_) | Err(Error::InvalidJson(_)) => Ok(()),
        Err(Error::Validation(errors)) => {
            prop_assert!(!errors.is_empty());
            for error in errors {
                prop_assert!(!error.field.is_empty() && !error.message.is_empty());
                prop_assert!(!error.message.contains("serde"), "{}", error.message);
            }
            Ok(())
        }
        Err(other) => Err(TestCaseError::fail(format!(
            "not a client error: {other:?}"
        ))),
    }
}

fn every_body(value: &Value) -> Result<(), TestCaseError> {
    answered_plainly(decode_value::<ShipmentIn>(value.clone()))?;
    answered_plainly(decode_value::<ShippingRuleIn>(value.clone()))?;
    answered_plainly(decode_value::<SenderAddressIn>(value.clone()))?;
    answered_plainly(decode_value::<WebhookIn>(value.clone()))?;
    answered_plainly(decode_value::<MemberIn>(value.clone()))?;
    answered_plainly(decode_value::<OrgIn>(value.clone()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_bytes_get_a_plain_answer(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        answered_plainly(decode_json::<ShipmentIn>(&bytes))?;
        answered_plainly(decode_json::<MemberIn>(&bytes))?;
    }

    #[test]
    fn any_json_gets_a_plain_answer(value in json_value()) {
        every_body(&value)?;
    }

    #[test]
    fn an_unknown_field_is_named(key in "[a-z]{3,10}Z", value in json_value()) {
        let mut body = json!({"email": "a@example.com", "name": "A", "role": "member"});
        body[&key] = value;
        match decode_value::<MemberIn>(body) {
            Err(Error::Validation(errors)) => {
                prop_assert!(errors.iter().any(|e| e.field == key), "{errors:?}");
            }
            other => prop_assert!(false, "{key}: {other:?}"),
        }
    }

    #[test]
    fn every_missing_required_field_is_named(drop in prop::collection::vec(any::<bool>(), 3)) {
        let mut body = json!({"email": "a@example.com", "name": "A", "role": "member"});
        let fields = ["email", "name", "role"];
        let dropped: Vec<&str> = fields
            .iter()
            .zip(&drop)
            .filter(|(_, d)| **d)
            .map(|(f, _)| *f)
            .collect();
        for field in &dropped {
            body.as_object_mut().map(|o| o.remove(*field));
        }
        match decode_value::<MemberIn>(body) {
            Ok(_) => prop_assert!(dropped.is_empty()),
            Err(Error::Validation(errors)) => {
                let named: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
                for field in &dropped {
                    prop_assert!(named.contains(field), "{field} not named: {named:?}");
                }
            }
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }
}
